//===- FuseParallelLoops.cpp - fewer kernels from adjacent parallel loops -===//
//
// --quant-block-gpu-fuse-parallel-loops: see Passes.td. Every scf.parallel
// of a host function becomes a kernel launch, and a LLaMA layer's decode
// step launched about 61 of them, most tiny (a fill, a row's scale, an
// elementwise op): on a GPU their launches, not the weights' bytes, bound a
// decode step. Adjacent loops over the same elements become one here, as
// upstream's scf-parallel-loop-fusion would make them, with two
// differences: that pass checks reads after writes but not two writes of
// one element by different iterations, and bufferization puts each
// result's allocation right before the loop that writes it, between the
// loops, where that pass stops.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUFUSEPARALLELLOOPS
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// Whether `op` may sit between two loops that are fused (no memory
/// effects, no regions).
static bool isTransparent(Operation *op) {
  return isMemoryEffectFree(op) && op->getNumRegions() == 0;
}

/// Moves each memref.alloc that sits between two scf.parallel loops of
/// `block` (with nothing but allocations and side-effect-free ops around
/// it) and depends on nothing defined after the first loop of that run to
/// just before its first loop: the loops become adjacent for the fusion. A
/// buffer's lifetime grows by the loops it moves past, no more.
static void hoistAllocationsOutOfLoopRuns(Block &block) {
  scf::ParallelOp runStart;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (!runStart)
        runStart = loop;
      continue;
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (runStart && llvm::all_of(alloc->getOperands(), [&](Value operand) {
            Operation *def = operand.getDefiningOp();
            return !def || def->getBlock() != &block ||
                   def->isBeforeInBlock(runStart);
          }))
        alloc->moveBefore(runStart);
      continue;
    }
    if (!isTransparent(&op))
      runStart = nullptr;
  }
}

namespace {
/// The buffer accesses of a loop body: each memref.load and memref.store
/// (other accesses make the loop unfusable).
struct Accesses {
  SmallVector<memref::LoadOp> loads;
  SmallVector<memref::StoreOp> stores;
  bool other = false;
};
} // namespace

static Accesses getAccesses(scf::ParallelOp loop) {
  Accesses accesses;
  loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      accesses.loads.push_back(load);
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      accesses.stores.push_back(store);
    else if (!isMemoryEffectFree(op) &&
             !isa<memref::AllocaOp, scf::ParallelOp, scf::ForOp, scf::IfOp,
                  scf::ReduceOp, scf::YieldOp>(op))
      accesses.other = true;
  });
  return accesses;
}

/// Whether `write` (a store of the first loop) and `access` (a load or store
/// of the second, its indices `indices`) touch memory in an order that
/// fusing the loops would change: they may alias and are not the same
/// buffer at the same element of the same iteration.
static bool conflicts(memref::StoreOp write, Value buffer, ValueRange indices,
                      const IRMapping &firstToSecond,
                      llvm::function_ref<bool(Value, Value)> mayAlias) {
  if (write.getMemRef() != buffer)
    return mayAlias(write.getMemRef(), buffer);
  ValueRange written = write.getIndices();
  if (written.size() != indices.size())
    return true;
  for (auto [w, i] : llvm::zip(written, indices))
    if (firstToSecond.lookupOrDefault(w) != i)
      return true;
  return false;
}

/// Whether `first` and then `second` (adjacent, same bounds and steps) may
/// run as one loop, each iteration doing the first body then the second:
/// every element one writes and the other reads or writes is the same
/// iteration's (read after write, write after read, write after write).
static bool canFuse(scf::ParallelOp first, scf::ParallelOp second,
                    llvm::function_ref<bool(Value, Value)> mayAlias) {
  if (first.getNumLoops() != second.getNumLoops() ||
      first.getNumResults() != 0 || second.getNumResults() != 0 ||
      !llvm::equal(first.getLowerBound(), second.getLowerBound()) ||
      !llvm::equal(first.getUpperBound(), second.getUpperBound()) ||
      !llvm::equal(first.getStep(), second.getStep()))
    return false;
  auto nested = [](scf::ParallelOp loop) {
    return loop.getBody()
        ->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  };
  if (nested(first) || nested(second))
    return false;
  Accesses a = getAccesses(first), b = getAccesses(second);
  if (a.other || b.other)
    return false;
  // A buffer made inside a loop body is that iteration's own: fine to
  // read, but its accesses would need more than the buffer's identity to
  // compare, so such loops are left apart.
  auto local = [](Value buffer, scf::ParallelOp loop) {
    Operation *def = buffer.getDefiningOp();
    return def && loop->isProperAncestor(def);
  };
  IRMapping firstToSecond, secondToFirst;
  firstToSecond.map(first.getInductionVars(), second.getInductionVars());
  secondToFirst.map(second.getInductionVars(), first.getInductionVars());
  // Whether an access to `buffer` at `indices` conflicts with one of the
  // other loop's `writes` (their indices mapped by `mapping`).
  auto conflictsWithAny = [&](ArrayRef<memref::StoreOp> writes, Value buffer,
                              ValueRange indices, const IRMapping &mapping) {
    return llvm::any_of(writes, [&](memref::StoreOp write) {
      return conflicts(write, buffer, indices, mapping, mayAlias);
    });
  };
  for (memref::LoadOp load : b.loads)
    if (local(load.getMemRef(), second) ||
        conflictsWithAny(a.stores, load.getMemRef(), load.getIndices(),
                         firstToSecond))
      return false;
  for (memref::StoreOp store : b.stores)
    if (!local(store.getMemRef(), second) &&
        conflictsWithAny(a.stores, store.getMemRef(), store.getIndices(),
                         firstToSecond))
      return false;
  for (memref::LoadOp load : a.loads)
    if (local(load.getMemRef(), first) ||
        conflictsWithAny(b.stores, load.getMemRef(), load.getIndices(),
                         secondToFirst))
      return false;
  return true;
}

/// Fuses runs of adjacent scf.parallel loops of `block` (only
/// side-effect-free ops between them) where canFuse allows: the first
/// loop's body is cloned to the start of the second's.
static void fuseAdjacentLoops(Block &block,
                              llvm::function_ref<bool(Value, Value)> mayAlias) {
  scf::ParallelOp previous;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (!loop) {
      if (!isTransparent(&op))
        previous = nullptr;
      continue;
    }
    if (previous && canFuse(previous, loop, mayAlias)) {
      IRMapping mapping;
      mapping.map(previous.getInductionVars(), loop.getInductionVars());
      OpBuilder builder = OpBuilder::atBlockBegin(loop.getBody());
      for (Operation &inner : previous.getBody()->without_terminator())
        builder.clone(inner, mapping);
      previous.erase();
    }
    previous = loop;
  }
}

namespace {
struct GPUFuseParallelLoopsPass
    : public quant_block::impl::GPUFuseParallelLoopsBase<
          GPUFuseParallelLoopsPass> {
  void runOnOperation() override {
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    auto mayAlias = [&](Value a, Value b) {
      return !aliases.alias(a, b).isNo();
    };
    getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions()) {
        for (Block &block : region) {
          hoistAllocationsOutOfLoopRuns(block);
          fuseAdjacentLoops(block, mayAlias);
        }
      }
    });
  }
};
} // namespace
