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
// loops, where that pass stops. Beyond upstream's, a loop over a few more
// trailing dimensions than its neighbour (a quantization's codes after its
// block statistics, a softmax's elementwise steps around its row
// reductions) runs those dimensions in sequence inside the neighbour's
// iterations, where each thread already does as much in sequence.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "BufferViews.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

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

/// Whether two index lists address elements that can only coincide in the
/// same iteration of the shared dimensions: for each shared dimension `d`
/// some position holds exactly `firstIVs[d]` in `firstIndices` and
/// `secondIVs[d]` in `secondIndices`.
static bool separatesIterations(ValueRange firstIndices,
                                ValueRange secondIndices, ValueRange firstIVs,
                                ValueRange secondIVs, unsigned shared) {
  if (firstIndices.size() != secondIndices.size())
    return false;
  for (unsigned d = 0; d < shared; ++d) {
    bool pinned = false;
    for (auto [f, s] : llvm::zip(firstIndices, secondIndices))
      pinned |= f == firstIVs[d] && s == secondIVs[d];
    if (!pinned)
      return false;
  }
  return true;
}

namespace {
/// Two adjacent loops and how their iteration spaces relate: the leading
/// `shared` dimensions have the same bounds and steps; the deeper loop may
/// have more trailing dimensions, which a fusion runs in sequence.
struct LoopPair {
  scf::ParallelOp first, second;
  unsigned shared;

  // Not const: the op accessors are not.
  bool sameSpace() {
    return first.getNumLoops() == shared && second.getNumLoops() == shared;
  }
  ValueRange getSharedIVs(scf::ParallelOp loop) {
    return ValueRange(loop.getBody()->getArguments().take_front(shared));
  }

  /// Whether an access of `second`'s (or `first`'s, `fromSecond` false) to
  /// `buffer` at `indices` and `write`, a store of the other loop, touch
  /// memory in an order that the fusion would change: they may alias and
  /// are not the same buffer at an element of the same iteration.
  bool conflicts(memref::StoreOp write, Value buffer, ValueRange indices,
                 bool fromSecond,
                 llvm::function_ref<bool(Value, Value)> mayAlias) {
    if (write.getMemRef() != buffer)
      return mayAlias(write.getMemRef(), buffer);
    scf::ParallelOp writer = fromSecond ? first : second;
    scf::ParallelOp reader = fromSecond ? second : first;
    ValueRange written = write.getIndices();
    if (separatesIterations(written, indices, getSharedIVs(writer),
                            getSharedIVs(reader), shared))
      return false;
    // Over one iteration space, the same index values (the iteration
    // variables mapped) also name one element.
    if (!sameSpace() || written.size() != indices.size())
      return true;
    IRMapping writerToReader;
    writerToReader.map(writer.getInductionVars(), reader.getInductionVars());
    for (auto [w, i] : llvm::zip(written, indices))
      if (writerToReader.lookupOrDefault(w) != i)
        return true;
    return false;
  }
};
} // namespace

/// The constant trip count of dimension `dim` of `loop`, if its bounds and
/// step are constants.
static std::optional<int64_t> getConstantTripCount(scf::ParallelOp loop,
                                                   unsigned dim) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()[dim]);
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound()[dim]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[dim]);
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil(*upper - *lower, *step));
}

/// The most iterations one iteration of `loop` runs in sequence: the
/// largest product of constant trip counts along a nest of scf.for in its
/// body (1 without any; a loop of unknown trip count counts as 1).
static uint64_t getSerialIterations(scf::ParallelOp loop) {
  uint64_t most = 1;
  loop.getBody()->walk([&](scf::ForOp inner) {
    uint64_t product = 1;
    for (Operation *op = inner; op != loop; op = op->getParentOp())
      if (auto enclosing = dyn_cast<scf::ForOp>(op))
        if (std::optional<APInt> trips = enclosing.getStaticTripCount())
          product = llvm::SaturatingMultiply(product, trips->getZExtValue());
    most = std::max(most, product);
  });
  return most;
}

