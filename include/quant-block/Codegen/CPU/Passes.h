//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Declares the CPU back-half passes of --quant-block-cpu-pipeline (generated
// from Passes.td) and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_CPU_PASSES_H
#define QUANT_BLOCK_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_block {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "quant-block/Codegen/CPU/Passes.h.inc"

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_CPU_PASSES_H
