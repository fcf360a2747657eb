//===- CPUFlattenVectors.cpp - n-D vectors to whole-register 1-D vectors --===//
//
// --quant-block-cpu-flatten-vectors: after bufferization, drops unit
// dimensions of vector transfers, collapses transfers of contiguous memory
// into 1-D transfers and linearizes the n-D elementwise vector ops between
// them. Without it a vector<16x2xf32> (16 packed bytes, two int4 each) is
// lowered as 16 separate <2 x float> operations.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUFLATTENVECTORS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

/// Row-major strides of `shape`.
static SmallVector<int64_t> getRowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Replaces an n-D vector op that only moves elements by one 1-D
/// vector.shuffle between shape_casts. `sourceIndex` maps the coordinates of
/// a result element to the row-major position of its source element.
static void
replaceWithShuffle(PatternRewriter &rewriter, Operation *op, Value source,
                   VectorType resultType,
                   function_ref<int64_t(ArrayRef<int64_t>)> sourceIndex) {
  auto sourceType = cast<VectorType>(source.getType());
  int64_t sourceCount = sourceType.getNumElements();
  auto flatSourceType =
      VectorType::get({sourceCount}, sourceType.getElementType());
  Location loc = op->getLoc();
  Value flat =
      vector::ShapeCastOp::create(rewriter, loc, flatSourceType, source);
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> strides = getRowMajorStrides(shape);
  SmallVector<int64_t> mask;
  SmallVector<int64_t> coords(shape.size());
  for (int64_t linear = 0, e = resultType.getNumElements(); linear < e;
       ++linear) {
    for (size_t d = 0; d < shape.size(); ++d)
      coords[d] = (linear / strides[d]) % shape[d];
    mask.push_back(sourceIndex(coords));
  }
  Value shuffled = vector::ShuffleOp::create(rewriter, loc, flat, flat, mask);
  rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, resultType, shuffled);
}

static bool isFixedMultiDim(VectorType type) {
  return type && type.getRank() > 1 && !type.isScalable();
}

namespace {
/// The vectorizer reads a scale once per block and broadcasts it over the
/// block (vector.broadcast + vector.transpose); the linearizer has no pattern
/// for n-D broadcasts and transposes, and their unrolled lowering goes element
/// by element. As shuffles they lower to a few register permutes.
struct BroadcastAsShuffle : OpRewritePattern<vector::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    VectorType resultType = op.getResultVectorType();
    auto sourceType = dyn_cast<VectorType>(op.getSourceType());
    if (!isFixedMultiDim(resultType) || !sourceType ||
        sourceType.isScalable() || sourceType.getRank() == 0)
      return failure();
    ArrayRef<int64_t> sourceShape = sourceType.getShape();
    SmallVector<int64_t> sourceStrides = getRowMajorStrides(sourceShape);
    int64_t leading = resultType.getRank() - sourceType.getRank();
    replaceWithShuffle(rewriter, op, op.getSource(), resultType,
                       [&](ArrayRef<int64_t> coords) {
                         int64_t index = 0;
                         for (int64_t d = 0; d < sourceType.getRank(); ++d)
                           if (sourceShape[d] != 1)
                             index += coords[leading + d] * sourceStrides[d];
                         return index;
                       });
    return success();
  }
};

struct TransposeAsShuffle : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType resultType = op.getResultVectorType();
    if (!isFixedMultiDim(resultType))
      return failure();
    SmallVector<int64_t> sourceStrides =
        getRowMajorStrides(op.getSourceVectorType().getShape());
    ArrayRef<int64_t> permutation = op.getPermutation();
    replaceWithShuffle(rewriter, op, op.getVector(), resultType,
                       [&](ArrayRef<int64_t> coords) {
                         // Result dimension d is source dimension
                         // permutation[d].
                         int64_t index = 0;
                         for (size_t d = 0; d < coords.size(); ++d)
                           index += coords[d] * sourceStrides[permutation[d]];
                         return index;
                       });
    return success();
  }
};

struct CPUFlattenVectorsPass
    : public mlir::quant_block::impl::CPUFlattenVectorsBase<
          CPUFlattenVectorsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();

    // Broadcasts and transposes first, as they are: after the unit-dimension
    // patterns below, a broadcast + transpose chain was seen rewritten into
    // a wrong permutation (the tiled i32 matmul scaling generic, found by
    // test/Differential/differential_matmul.py).
    RewritePatternSet shuffles(ctx);
    shuffles.add<BroadcastAsShuffle, TransposeAsShuffle>(ctx);
    if (failed(applyPatternsAndFold(func, std::move(shuffles),
                                    "vector flattening (shuffles)")))
      return signalPassFailure();

    RewritePatternSet transfers(ctx);
    vector::populateVectorTransferDropUnitDimsPatterns(transfers);
    vector::populateCastAwayVectorLeadingOneDimPatterns(transfers);
    vector::populateDropUnitDimWithShapeCastPatterns(transfers);
    vector::populateFlattenVectorTransferPatterns(transfers);
    vector::ShapeCastOp::getCanonicalizationPatterns(transfers, ctx);
    vector::BroadcastOp::getCanonicalizationPatterns(transfers, ctx);
    transfers.add<BroadcastAsShuffle, TransposeAsShuffle>(ctx);
    if (failed(applyPatternsAndFold(func, std::move(transfers),
                                    "vector flattening (transfers)")))
      return signalPassFailure();

    // Linearize what is still n-D (elementwise ops, constants, broadcasts)
    // with shape_casts at the boundaries; the shape_casts then cancel against
    // those of the flattened transfers.
    TypeConverter typeConverter;
    ConversionTarget target(*ctx);
    vector::populateForVectorLinearize(typeConverter, target);
    // Reductions and contractions have their own lowerings later in the
    // pipeline (lower-vector-multi-reduction, convert-vector-to-llvm); the
    // linearizer has no pattern for them, so they stay n-D with shape_casts
    // around them.
    // Transfers that could not be flattened (strided memory) are unrolled by
    // convert-vector-to-scf.
    target.addLegalOp<
        vector::ContractionOp, vector::MultiDimReductionOp, vector::GatherOp,
        vector::ScatterOp, vector::TransferReadOp, vector::TransferWriteOp,
        vector::MaskOp, vector::CreateMaskOp, vector::ConstantMaskOp>();
    RewritePatternSet linearize(ctx);
    vector::populateVectorLinearizeBasePatterns(typeConverter, target,
                                                linearize);
    vector::populateVectorLinearizeShuffleLikeOpsPatterns(typeConverter, target,
                                                          linearize);
    scf::populateSCFStructuralTypeConversionsAndLegality(typeConverter,
                                                         linearize, target);
    if (failed(applyPartialConversion(func, target, std::move(linearize))))
      return signalPassFailure();

    RewritePatternSet cleanup(ctx);
    vector::ShapeCastOp::getCanonicalizationPatterns(cleanup, ctx);
    if (failed(applyPatternsAndFold(func, std::move(cleanup),
                                    "vector flattening (clean-up)")))
      return signalPassFailure();
  }
};
} // namespace