/// Whether `first` and then `second` (adjacent, no results, no nested
/// scf.parallel) may run as one loop over `first`'s or `second`'s
/// dimensions, whichever has fewer, each iteration running the first body
/// (its extra dimensions in sequence) then the second (its extra dimensions
/// in sequence): the shared dimensions have the same bounds and steps, the
/// extra ones a constant trip count no larger than `maxSerialIterations`
/// nor than what each iteration of the other loop already runs in
/// sequence, and every element one loop writes and the other reads or
/// writes is an element of the same shared iteration (read after write,
/// write after read, write after write).
static std::optional<LoopPair>
getFusablePair(scf::ParallelOp first, scf::ParallelOp second,
               int64_t maxSerialIterations,
               llvm::function_ref<bool(Value, Value)> mayAlias) {
  if (first.getNumResults() != 0 || second.getNumResults() != 0)
    return std::nullopt;
  LoopPair pair{first, second,
                std::min(first.getNumLoops(), second.getNumLoops())};
  auto sharedPrefix = [&](ValueRange a, ValueRange b) {
    return llvm::equal(a.take_front(pair.shared), b.take_front(pair.shared));
  };
  if (!sharedPrefix(first.getLowerBound(), second.getLowerBound()) ||
      !sharedPrefix(first.getUpperBound(), second.getUpperBound()) ||
      !sharedPrefix(first.getStep(), second.getStep()))
    return std::nullopt;
  if (!pair.sameSpace()) {
    bool secondDeeper = second.getNumLoops() > pair.shared;
    scf::ParallelOp deeper = secondDeeper ? second : first;
    int64_t extra = 1;
    for (unsigned d = pair.shared; d < deeper.getNumLoops(); ++d) {
      std::optional<int64_t> trips = getConstantTripCount(deeper, d);
      // (Checked per dimension: the product of large ones could overflow.)
      if (!trips || *trips > maxSerialIterations)
        return std::nullopt;
      extra *= *trips;
      if (extra > maxSerialIterations)
        return std::nullopt;
    }
    if (uint64_t(extra) > getSerialIterations(secondDeeper ? first : second))
      return std::nullopt;
  }
  auto nested = [](scf::ParallelOp loop) {
    return loop.getBody()
        ->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  };
  if (nested(first) || nested(second))
    return std::nullopt;
  Accesses a = getAccesses(first), b = getAccesses(second);
  if (a.other || b.other)
    return std::nullopt;
  // A buffer made inside a loop body is that iteration's own: fine to
  // read, but its accesses would need more than the buffer's identity to
  // compare, so such loops are left apart.
  auto local = [](Value buffer, scf::ParallelOp loop) {
    Operation *def = buffer.getDefiningOp();
    return def && loop->isProperAncestor(def);
  };
  // Whether an access to `buffer` at `indices` conflicts with one of the
  // other loop's `writes`.
  auto conflictsWithAny = [&](ArrayRef<memref::StoreOp> writes, Value buffer,
                              ValueRange indices, bool fromSecond) {
    return llvm::any_of(writes, [&](memref::StoreOp write) {
      return pair.conflicts(write, buffer, indices, fromSecond, mayAlias);
    });
  };
  for (memref::LoadOp load : b.loads)
    if (local(load.getMemRef(), second) ||
        conflictsWithAny(a.stores, load.getMemRef(), load.getIndices(),
                         /*fromSecond=*/true))
      return std::nullopt;
  for (memref::StoreOp store : b.stores)
    if (!local(store.getMemRef(), second) &&
        conflictsWithAny(a.stores, store.getMemRef(), store.getIndices(),
                         /*fromSecond=*/true))
      return std::nullopt;
  for (memref::LoadOp load : a.loads)
    if (local(load.getMemRef(), first) ||
        conflictsWithAny(b.stores, load.getMemRef(), load.getIndices(),
                         /*fromSecond=*/false))
      return std::nullopt;
  return pair;
}

/// Clones the body of `from` (without its terminator) at `builder`'s
/// insertion point, its shared iteration variables replaced by `into`'s and
/// its extra dimensions run by a nest of scf.for built there.
static void cloneBodyInSequence(OpBuilder &builder, scf::ParallelOp from,
                                scf::ParallelOp into, unsigned shared) {
  IRMapping mapping;
  mapping.map(from.getBody()->getArguments().take_front(shared),
              into.getBody()->getArguments().take_front(shared));
  Location loc = from.getLoc();
  for (unsigned d = shared; d < from.getNumLoops(); ++d) {
    // Constants (checked): built here, where they dominate.
    auto constant = [&](Value value) -> Value {
      return arith::ConstantIndexOp::create(builder, loc,
                                            *getConstantIntValue(value));
    };
    auto loop = scf::ForOp::create(
        builder, loc, constant(from.getLowerBound()[d]),
        constant(from.getUpperBound()[d]), constant(from.getStep()[d]));
    mapping.map(from.getInductionVars()[d], loop.getInductionVar());
    builder.setInsertionPoint(loop.getBody()->getTerminator());
  }
  for (Operation &inner : from.getBody()->without_terminator())
    builder.clone(inner, mapping);
}

