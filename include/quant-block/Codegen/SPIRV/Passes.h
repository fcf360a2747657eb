//===- Passes.h - SPIR-V code generation passes -----------------*- C++ -*-===//
//
// Declares the passes of --quant-block-spirv-pipeline alone (generated from
// Passes.td) and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_SPIRV_PASSES_H
#define QUANT_BLOCK_CODEGEN_SPIRV_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_block {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "quant-block/Codegen/SPIRV/Passes.h.inc"

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_SPIRV_PASSES_H
