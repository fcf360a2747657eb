//===- DeallocateAfterLastUse.cpp - free temporaries early ----------------===//
//
// --quant-block-deallocate-after-last-use: moves each memref.dealloc of a
// buffer allocated in the same block to just after the buffer's last use in
// that block (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_DEALLOCATEAFTERLASTUSE
#include "quant-block/Codegen/Common/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

/// Whether `op` only reads values out of its buffer operands: its results
/// are data, not references to the buffer.
static bool onlyLoadsValues(Operation *op) {
  return isa<memref::LoadOp, memref::DimOp, vector::LoadOp,
             vector::TransferReadOp, vector::MaskedLoadOp,
             affine::AffineLoadOp>(op);
}

/// Whether `op` passes a value on to where this pass cannot follow it: a
/// block terminator (the value leaves the block), or a store of the value
/// itself into memory.
static bool passesOn(Operation *op, Value value) {
  if (op->hasTrait<OpTrait::IsTerminator>())
    return true;
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getValueToStore() == value;
  return false;
}

/// The last op of `block` that uses `buffer` or a value derived from it, or
/// null where the buffer escapes (see passesOn) or is used outside `block`.
static Operation *findLastUse(Value buffer, Block *block,
                              memref::DeallocOp dealloc) {
  SmallVector<Value> worklist = {buffer};
  DenseSet<Value> seen = {buffer};
  Operation *last = nullptr;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      if (passesOn(user, value))
        return nullptr;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return nullptr;
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
      // Calls return fresh buffers (see runOnOperation), loads return data.
      if (onlyLoadsValues(user) || isa<func::CallOp>(user))
        continue;
      // Views, casts, pointers, call results: anything the user returns may
      // refer to the buffer.
      for (Value result : user->getResults())
        if (seen.insert(result).second)
          worklist.push_back(result);
    }
  }
  return last;
}

namespace {
struct DeallocateAfterLastUsePass
    : public mlir::quant_block::impl::DeallocateAfterLastUseBase<
          DeallocateAfterLastUsePass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      // A buffer this block allocated, or one a call returned (ownership-
      // based deallocation makes every returned buffer a fresh one the
      // caller owns: a callee returning its argument returns a clone).
      Value buffer = dealloc.getMemref();
      Operation *alloc = buffer.getDefiningOp();
      Block *block = dealloc->getBlock();
      if (!alloc || !isa<memref::AllocOp, func::CallOp>(alloc) ||
          alloc->getBlock() != block)
        continue;
      Operation *last = findLastUse(buffer, block, dealloc);
      if (!last)
        continue;
      if (last == alloc || last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};
} // namespace
