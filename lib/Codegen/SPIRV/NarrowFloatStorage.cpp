//===- NarrowFloatStorage.cpp - 8-bit float kernel buffers as i8 ----------===//
//
// --quant-block-gpu-narrow-float-storage: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/Passes.h"

#include "LaunchOperandCasts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUNARROWFLOATSTORAGE
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// The i8 memref type `type` is stored as, if it holds 8-bit floats.
static MemRefType asIntegerStorage(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return {};
  auto element = dyn_cast<FloatType>(memref.getElementType());
  if (!element || element.getWidth() != 8)
    return {};
  return MemRefType::get(memref.getShape(),
                         IntegerType::get(type.getContext(), 8),
                         memref.getLayout(), memref.getMemorySpace());
}

/// Retypes argument `arg` of a kernel to `storage`, rewriting its uses.
static LogicalResult retype(BlockArgument arg, MemRefType storage) {
  Type original = cast<MemRefType>(arg.getType()).getElementType();
  arg.setType(storage);
  for (OpOperand &use : llvm::make_early_inc_range(arg.getUses())) {
    Operation *user = use.getOwner();
    OpBuilder builder(user);
    Location loc = user->getLoc();
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      auto bits = memref::LoadOp::create(builder, loc, arg, load.getIndices(),
                                         load.getNontemporal());
      Value value = arith::BitcastOp::create(builder, loc, original, bits);
      load.replaceAllUsesWith(value);
      load.erase();
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(user);
        store && store.getMemRef() == arg) {
      Value bits = arith::BitcastOp::create(
          builder, loc, storage.getElementType(), store.getValueToStore());
      memref::StoreOp::create(builder, loc, bits, arg, store.getIndices(),
                              store.getNontemporal());
      store.erase();
      continue;
    }
    return user->emitError("unsupported use of a kernel buffer of ")
           << original
           << " elements (only loads and stores are retyped to i8 storage)";
  }
  return success();
}

namespace {
struct GPUNarrowFloatStoragePass
    : public quant_block::impl::GPUNarrowFloatStorageBase<
          GPUNarrowFloatStoragePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseSet<Operation *> retyped;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!func.isKernel() || func.isExternal())
          continue;
        SmallVector<Type> inputs(func.getArgumentTypes());
        for (BlockArgument arg : func.getArguments()) {
          MemRefType storage = asIntegerStorage(arg.getType());
          if (!storage)
            continue;
          if (failed(retype(arg, storage)))
            return signalPassFailure();
          inputs[arg.getArgNumber()] = storage;
          retyped.insert(func);
        }
        func.setType(FunctionType::get(&getContext(), inputs, {}));
      }
    // The host passes the same buffers, cast to their i8 storage.
    quant_block::castLaunchOperands(module, retyped);
  }
};
} // namespace
