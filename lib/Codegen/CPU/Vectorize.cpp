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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

/// Tiles `op` by `sizes` (0 = not tiled) with loops of `loopType`, replaces
/// it, and returns the tiled op (the op itself when nothing is tiled).
static FailureOr<Operation *> tile(RewriterBase &rewriter, Operation *op,
                                   ArrayRef<int64_t> sizes,
                                   scf::SCFTilingOptions::LoopType loopType) {
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return op;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  options.setLoopType(loopType);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled))
    return failure();
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
          tile(rewriter, target, sizes, scf::SCFTilingOptions::LoopType::ForOp);
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
  }
};
} // namespace
