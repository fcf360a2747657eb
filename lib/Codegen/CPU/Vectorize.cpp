//===- Vectorize.cpp - tile and vectorize linalg ops for the CPU ----------===//
//
// --quant-block-cpu-vectorize: tiles each linalg op on tensors to a tile of a
// few vector registers and runs the upstream linalg vectorizer on the tile.
// Tile sizes are divisors of the static loop sizes, so the tiles are static
// and the vectorizer needs no masks; the rule is chooseCPUTileSizes
// (TileSizeSelection.h).
//
//===----------------------------------------------------------------------===//

#include "VectorizationLimits.h"

#include "quant-block/Codegen/CPU/Passes.h"
#include "quant-block/Codegen/CPU/TileSizeSelection.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUVECTORIZE
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

/// The widest element type `op` reads or writes, in bits: it decides how many
/// elements fit the register budget.
static int64_t getWidestElementBits(linalg::LinalgOp op) {
  int64_t widest = 8;
  for (OpOperand &operand : op->getOpOperands()) {
    Type element = getElementTypeOrSelf(operand.get().getType());
    if (element.isIndex())
      widest = std::max<int64_t>(widest, 64);
    else if (element.isIntOrFloat())
      widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth());
  }
  return widest;
}

/// Whether `op` sums floats over its reduction loops. Such sums are ordered
/// (each output adds its terms one after the other, as the scalar code does),
/// so a vector along a reduction loop is one dependent chain of additions.
static bool hasOrderedFloatSum(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return false;
  WalkResult result = op->walk([](Operation *inner) {
    return isa<arith::AddFOp, arith::SubFOp>(inner) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Tile sizes for `op` (0 = not tiled; see chooseCPUTileSizes) and, with
/// `minParallelIterations` > 0, the loop whose tiles run on several threads
/// (see chooseCPUParallelLoop).
static SmallVector<int64_t>
chooseTileSizes(linalg::LinalgOp op, int64_t budget, int64_t lanes,
                int64_t minParallelIterations,
                std::optional<size_t> &parallelLoop) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<bool> isParallel = llvm::map_to_vector(
      op.getIteratorTypesArray(), [](utils::IteratorType iterator) {
        return iterator == utils::IteratorType::parallel;
      });
  TileSizeProblem problem;
  problem.loopRanges = ranges;
  problem.isParallel = isParallel;
  problem.hasOrderedFloatSum = hasOrderedFloatSum(op);
  problem.budget = budget;
  problem.lanes = lanes;
  SmallVector<int64_t> sizes = chooseCPUTileSizes(problem);
  parallelLoop = std::nullopt;
  if (minParallelIterations > 0)
    parallelLoop = chooseCPUParallelLoop(problem, sizes, minParallelIterations);
  return sizes;
}

/// The loops of an outer product contraction (OuterProductProblem): a
/// linalg op whose body is `acc + a * b` in one float type, with reduction
/// loops that both inputs read, the innermost output dimension also
/// innermost in `b` and absent from `a`, and a static parallel loop of more
/// than one iteration that `a` and the output read and `b` does not.
static std::optional<OuterProductProblem>
matchOuterProductContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || op->getNumRegions() != 1)
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!element.isF32() && !element.isF64())
    return std::nullopt;
  for (Value input : op.getDpsInputs())
    if (getElementTypeOrSelf(input.getType()) != element)
      return std::nullopt;

  // The body: %p = mulf %a, %b; %s = addf %acc, %p (either order); yield %s.
  Block &body = op->getRegion(0).front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto multiply = dyn_cast<arith::MulFOp>(body.front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  auto yield = body.getTerminator();
  if (!multiply || !add || yield->getNumOperands() != 1 ||
      yield->getOperand(0) != add.getResult())
    return std::nullopt;
  Value in0 = body.getArgument(0), in1 = body.getArgument(1),
        acc = body.getArgument(2);
  if (!((multiply.getLhs() == in0 && multiply.getRhs() == in1) ||
        (multiply.getLhs() == in1 && multiply.getRhs() == in0)))
    return std::nullopt;
  if (!((add.getLhs() == acc && add.getRhs() == multiply.getResult()) ||
        (add.getRhs() == acc && add.getLhs() == multiply.getResult())))
    return std::nullopt;

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation() || map.getNumResults() == 0)
      return std::nullopt;
  auto innermost = [](AffineMap map) {
    return cast<AffineDimExpr>(map.getResults().back()).getPosition();
  };
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  OuterProductProblem problem;
  problem.vectorLoop = innermost(maps[2]);
  unsigned b = innermost(maps[0]) == problem.vectorLoop ? 0 : 1;
  AffineMap mapA = maps[1 - b], mapB = maps[b];
  if (innermost(mapB) != problem.vectorLoop ||
      mapA.isFunctionOfDim(problem.vectorLoop))
    return std::nullopt;
  std::optional<size_t> rowLoop;
  for (size_t d = 0, e = ranges.size(); d < e; ++d) {
    if (iterators[d] == utils::IteratorType::reduction) {
      if (!mapA.isFunctionOfDim(d) || !mapB.isFunctionOfDim(d))
        return std::nullopt;
      problem.reductionLoops.push_back(d);
      continue;
    }
    if (ranges[d] > 1 && mapA.isFunctionOfDim(d) && !mapB.isFunctionOfDim(d) &&
        (!rowLoop || ranges[d] > ranges[*rowLoop]))
      rowLoop = d;
  }
  if (!rowLoop)
    return std::nullopt;
  problem.rowLoop = *rowLoop;
  return problem;
}

