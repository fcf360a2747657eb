//===- Passes.h - target-neutral code generation passes ---------*- C++ -*-===//
//
// Declares the passes every target pipeline shares after the lowering to
// linalg (generated from Passes.td) and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_COMMON_PASSES_H
#define QUANT_BLOCK_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_block {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "quant-block/Codegen/Common/Passes.h.inc"

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_COMMON_PASSES_H
