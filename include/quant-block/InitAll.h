//===- InitAll.h - register everything quant-block provides -----*- C++ -*-===//
//
// One place for embedders (and quant-opt) to register the quant_block dialect
// and every quant-block pass and pipeline, in the style of
// mlir/InitAllDialects.h and mlir/InitAllPasses.h.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_INITALL_H
#define QUANT_BLOCK_INITALL_H

#include "quant-block/Codegen/CPU/Passes.h"
#include "quant-block/Codegen/Common/Passes.h"
#include "quant-block/Codegen/GPU/Passes.h"
#include "quant-block/Codegen/NVVM/Passes.h"
#include "quant-block/Codegen/SPIRV/Passes.h"
#include "quant-block/Conversion/Passes.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"
#include "quant-block/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::quant_block {

/// Adds the quant_block dialect to `registry`.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<QuantBlockDialect>();
}

/// Registers every quant-block pass and pipeline with the global pass
/// registry (for command-line use).
inline void registerAllPasses() {
  registerQuantBlockTransformsPasses();
  registerQuantBlockConversionPasses();
  registerQuantBlockCodegenCommonPasses();
  registerQuantBlockCodegenCPUPasses();
  registerQuantBlockCodegenGPUPasses();
  registerQuantBlockCodegenNVVMPasses();
  registerQuantBlockCodegenSPIRVPasses();
  registerPipelines();
}

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_INITALL_H
