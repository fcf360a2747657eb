//===- SubgroupSize.cpp - the subgroup size of SPIR-V kernels -------------===//
//
// --quant-block-spirv-subgroup-size and
// --quant-block-spirv-record-subgroup-size: see Passes.td. The first tells
// convert-gpu-to-spirv the device's subgroup size, so that the matmul
// kernels' shuffles within a subgroup become subgroup operations; the second
// writes that size into the binary, where the Vulkan runtime finds it and
// requires it of the device.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/SubgroupSize.h"
#include "quant-block/Codegen/SPIRV/Passes.h"

#include "TargetEnv.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/Builders.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_SPIRVSUBGROUPSIZE
#define GEN_PASS_DEF_SPIRVRECORDSUBGROUPSIZE
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

/// `env` with subgroups of `size` threads.
static spirv::TargetEnvAttr withSubgroupSize(spirv::TargetEnvAttr env,
                                             int size) {
  spirv::ResourceLimitsAttr limits = env.getResourceLimits();
  auto sized = spirv::ResourceLimitsAttr::get(
      env.getContext(), limits.getMaxComputeSharedMemorySize(),
      limits.getMaxComputeWorkgroupInvocations(),
      limits.getMaxComputeWorkgroupSize(), size, size, size,
      limits.getCooperativeMatrixPropertiesKhr(),
      limits.getCooperativeMatrixPropertiesNv());
  return spirv::TargetEnvAttr::get(env.getTripleAttr(), sized,
                                   env.getClientAPI(), env.getVendorID(),
                                   env.getDeviceType(), env.getDeviceID());
}

namespace {
struct SPIRVSubgroupSizePass
    : public quant_block::impl::SPIRVSubgroupSizeBase<SPIRVSubgroupSizePass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (subgroupSize <= 0 || !llvm::isPowerOf2_64(subgroupSize) ||
        subgroupSize > 128) {
      module.emitError() << "subgroup-size must be a power of two from 1 to "
                            "128, not "
                         << static_cast<int64_t>(subgroupSize);
      return signalPassFailure();
    }
    spirv::TargetEnvAttr env = getSPIRVTargetEnv(module);
    if (!env)
      return;
    replaceSPIRVTargetEnv(module, env, withSubgroupSize(env, subgroupSize));
  }
};

struct SPIRVRecordSubgroupSizePass
    : public quant_block::impl::SPIRVRecordSubgroupSizeBase<
          SPIRVRecordSubgroupSizePass> {
  void runOnOperation() override {
    spirv::ModuleOp module = getOperation();
    bool usesSubgroups = false;
    module.walk([&](Operation *op) {
      if (op->getName().getStringRef().starts_with("spirv.GroupNonUniform"))
        usesSubgroups = true;
      return usesSubgroups ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!usesSubgroups)
      return;
    // convert-gpu-to-spirv gives the spirv.module its gpu.module's target.
    spirv::TargetEnvAttr env = spirv::lookupTargetEnvOrDefault(module);
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto constant = spirv::SpecConstantOp::create(
        b, module.getLoc(), kSubgroupSizeConstantName,
        b.getI32IntegerAttr(env.getResourceLimits().getSubgroupSize()));
    constant->setAttr("spec_id", b.getI32IntegerAttr(kSubgroupSizeSpecId));
  }
};
} // namespace
