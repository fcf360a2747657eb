//===- MapReductions.cpp - reassociable reductions to workgroups ----------===//
//
// --quant-block-gpu-map-reductions: see Passes.td. A reduction whose
// combiner may be reassociated (arith.addf with `reassoc`; arith.addi and
// the integer and float max / min, which are associative and commutative
// exactly) gets one workgroup per output element: threads stride over the
// reduction, then a tree in workgroup memory combines their partial
// results. The tree's shape depends only on the workgroup size, so the
// bits are fixed by the compiled code (and for addi, max and min are those
// of any order). Strict-order sums keep the sequential loop of
// convert-linalg-to-parallel-loops.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "WorkgroupExchanges.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUMAPREDUCTIONS
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {
/// A reduction the pass maps: the body's combiner (`out + x` or `x + out`)
/// and which of its operands is the output's block argument.
struct Reduction {
  Operation *combiner;
  unsigned outOperand;
};
} // namespace

/// Whether `op` combines two values associatively and commutatively,
/// exactly: whatever the order of a reduction with it, the same result.
/// (maximumf / minimumf order -0 below +0 and propagate NaN; maxnumf /
/// minnumf return the other operand of a NaN; both are exact either way.)
static bool isExactlyAssociative(Operation *op) {
  return isa<arith::AddIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
             arith::MinUIOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(op);
}

/// The combiner of `op` when it may be reassociated: the yielded value is an
/// addf with `reassoc` or an exactly associative op (addi, max, min) of the
/// output block argument (used only there) and a value computed without
/// it.
static std::optional<Reduction> getReassociableReduction(linalg::GenericOp op) {
  Block *body = op.getBody();
  BlockArgument out = body->getArguments().back();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 1 || !out.hasOneUse())
    return std::nullopt;
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != body)
    return std::nullopt;
  if (auto addf = dyn_cast<arith::AddFOp>(combiner)) {
    if (!arith::bitEnumContainsAll(addf.getFastmath(),
                                   arith::FastMathFlags::reassoc))
      return std::nullopt;
  } else if (!isExactlyAssociative(combiner)) {
    return std::nullopt;
  }
  for (unsigned i = 0; i < 2; ++i)
    if (combiner->getOperand(i) == out)
      return Reduction{combiner, i};
  return std::nullopt;
}

/// The neutral element of `combiner` for values of `type`: -0.0 for addf
/// (x + -0.0 == x for every x, +0.0 included), 0 for addi; for max and min
/// the value every other beats: -inf / +inf for maximumf / minimumf (a NaN
/// still wins), NaN for maxnumf / minnumf (which return the other operand),
/// the type's extremes for the integer ones.
static Value neutral(OpBuilder &b, Location loc, Operation *combiner,
                     Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat value = APFloat::getZero(semantics, /*Negative=*/true);
    if (isa<arith::MaximumFOp>(combiner))
      value = APFloat::getInf(semantics, /*Negative=*/true);
    else if (isa<arith::MinimumFOp>(combiner))
      value = APFloat::getInf(semantics, /*Negative=*/false);
    else if (isa<arith::MaxNumFOp, arith::MinNumFOp>(combiner))
      value = APFloat::getQNaN(semantics);
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  APInt value = APInt::getZero(bits);
  if (isa<arith::MaxSIOp>(combiner))
    value = APInt::getSignedMinValue(bits);
  else if (isa<arith::MinSIOp>(combiner))
    value = APInt::getSignedMaxValue(bits);
  else if (isa<arith::MinUIOp>(combiner))
    value = APInt::getMaxValue(bits);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

/// `combiner` applied to `lhs` and `rhs` (a clone: same flags).
static Value combine(OpBuilder &b, Operation *combiner, Value lhs, Value rhs) {
  IRMapping mapping;
  mapping.map(combiner->getOperand(0), lhs);
  mapping.map(combiner->getOperand(1), rhs);
  return b.clone(*combiner, mapping)->getResult(0);
}

/// The values of `map`'s results at the loop indices `indices`.
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                                   ValueRange indices) {
  SmallVector<Value> values;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      values.push_back(indices[dim.getPosition()]);
      continue;
    }
    values.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), indices));
  }
  return values;
}

