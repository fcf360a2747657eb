//===- BufferizationStage.cpp - tensors to buffers, for every target ------===//
//
// Every target pipeline bufferizes the same way, so that what callers pass
// is what the signature says on every target: function boundaries keep
// identity-layout memrefs (mlir-runner, C callers and the GPU runtime
// wrappers pass plain buffers), every tensor is bufferized and every buffer
// the code allocates is deallocated.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "quant-block/Codegen/Common/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_block;

void mlir::quant_block::buildBufferizationStage(OpPassManager &pm) {
  // The runner utilities only read their arguments: without this, one-shot
  // bufferization copies every printed tensor.
  pm.addPass(createMarkRunnerUtilsReadOnly());
  bufferization::OneShotBufferizePassOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  // Returning a function argument (or another non-owned buffer) leaves a
  // bufferization.clone behind.
  pm.addPass(createConvertBufferizationToMemRefPass());
}
