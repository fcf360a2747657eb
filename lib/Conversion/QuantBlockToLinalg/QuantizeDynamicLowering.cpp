//===- QuantizeDynamicLowering.cpp - quant_block.quantize_dynamic ---------===//
//
// Dynamic quantization in three steps: one linalg.generic reduces every block
// to its statistics (max |x|, or min and max) in the expanded block
// iteration space (the block dimensions are reductions, the parameter
// dimensions parallel), one element-wise generic turns the statistics into
// scales (and zero points) of the scheme's types, and a quant_block.quantize
// with those parameters, lowered by its own pattern, writes the data. A
// per-tensor outer scale (NVFP4) is derived from the whole tensor's max |x|
// first. The formulas are docs/Numerics.md's.
//
//===----------------------------------------------------------------------===//

#include "BlockIterationSpace.h"
#include "Patterns.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockNumerics.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"
#include "quant-block/Numerics/FloatFormats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"

#include <tuple>

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;
namespace numerics = ::quant_block::numerics;

/// The largest magnitude the storage holds, and for MX the element emax.
static std::pair<double, int> getStorageMaxAndEmax(SchemeAttr scheme) {
  if (scheme.hasIntegerStorage())
    return {double(scheme.getQmax()), 0};
  const numerics::FloatFormatInfo &info = numerics::getFloatFormatInfo(
      *getFloatFormatKind(scheme.getStorageType()));
  return {info.maxNormal, info.emax};
}

/// The E8M0 code of the shared exponent for `scale_rounding` ceil or
/// half_to_even (docs/Numerics.md), from `floorCode` (the code of the floor
/// exponent, not clamped yet) and the f32 bits of max |x|. Both work on the
/// ideal scale max|x| / maxNormal: with max|x| scaled to [2^emax, 2^(emax+1))
/// (its exponent field replaced, exactly), the ideal scale lies in
/// [2^(e-1), 2^(e+1)) for the floor exponent e, and comparisons with exact
/// multiples of maxNormal pick the rounded power of two (a tie only when it
/// is one exactly, broken toward the even exponent).
static Value roundSharedExponent(OpBuilder &b, Location loc, Value floorCode,
                                 Value bits, ScaleRoundingMode mode, int emax,
                                 double maxNormal) {
  auto i32Const = [&](int32_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  };
  auto f32Const = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(value)));
  };
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value normalized = arith::BitcastOp::create(
      b, loc, f32,
      arith::OrIOp::create(
          b, loc, arith::AndIOp::create(b, loc, bits, i32Const(0x7FFFFF)),
          i32Const((emax + 127) << 23)));
  auto compare = [&](arith::CmpFPredicate predicate, Value rhs) -> Value {
    return arith::CmpFOp::create(b, loc, predicate, normalized, rhs);
  };
  auto toI32 = [&](Value flag) -> Value {
    return arith::ExtUIOp::create(b, loc, i32, flag);
  };
  if (mode == ScaleRoundingMode::Ceil) {
    // The ideal scale exceeds 2^e unless max|x| is exactly maxNormal * 2^e.
    Value up = compare(arith::CmpFPredicate::OGT, f32Const(maxNormal));
    return arith::AddIOp::create(b, loc, floorCode, toI32(up));
  }
  // The power of two below the ideal scale is 2^e or 2^(e-1).
  Value atLeast = compare(arith::CmpFPredicate::OGE, f32Const(maxNormal));
  Value low = arith::SubIOp::create(
      b, loc, floorCode,
      toI32(arith::XOrIOp::create(
          b, loc, atLeast,
          arith::ConstantOp::create(b, loc, b.getBoolAttr(true)))));
  // Halfway between 2^low and 2^(low+1) is 1.5 * 2^low.
  Value tie = arith::SelectOp::create(
      b, loc, atLeast, f32Const(1.5 * maxNormal), f32Const(0.75 * maxNormal));
  Value above = compare(arith::CmpFPredicate::OGT, tie);
  Value isTie = compare(arith::CmpFPredicate::OEQ, tie);
  // Biased codes: the exponent low - 127 is odd when the code is even.
  Value oddExponent = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, low, i32Const(1)), i32Const(0));
  Value up = arith::OrIOp::create(
      b, loc, above, arith::AndIOp::create(b, loc, isTie, oddExponent));
  return arith::AddIOp::create(b, loc, low, toI32(up));
}