namespace {
struct GPUMapReductionsPass
    : public quant_block::impl::GPUMapReductionsBase<GPUMapReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (workgroupSize <= 0 || maxWorkgroups <= 0 || minReductionSize < 1 ||
        minExtremumReductionSize < 1) {
      getOperation().emitError()
          << "workgroup-size, max-workgroups, min-reduction-size and "
             "min-extremum-reduction-size must be positive";
      return signalPassFailure();
    }
    if (subgroupSize < 0 ||
        (subgroupSize > 0 && !llvm::isPowerOf2_64(subgroupSize))) {
      getOperation().emitError()
          << "subgroup-size must be 0 or a power of two, not "
          << static_cast<int64_t>(subgroupSize);
      return signalPassFailure();
    }
    if (failed(quant_block::verifyWorkgroupMemoryOption(getOperation(),
                                                        workgroupMemory)))
      return signalPassFailure();
    SmallVector<std::pair<linalg::GenericOp, Reduction>> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<Reduction> reduction = match(op))
        candidates.push_back({op, *reduction});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, reduction] : candidates)
      rewrite(rewriter, op, reduction);
  }

  std::optional<Reduction> match(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumLoops() == 0 || op.getNumReductionLoops() == 0)
      return std::nullopt;
    // The innermost loop must be the reduction: threads then stride over
    // the fastest-varying index, which is what makes the loads coalesced.
    if (!linalg::isReductionIterator(op.getIteratorTypesArray().back()))
      return std::nullopt;
    Type type = op.getDpsInitOperand(0)->get().getType();
    Type element = cast<MemRefType>(type).getElementType();
    // 32- and 64-bit scalars: narrower floats are emulated in f32 later in
    // the GPU middle, and workgroup buffers of them need more capabilities.
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 32)
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t reductionSize = 1, outputs = 1;
    for (auto [range, iterator] :
         llvm::zip_equal(ranges, op.getIteratorTypesArray())) {
      if (ShapedType::isDynamic(range))
        return std::nullopt;
      if (linalg::isReductionIterator(iterator))
        reductionSize *= range;
      else
        outputs *= range;
    }
    // No output element: no launch (a grid of zero workgroups is invalid).
    if (outputs == 0 || reductionSize < minReductionSize)
      return std::nullopt;
    std::optional<Reduction> reduction = getReassociableReduction(op);
    if (!reduction || reduction->combiner->getResult(0).getType() != element)
      return std::nullopt;
    // A max or min of a short row stays a loop in one thread: a block's
    // max |x| is computed where its scale and codes are (one kernel after
    // --quant-block-gpu-fuse-parallel-loops), and a tree there would add
    // two launches (its fill and the scales after it).
    if (!isa<arith::AddFOp, arith::AddIOp>(reduction->combiner) &&
        reductionSize < minExtremumReductionSize)
      return std::nullopt;
    return reduction;
  }

  void rewrite(IRRewriter &rewriter, linalg::GenericOp op,
               Reduction reduction) {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<unsigned> parallelDims, reductionDims;
    SmallVector<int64_t> parallelSizes, reductionSizes;
    int64_t outputs = 1, reductionSize = 1;
    for (auto [dim, range] : llvm::enumerate(ranges)) {
      if (linalg::isReductionIterator(iterators[dim])) {
        reductionDims.push_back(dim);
        reductionSizes.push_back(range);
        reductionSize *= range;
      } else {
        parallelDims.push_back(dim);
        parallelSizes.push_back(range);
        outputs *= range;
      }
    }
    Value output = op.getDpsInitOperand(0)->get();
    Type element = cast<MemRefType>(output.getType()).getElementType();
    int64_t groups = std::min<int64_t>(outputs, maxWorkgroups);

    rewriter.setInsertionPoint(op);
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    Value one = constant(1);
    bool attribution = workgroupMemory == "attribution";
    // convert-gpu-to-spirv maps numeric memory spaces of memref.alloc (3:
    // Workgroup, as in its Vulkan map), not #gpu.address_space.
    Attribute memorySpace = attribution
                                ? Attribute(gpu::AddressSpaceAttr::get(
                                      ctx, gpu::AddressSpace::Workgroup))
                                : Attribute(rewriter.getI64IntegerAttr(3));
    auto bufferType = MemRefType::get({workgroupSize}, element,
                                      MemRefLayoutAttrInterface(), memorySpace);
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, constant(groups), one, one, constant(workgroupSize), one,
        one, /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/ValueRange(),
        attribution ? TypeRange{bufferType} : TypeRange{});

    OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value buffer;
    if (attribution)
      buffer = launch.getWorkgroupAttributions().front();
    else
      buffer = memref::AllocOp::create(b, loc, bufferType);
    Value thread = launch.getThreadIds().x;
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    // Each workgroup handles output elements group, group + groups, ...: the
    // trip count is the same for all its threads, so the barriers inside
    // are reached by every thread.
    auto outputLoop =
        scf::ForOp::create(b, loc, launch.getBlockIds().x,
                           arith::ConstantIndexOp::create(b, loc, outputs),
                           arith::ConstantIndexOp::create(b, loc, groups));
    b.setInsertionPoint(outputLoop.getBody()->getTerminator());
    // The loop indices; the reduction dimensions' are set inside the
    // partial-sum loop only (the output's map does not use them).
    SmallVector<Value> indices(ranges.size(), c0);
    auto delinearize = [&](SmallVector<Value> &indices, Value linear,
                           ArrayRef<unsigned> dims, ArrayRef<int64_t> sizes) {
      if (dims.empty())
        return;
      if (dims.size() == 1) {
        indices[dims.front()] = linear;
        return;
      }
      auto split =
          affine::AffineDelinearizeIndexOp::create(b, loc, linear, sizes);
      for (auto [dim, value] : llvm::zip_equal(dims, split.getResults()))
        indices[dim] = value;
    };
    delinearize(indices, outputLoop.getInductionVar(), parallelDims,
                parallelSizes);

    // This thread's partial sum: iterations thread, thread + size, ... in
    // order, with the op's body.
    auto partialLoop = scf::ForOp::create(
        b, loc, thread, arith::ConstantIndexOp::create(b, loc, reductionSize),
        arith::ConstantIndexOp::create(b, loc, workgroupSize),
        ValueRange{neutral(b, loc, reduction.combiner, element)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(partialLoop.getBody());
      SmallVector<Value> all(indices);
      delinearize(all, partialLoop.getInductionVar(), reductionDims,
                  reductionSizes);
      IRMapping mapping;
      Block *body = op.getBody();
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value value = input->get();
        BlockArgument argument = body->getArgument(input->getOperandNumber());
        if (isa<MemRefType>(value.getType()))
          value = memref::LoadOp::create(
              b, loc, value,
              applyMap(b, loc, op.getMatchingIndexingMap(input), all));
        mapping.map(argument, value);
      }
      mapping.map(body->getArguments().back(),
                  partialLoop.getRegionIterArgs().front());
      for (Operation &bodyOp : body->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
          mapping.map(index.getResult(), all[index.getDim()]);
          continue;
        }
        b.clone(bodyOp, mapping);
      }
      scf::YieldOp::create(b, loc,
                           mapping.lookup(reduction.combiner->getResult(0)));
    }
    // The last steps of the tree within a subgroup, where the values left
    // are those of threads 0 .. subgroup-size - 1: by xor shuffles of
    // `subgroup-size` lanes (thread t < h takes the value of t ^ h = t + h,
    // the same addition as in memory, so the same bits) instead of
    // workgroup memory and a barrier each. Every thread runs them (a
    // shuffle needs its partner active). Only for power-of-two workgroups
    // of whole subgroups and 32-bit values, the shuffles' types.
    Value partial = partialLoop.getResult(0);
    unsigned bits =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
    bool subgroupSteps = subgroupSize > 1 &&
                         llvm::isPowerOf2_64(workgroupSize) &&
                         workgroupSize % subgroupSize == 0 && bits == 32;
    int64_t memoryDownTo = subgroupSteps ? subgroupSize : 1;
    bool inMemory = workgroupSize > memoryDownTo;
    if (inMemory) {
      memref::StoreOp::create(b, loc, partial, buffer, thread);
      gpu::BarrierOp::create(b, loc);
    }

    // The tree: with n partial sums left, thread t < n - ceil(n/2) adds
    // sum t + ceil(n/2) into sum t.
    int64_t left = workgroupSize;
    while (left > memoryDownTo) {
      int64_t half = llvm::divideCeil(left, 2);
      Value active = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, thread,
          arith::ConstantIndexOp::create(b, loc, left - half));
      auto step = scf::IfOp::create(b, loc, active);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(step.thenBlock());
        Value partner = arith::AddIOp::create(
            b, loc, thread, arith::ConstantIndexOp::create(b, loc, half));
        Value mine = memref::LoadOp::create(b, loc, buffer, thread);
        Value theirs = memref::LoadOp::create(b, loc, buffer, partner);
        Value sum = combine(b, reduction.combiner, mine, theirs);
        memref::StoreOp::create(b, loc, sum, buffer, thread);
      }
      gpu::BarrierOp::create(b, loc);
      left = half;
    }
    Value subgroupTotal;
    if (subgroupSteps) {
      Value value =
          inMemory ? memref::LoadOp::create(b, loc, buffer, thread) : partial;
      Value width = arith::ConstantOp::create(
          b, loc, b.getI32IntegerAttr(static_cast<int32_t>(subgroupSize)));
      for (int64_t half = left / 2; half >= 1; half /= 2) {
        Value offset = arith::ConstantOp::create(
            b, loc, b.getI32IntegerAttr(static_cast<int32_t>(half)));
        Value theirs = gpu::ShuffleOp::create(b, loc, value, offset, width,
                                              gpu::ShuffleMode::XOR)
                           .getShuffleResult();
        value = combine(b, reduction.combiner, value, theirs);
      }
      subgroupTotal = value;
    }

    // Thread 0 adds the total to the output's initial value, in the body's
    // operand order.
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, c0);
    auto store = scf::IfOp::create(b, loc, first);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(store.thenBlock());
      SmallVector<Value> outIndices = applyMap(
          b, loc, op.getMatchingIndexingMap(op.getDpsInitOperand(0)), indices);
      Value init = memref::LoadOp::create(b, loc, output, outIndices);
      Value total =
          subgroupTotal
              ? subgroupTotal
              : memref::LoadOp::create(b, loc, buffer, c0).getResult();
      Value result = reduction.outOperand == 0
                         ? combine(b, reduction.combiner, init, total)
                         : combine(b, reduction.combiner, total, init);
      memref::StoreOp::create(b, loc, result, output, outIndices);
    }
    // Thread 0 read the buffer's total above; the next output element's
    // partial sums overwrite it. (With the subgroup steps each thread read
    // only its own slot after the tree's last barrier, which it alone
    // writes next.)
    if (!subgroupSteps)
      gpu::BarrierOp::create(b, loc);

    b.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    rewriter.eraseOp(op);
  }
};
} // namespace
