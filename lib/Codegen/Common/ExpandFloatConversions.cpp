//===- ExpandFloatConversions.cpp - host-independent bf16 / f16 -----------===//
//
// --quant-block-expand-float-conversions: see Passes.td. Every conversion is
// written on the bit patterns, so that LLVM has no conversion instruction to
// pick for the host (vcvtneps2bf16 flushes subnormals, F16C and libgcc may
// treat NaNs differently). The ops used here (integer arithmetic, one exactly
// rounded f32 addition, f64 <-> f32 conversions) have the same IEEE
// semantics on every x86-64 and AArch64 CPU.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/Common/Passes.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_EXPANDFLOATCONVERSIONS
#include "quant-block/Codegen/Common/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {

/// Builds elementwise integer and float code on values shaped like one
/// scalar, vector or tensor type.
class BitBuilder {
public:
  BitBuilder(OpBuilder &b, Location loc, Type shapeLike)
      : b(b), loc(loc), shapeLike(shapeLike) {}

  /// `shapeLike` with element type `element`.
  Type withElement(Type element) const {
    if (auto shaped = dyn_cast<ShapedType>(shapeLike))
      return shaped.clone(element);
    return element;
  }
  Type i32() const { return withElement(b.getI32Type()); }

  Value constant(Type element, TypedAttr scalar) {
    Type type = withElement(element);
    if (auto shaped = dyn_cast<ShapedType>(type))
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(shaped, scalar));
    return arith::ConstantOp::create(b, loc, scalar);
  }
  Value i32(int64_t value) {
    return constant(b.getI32Type(),
                    b.getI32IntegerAttr(static_cast<int32_t>(value)));
  }
  Value f32(float value) {
    return constant(b.getF32Type(), b.getF32FloatAttr(value));
  }

  Value bitcast(Type element, Value value) {
    return arith::BitcastOp::create(b, loc, withElement(element), value);
  }
  Value add(Value l, Value r) { return arith::AddIOp::create(b, loc, l, r); }
  Value sub(Value l, Value r) { return arith::SubIOp::create(b, loc, l, r); }
  Value bitAnd(Value l, Value r) { return arith::AndIOp::create(b, loc, l, r); }
  Value bitOr(Value l, Value r) { return arith::OrIOp::create(b, loc, l, r); }
  Value shl(Value l, Value r) { return arith::ShLIOp::create(b, loc, l, r); }
  Value shr(Value l, Value r) { return arith::ShRUIOp::create(b, loc, l, r); }
  Value ult(Value l, Value r) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, l, r);
  }
  Value ugt(Value l, Value r) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, l, r);
  }
  Value eq(Value l, Value r) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, l, r);
  }
  Value cmpf(arith::CmpFPredicate predicate, Value l, Value r) {
    return arith::CmpFOp::create(b, loc, predicate, l, r);
  }
  Value select(Value condition, Value l, Value r) {
    return arith::SelectOp::create(b, loc, condition, l, r);
  }

  OpBuilder &b;
  Location loc;
  Type shapeLike;
};

} // namespace

/// An f64 value rounded to f32 *to odd*: truncated toward zero, with the last
/// bit set when the truncation was inexact. Rounding that once more to a
/// format with at least two fewer significand bits (and no wider exponent
/// range) gives the correctly rounded result of the f64 value.
static Value roundF64ToOddF32(BitBuilder &bb, Value x) {
  OpBuilder &b = bb.b;
  Type f32 = bb.withElement(b.getF32Type());
  Value nearest = arith::TruncFOp::create(b, bb.loc, f32, x);
  Value back = arith::ExtFOp::create(b, bb.loc, x.getType(), nearest);
  Value bits = bb.bitcast(b.getI32Type(), nearest);
  // Ordered: a NaN stays the NaN the conversion made.
  Value inexact = bb.cmpf(arith::CmpFPredicate::ONE, back, x);
  // Rounding moved away from zero when it went up for a positive value or
  // down for a negative one; the magnitude one ulp below is then the
  // truncation (for an overflow to infinity, the largest finite f32).
  Value zero = arith::ConstantOp::create(
      b, bb.loc, cast<TypedAttr>(b.getZeroAttr(x.getType())));
  Value wentUp = bb.cmpf(arith::CmpFPredicate::OGT, back, x);
  Value negative = bb.cmpf(arith::CmpFPredicate::OLT, x, zero);
  Value awayFromZero = arith::XOrIOp::create(b, bb.loc, wentUp, negative);
  Value truncated = bb.select(awayFromZero, bb.sub(bits, bb.i32(1)), bits);
  Value odd = bb.bitOr(truncated, bb.i32(1));
  return bb.bitcast(b.getF32Type(), bb.select(inexact, odd, bits));
}

