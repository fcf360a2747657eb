//===- MatmulLowering.cpp - quant_block.matmul to linalg ------------------===//
//
// A float-accumulating matmul lowers to the dequantization of its quantized
// operands (quant_block.dequantize, lowered by its own pattern) and one
// linalg.generic contraction that extends both sides to the accumulator type,
// followed by one rounding to the expressed type. `propagate` requantizes the
// result with quantize_dynamic, the method chosen by the result's scheme.
// The dequantized weight is a separate tensor here; --quant-block-fuse
// (DESIGN.md) is the pass that keeps it from being materialized.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

static Value dequantizeIfQuantized(OpBuilder &b, Location loc, Value value) {
  auto quantized = dyn_cast<QuantizedTensorType>(value.getType());
  if (!quantized)
    return value;
  return DequantizeOp::create(b, loc, quantized.getExpressedTensorType(),
                              value);
}

static Value extendTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return arith::ExtFOp::create(b, loc, type, value);
}

namespace {

struct MatmulOpLowering : public OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto acc = dyn_cast<FloatType>(op.getAccumulatorType());
    if (!acc)
      return rewriter.notifyMatchFailure(op, "integer accumulation");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value lhs = dequantizeIfQuantized(rewriter, loc, op.getLhs());
    Value rhs = dequantizeIfQuantized(rewriter, loc, op.getRhs());
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t rank = lhsType.getRank();
    bool batchedRhs = rhsType.getRank() == rank;
    bool transposed = op.getTransposeRhs();

    // Iteration space: batch..., m, n, k.
    unsigned numDims = rank + 1;
    auto dim = [&](unsigned d) { return getAffineDimExpr(d, ctx); };
    unsigned m = rank - 2, n = rank - 1, k = rank;
    SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
    for (unsigned d = 0; d + 2 < unsigned(rank); ++d) {
      lhsExprs.push_back(dim(d));
      outExprs.push_back(dim(d));
      if (batchedRhs)
        rhsExprs.push_back(dim(d));
    }
    lhsExprs.append({dim(m), dim(k)});
    if (transposed)
      rhsExprs.append({dim(n), dim(k)});
    else
      rhsExprs.append({dim(k), dim(n)});
    outExprs.append({dim(m), dim(n)});
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, lhsExprs, ctx),
                                   AffineMap::get(numDims, 0, rhsExprs, ctx),
                                   AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(numDims,
                                               utils::IteratorType::parallel);
    iterators[k] = utils::IteratorType::reduction;

    // Output sizes: lhs batch and m, rhs n.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank - 1; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, lhs, d));
    int64_t nDim = transposed ? rhsType.getRank() - 2 : rhsType.getRank() - 1;
    sizes.push_back(tensor::getMixedSize(rewriter, loc, rhs, nDim));
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, acc);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getFloatAttr(acc, 0));
    init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
    Value product =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{lhs, rhs},
            ValueRange{init}, maps, iterators,
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value l = extendTo(b, loc, args[0], acc);
              Value r = extendTo(b, loc, args[1], acc);
              Value sum = arith::AddFOp::create(
                  b, loc, args[2], arith::MulFOp::create(b, loc, l, r));
              linalg::YieldOp::create(b, loc, sum);
            })
            .getResult(0);

    Type expressed = op.getRhs().getType().getScheme().getExpressedType();
    auto productType = cast<RankedTensorType>(product.getType());
    if (acc != expressed)
      product = arith::TruncFOp::create(rewriter, loc,
                                        productType.clone(expressed), product);
    if (op.getPropagation() == Propagation::Inhibit) {
      rewriter.replaceOp(op, product);
      return success();
    }
    auto resultType = cast<QuantizedTensorType>(op.getResult().getType());
    SchemeAttr scheme = resultType.getScheme();
    CalibrationMethod method =
        scheme.hasMXScale() ? CalibrationMethod::MX
        : scheme.getZeroPointDomain() != ZeroPointDomain::None
            ? CalibrationMethod::MinMax
            : CalibrationMethod::AbsMax;
    Value quantized =
        QuantizeDynamicOp::create(rewriter, loc, resultType, method, product);
    rewriter.replaceOp(op, quantized);
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populateMatmulPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatmulOpLowering>(converter, patterns.getContext());
}
