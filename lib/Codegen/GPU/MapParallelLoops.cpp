//===- MapParallelLoops.cpp - scf.parallel to workgroups and threads ------===//
//
// --quant-block-gpu-map-parallel-loops: see Passes.td. The mapping is left
// to upstream --convert-parallel-loops-to-gpu; this pass only shapes the
// loops (one dimension, constant workgroup size) and annotates them.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "BufferViews.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <numeric>

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUMAPPARALLELLOOPS
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

/// Maps every dimension of `loop` to `processor`, with identity maps.
static LogicalResult mapTo(scf::ParallelOp loop, gpu::Processor processor) {
  MLIRContext *ctx = loop.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping(
      loop.getNumLoops(),
      gpu::ParallelLoopDimMappingAttr::get(ctx, gpu::Processor::Sequential,
                                           identity, identity));
  if (processor != gpu::Processor::Sequential)
    mapping.front() = gpu::ParallelLoopDimMappingAttr::get(ctx, processor,
                                                           identity, identity);
  return gpu::setMappingAttr(loop, mapping);
}

/// Replaces `loop` (a loop nested in a mapped one, without reductions) by a
/// nest of scf.for loops, its first dimension outermost: it runs in
/// sequence in each thread anyway, and convert-parallel-loops-to-gpu leaves
/// the whole mapped loop on the host when a sequential scf.parallel sits
/// inside an scf.for within it (a linalg op whose reduction dimension is not
/// innermost: the LLaMA model's attention-weighted sum of V).
static LogicalResult toNestedFors(RewriterBase &rewriter,
                                  scf::ParallelOp loop) {
  if (!loop.getInitVals().empty())
    return loop.emitError("parallel loops with reductions are not mapped "
                          "to the GPU");
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> ivs;
  for (auto [lower, upper, step] : llvm::zip_equal(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto nest = scf::ForOp::create(rewriter, loop.getLoc(), lower, upper, step);
    ivs.push_back(nest.getInductionVar());
    rewriter.setInsertionPointToStart(nest.getBody());
  }
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(
      body, rewriter.getInsertionBlock()->getTerminator(), ivs);
  rewriter.eraseOp(loop);
  return success();
}

/// The number of iterations of `loop` (all dimensions), when static. Taken
/// before the dimensions are collapsed: the collapsed loop's upper bound is
/// an arith.muli of the trip counts, not a constant.
static std::optional<int64_t> staticTripCount(scf::ParallelOp loop) {
  int64_t total = 1;
  for (unsigned i = 0, e = loop.getNumLoops(); i < e; ++i) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[i]);
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[i]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[i]);
    if (!lb || !ub || !step || *step <= 0)
      return std::nullopt;
    total *= llvm::divideCeil(std::max<int64_t>(*ub - *lb, 0), *step);
  }
  return total;
}

/// Whether elements of `type` take less than a byte each in memory (MLIR
/// does not pack them: memref<Nxi4> takes N bytes on the host, and SPIR-V
/// has no such types at all).
static bool isSubByte(Type type) {
  unsigned width = type.getIntOrFloatBitWidth();
  return width != 1 && width < 8;
}

/// Whether `loop` loads or stores memrefs of sub-byte elements. Such loops
/// (packing constants of i4 / f4E2M1FN in a test's `main`) stay on the host:
/// kernels see packed data only as i8 storage.
static bool touchesSubByteMemory(scf::ParallelOp loop) {
  auto subByte = [](Value memref) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    return element.isIntOrFloat() && isSubByte(element);
  };
  WalkResult result = loop.walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      if (subByte(load.getMemRef()))
        return WalkResult::interrupt();
    if (auto store = dyn_cast<memref::StoreOp>(op))
      if (subByte(store.getMemRef()))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// The buffers `loop`'s body writes, or std::nullopt when it may write
/// anything else (an op with unknown or other write effects).
static std::optional<llvm::SmallPtrSet<Value, 4>>
getWrittenBuffers(scf::ParallelOp loop) {
  llvm::SmallPtrSet<Value, 4> written;
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      written.insert(getRootBuffer(store.getMemRef()));
      return WalkResult::advance();
    }
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isa<memref::LoadOp>(op) || isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (result.wasInterrupted())
    return std::nullopt;
  return written;
}

/// The most iterations of an innermost dimension that
/// splitPackedLanes keeps in one thread: the codes of one packed group
/// (2 for 4-bit, 4 for 2-bit storage, 8 for 1-, 3-, 5- and 7-bit).
constexpr int64_t kMaxPackedLanes = 8;

