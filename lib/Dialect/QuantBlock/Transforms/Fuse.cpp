//===- Fuse.cpp - --quant-block-fuse ----------------------------------===//
//
// Fuses quant_block.dequantize into the matrix products that consume it: a
// linalg contraction (linalg.matmul, linalg.batch_matmul, their forms with
// transposed or broadcast operands, or any linalg.generic with a
// multiply-add body and those indexing maps) or a tosa.matmul whose weight
// operand is dequantize(q) becomes quant_block.matmul on q. Its lowering
// contracts the packed weight directly, so the dequantized weight is never
// materialized.
//
// The contraction must start from zero, accumulate in the expressed type and
// read both operands unconverted, which is what quant_block.matmul
// accumulate(<expressed>) computes; contractions that do not (a non-zero init,
// mixed precision) are left alone. The fused op carries the fast-math flags of
// the contraction it replaces: a linalg.generic's are those its multiply and
// add share (none: the same order over k, bit-identical results); a named
// linalg contraction (linalg.matmul, ...) has no written order of summation,
// so its fused form gets `reassoc,contract`. tosa.matmul keeps the strict
// order. A transposed weight (and TOSA's unit batch reshape of it) folds into
// transpose_rhs with quant_block.matmul's canonicalization patterns.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_QUANTBLOCKFUSE
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

/// Whether `value` is +0.0 (or integer 0), a splat of it, or a linalg.fill
/// with it: the start of quant_block.matmul's accumulation. (-0.0 would keep
/// a -0.0 result where the sum of products is -0.0 + +0.0 = +0.0.)
static bool isZeroTensor(Value value) {
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    value = fill.getInputs()[0];
  return matchPattern(value, m_PosZeroFloat()) || matchPattern(value, m_Zero());
}

/// The dequantize that produces `value`, if it is one whose result type is
/// `elementType` (so the contraction reads it unconverted).
static DequantizeOp getDequantizeOf(Value value, Type elementType) {
  auto dequantize = value.getDefiningOp<DequantizeOp>();
  if (!dequantize ||
      dequantize.getResult().getType().getElementType() != elementType)
    return {};
  return dequantize;
}

/// The fast-math flags of the quant_block.matmul that replaces `op`: the
/// flags shared by the float multiplications and additions of a generic's
/// body, or `reassoc,contract` for a named contraction, whose summation order
/// is not written anywhere.
static arith::FastMathFlags getContractionFastMath(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op))
    return arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  std::optional<arith::FastMathFlags> shared;
  op->walk([&](Operation *inner) {
    if (!isa<arith::AddFOp, arith::MulFOp>(inner))
      return;
    arith::FastMathFlags flags = cast<arith::ArithFastMathInterface>(inner)
                                     .getFastMathFlagsAttr()
                                     .getValue();
    shared = shared ? *shared & flags : flags;
  });
  return shared.value_or(arith::FastMathFlags::none);
}

