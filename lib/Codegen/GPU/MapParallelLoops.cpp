//===- MapParallelLoops.cpp - scf.parallel to workgroups and threads ------===//
//
// --quant-block-gpu-map-parallel-loops: see Passes.td. The mapping is left
// to upstream --convert-parallel-loops-to-gpu; this pass only shapes the
// loops (one dimension, constant workgroup size) and annotates them.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUMAPPARALLELLOOPS
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

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
    // Loops nested in the mapped one run in sequence in each thread.
    SmallVector<scf::ParallelOp> nested;
    loop.getBody()->walk(
        [&](scf::ParallelOp inner) { nested.push_back(inner); });
    for (scf::ParallelOp inner : nested)
      if (failed(mapTo(inner, gpu::Processor::Sequential)))
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
