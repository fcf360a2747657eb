//===- NestSPIRVModules.cpp - spirv.module into its gpu.module ------------===//
//
// --quant-block-gpu-nest-spirv-modules: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringSet.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUNESTSPIRVMODULES
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// The prefix convert-gpu-to-spirv gives the spirv.module of a gpu.module.
static constexpr StringLiteral kSPIRVModulePrefix = "__spv__";

/// Whether `module` targets SPIR-V.
static bool hasSPIRVTarget(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  return targets && llvm::any_of(targets, [](Attribute target) {
           return isa<spirv::TargetEnvAttr>(target);
         });
}

namespace {
struct GPUNestSPIRVModulesPass
    : public quant_block::impl::GPUNestSPIRVModulesBase<
          GPUNestSPIRVModulesPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    llvm::StringMap<gpu::GPUModuleOp> gpuModules;
    for (auto module : top.getOps<gpu::GPUModuleOp>())
      gpuModules[module.getName()] = module;
    llvm::StringSet<> nested;
    for (auto spirvModule :
         llvm::make_early_inc_range(top.getOps<spirv::ModuleOp>())) {
      std::optional<StringRef> name = spirvModule.getName();
      if (!name || !name->starts_with(kSPIRVModulePrefix))
        continue;
      StringRef gpuName = name->drop_front(kSPIRVModulePrefix.size());
      auto it = gpuModules.find(gpuName);
      if (it == gpuModules.end())
        continue;
      Block &body = it->second.getBodyRegion().front();
      spirvModule->moveBefore(&body, body.begin());
      nested.insert(gpuName);
    }
    for (auto &[name, module] : gpuModules)
      if (hasSPIRVTarget(module) && !nested.contains(name)) {
        module.emitError("gpu.module with a SPIR-V target has no "
                         "spirv.module (was convert-gpu-to-spirv run?)");
        return signalPassFailure();
      }
  }
};
} // namespace