/// The addition of the body of an outer product contraction (`acc + a * b`).
static arith::AddFOp getBodySum(linalg::LinalgOp op) {
  return cast<arith::AddFOp>(*std::next(op->getRegion(0).front().begin()));
}

/// The marker of the reduction loop of an outer product tile, whose
/// accumulators the pass hoists out of it once the tile is vectorized. Its
/// value is the fast-math flags of the body's addition, which the
/// vectorizer's vector.multi_reduction drops: whether the terms may fuse.
static constexpr llvm::StringLiteral kAccumulatorLoop =
    "quant_block.cpu_accumulator_loop";

/// Replaces `reduction`, the vectorized body of an outer product tile whose
/// reduction tile is one iteration (a sum over unit dimensions), by one
/// addition of the term to its accumulator: a fused multiply-add where the
/// body's `flags` have `contract`. (No other flag on either: the tile fixes
/// the order, and LLVM must not change it.)
static void accumulateTerm(RewriterBase &rewriter,
                           vector::MultiDimReductionOp reduction,
                           arith::FastMathFlagsAttr flags) {
  if (reduction.getKind() != vector::CombiningKind::ADD ||
      !isa<VectorType>(reduction.getDestType()))
    return;
  ArrayRef<int64_t> shape = reduction.getSourceVectorType().getShape();
  for (int64_t dim : reduction.getReductionDims())
    if (shape[dim] != 1)
      return;
  rewriter.setInsertionPoint(reduction);
  Location loc = reduction.getLoc();
  Type type = reduction.getDestType();
  // With `contract`, a fused multiply-add: math.fma rounds once on every
  // host, where `contract` on a multiplication and an addition would fuse
  // only on hosts with FMA instructions (the bits would depend on the host).
  auto product = reduction.getSource().getDefiningOp<arith::MulFOp>();
  if (product && arith::bitEnumContainsAll(flags.getValue(),
                                           arith::FastMathFlags::contract)) {
    Value lhs =
        vector::ShapeCastOp::create(rewriter, loc, type, product.getLhs());
    Value rhs =
        vector::ShapeCastOp::create(rewriter, loc, type, product.getRhs());
    // No fast-math flags on it: with `reassoc`, LLVM's instcombine splits
    // an fma back into a multiplication and an addition, which only hosts
    // with FMA instructions fuse again.
    rewriter.replaceOpWithNewOp<math::FmaOp>(reduction, lhs, rhs,
                                             reduction.getAcc());
    return;
  }
  Value terms =
      vector::ShapeCastOp::create(rewriter, loc, type, reduction.getSource());
  rewriter.replaceOpWithNewOp<arith::AddFOp>(reduction, reduction.getAcc(),
                                             terms);
}

/// Tiles `op` by `sizes` (0 = not tiled) with loops of `loopType`, replaces
/// it, and returns the tiled op (the op itself when nothing is tiled).
/// With an `interchange` (the loops outermost first), the tile loops nest in
/// that order, and `marker`, when given, marks the `marked` innermost ones.
static FailureOr<Operation *> tile(RewriterBase &rewriter, Operation *op,
                                   ArrayRef<int64_t> sizes,
                                   scf::SCFTilingOptions::LoopType loopType,
                                   ArrayRef<int64_t> interchange = {},
                                   unsigned marked = 0,
                                   NamedAttribute *marker = nullptr) {
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return op;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  options.setLoopType(loopType);
  options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled))
    return failure();
  if (marker)
    for (LoopLikeOpInterface loop :
         ArrayRef(tiled->loops)
             .take_back(std::min<size_t>(marked, tiled->loops.size())))
      loop->setAttr(marker->getName(), marker->getValue());
  rewriter.replaceOp(op, tiled->replacements);
  return tiled->tiledOps.back();
}

