//===- SPIRVKernelABI.cpp - checks and entry-point ABI of SPIR-V kernels --===//
//
// --quant-block-gpu-spirv-kernel-abi: see Passes.td. Two miscompiles of the
// SPIR-V lowering passed spirv-val (f16 buffers read as f32 without
// Float16, i8 shifts in 32 bits without Int8), so the types a kernel uses
// are checked against the capabilities of its target before the lowering.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/Passes.h"

#include "TargetEnv.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUSPIRVKERNELABI
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// Why `type` (a scalar, or the element type of a shaped type) cannot be
/// used in a kernel for `target`; empty if it can.
static std::string whyUnsupported(Type type, const spirv::TargetEnv &target) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isBF16())
    return "bf16 has no SPIR-V type for Vulkan (--quant-block-gpu-bf16-bits "
           "carries bf16 values as i16 bits)";
  if (auto floatType = dyn_cast<FloatType>(type)) {
    unsigned width = floatType.getWidth();
    if (width == 32 && floatType.isF32())
      return "";
    if (floatType.isF16())
      return target.allows(spirv::Capability::Float16)
                 ? ""
                 : "f16 needs the Float16 capability";
    if (floatType.isF64())
      return target.allows(spirv::Capability::Float64)
                 ? ""
                 : "f64 needs the Float64 capability";
    return "narrow float types have no SPIR-V type (the front half decodes "
           "them from integer storage)";
  }
  if (auto intType = dyn_cast<IntegerType>(type)) {
    switch (intType.getWidth()) {
    case 1:
    case 32:
      return "";
    case 8:
      return target.allows(spirv::Capability::Int8)
                 ? ""
                 : "8-bit integers need the Int8 capability";
    case 16:
      return target.allows(spirv::Capability::Int16)
                 ? ""
                 : "16-bit integers need the Int16 capability";
    case 64:
      return target.allows(spirv::Capability::Int64)
                 ? ""
                 : "64-bit integers need the Int64 capability";
    default:
      return "sub-byte and odd-width integers have no SPIR-V type (the front "
             "half decodes packed data from i8 storage)";
    }
  }
  return "";
}

namespace {
struct GPUSPIRVKernelABIPass
    : public quant_block::impl::GPUSPIRVKernelABIBase<GPUSPIRVKernelABIPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    spirv::TargetEnvAttr envAttr = quant_block::getSPIRVTargetEnv(module);
    if (!envAttr) {
      module.emitError("no SPIR-V target environment (run "
                       "spirv-attach-target first)");
      return signalPassFailure();
    }
    // Passes that look the environment up as an attribute around the ops
    // (convert-math-to-spirv) do not read the gpu.module's targets, and
    // would convert with the default environment, which has no Float64 or
    // Int64: give them the same one.
    if (!module->hasAttr(spirv::getTargetEnvAttrName()))
      module->setAttr(spirv::getTargetEnvAttrName(), envAttr);
    spirv::TargetEnv target(envAttr);
    bool failed = false;
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      for (BlockArgument arg : func.getArguments()) {
        auto type = dyn_cast<MemRefType>(arg.getType());
        // Dynamically shaped buffers were flattened to one dimension
        // (--quant-block-gpu-spirv-dynamic-shapes).
        if (!type || !type.getLayout().isIdentity() ||
            (!type.hasStaticShape() && type.getRank() != 1)) {
          func.emitError("kernel argument #")
              << arg.getArgNumber() << " has type " << arg.getType()
              << "; SPIR-V kernels take identity-layout memrefs only, "
                 "statically shaped or one-dimensional (one storage buffer "
                 "each)";
          failed = true;
        }
      }
      // Each reason once per kernel (the first op that has it): a kernel
      // that fused several loops may hold several unsupported types.
      llvm::StringSet<> reported;
      func.walk([&](Operation *op) {
        auto check = [&](Type type, StringRef what) {
          std::string why = whyUnsupported(type, target);
          if (why.empty())
            return;
          failed = true;
          if (!reported.insert(why).second)
            return;
          // Constants that the canonicalizer hoisted and merged have no
          // location: report those at the kernel (the op it came from).
          InFlightDiagnostic diag = isa<UnknownLoc>(op->getLoc())
                                        ? func.emitError()
                                        : op->emitError();
          diag << what << " of type " << type << ": " << why;
        };
        for (Value result : op->getResults())
          check(result.getType(), "result");
        for (Region &region : op->getRegions())
          for (Block &block : region)
            for (BlockArgument arg : block.getArguments())
              check(arg.getType(), "argument");
      });

      std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
      if (!known) {
        func.emitError("kernel has no known workgroup size (its launch "
                       "needs constant block sizes)");
        failed = true;
        continue;
      }
      func->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(&getContext(), *known));
    }
    if (failed)
      signalPassFailure();
  }
};
} // namespace
