//===- Passes.h - GPU code generation passes --------------------*- C++ -*-===//
//
// Declares the passes of the GPU middle and back halves of
// --quant-block-spirv-pipeline and --quant-block-nvvm-pipeline (generated
// from Passes.td) and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_GPU_PASSES_H
#define QUANT_BLOCK_CODEGEN_GPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_block {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "quant-block/Codegen/GPU/Passes.h.inc"

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_GPU_PASSES_H
