//===- GPUPipeline.cpp - the GPU middle of the GPU pipelines --------------===//
//
// What --quant-block-spirv-pipeline and --quant-block-nvvm-pipeline share
// after the front half: bufferization as on the CPU (identity layouts at
// function boundaries, every buffer deallocated), each linalg op a kernel
// (a reassociable reduction over the threads of one workgroup per output
// element; otherwise its parallel loops over workgroups and threads and its
// reduction loops in sequence in each thread, so strict sums keep the order
// of the numerics contract), host-independent f16 / bf16 arithmetic,
// outlining, and the host/device data movement of docs/GPU.md.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "quant-block/Codegen/Common/Passes.h"
#include "quant-block/Codegen/GPU/Passes.h"

#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_block;

void mlir::quant_block::buildGPUFrontHalfPipeline(
    OpPassManager &pm, const FrontHalfOptions &frontHalf,
    const GPUMiddleOptions &middle) {
  buildFrontHalfTransformStage(pm, frontHalf);
  // On quant_block ops, after fusion made the products read packed weights
  // and before the generic lowering would turn them into linalg.
  int64_t matmulWorkgroupSize = middle.getMatmulWorkgroupSize();
  if (middle.matmulKernels && matmulWorkgroupSize > 0 &&
      matmulWorkgroupSize % 32 == 0) {
    GPUMatmulKernelsOptions kernels;
    kernels.workgroupSize = matmulWorkgroupSize;
    kernels.splitK = middle.splitK;
    kernels.chunkWords = middle.chunkWords;
    kernels.vectorLoads = middle.target.vectorLoads;
    kernels.rowsPerWarp = middle.rowsPerWarp;
    kernels.exactSubnormals = middle.target.exactSubnormals;
    kernels.byteDotProducts = middle.target.byteDotProducts;
    kernels.tensorCores = middle.target.tensorCores;
    kernels.tensorCoreRows = middle.tensorCoreRows;
    pm.addNestedPass<func::FuncOp>(createGPUMatmulKernels(kernels));
  }
  buildFrontHalfLoweringStage(pm, frontHalf);
}

void mlir::quant_block::buildGPUMiddlePipeline(
    OpPassManager &pm, const GPUMiddleOptions &options) {
  buildBufferizationStage(pm);
  pm.addPass(createCanonicalizerPass());
  // Copies as linalg.copy: kernels below, where a memref.copy would run on
  // the host (a call of the runner library's memrefCopy for strided views,
  // the LLaMA model's KV cache stores; a memcpy otherwise, which cannot
  // touch device-resident buffers).
  LowerStridedCopiesOptions copies;
  copies.contiguous = true;
  pm.addNestedPass<func::FuncOp>(createLowerStridedCopies(copies));

  // Reassociable reductions: a workgroup per output element, a tree in
  // workgroup memory. Then parallel loops become workgroups and threads;
  // the other reduction loops stay scf.for inside the threads.
  if (options.mapReductions) {
    GPUMapReductionsOptions reductions;
    reductions.workgroupSize = options.workgroupSize;
    reductions.minReductionSize = options.minReductionSize;
    reductions.workgroupMemory = options.target.getWorkgroupMemoryName().str();
    reductions.subgroupSize = options.target.subgroupSize;
    pm.addNestedPass<func::FuncOp>(createGPUMapReductions(reductions));
  }
  // The other reductions after their ops' parallel loops: every output
  // element a thread (an attention's weighted sum of values reduces over
  // the cache positions before its head dimension).
  pm.addNestedPass<func::FuncOp>(createGPUReductionsInnermost());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Adjacent loops over the same elements: one kernel (a fill and its
  // reduction, elementwise chains); a loop over a few more trailing
  // dimensions runs them in sequence inside its neighbour (a
  // quantization's codes after its block statistics, softmax steps).
  pm.addNestedPass<func::FuncOp>(createGPUFuseParallelLoops());
  GPUMapParallelLoopsOptions mapping;
  mapping.workgroupSize = options.workgroupSize;
  pm.addNestedPass<func::FuncOp>(createGPUMapParallelLoops(mapping));
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // Folds the launch bounds to constants, so that outlining records the
  // workgroup size (known_block_size) that SPIR-V entry points need.
  pm.addPass(createCanonicalizerPass());
  // The matmul kernels' shuffles through workgroup memory: all of them
  // where the subgroup size is unknown, those whose offset reaches past a
  // subgroup elsewhere (between the warps of a split-K sum on targets with
  // warps of 32).
  GPUEmulateShufflesOptions emulation;
  emulation.workgroupMemory = options.target.getWorkgroupMemoryName().str();
  emulation.nativeWidth = options.target.subgroupSize;
  pm.addNestedPass<func::FuncOp>(createGPUEmulateShuffles(emulation));
  if (options.target.emulateTensorCores) {
    GPUEmulateWarpMatrixProductsOptions products;
    products.workgroupMemory = emulation.workgroupMemory;
    pm.addNestedPass<func::FuncOp>(
        createGPUEmulateWarpMatrixProducts(products));
  }

  // The same f16 / bf16 numerics as the CPU pipeline: arithmetic in f32,
  // rounded once, and conversions in integer arithmetic.
  arith::ArithEmulateUnsupportedFloatsOptions halfWidth;
  halfWidth.sourceTypeStrs = {"bf16", "f16"};
  halfWidth.targetTypeStr = "f32";
  pm.addNestedPass<func::FuncOp>(
      arith::createArithEmulateUnsupportedFloats(halfWidth));
  ExpandFloatConversionsOptions conversions;
  conversions.nativeF16Extension = options.target.exactF16Extension;
  conversions.nativeKernelF16Truncation = options.target.exactF16Truncation;
  pm.addNestedPass<func::FuncOp>(createExpandFloatConversions(conversions));

  pm.addNestedPass<func::FuncOp>(createGPUSinkIntoLaunch());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createGPUDataMovement());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