/// The largest finite value of a scale type.
static double getScaleTypeMax(Type scaleType) {
  if (isa<Float8E4M3FNType>(scaleType))
    return 448.0;
  return APFloat::getLargest(cast<FloatType>(scaleType).getFloatSemantics())
      .convertToDouble();
}

/// Rounds an f32 scale to the scheme's scale type (one rounding to nearest
/// even, saturating for f8E4M3FN).
static Value convertScale(OpBuilder &b, Location loc, Value scale,
                          Type scaleType) {
  if (isa<Float8E4M3FNType>(scaleType)) {
    Value code =
        emitEncodeOCPFloat(b, loc, scale, scaleType, RoundingMode::HalfToEven,
                           /*saturate=*/true);
    return codeToStorage(b, loc, code, scaleType);
  }
  return convertFloat(b, loc, scale, scaleType);
}

namespace {

struct QuantizeDynamicOpLowering
    : public OpConversionPattern<QuantizeDynamicOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QuantizeDynamicOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType qType = op.getResult().getType();
    SchemeAttr scheme = qType.getScheme();
    // Ragged last blocks: the statistics are taken over the input padded
    // with zeros to whole blocks, which changes none of them (max |x| is at
    // least +0, and minmax widens [min, max] to include 0 anyway).
    QuantizedTensorType statisticsType = padToWholeBlocks(qType);
    std::string whyNot;
    std::optional<BlockIterationSpace> space =
        BlockIterationSpace::get(statisticsType, whyNot, /*packData=*/false);
    if (!space)
      return rewriter.notifyMatchFailure(op, whyNot);
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput().front();
    Value statisticsInput = input;
    if (statisticsType != qType) {
      auto inputType = cast<RankedTensorType>(input.getType());
      Value zero = arith::ConstantOp::create(
          rewriter, loc, rewriter.getZeroAttr(inputType.getElementType()));
      statisticsInput = tensor::createPadHighOp(
          inputType.clone(statisticsType.getShape()), input, zero,
          /*nofold=*/false, loc, rewriter);
    }
    Type f32 = rewriter.getF32Type();
    CalibrationMethod method = op.getMethod();
    bool minMax = method == CalibrationMethod::MinMax;