/// The bf16 bit pattern (in an i32) of an f32, rounded to nearest even.
static Value truncateF32ToBF16Bits(BitBuilder &bb, Value x) {
  Value bits = bb.bitcast(bb.b.getI32Type(), x);
  Value high = bb.shr(bits, bb.i32(16));
  // Adding 0x7FFF plus the lowest kept bit carries into the kept bits
  // exactly when the dropped half is above one half, or one half with an odd
  // kept part. A carry out of the largest finite value gives infinity.
  Value lsb = bb.bitAnd(high, bb.i32(1));
  Value rounded = bb.shr(bb.add(bits, bb.add(bb.i32(0x7FFF), lsb)), bb.i32(16));
  Value quietNaN = bb.bitOr(high, bb.i32(0x40));
  Value isNaN = bb.cmpf(arith::CmpFPredicate::UNO, x, x);
  return bb.select(isNaN, quietNaN, rounded);
}

/// The f16 bit pattern (in an i32) of an f32, rounded to nearest even.
static Value truncateF32ToF16Bits(BitBuilder &bb, Value x) {
  OpBuilder &b = bb.b;
  Value bits = bb.bitcast(b.getI32Type(), x);
  Value sign = bb.bitAnd(bits, bb.i32(0x80000000));
  Value magnitude = bb.bitAnd(bits, bb.i32(0x7FFFFFFF));

  // Normal results (|x| >= 2^-14): rebias the exponent and round the 13
  // dropped mantissa bits to nearest even by the carry of 0xFFF plus the
  // lowest kept bit (a carry into the exponent field is exact, up to Inf).
  Value lsb = bb.bitAnd(bb.shr(magnitude, bb.i32(13)), bb.i32(1));
  Value normal = bb.shr(
      bb.add(magnitude, bb.add(bb.i32(-(112 << 23) + 0xFFF), lsb)), bb.i32(13));

  // Subnormal results (|x| < 2^-14): 0.5 + |x| puts the f16 subnormal
  // quantum 2^-24 at the last bit of the f32 significand, and the f32
  // addition rounds to nearest even there; its low bits are the code.
  Value sum = arith::AddFOp::create(
      b, bb.loc, bb.bitcast(b.getF32Type(), magnitude), bb.f32(0.5f));
  Value subnormal = bb.sub(bb.bitcast(b.getI32Type(), sum), bb.i32(0x3F000000));

  Value result =
      bb.select(bb.ult(magnitude, bb.i32(0x38800000)), subnormal, normal);
  // |x| >= 2^16 (and Inf) is beyond the rounding boundary 65520: infinity.
  result =
      bb.select(bb.ugt(magnitude, bb.i32(0x477FFFFF)), bb.i32(0x7C00), result);
  Value quietNaN = bb.bitOr(
      bb.i32(0x7E00), bb.bitAnd(bb.shr(magnitude, bb.i32(13)), bb.i32(0x3FF)));
  result = bb.select(bb.ugt(magnitude, bb.i32(0x7F800000)), quietNaN, result);
  return bb.bitOr(result, bb.shr(sign, bb.i32(16)));
}

/// The f32 of a bf16 or f16 bit pattern held in an i32.
static Value extendToF32(BitBuilder &bb, Value bits, bool isBF16) {
  OpBuilder &b = bb.b;
  if (isBF16)
    return bb.bitcast(b.getF32Type(), bb.shl(bits, bb.i32(16)));
  Value sign = bb.shl(bb.bitAnd(bits, bb.i32(0x8000)), bb.i32(16));
  Value magnitude = bb.bitAnd(bits, bb.i32(0x7FFF));
  Value mantissa = bb.bitAnd(bits, bb.i32(0x3FF));
  Value exponentField = bb.bitAnd(bits, bb.i32(0x7C00));
  Value normal =
      bb.add(bb.shl(magnitude, bb.i32(13)), bb.i32((127 - 15) << 23));
  // Subnormals (and zero): mantissa * 2^-24, exact in f32.
  Value scaled = arith::MulFOp::create(
      b, bb.loc,
      arith::UIToFPOp::create(b, bb.loc, bb.withElement(b.getF32Type()),
                              mantissa),
      bb.f32(0x1p-24f));
  Value subnormal = bb.bitcast(b.getI32Type(), scaled);
  // Inf and NaN: the payload moves up, a NaN becomes quiet.
  Value isNaN = bb.ugt(magnitude, bb.i32(0x7C00));
  Value special =
      bb.bitOr(bb.bitOr(bb.i32(0x7F800000), bb.shl(mantissa, bb.i32(13))),
               bb.select(isNaN, bb.i32(0x400000), bb.i32(0)));
  Value result = bb.select(bb.eq(exponentField, bb.i32(0)), subnormal, normal);
  result = bb.select(bb.eq(exponentField, bb.i32(0x7C00)), special, result);
  return bb.bitcast(b.getF32Type(), bb.bitOr(result, sign));
}

