//===- NVVMPipeline.cpp - --quant-block-nvvm-pipeline ---------------------===//
//
// The front half, the GPU middle, then the NVVM back half: kernels in the
// NVVM dialect compiled by LLVM's NVPTX backend to PTX (and by ptxas to a
// cubin / fatbin), host code through gpu-to-llvm with memref descriptors as
// kernel arguments (the ABI libQuantBlockCudaRuntime.so serves,
// docs/GPU.md).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "quant-block/Codegen/GPU/Passes.h"
#include "quant-block/Codegen/NVVM/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_block;

/// The compute capability of `chip` (sm_XY, perhaps with a suffix: XY), 0
/// for another spelling.
static unsigned getComputeCapability(StringRef chip) {
  unsigned version = 0;
  if (!chip.consume_front("sm_") ||
      chip.take_while(llvm::isDigit).getAsInteger(10, version))
    return 0;
  return version;
}

/// Whether `chip` has PTX's dp4a: sm_61 and later.
static bool hasDp4a(StringRef chip) { return getComputeCapability(chip) >= 61; }

/// Whether `chip` has mma.sync.m16n8k32 with s8 inputs: sm_80 and later.
static bool hasInt8MmaM16N8K32(StringRef chip) {
  return getComputeCapability(chip) >= 80;
}

void mlir::quant_block::buildNVVMBackHalfPipeline(
    OpPassManager &pm, const NVVMPipelineOptions &options) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // After outlining: an i4 constant passed to a kernel would be a
  // `.param .u4`, which ptxas rejects.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeF4E2M1 = true;
  expand.includeF8E8M0 = true;
  kernels.addPass(arith::createArithExpandOpsPass(expand));
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  // The integer matmul kernel's byte dot products as dp4a.
  if (hasDp4a(options.chip))
    kernels.addPass(createNVVMDotProducts());
  // The tensor-core kernels' warp-level products (nvgpu.mma.sync): bf16
  // ones here, the others upstream.
  kernels.addPass(createNVVMMatrixProducts());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  // PTX instructions rather than libdevice calls, which only link where a
  // CUDA toolkit is found at compile time.
  kernels.addPass(createGPUNativeMath());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::quant_block::buildNVVMPipeline(OpPassManager &pm,
                                          const NVVMPipelineOptions &options) {
  // NVIDIA warps are 32 threads, 16-byte loads are fast, cvt.f32.f16 is
  // exact and cvt.rn.f16.f32 rounds as the contract does (a NaN's bits are
  // the target's, docs/Numerics.md) and mul.rn.f32 keeps subnormals (the
  // kernels are not compiled with ftz).
  GPUTargetTraits target = GPUTargetTraits::nvvm();
  if (options.int8DotProducts && hasDp4a(options.chip))
    target.byteDotProducts = true;
  if (options.tensorCores && hasInt8MmaM16N8K32(options.chip))
    target.tensorCores = true;
  GPUMiddleOptions middle = options.getGPUMiddleOptions(target);
  buildGPUFrontHalfPipeline(pm, options.getFrontHalfOptions(), middle);
  buildGPUMiddlePipeline(pm, middle);
  buildNVVMBackHalfPipeline(pm, options);
}