/// When the innermost dimension of `loop` is short (at most
/// kMaxPackedLanes iterations) and its body loads a byte whose address
/// does not depend on that dimension (the packed byte of a group of
/// sub-byte codes, as the lowering of dequantize reads it), the dimension
/// becomes a loop inside each thread, and the loads and the computations
/// that do not depend on it are hoisted out of that loop: one thread per
/// packed byte, which it loads once, instead of one thread per code
/// loading the byte again. Returns the new outer loop (or `loop`).
static scf::ParallelOp splitPackedLanes(IRRewriter &rewriter,
                                        scf::ParallelOp loop) {
  unsigned numLoops = loop.getNumLoops();
  if (numLoops < 2)
    return loop;
  unsigned inner = numLoops - 1;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[inner]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[inner]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[inner]);
  if (!lb || !ub || !step || *step <= 0)
    return loop;
  int64_t trips = llvm::divideCeil(*ub - *lb, *step);
  if (trips < 2 || trips > kMaxPackedLanes)
    return loop;
  std::optional<llvm::SmallPtrSet<Value, 4>> written = getWrittenBuffers(loop);
  if (!written)
    return loop;
  auto writtenCannotAlias = [&](Value memref) {
    Value root = getRootBuffer(memref);
    return llvm::all_of(*written, [&](Value other) {
      return other != root &&
             isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
                 other.getDefiningOp());
    });
  };

  // Ops that depend on the innermost index (or on such ops, or that are
  // not hoistable) stay in the inner loop; the others move out, in order.
  Block *body = loop.getBody();
  llvm::SmallPtrSet<Operation *, 16> staying;
  llvm::SmallPtrSet<Value, 16> inside = {loop.getInductionVars()[inner]};
  bool hoistsPackedByte = false;
  for (Operation &op : body->without_terminator()) {
    bool dependent = false;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        dependent |= inside.contains(operand);
    });
    auto load = dyn_cast<memref::LoadOp>(op);
    bool hoistable = op.getNumRegions() == 0 &&
                     (isMemoryEffectFree(&op) ||
                      (load && writtenCannotAlias(load.getMemRef())));
    if (dependent || !hoistable) {
      staying.insert(&op);
      for (Value result : op.getResults())
        inside.insert(result);
      continue;
    }
    if (load && load.getType().isInteger(8))
      hoistsPackedByte = true;
  }
  if (!hoistsPackedByte)
    return loop;

  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().drop_back(),
      loop.getUpperBound().drop_back(), loop.getStep().drop_back());
  IRMapping mapping;
  for (unsigned i = 0; i < inner; ++i)
    mapping.map(loop.getInductionVars()[i], outer.getInductionVars()[i]);
  rewriter.setInsertionPointToStart(outer.getBody());
  for (Operation &op : body->without_terminator())
    if (!staying.contains(&op))
      rewriter.clone(op, mapping);
  // An scf.for, not a sequential scf.parallel: the bounds guard the tiling
  // adds puts the body in an scf.if, where convert-parallel-loops-to-gpu
  // does not look for nested parallel loops.
  auto lanes =
      scf::ForOp::create(rewriter, loc, loop.getLowerBound()[inner],
                         loop.getUpperBound()[inner], loop.getStep()[inner]);
  mapping.map(loop.getInductionVars()[inner], lanes.getInductionVar());
  rewriter.setInsertionPoint(lanes.getBody()->getTerminator());
  for (Operation &op : body->without_terminator())
    if (staying.contains(&op))
      rewriter.clone(op, mapping);
  rewriter.eraseOp(loop);
  return outer;
}

namespace {
struct GPUMapParallelLoopsPass
    : public quant_block::impl::GPUMapParallelLoopsBase<
          GPUMapParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (workgroupSize <= 0 || maxWorkgroups <= 0) {
      getOperation().emitError()
          << "workgroup-size and max-workgroups must be positive";
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          !loop->getParentOfType<gpu::LaunchOp>())
        outermost.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermost)
      if (!touchesSubByteMemory(loop) && failed(mapLoop(rewriter, loop)))
        return signalPassFailure();
  }

  LogicalResult mapLoop(IRRewriter &rewriter, scf::ParallelOp loop) {
    if (!loop.getInitVals().empty())
      return loop.emitError("parallel loops with reductions are not mapped "
                            "to the GPU");
    loop = splitPackedLanes(rewriter, loop);
    // Loops nested in the mapped one run in sequence in each thread.
    SmallVector<scf::ParallelOp> nested;
    loop.getBody()->walk(
        [&](scf::ParallelOp inner) { nested.push_back(inner); });
    for (scf::ParallelOp inner : nested)
      if (failed(toNestedFors(rewriter, inner)))
        return failure();

    std::optional<int64_t> trips = staticTripCount(loop);

    // One dimension, row-major: the innermost dimension varies fastest
    // across threads.
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      Operation *before = loop->getPrevNode();
      Block *block = loop->getBlock();
      collapseParallelLoops(rewriter, loop, {all});
      // collapseParallelLoops replaces `loop`: find the new one.
      Block::iterator it =
          before ? std::next(before->getIterator()) : block->begin();
      scf::ParallelOp collapsed;
      for (; it != block->end(); ++it)
        if ((collapsed = dyn_cast<scf::ParallelOp>(&*it)))
          break;
      if (!collapsed)
        return block->getParentOp()->emitError(
            "internal error: collapsed parallel loop not found");
      loop = collapsed;
    }

    // Workgroups of `workgroupSize` threads; with too many workgroups, each
    // thread handles `perThread` elements, one workgroup-wide chunk after
    // the other (consecutive threads still touch consecutive elements).
    int64_t perThread = 1;
    if (trips) {
      int64_t groups = llvm::divideCeil(*trips, workgroupSize);
      if (groups > maxWorkgroups)
        perThread = llvm::divideCeil(groups, maxWorkgroups);
    }
    auto [tiles, tile] = scf::tileParallelLoop(
        loop, {workgroupSize * perThread}, /*noMinMaxBounds=*/true);
    if (failed(mapTo(tiles, gpu::Processor::BlockX)))
      return failure();
    if (perThread == 1)
      return mapTo(tile, gpu::Processor::ThreadX);
    auto [chunks, threads] =
        scf::tileParallelLoop(tile, {workgroupSize}, /*noMinMaxBounds=*/true);
    if (failed(mapTo(chunks, gpu::Processor::Sequential)))
      return failure();
    return mapTo(threads, gpu::Processor::ThreadX);
  }
};
} // namespace