namespace {
struct CPUVectorizePass
    : public mlir::quant_block::impl::CPUVectorizeBase<CPUVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      // VectorizationLimits.h says why the others stay scalar.
      if (mlir::quant_block::detail::isCPUVectorizationCandidate(op))
        candidates.push_back(op);
    });

    IRRewriter rewriter(ctx);
    for (linalg::LinalgOp op : candidates) {
      Operation *target = op;
      int64_t widest = getWidestElementBits(op);
      std::optional<size_t> parallelLoop;
      SmallVector<int64_t> sizes = chooseTileSizes(
          op, vectorBits * registers / widest, vectorBits / widest,
          parallel ? parallelMinIterations : 0, parallelLoop);
      // A sum of outer products gets a register tile of accumulators
      // instead, its reduction loop innermost (getOuterProductLoopOrder).
      SmallVector<int64_t> interchange;
      std::optional<NamedAttribute> accumulatorMarker;
      unsigned accumulatorLoops = 0;
      if (std::optional<OuterProductProblem> outer =
              matchOuterProductContraction(op)) {
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        outer->loopRanges = ranges;
        outer->lanes = vectorBits / widest;
        // Of x86's 32 vector registers with AVX-512 (16 below), the rest
        // hold the vectors of `b` and the broadcasts of `a`.
        outer->accumulators = vectorBits >= 512 ? 24 : 12;
        if (std::optional<SmallVector<int64_t>> outerSizes =
                chooseCPUOuterProductTileSizes(*outer)) {
          sizes = std::move(*outerSizes);
          interchange = getOuterProductLoopOrder(*outer);
          accumulatorLoops = llvm::count_if(
              outer->reductionLoops, [&](size_t d) { return sizes[d] != 0; });
          accumulatorMarker = NamedAttribute(
              kAccumulatorLoop,
              arith::FastMathFlagsAttr::get(ctx, getBodySum(op).getFastmath()));
          if (parallel)
            parallelLoop = chooseCPUOuterProductParallelLoop(
                *outer, sizes, interchange, parallelMinIterations);
        }
      }
      if (parallelLoop) {
        // First the threads' loop alone, with the tile size of the
        // sequential nest (it divides the loop, so every tile is static);
        // then the rest of the nest inside it, as without threads.
        SmallVector<int64_t> outer(sizes.size(), 0);
        std::swap(outer[*parallelLoop], sizes[*parallelLoop]);
        FailureOr<Operation *> tiled = tile(
            rewriter, target, outer, scf::SCFTilingOptions::LoopType::ForallOp);
        if (failed(tiled))
          continue;
        target = *tiled;
      }
      FailureOr<Operation *> tiled =
          tile(rewriter, target, sizes, scf::SCFTilingOptions::LoopType::ForOp,
               interchange, accumulatorLoops,
               accumulatorMarker ? &*accumulatorMarker : nullptr);
      if (failed(tiled))
        continue;
      target = *tiled;
      // Ops the vectorizer cannot handle (e.g. non-static tiles of ops with
      // only dynamic loops) stay scalar; they are lowered to loops later.
      if (mlir::quant_block::detail::readsSlicedTensor(target) ||
          failed(linalg::vectorizeOpPrecondition(target, {}, {},
                                                 /*vectorizeNDExtract=*/true)))
        continue;
      rewriter.setInsertionPoint(target);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, target, {}, {},
                            /*vectorizeNDExtract=*/true);
      if (succeeded(vectorized))
        rewriter.replaceOp(target, vectorized->replacements);
    }

    // The clean-ups the upstream vectorize_children_and_apply_patterns
    // transform applies: fold the transfers into the tensor slices of the
    // tiles and bring the vector code into canonical form. Not its
    // reduction-to-contract patterns: vector.contract lowers to fused
    // multiply-adds, which round once where the scalar code (and the
    // numerics contract of quant_block.matmul) rounds the product and the sum
    // separately; a multiply then an ordered reduction keeps the bits.
    RewritePatternSet patterns(ctx);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    if (failed(applyPatternsAndFold(func, std::move(patterns),
                                    "vectorization clean-up")))
      return signalPassFailure();

    // The accumulators of each outer product tile, read and written at the
    // same place in every iteration of its reduction loops, become the
    // loops' vector iter_args: they stay in registers across the reduction.
    // (Inner loops first: the walk is post-order.)
    SmallVector<scf::ForOp> accumulatorLoops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kAccumulatorLoop))
        accumulatorLoops.push_back(loop);
    });
    for (scf::ForOp loop : accumulatorLoops) {
      auto flags =
          cast<arith::FastMathFlagsAttr>(loop->removeAttr(kAccumulatorLoop));
      auto hoisted = cast<scf::ForOp>(
          hoistLoopInvariantSubsets(rewriter, loop).getOperation());
      for (BlockArgument accumulator : hoisted.getRegionIterArgs())
        for (Operation *user :
             llvm::make_early_inc_range(accumulator.getUsers()))
          if (auto reduction = dyn_cast<vector::MultiDimReductionOp>(user))
            accumulateTerm(rewriter, reduction, flags);
    }
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // hoistLoopInvariantSubsets finds the accumulators through these.
    tensor::registerSubsetOpInterfaceExternalModels(registry);
    vector::registerSubsetOpInterfaceExternalModels(registry);
  }
};
} // namespace
