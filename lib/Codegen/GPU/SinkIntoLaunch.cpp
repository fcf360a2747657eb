//===- SinkIntoLaunch.cpp - scalars and views into gpu.launch bodies ------===//
//
// --quant-block-gpu-sink-into-launch: see Passes.td. Upstream's
// sinkOperationsIntoLaunchOp only sinks an op whose other operands the
// kernel already takes (a subview of a function argument the kernel does not
// otherwise use stays outside), and gpu-kernel-outlining sinks only
// constants and a few index ops; here every pure scalar computation and
// every memref view is sunk, and what is left of the scalars goes through
// one-element buffers.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUSINKINTOLAUNCH
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// Whether `op` can be recomputed in each kernel instead of being passed in:
/// memref views, and pure region-free ops on scalars.
static bool isSinkable(Operation *op) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1)
    return false;
  Type type = op->getResult(0).getType();
  if (isa<BaseMemRefType>(type))
    return isa<memref::ExpandShapeOp, memref::CollapseShapeOp,
               memref::SubViewOp, memref::CastOp, memref::ReinterpretCastOp>(
        op);
  // Vector constants (the tensor-core kernel's zero accumulators, which
  // the canonicalizer hoists out of the launch) are rematerialized; no
  // kernel takes a vector argument.
  if (isa<VectorType>(type))
    return matchPattern(op, m_Constant());
  if (!type.isIntOrIndexOrFloat())
    return false;
  // memref.dim only reads the descriptor.
  return isMemoryEffectFree(op) || isa<memref::DimOp>(op);
}

/// The type a scalar of `type` is passed to a kernel in: index as i32
/// (SPIR-V's index width; sizes and offsets of one launch fit), i1 as i8
/// (storage buffers hold no booleans), others as they are.
static Type storageType(Type type) {
  MLIRContext *ctx = type.getContext();
  if (type.isIndex())
    return IntegerType::get(ctx, 32);
  if (type.isInteger(1))
    return IntegerType::get(ctx, 8);
  return type;
}

/// Sinks the sinkable ops `launch` uses from outside, transitively; the
/// clones go to the start of the body, dependencies before their users.
static void sinkOps(gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  bool changed = true;
  while (changed) {
    changed = false;
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(body, used);
    for (Value value : used) {
      Operation *def = value.getDefiningOp();
      if (!def || !isSinkable(def))
        continue;
      OpBuilder builder(&body.front(), body.front().begin());
      Operation *clone = builder.clone(*def);
      replaceAllUsesInRegionWith(value, clone->getResult(0), body);
      changed = true;
    }
  }
}

/// Passes every scalar `launch` still uses from outside through a
/// one-element host buffer (which the data movement copies to the device),
/// so that kernels take memrefs only.
static void passScalarsInBuffers(gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(body, used);
  for (Value value : used) {
    Type type = value.getType();
    if (!type.isIntOrIndexOrFloat())
      continue;
    Location loc = value.getLoc();
    Type stored = storageType(type);
    OpBuilder host(launch);
    auto buffer =
        memref::AllocaOp::create(host, loc, MemRefType::get({1}, stored));
    Value zero = arith::ConstantIndexOp::create(host, loc, 0);
    Value toStore = value;
    if (type.isIndex())
      toStore = arith::IndexCastOp::create(host, loc, stored, value);
    else if (type.isInteger(1))
      toStore = arith::ExtUIOp::create(host, loc, stored, value);
    memref::StoreOp::create(host, loc, toStore, buffer, ValueRange{zero});

    OpBuilder kernel(&body.front(), body.front().begin());
    Value kzero = arith::ConstantIndexOp::create(kernel, loc, 0);
    Value loaded =
        memref::LoadOp::create(kernel, loc, buffer, ValueRange{kzero});
    if (type.isIndex())
      loaded = arith::IndexCastOp::create(kernel, loc, type, loaded);
    else if (type.isInteger(1))
      loaded = arith::TruncIOp::create(kernel, loc, type, loaded);
    replaceAllUsesInRegionWith(value, loaded, body);
  }
}

namespace {
struct GPUSinkIntoLaunchPass
    : public quant_block::impl::GPUSinkIntoLaunchBase<GPUSinkIntoLaunchPass> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::LaunchOp launch) {
      sinkOps(launch);
      passScalarsInBuffers(launch);
    });
  }
};
} // namespace
