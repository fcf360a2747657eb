//===- RecordTarget.cpp - the target CPU on the lowered functions ---------===//
//
// --quant-block-cpu-record-target: see Passes.td. Code compiled with the
// instructions of one CPU must not reach another without them as if it
// were portable: the target goes on every function, where LLVM's code
// generators and quant-block's runners read it.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/CPUTarget.h"
#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPURECORDTARGET
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {
struct CPURecordTargetPass
    : public quant_block::impl::CPURecordTargetBase<CPURecordTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::Expected<quant_block::CPUTarget> target =
        quant_block::resolveCPUTarget(cpu, features);
    if (!target) {
      // At the module's location, without printing the whole module.
      emitError(getOperation().getLoc()) << "the CPU target does not resolve: "
                                         << llvm::toString(target.takeError());
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    StringAttr cpuName =
        target->cpu.empty() ? StringAttr() : StringAttr::get(ctx, target->cpu);
    SmallVector<StringRef> featureNames(target->features.begin(),
                                        target->features.end());
    auto featureAttr = featureNames.empty()
                           ? LLVM::TargetFeaturesAttr()
                           : LLVM::TargetFeaturesAttr::get(ctx, featureNames);
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (func.isExternal())
        return;
      if (cpuName)
        func.setTargetCpuAttr(cpuName);
      if (featureAttr)
        func.setTargetFeaturesAttr(featureAttr);
    });
  }
};
} // namespace
