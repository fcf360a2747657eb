//===- SPIRVPipeline.cpp - --quant-block-spirv-pipeline -------------------===//
//
// The front half, the GPU middle, then the SPIR-V back half: kernels in the
// SPIR-V dialect for Vulkan (checked against the target's capabilities
// first: see --quant-block-gpu-spirv-kernel-abi), serialized into a
// gpu.binary; host code through gpu-to-llvm with bare pointers and buffer
// sizes as kernel arguments (the ABI libQuantBlockVulkanRuntime.so serves,
// docs/GPU.md).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "quant-block/Codegen/GPU/Passes.h"
#include "quant-block/Codegen/SPIRV/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRVPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRVPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_block;

void mlir::quant_block::buildSPIRVBackHalfPipeline(
    OpPassManager &pm, const SPIRVPipelineOptions &options) {
  GpuSPIRVAttachTargetOptions target;
  target.spirvVersion = options.version;
  // Without Float16 f16 buffers were read as f32, without Int8 i8 shifts ran
  // in 32 bits; both passed spirv-val. The kernel ABI pass checks the types
  // against these.
  if (options.capabilities.empty())
    target.spirvCapabilities = {"Shader",
                                "Int8",
                                "Int16",
                                "Float16",
                                "StorageBuffer8BitAccess",
                                "StorageBuffer16BitAccess"};
  else
    target.spirvCapabilities.assign(options.capabilities.begin(),
                                    options.capabilities.end());
  if (options.extensions.empty())
    target.spirvExtensions = {"SPV_KHR_8bit_storage", "SPV_KHR_16bit_storage",
                              "SPV_KHR_storage_buffer_storage_class"};
  else
    target.spirvExtensions.assign(options.extensions.begin(),
                                  options.extensions.end());
  // SDot / SUDot on vectors of 4 bytes (the integer matmul kernel's block
  // sums); --quant-block-spirv-dot-products makes the kernel modules that
  // use them SPIR-V 1.6 modules (Vulkan 1.3's).
  if (options.int8DotProducts)
    for (StringRef capability : {"DotProduct", "DotProductInput4x8Bit"})
      if (!llvm::is_contained(target.spirvCapabilities, capability))
        target.spirvCapabilities.push_back(capability.str());
  // Shuffles within subgroups of the device's size.
  if (options.subgroupSize > 0)
    for (StringRef capability : {"GroupNonUniform", "GroupNonUniformShuffle"})
      if (!llvm::is_contained(target.spirvCapabilities, capability))
        target.spirvCapabilities.push_back(capability.str());
  target.clientApi = options.clientApi;
  pm.addPass(createGpuSPIRVAttachTarget(target));
  if (options.subgroupSize > 0) {
    SPIRVSubgroupSizeOptions subgroups;
    subgroups.subgroupSize = options.subgroupSize;
    pm.addNestedPass<gpu::GPUModuleOp>(createSPIRVSubgroupSize(subgroups));
  }

  // Views inside kernels (the block iteration space of a quantized tensor is
  // an expand_shape of its buffer) become index arithmetic on the buffer,
  // then FP8 / E8M0 buffers become i8 buffers and bf16 values i16 bits
  // (SPIR-V for Vulkan has no such types).
  pm.addNestedPass<gpu::GPUModuleOp>(memref::createFoldMemRefAliasOpsPass());
  pm.addPass(createGPUNarrowFloatStorage());
  pm.addPass(createGPUBFloat16Bits());
  // Dynamically shaped buffers: flat runtime arrays plus a buffer of sizes.
  pm.addPass(createGPUSPIRVDynamicShapes());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createGPUSPIRVKernelABI());
  kernels.addPass(createLowerAffinePass());
  // floordivsi / ceildivsi (block index arithmetic, also from lower-affine)
  // have no SPIR-V pattern.
  kernels.addPass(arith::createArithExpandOpsPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  // The integer matmul kernel's byte dot products as SDot / SUDot, where
  // the target allows them.
  kernels.addPass(createSPIRVDotProducts());
  // convert-gpu-to-spirv has no math patterns.
  kernels.addPass(createConvertMathToSPIRVPass());
  pm.addPass(createConvertGPUToSPIRVPass());
  pm.addPass(createGPUNestSPIRVModules());
  OpPassManager &spirvModules =
      pm.nest<gpu::GPUModuleOp>().nest<spirv::ModuleOp>();
  spirvModules.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spirvModules.addPass(spirv::createSPIRVUpdateVCEPass());
  spirvModules.addPass(createSPIRVRecordSubgroupSize());
  if (!options.binary)
    return;

  pm.addPass(createGpuModuleToBinaryPass());
  // (pointer, byte size) pairs, dynamic sizes included: upstream's
  // intersperse-sizes-for-kernels refuses dynamically shaped buffers.
  pm.addPass(createGPUSPIRVBufferSizes());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  GpuToLLVMConversionPassOptions host;
  host.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(host));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::quant_block::buildSPIRVPipeline(
    OpPassManager &pm, const SPIRVPipelineOptions &options) {
  // convert-gpu-to-spirv lowers workgroup memory allocations, not the
  // workgroup attributions of a gpu.func. Subgroups are not assumed 32
  // wide (lavapipe's are 8): the matmul kernels' lanes add in workgroup
  // memory, except within subgroups of the `subgroup-size` given.
  GPUTargetTraits target = GPUTargetTraits::spirv();
  target.subgroupSize = options.subgroupSize;
  if (options.int8DotProducts)
    target.byteDotProducts = true;
  if (options.emulatedTensorCores)
    target.tensorCores = target.emulateTensorCores = true;
  GPUMiddleOptions middle = options.getGPUMiddleOptions(target);
  buildGPUFrontHalfPipeline(pm, options.getFrontHalfOptions(), middle);
  buildGPUMiddlePipeline(pm, middle);
  buildSPIRVBackHalfPipeline(pm, options);
}