namespace {

/// How the operands of a contraction map to (batch..., m, n, k).
struct MatmulLayout {
  bool transposeRhs = false;
  bool batchedRhs = false;
};

/// Recognizes `out[l..., m, n] += lhs[l..., m, k] * rhs[(l...,) k, n]` (or
/// rhs[(l...,) n, k]) with one n and one k dimension: the leading dimensions
/// l... of the lhs are batch dimensions when the rhs has them too, and more
/// m dimensions (a weight shared by every batch) when it does not.
static std::optional<MatmulLayout> getMatmulLayout(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap lhsMap = maps[0];
  unsigned rank = lhsMap.getNumResults();
  if (rank < 2 || !lhsMap.isProjectedPermutation())
    return std::nullopt;
  AffineExpr n = getAffineDimExpr(dims->n[0], ctx);
  AffineExpr k = getAffineDimExpr(dims->k[0], ctx);
  ArrayRef<AffineExpr> lhsExprs = lhsMap.getResults();
  ArrayRef<AffineExpr> leading = lhsExprs.drop_back(2);
  AffineExpr m = lhsExprs[rank - 2];
  if (lhsExprs[rank - 1] != k)
    return std::nullopt;
  unsigned numDims = op.getNumLoops();
  auto makeMap = [&](ArrayRef<AffineExpr> prefix, ArrayRef<AffineExpr> suffix) {
    SmallVector<AffineExpr> exprs(prefix);
    exprs.append(suffix.begin(), suffix.end());
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  if (maps[2] != makeMap(leading, {m, n}))
    return std::nullopt;
  for (bool batched : {true, false}) {
    if (batched && leading.empty())
      continue;
    ArrayRef<AffineExpr> prefix = batched ? leading : ArrayRef<AffineExpr>();
    if (maps[1] == makeMap(prefix, {k, n}))
      return MatmulLayout{false, batched};
    if (maps[1] == makeMap(prefix, {n, k}))
      return MatmulLayout{true, batched};
  }
  return std::nullopt;
}

/// A linalg contraction of a float activation and a dequantized weight,
/// starting from zero in the expressed type, becomes quant_block.matmul.
struct FuseDequantizeIntoContraction
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  FuseDequantizeIntoContraction(MLIRContext *ctx, bool integerDot)
      : OpInterfaceRewritePattern(ctx), integerDot(integerDot) {}

  /// The quantized activation when `lhs` is dequantize(quantize_dynamic(x))
  /// and both sides can form an integer dot product with equal blocks along
  /// K; null otherwise.
  static Value getDynamicallyQuantizedLhs(Value lhs, DequantizeOp weight,
                                          const MatmulLayout &layout) {
    auto dequantize = lhs.getDefiningOp<DequantizeOp>();
    if (!dequantize ||
        !dequantize.getInput().getDefiningOp<QuantizeDynamicOp>())
      return {};
    QuantizedTensorType lhsType = dequantize.getInput().getType();
    QuantizedTensorType weightType = weight.getInput().getType();
    // Operands the verifier accepts, in a product the lowering implements
    // (for the weight as it reads it once the canonicalization in this pass
    // has folded a transpose or unit batch reshape of it): otherwise the
    // float product stays.
    auto loweredWeightType = cast<QuantizedTensorType>(
        MatmulOp::getFoldedRhs(weight.getInput(), layout.transposeRhs)
            .first.getType());
    if (MatmulOp::getIntegerOperandError(lhsType, "lhs") ||
        MatmulOp::getIntegerOperandError(weightType, "rhs") ||
        getIntegerMatmulUnsupportedReason(lhsType, loweredWeightType))
      return {};
    int64_t rank = weightType.getRank();
    int64_t k = lhsType.getShape().back();
    int64_t lhsBlock = lhsType.getEffectiveBlockShape().back();
    int64_t weightBlock =
        weightType.getEffectiveBlockShape()[layout.transposeRhs ? rank - 1
                                                                : rank - 2];
    auto resolve = [&](int64_t block) {
      return block == SchemeAttr::kWholeDimension ? k : block;
    };
    if (ShapedType::isDynamic(k) || resolve(lhsBlock) != resolve(weightBlock))
      return {};
    return dequantize.getInput();
  }

  bool integerDot;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    std::optional<MatmulLayout> layout = getMatmulLayout(op);
    if (!layout)
      return rewriter.notifyMatchFailure(op, "not a matmul-like contraction");
    Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
    Value init = op.getDpsInits()[0];
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type element = resultType.getElementType();
    if (getElementTypeOrSelf(lhs.getType()) != element ||
        getElementTypeOrSelf(rhs.getType()) != element)
      return rewriter.notifyMatchFailure(op, "mixed precision");
    DequantizeOp weight = getDequantizeOf(rhs, element);
    if (!weight)
      return rewriter.notifyMatchFailure(op, "rhs is not dequantized");
    if (!isZeroTensor(init))
      return rewriter.notifyMatchFailure(op, "does not start from zero");
    arith::FastMathFlags fastMath = getContractionFastMath(op);
    if (integerDot)
      if (Value activation = getDynamicallyQuantizedLhs(lhs, weight, *layout)) {
        rewriter.replaceOpWithNewOp<MatmulOp>(
            op, resultType, activation, weight.getInput(), layout->transposeRhs,
            rewriter.getI32Type(), Propagation::Inhibit, fastMath);
        return success();
      }
    rewriter.replaceOpWithNewOp<MatmulOp>(
        op, resultType, lhs, weight.getInput(), layout->transposeRhs, element,
        Propagation::Inhibit, fastMath);
    return success();
  }
};

/// tosa.matmul(a, dequantize(q)) with zero zero points: a batched
/// quant_block.matmul (TOSA's float matmul accumulates in the element type
/// from zero).
struct FuseDequantizeIntoTosaMatmul : public OpRewritePattern<tosa::MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tosa::MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    if (!isa<FloatType>(element) ||
        getElementTypeOrSelf(op.getA().getType()) != element)
      return rewriter.notifyMatchFailure(op, "not a float matmul");
    DequantizeOp weight = getDequantizeOf(op.getB(), element);
    if (!weight)
      return rewriter.notifyMatchFailure(op, "b is not dequantized");
    if (!matchPattern(op.getAZp(), m_AnyZeroFloat()) ||
        !matchPattern(op.getBZp(), m_AnyZeroFloat()))
      return rewriter.notifyMatchFailure(op, "non-zero zero points");
    rewriter.replaceOpWithNewOp<MatmulOp>(
        op, resultType, op.getA(), weight.getInput(), /*transposeRhs=*/false,
        element, Propagation::Inhibit);
    return success();
  }
};

} // namespace

void mlir::quant_block::populateQuantBlockFusePatterns(
    RewritePatternSet &patterns, bool integerDot) {
  patterns.add<FuseDequantizeIntoContraction>(patterns.getContext(),
                                              integerDot);
  patterns.add<FuseDequantizeIntoTosaMatmul>(patterns.getContext());
  // A weight transposed before the contraction (aten.linear) fuses as a
  // matmul of the transposed packed weight: fold the transpose (and TOSA's
  // unit batch reshape) into transpose_rhs right away, so that the pass's
  // result reads the weight as stored and pipelines need no canonicalizer
  // between fusion and lowering.
  MatmulOp::getCanonicalizationPatterns(patterns, patterns.getContext());
}

namespace {
struct QuantBlockFusePass
    : public mlir::quant_block::impl::QuantBlockFuseBase<QuantBlockFusePass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQuantBlockFusePatterns(patterns, integerDot);
    // Only these rewrites (PatternDriver.h): the IR around the contractions
    // it fuses stays as it was.
    if (failed(applyOnlyPatterns(getOperation(), std::move(patterns),
                                 "dequantization fusion")))
      return signalPassFailure();
  }
};
} // namespace
