//===- CPUPipeline.cpp - --quant-block-cpu-pipeline -----------------------===//
//
// From quant_block (and func / linalg / tensor / arith / math / TOSA / quant
// IR around it) to the LLVM dialect. Upstream quant ops and frontend
// quantization emulations are raised to quant_block first. Functions keep plain
// memref arguments (identity-layout bufferization) so that mlir-runner and C
// callers can pass buffers; every tensor is bufferized and deallocated.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "quant-block/Conversion/Passes.h"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"
#include "quant-block/Pipelines/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_block;

void mlir::quant_block::buildCPUPipeline(OpPassManager &pm,
                                         const CPUPipelineOptions &options) {
  if (options.raise)
    pm.addPass(createQuantBlockRaise());
  if (options.lowerTosa) {
    // TOSA around the quantized ops goes through the standard lowering.
    OpPassManager &funcPm = pm.nest<func::FuncOp>();
    funcPm.addPass(tosa::createTosaToLinalgNamed());
    funcPm.addPass(tosa::createTosaToLinalg());
    funcPm.addPass(createTosaToArithPass());
    funcPm.addPass(createTosaToTensorPass());
  }
  pm.addPass(createConvertQuantBlockToLinalg());
  // Elementwise arith / math on tensors (as frontends and tests write them)
  // becomes linalg so that it bufferizes.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // FP8 / FP6 / FP4 / E8M0 outside quant_block: extensions are decoded
  // exactly, anything else is an error here rather than in the LLVM
  // translation.
  pm.addPass(createExpandNarrowFloats());
  // Elementwise consumers of a dequantization (bias, activation, residual)
  // fuse into its generic, through the collapse of the block iteration
  // space, so the dequantized tensor is never materialized.
  pm.addNestedPass<func::FuncOp>(createCPUFuseElementwise());
  pm.addPass(createCanonicalizerPass());

  if (options.vectorize) {
    CPUVectorizeOptions vectorize;
    vectorize.vectorBits = options.vectorBits;
    vectorize.registers = options.registers;
    pm.addNestedPass<func::FuncOp>(createCPUVectorize(vectorize));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }

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

  if (options.vectorize) {
    pm.addNestedPass<func::FuncOp>(createCPUFlattenVectors());
    pm.addPass(createCanonicalizerPass());
  }
  // What was not vectorized (dynamic loops, tile loops) becomes loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createCPULowerReductions());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  // bf16 and f16: no host conversion instruction may decide the bits
  // (vcvtneps2bf16 flushes subnormals on AVX512-BF16 hosts), and f16
  // arithmetic must not be native on some hosts and promoted on others.
  arith::ArithEmulateUnsupportedFloatsOptions halfWidth;
  halfWidth.sourceTypeStrs = {"bf16", "f16"};
  halfWidth.targetTypeStr = "f32";
  pm.addNestedPass<func::FuncOp>(
      arith::createArithEmulateUnsupportedFloats(halfWidth));
  pm.addNestedPass<func::FuncOp>(createExpandFloatConversions());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::quant_block::registerCPUPipeline() {
  registerQuantBlockPipelinesPasses();
  PassPipelineRegistration<CPUPipelineOptions>(
      "quant-block-cpu-pipeline",
      "Lower quant_block and the upstream IR around it to the LLVM dialect "
      "for the host CPU (runnable with mlir-runner)",
      buildCPUPipeline);
}