static bool isHalfWidth(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isBF16() || element.isF16();
}

static bool isSingleOrDouble(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isF32() || element.isF64();
}

namespace {

struct ExpandTruncation : public OpRewritePattern<arith::TruncFOp> {
  ExpandTruncation(MLIRContext *ctx, bool nativeBF16Truncation,
                   bool nativeKernelF16Truncation)
      : OpRewritePattern(ctx), nativeBF16Truncation(nativeBF16Truncation),
        nativeKernelF16Truncation(nativeKernelF16Truncation) {}

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isSingleOrDouble(op.getIn().getType()) || !isHalfWidth(op.getType()))
      return rewriter.notifyMatchFailure(op, "not f32/f64 to bf16/f16");
    // vcvtneps2bf16 differs from the expansion on subnormal operands only.
    if (nativeBF16Truncation &&
        getElementTypeOrSelf(op.getIn().getType()).isF32() &&
        getElementTypeOrSelf(op.getType()).isBF16() &&
        op->hasAttr(
            quant_block::QuantBlockDialect::getNeverSubnormalOperandAttrName()))
      return rewriter.notifyMatchFailure(op, "left to AVX512-BF16");
    // cvt.rn.f16.f32 differs from the expansion in NaN payloads only.
    if (nativeKernelF16Truncation &&
        getElementTypeOrSelf(op.getIn().getType()).isF32() &&
        getElementTypeOrSelf(op.getType()).isF16() &&
        (!op.getRoundingmode() ||
         *op.getRoundingmode() == arith::RoundingMode::to_nearest_even) &&
        op->getParentOfType<gpu::LaunchOp>())
      return rewriter.notifyMatchFailure(op, "left to the GPU kernel's cvt");
    if (std::optional<arith::RoundingMode> mode = op.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "not round to nearest even");
    BitBuilder bb(rewriter, op.getLoc(), op.getType());
    Value x = op.getIn();
    if (getElementTypeOrSelf(x.getType()).isF64())
      x = roundF64ToOddF32(bb, x);
    Type result = getElementTypeOrSelf(op.getType());
    Value bits = result.isBF16() ? truncateF32ToBF16Bits(bb, x)
                                 : truncateF32ToF16Bits(bb, x);
    Value narrow = arith::TruncIOp::create(
        rewriter, op.getLoc(), bb.withElement(rewriter.getI16Type()), bits);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), narrow);
    return success();
  }

private:
  bool nativeBF16Truncation, nativeKernelF16Truncation;
};

struct ExpandExtension : public OpRewritePattern<arith::ExtFOp> {
  ExpandExtension(MLIRContext *ctx, bool nativeF16Extension)
      : OpRewritePattern(ctx), nativeF16Extension(nativeF16Extension) {}

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isHalfWidth(op.getIn().getType()) || !isSingleOrDouble(op.getType()))
      return rewriter.notifyMatchFailure(op, "not bf16/f16 to f32/f64");
    if (nativeF16Extension &&
        getElementTypeOrSelf(op.getIn().getType()).isF16() &&
        getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "left to F16C");
    BitBuilder bb(rewriter, op.getLoc(), op.getType());
    Value bits =
        arith::ExtUIOp::create(rewriter, op.getLoc(), bb.i32(),
                               bb.bitcast(rewriter.getI16Type(), op.getIn()));
    Value single = extendToF32(
        bb, bits, getElementTypeOrSelf(op.getIn().getType()).isBF16());
    if (getElementTypeOrSelf(op.getType()).isF32())
      rewriter.replaceOp(op, single);
    else // Every f32 is exact in f64.
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), single);
    return success();
  }

private:
  bool nativeF16Extension;
};

struct ExpandFloatConversionsPass
    : public quant_block::impl::ExpandFloatConversionsBase<
          ExpandFloatConversionsPass> {
  using ExpandFloatConversionsBase::ExpandFloatConversionsBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandTruncation>(&getContext(), nativeBF16Truncation,
                                   nativeKernelF16Truncation);
    patterns.add<ExpandExtension>(&getContext(), nativeF16Extension);
    // Only these rewrites (PatternDriver.h). The patterns create no op they
    // match (only f64 <-> f32 conversions), so they converge at once.
    if (failed(quant_block::applyOnlyPatterns(
            getOperation(), std::move(patterns), "float conversion expansion")))
      return signalPassFailure();
    // The mark is this pass's alone: the conversion to the LLVM dialect
    // would copy it onto the llvm.fptrunc, where it is not valid.
    getOperation()->walk([](arith::TruncFOp op) {
      op->removeAttr(
          quant_block::QuantBlockDialect::getNeverSubnormalOperandAttrName());
    });
  }
};

} // namespace