    // 1. Block statistics: max |x| (absmax, mx) or min and max (minmax).
    RankedTensorType scalesType = qType.getScalesType();
    Value inputView = expandTo(rewriter, loc, statisticsInput,
                               space->elementGroups, space->getElementShape());
    auto emptyParams = [&](Type elementType) -> Value {
      SmallVector<Value> dynamic;
      for (auto [index, size] : llvm::enumerate(scalesType.getShape()))
        if (ShapedType::isDynamic(size))
          dynamic.push_back(tensor::DimOp::create(rewriter, loc, input, index));
      return tensor::EmptyOp::create(rewriter, loc, scalesType.getShape(),
                                     elementType, dynamic);
    };
    auto filled = [&](float value) -> Value {
      Value init = emptyParams(f32);
      Value constant = arith::ConstantOp::create(
          rewriter, loc, rewriter.getF32FloatAttr(value));
      return linalg::FillOp::create(rewriter, loc, constant, init).getResult(0);
    };
    SmallVector<Value> inits;
    if (minMax)
      inits = {filled(INFINITY), filled(-INFINITY)};
    else
      inits = {filled(0.0f)};
    SmallVector<AffineMap> maps = {space->getElementMap(ctx)};
    for (size_t i = 0; i < inits.size(); ++i)
      maps.push_back(space->getParamMap(ctx));
    SmallVector<utils::IteratorType> iterators(space->getNumDims(),
                                               utils::IteratorType::reduction);
    for (unsigned d : space->paramDims)
      iterators[d] = utils::IteratorType::parallel;
    auto statistics = linalg::GenericOp::create(
        rewriter, loc, ValueRange(inits).getTypes(), ValueRange{inputView},
        inits, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = convertFloat(b, loc, args[0], b.getF32Type());
          // maximumf / minimumf propagate NaN, so a NaN block gets a NaN
          // statistic and then a NaN scale.
          if (minMax) {
            linalg::YieldOp::create(
                b, loc,
                ValueRange{arith::MinimumFOp::create(b, loc, args[1], x),
                           arith::MaximumFOp::create(b, loc, args[2], x)});
          } else {
            Value magnitude = math::AbsFOp::create(b, loc, x);
            linalg::YieldOp::create(b, loc,
                                    ValueRange{arith::MaximumFOp::create(
                                        b, loc, args[1], magnitude)});
          }
        });

    // 2. With a per-tensor outer scale (NVFP4): max |x| over the tensor sets
    // outer = max / (max_storage * max_scale), rounded to the outer type;
    // block scales are then taken relative to it.
    // Not a structured binding: the region builder captures these (C++17).
    double storageMax;
    int emax;
    std::tie(storageMax, emax) = getStorageMaxAndEmax(scheme);
    ScaleRoundingMode scaleRounding = scheme.getScaleRounding();
    // The largest element magnitude in units of the shared scale (MX
    // integers are fixed point with bits - 2 fraction bits).
    double elementMax =
        scheme.hasIntegerStorage()
            ? std::ldexp(storageMax, 2 - int(scheme.getStorageBitWidth()))
            : storageMax;
    Value outerTensor, outerScale;
    if (OuterScaleAttr outer = scheme.getOuter()) {
      Value zeroInit = arith::ConstantOp::create(
          rewriter, loc, rewriter.getF32FloatAttr(0.0f));
      Value scalarInit =
          linalg::FillOp::create(
              rewriter, loc, zeroInit,
              tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{}, f32)
                  .getResult())
              .getResult(0);
      int64_t statRank = scalesType.getRank();
      SmallVector<utils::IteratorType> allReduction(
          statRank, utils::IteratorType::reduction);
      SmallVector<AffineMap> reduceMaps = {
          AffineMap::getMultiDimIdentityMap(statRank, ctx),
          AffineMap::get(statRank, 0, {}, ctx)};
      Value global =
          linalg::GenericOp::create(
              rewriter, loc, scalarInit.getType(), statistics.getResult(0),
              scalarInit, reduceMaps, allReduction,
              [&](OpBuilder &b, Location loc, ValueRange args) {
                linalg::YieldOp::create(b, loc,
                                        ValueRange{arith::MaximumFOp::create(
                                                       b, loc, args[1], args[0])
                                                       .getResult()});
              })
              .getResult(0);
      Value amax =
          tensor::ExtractOp::create(rewriter, loc, global, ValueRange{});
      double scaleMax = getScaleTypeMax(scheme.getScaleType());
      Value value = arith::DivFOp::create(
          rewriter, loc, amax,
          arith::ConstantOp::create(
              rewriter, loc, rewriter.getF32FloatAttr(storageMax * scaleMax)));
      Value isZero = arith::CmpFOp::create(
          rewriter, loc, arith::CmpFPredicate::OEQ, value, zeroInit);
      value = arith::SelectOp::create(
          rewriter, loc, isZero,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF32FloatAttr(1.0f)),
          value);
      Value stored = convertFloat(rewriter, loc, value, outer.getScaleType());
      outerScale = convertFloat(rewriter, loc, stored, f32);
      RankedTensorType outerType = qType.getOuterScalesType();
      outerTensor =
          linalg::FillOp::create(
              rewriter, loc, stored,
              tensor::EmptyOp::create(rewriter, loc, outerType.getShape(),
                                      outerType.getElementType())
                  .getResult())
              .getResult(0);
    }

    // 3. Scales (and zero points) from the statistics.
    Type scaleType = scheme.getScaleType();
    Type zeroPointType = scheme.getZeroPointType();
    SmallVector<Value> paramInits = {emptyParams(scaleType)};
    if (zeroPointType)
      paramInits.push_back(
          emptyParams(zeroPointType.isUnsignedInteger()
                          ? Type(IntegerType::get(
                                ctx, zeroPointType.getIntOrFloatBitWidth()))
                          : zeroPointType));
    int64_t paramRank = scalesType.getRank();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(paramRank, ctx);
    SmallVector<AffineMap> paramMaps(
        statistics.getNumResults() + paramInits.size(), identity);
    SmallVector<utils::IteratorType> paramIterators(
        paramRank, utils::IteratorType::parallel);
    auto parameters = linalg::GenericOp::create(
        rewriter, loc, ValueRange(paramInits).getTypes(),
        statistics.getResults(), paramInits, paramMaps, paramIterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          auto constant = [&](double value) -> Value {
            return arith::ConstantOp::create(b, loc,
                                             b.getF32FloatAttr(float(value)));
          };
          if (method == CalibrationMethod::MX) {
            // Shared exponent floor(log2(max|x|)) - emax from the f32
            // exponent field (or rounded up / to nearest per the scheme's
            // scale_rounding), clamped to [-127, 127]; NaN / Inf -> NaN.
            Type i32 = b.getI32Type();
            Value bits = arith::BitcastOp::create(b, loc, i32, args[0]);
            Value field = arith::ShRUIOp::create(
                b, loc, bits,
                arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(23)));
            Value code = arith::SubIOp::create(
                b, loc, field,
                arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(emax)));
            if (scaleRounding != ScaleRoundingMode::Floor)
              code = roundSharedExponent(b, loc, code, bits, scaleRounding,
                                         emax, elementMax);
            code = arith::MaxSIOp::create(
                b, loc, code,
                arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
            Value nonFinite = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, field,
                arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(255)));
            code = arith::SelectOp::create(
                b, loc, nonFinite,
                arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(255)),
                arith::MinSIOp::create(b, loc, code,
                                       arith::ConstantOp::create(
                                           b, loc, b.getI32IntegerAttr(254))));
            linalg::YieldOp::create(b, loc,
                                    codeToStorage(b, loc, code, scaleType));
            return;
          }
          Value zero = constant(0.0), one = constant(1.0);
          if (!minMax) {
            Value scale =
                arith::DivFOp::create(b, loc, args[0], constant(storageMax));
            if (outerScale)
              scale = arith::DivFOp::create(b, loc, scale, outerScale);
            Value isZero = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OEQ, scale, zero);
            scale = arith::SelectOp::create(b, loc, isZero, one, scale);
            linalg::YieldOp::create(b, loc,
                                    convertScale(b, loc, scale, scaleType));
            return;
          }
          Value lo = arith::MinimumFOp::create(b, loc, args[0], zero);
          Value hi = arith::MaximumFOp::create(b, loc, args[1], zero);
          Value range =
              constant(double(scheme.getQmax()) - double(scheme.getQmin()));
          Value scale = arith::DivFOp::create(
              b, loc, arith::SubFOp::create(b, loc, hi, lo), range);
          Value isZero = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::OEQ, scale, zero);
          scale = arith::SelectOp::create(b, loc, isZero, one, scale);
          Value stored = convertScale(b, loc, scale, scaleType);
          Value zeroPoint;
          if (scheme.getZeroPointDomain() == ZeroPointDomain::Float) {
            zeroPoint = convertFloat(b, loc, lo, zeroPointType);
          } else {
            // zp = clamp(round(qmin - lo / s)) with the stored scale.
            Value s = emitScaleToF32(b, loc, stored);
            Value shifted = arith::SubFOp::create(
                b, loc, constant(double(scheme.getQmin())),
                arith::DivFOp::create(b, loc, lo, s));
            Value rounded = math::RoundEvenOp::create(b, loc, shifted);
            Value clamped = arith::MinimumFOp::create(
                b, loc,
                arith::MaximumFOp::create(b, loc, rounded,
                                          constant(double(scheme.getQmin()))),
                constant(double(scheme.getQmax())));
            // qmax of 32-bit zero points is not an f32 (it rounds up to
            // 2^31): convert to i64 and clamp again there, exactly.
            Type i64 = b.getI64Type();
            Value asInt = arith::MinSIOp::create(
                b, loc, arith::FPToSIOp::create(b, loc, i64, clamped),
                arith::ConstantOp::create(
                    b, loc, b.getI64IntegerAttr(scheme.getQmax())));
            zeroPoint = arith::TruncIOp::create(
                b, loc, b.getIntegerType(zeroPointType.getIntOrFloatBitWidth()),
                asInt);
          }
          linalg::YieldOp::create(b, loc, ValueRange{stored, zeroPoint});
        });

    // 4. Quantize with the derived parameters.
    Value scales = parameters.getResult(0);
    Value zeroPoints = zeroPointType ? parameters.getResult(1) : Value();
    if (zeroPoints && zeroPointType.isUnsignedInteger())
      zeroPoints = castTensorElements(
          rewriter, loc, zeroPoints,
          RankedTensorType::get(scalesType.getShape(), zeroPointType));
    auto quantize =
        QuantizeOp::create(rewriter, loc, qType, op.getInput(), scales,
                           zeroPoints, outerTensor, Value());
    rewriter.replaceOp(op, quantize.getResult());
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populateQuantizeDynamicPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizeDynamicOpLowering>(converter, patterns.getContext());
}