/// Fuses runs of adjacent scf.parallel loops of `block` (only
/// side-effect-free ops between them) where getFusablePair allows. The loop
/// with fewer dimensions stays; the other's body is cloned into it (the
/// first's at the start, the second's at the end), in a nest of scf.for
/// over its extra dimensions. Returns whether any loops were fused.
static bool fuseAdjacentLoops(Block &block, int64_t maxSerialIterations,
                              llvm::function_ref<bool(Value, Value)> mayAlias) {
  bool fused = false;
  scf::ParallelOp previous;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (!loop) {
      if (!isTransparent(&op))
        previous = nullptr;
      continue;
    }
    std::optional<LoopPair> pair;
    if (previous)
      pair = getFusablePair(previous, loop, maxSerialIterations, mayAlias);
    if (!pair) {
      previous = loop;
      continue;
    }
    fused = true;
    if (loop.getNumLoops() > pair->shared) {
      // The second body moves into the first loop: what it uses from
      // between the loops (side-effect-free ops, which cannot use the
      // first loop: it has no results) moves before the first.
      while (previous->getNextNode() != loop.getOperation())
        previous->getNextNode()->moveBefore(previous);
      OpBuilder builder(previous.getBody()->getTerminator());
      cloneBodyInSequence(builder, loop, previous, pair->shared);
      loop.erase();
      continue;
    }
    OpBuilder builder = OpBuilder::atBlockBegin(loop.getBody());
    cloneBodyInSequence(builder, previous, loop, pair->shared);
    previous.erase();
    previous = loop;
  }
  return fused;
}

/// The argument of the enclosing function's entry block that `value` is a
/// view of, or null.
static BlockArgument getUnderlyingFunctionArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(quant_block::getRootBuffer(value));
  if (!argument || !argument.getOwner()->isEntryBlock() ||
      !isa<FunctionOpInterface>(argument.getOwner()->getParentOp()))
    return {};
  return argument;
}

/// Whether `a` and `b` view two different arguments of their function, one
/// of them marked `llvm.noalias`: as in LLVM, memory reached through such
/// an argument is reached through no other argument during the call. The
/// upstream alias analysis does not read the attribute: to it two
/// arguments may always alias (a LLaMA layer's K and V caches).
static bool areDistinctNoAliasArguments(Value a, Value b) {
  BlockArgument first = getUnderlyingFunctionArgument(a);
  BlockArgument second = getUnderlyingFunctionArgument(b);
  if (!first || !second || first == second ||
      first.getOwner() != second.getOwner())
    return false;
  auto function = cast<FunctionOpInterface>(first.getOwner()->getParentOp());
  StringRef noAlias = LLVM::LLVMDialect::getNoAliasAttrName();
  return function.getArgAttr(first.getArgNumber(), noAlias) ||
         function.getArgAttr(second.getArgNumber(), noAlias);
}

namespace {
struct GPUFuseParallelLoopsPass
    : public quant_block::impl::GPUFuseParallelLoopsBase<
          GPUFuseParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxSerialIterations < 1) {
      getOperation().emitError()
          << "max-serial-iterations must be positive, not "
          << static_cast<int64_t>(maxSerialIterations);
      return signalPassFailure();
    }
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    auto mayAlias = [&](Value a, Value b) {
      return !aliases.alias(a, b).isNo() && !areDistinctNoAliasArguments(a, b);
    };
    getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions()) {
        for (Block &block : region) {
          hoistAllocationsOutOfLoopRuns(block);
          // Again while loops fuse: a fused loop may now fuse with the
          // loop before it (a fill, then an elementwise loop that joins
          // the reduction after it).
          while (fuseAdjacentLoops(block, maxSerialIterations, mayAlias))
            ;
        }
      }
    });
  }
};
} // namespace
