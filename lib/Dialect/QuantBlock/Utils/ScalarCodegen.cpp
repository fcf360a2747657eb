//===- ScalarCodegen.cpp - scalar arithmetic of the numerics contract -----===//
//
// Implements the scalar building blocks declared in ScalarCodegen.h.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockNumerics.h"
#include "quant-block/Numerics/FloatFormats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// lane * width as a shift amount of `type`.
static Value laneShift(OpBuilder &b, Location loc, Value lane, unsigned width,
                       Type type) {
  Value laneValue = arith::IndexCastUIOp::create(b, loc, type, lane);
  Value widthValue =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, width));
  return arith::MulIOp::create(b, loc, laneValue, widthValue);
}

Value mlir::quant_block::detail::extractPackedLane(OpBuilder &b, Location loc,
                                                   Value word, Value lane,
                                                   unsigned width,
                                                   bool isSigned) {
  Value shifted = arith::ShRUIOp::create(
      b, loc, word, laneShift(b, loc, lane, width, word.getType()));
  return narrowToCode(b, loc, shifted, width, isSigned);
}

Value mlir::quant_block::detail::narrowToCode(OpBuilder &b, Location loc,
                                              Value shifted, unsigned width,
                                              bool isSigned) {
  Type i8 = b.getI8Type();
  if (shifted.getType() != i8)
    shifted = arith::TruncIOp::create(b, loc, i8, shifted);
  if (!isSigned) {
    Value mask =
        arith::ConstantOp::create(b, loc, b.getI8IntegerAttr((1 << width) - 1));
    return arith::AndIOp::create(b, loc, shifted, mask);
  }
  // Move the code to the top of the byte, then shift it back arithmetically
  // to sign-extend it.
  Value up = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(8 - width));
  Value top = arith::ShLIOp::create(b, loc, shifted, up);
  return arith::ShRSIOp::create(b, loc, top, up);
}

/// `code` (any integer type) as an i8.
static Value toI8(OpBuilder &b, Location loc, Value code) {
  Type i8 = b.getI8Type();
  unsigned codeWidth = code.getType().getIntOrFloatBitWidth();
  if (codeWidth > 8)
    return arith::TruncIOp::create(b, loc, i8, code);
  if (codeWidth < 8)
    return arith::ExtUIOp::create(b, loc, i8, code);
  return code;
}

Value mlir::quant_block::detail::placeInLane(OpBuilder &b, Location loc,
                                             Value code, Value lane,
                                             unsigned width) {
  Type i8 = b.getI8Type();
  code = toI8(b, loc, code);
  Value mask =
      arith::ConstantOp::create(b, loc, b.getI8IntegerAttr((1 << width) - 1));
  Value masked = arith::AndIOp::create(b, loc, code, mask);
  return arith::ShLIOp::create(b, loc, masked,
                               laneShift(b, loc, lane, width, i8));
}

IntegerType mlir::quant_block::detail::getGroupWordType(MLIRContext *ctx,
                                                        int64_t groupBytes) {
  if (groupBytes == 1)
    return IntegerType::get(ctx, 8);
  return IntegerType::get(ctx, groupBytes <= 4 ? 32 : 64);
}

Value mlir::quant_block::detail::assembleGroupWord(OpBuilder &b, Location loc,
                                                   ValueRange bytes) {
  if (bytes.size() == 1)
    return bytes.front();
  Type wordType = getGroupWordType(b.getContext(), bytes.size());
  Value word;
  for (auto [index, byte] : llvm::enumerate(bytes)) {
    Value wide = arith::ExtUIOp::create(b, loc, wordType, byte);
    if (index == 0) {
      word = wide;
      continue;
    }
    Value shift = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(wordType, 8 * index));
    word = arith::OrIOp::create(b, loc, word,
                                arith::ShLIOp::create(b, loc, wide, shift));
  }
  return word;
}

Value mlir::quant_block::detail::placeInGroupByte(OpBuilder &b, Location loc,
                                                  Value code, Value lane,
                                                  Value byteIndex,
                                                  unsigned width,
                                                  int64_t groupBytes) {
  Type wordType = getGroupWordType(b.getContext(), groupBytes);
  code = toI8(b, loc, code);
  Value mask =
      arith::ConstantOp::create(b, loc, b.getI8IntegerAttr((1 << width) - 1));
  Value masked = arith::AndIOp::create(b, loc, code, mask);
  Value wide = arith::ExtUIOp::create(b, loc, wordType, masked);
  Value inWord = arith::ShLIOp::create(
      b, loc, wide, laneShift(b, loc, lane, width, wordType));
  Value byteValue = arith::ShRUIOp::create(
      b, loc, inWord, laneShift(b, loc, byteIndex, 8, wordType));
  return arith::TruncIOp::create(b, loc, b.getI8Type(), byteValue);
}

Value mlir::quant_block::detail::extendInteger(OpBuilder &b, Location loc,
                                               Value value, Type type,
                                               bool isSigned) {
  if (value.getType() == type)
    return value;
  if (isSigned)
    return arith::ExtSIOp::create(b, loc, type, value);
  return arith::ExtUIOp::create(b, loc, type, value);
}

Value mlir::quant_block::detail::convertFloat(OpBuilder &b, Location loc,
                                              Value value, Type type) {
  Type from = value.getType();
  if (from == type)
    return value;
  if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth() ||
      (from.isF16() && type.isBF16()) || (from.isBF16() && type.isF16())) {
    if (from.getIntOrFloatBitWidth() == type.getIntOrFloatBitWidth()) {
      // f16 <-> bf16 goes through f32, exactly then with one rounding.
      value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
      return arith::TruncFOp::create(b, loc, type, value);
    }
    return arith::ExtFOp::create(b, loc, type, value);
  }
  return arith::TruncFOp::create(b, loc, type, value);
}

Value mlir::quant_block::detail::roundToIntegral(OpBuilder &b, Location loc,
                                                 Value value,
                                                 RoundingMode mode) {
  switch (mode) {
  case RoundingMode::HalfToEven:
    return math::RoundEvenOp::create(b, loc, value);
  case RoundingMode::HalfAwayFromZero:
    return math::RoundOp::create(b, loc, value);
  case RoundingMode::TowardZero:
    return math::TruncOp::create(b, loc, value);
  }
  llvm_unreachable("unknown rounding mode");
}

IntegerType
mlir::quant_block::detail::getIntegerComputeType(MLIRContext *ctx,
                                                 SchemeAttr scheme) {
  return IntegerType::get(ctx, scheme.getStorageBitWidth() >= 32 ? 64 : 32);
}

FloatType mlir::quant_block::detail::getQuantizeComputeType(MLIRContext *ctx,
                                                            SchemeAttr scheme) {
  if (scheme.getStorageBitWidth() >= 32)
    return Float64Type::get(ctx);
  return Float32Type::get(ctx);
}

bool mlir::quant_block::detail::hasUnsignedZeroPoints(SchemeAttr scheme) {
  auto intType = dyn_cast_or_null<IntegerType>(scheme.getZeroPointType());
  return intType && intType.isUnsigned();
}

/// The f32 scale of one element: the stored scale decoded, times 2^-(N-2)
/// for MX integers (two's-complement fixed point with N-2 fraction bits).
static Value getEffectiveScale(OpBuilder &b, Location loc, SchemeAttr scheme,
                               Value scale, Value outerScale) {
  Value f32Scale = emitScaleToF32(b, loc, scale);
  if (outerScale)
    f32Scale = arith::MulFOp::create(b, loc, f32Scale, outerScale);
  if (scheme.hasIntegerStorage() && scheme.hasMXScale()) {
    Value fraction = arith::ConstantOp::create(
        b, loc,
        b.getF32FloatAttr(
            std::ldexp(1.0f, 2 - int(scheme.getStorageBitWidth()))));
    f32Scale = arith::MulFOp::create(b, loc, f32Scale, fraction);
  }
  return f32Scale;
}

/// A code's exact f32 value (an integer without zero point, or a decoded
/// float code) times the effective scale, rounded to the expressed type.
static Value scaleCodeValue(OpBuilder &b, Location loc, SchemeAttr scheme,
                            Value codeValue, Value effectiveScale) {
  return convertFloat(b, loc,
                      arith::MulFOp::create(b, loc, codeValue, effectiveScale),
                      scheme.getExpressedType());
}

Value mlir::quant_block::detail::emitDequantize(OpBuilder &b, Location loc,
                                                SchemeAttr scheme, Value code,
                                                Value scale, Value zeroPoint,
                                                Value outerScale) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  scale = getEffectiveScale(b, loc, scheme, scale, outerScale);
  if (scheme.hasFloatStorage())
    return scaleCodeValue(
        b, loc, scheme,
        emitDecodeOCPFloat(b, loc, code, scheme.getStorageType()), scale);
  IntegerType intType = getIntegerComputeType(ctx, scheme);
  Value q = extendInteger(b, loc, code, intType, scheme.isSignedStorage());
  Value result;
  switch (scheme.getZeroPointDomain()) {
  case ZeroPointDomain::None:
    return scaleCodeValue(b, loc, scheme,
                          arith::SIToFPOp::create(b, loc, f32, q), scale);
  case ZeroPointDomain::Int: {
    Value zp = extendInteger(b, loc, zeroPoint, intType,
                             !hasUnsignedZeroPoints(scheme));
    Value diff = arith::SubIOp::create(b, loc, q, zp);
    result = arith::MulFOp::create(
        b, loc, arith::SIToFPOp::create(b, loc, f32, diff), scale);
    break;
  }
  case ZeroPointDomain::Float: {
    Value min = convertFloat(b, loc, zeroPoint, f32);
    result = math::FmaOp::create(
        b, loc, arith::SIToFPOp::create(b, loc, f32, q), scale, min);
    break;
  }
  }
  return convertFloat(b, loc, result, scheme.getExpressedType());
}

Value mlir::quant_block::detail::emitDequantizeCodeValue(
    OpBuilder &b, Location loc, SchemeAttr scheme, Value codeValue, Value scale,
    Value outerScale) {
  assert(scheme.getZeroPointDomain() == ZeroPointDomain::None &&
         "no zero points");
  return scaleCodeValue(b, loc, scheme, codeValue,
                        getEffectiveScale(b, loc, scheme, scale, outerScale));
}

Value mlir::quant_block::detail::emitQuantize(OpBuilder &b, Location loc,
                                              SchemeAttr scheme, Value x,
                                              Value scale, Value zeroPoint,
                                              Value outerScale) {
  MLIRContext *ctx = b.getContext();
  if (scheme.hasFloatStorage()) {
    Type f32 = b.getF32Type();
    Value y = arith::DivFOp::create(
        b, loc, convertFloat(b, loc, x, f32),
        getEffectiveScale(b, loc, scheme, scale, outerScale));
    return emitEncodeOCPFloat(b, loc, y, scheme.getStorageType(),
                              scheme.getRounding(), scheme.getSaturate());
  }
  FloatType computeType = getQuantizeComputeType(ctx, scheme);
  IntegerType intType = getIntegerComputeType(ctx, scheme);
  x = convertFloat(b, loc, x, computeType);
  scale =
      convertFloat(b, loc, getEffectiveScale(b, loc, scheme, scale, outerScale),
                   computeType);
  ZeroPointDomain domain = scheme.getZeroPointDomain();
  if (domain == ZeroPointDomain::Float)
    x = arith::SubFOp::create(b, loc, x,
                              convertFloat(b, loc, zeroPoint, computeType));
  Value scaled = arith::DivFOp::create(b, loc, x, scale);
  Value rounded = roundToIntegral(b, loc, scaled, scheme.getRounding());
  auto constant = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc,
                                     b.getFloatAttr(computeType, value));
  };
  // MX integers clamp symmetrically (OCP MX: the most negative code is never
  // produced).
  int64_t lowest = scheme.getQmin();
  if (scheme.hasMXScale())
    lowest = std::max(lowest, -scheme.getQmax());
  Value qmin = constant(double(lowest));
  Value qmax = constant(double(scheme.getQmax()));
  Value offset = constant(0.0);
  if (domain == ZeroPointDomain::Int) {
    Value zp = extendInteger(b, loc, zeroPoint, intType,
                             !hasUnsignedZeroPoints(scheme));
    offset = arith::SIToFPOp::create(b, loc, computeType, zp);
    rounded = arith::AddFOp::create(b, loc, rounded, offset);
  }
  // maximumf / minimumf propagate NaN, which then maps to the zero point
  // (clamped), as docs/Numerics.md defines.
  Value clamped = arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, rounded, qmin), qmax);
  Value nanValue = arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, offset, qmin), qmax);
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                      clamped, clamped);
  clamped = arith::SelectOp::create(b, loc, isNaN, nanValue, clamped);
  return arith::FPToSIOp::create(b, loc, intType, clamped);
}

/// Reinterprets a tensor with another element signedness (or returns it).
/// tensor.bitcast would say this directly but does not bufferize in MLIR 22,
/// so each element goes through an unrealized cast, which the LLVM lowering
/// (where signedness does not exist) reconciles away.
Value mlir::quant_block::detail::castTensorElements(OpBuilder &b, Location loc,
                                                    Value value, Type type) {
  if (value.getType() == type)
    return value;
  auto resultType = cast<RankedTensorType>(type);
  // A constant (an ONNX initializer's uint8 codes) becomes a constant of the
  // other type with the same bits: no kernel, which the SPIR-V lowering
  // could not take (it keeps the unrealized casts of signed and unsigned
  // element loads).
  DenseElementsAttr constant;
  if (resultType.hasStaticShape() && matchPattern(value, m_Constant(&constant)))
    return arith::ConstantOp::create(
        b, loc, resultType, constant.bitcast(resultType.getElementType()));
  int64_t rank = resultType.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, value),
                              resultType.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{value}, ValueRange{init},
             ArrayRef<AffineMap>{identity, identity}, iterators,
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Type from = args[0].getType();
               Type to = resultType.getElementType();
               Value cast;
               if (isa<FloatType>(from) != isa<FloatType>(to))
                 cast = arith::BitcastOp::create(b, loc, to, args[0]);
               else
                 cast = UnrealizedConversionCastOp::create(b, loc, to, args[0])
                            .getResult(0);
               linalg::YieldOp::create(b, loc, cast);
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// OCP narrow floats and E8M0
//===----------------------------------------------------------------------===//

namespace numerics = ::quant_block::numerics;

static const numerics::FloatFormatInfo &
getFormatInfo(Type type, numerics::FloatFormatKind *kindOut = nullptr) {
  std::optional<numerics::FloatFormatKind> kind = getFloatFormatKind(type);
  assert(kind && "not an OCP float format");
  if (kindOut)
    *kindOut = *kind;
  return numerics::getFloatFormatInfo(*kind);
}

static Value constI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}

/// `element` in the shape of `like`: the vector type of that shape for a
/// vector, `element` itself for a scalar. The decoders below are
/// elementwise, so that vector code (the CPU matmul kernels) decodes a
/// vector of codes to the same bits as the linalg lowering decodes each.
static Type shapedLike(Type like, Type element) {
  if (auto vector = dyn_cast<VectorType>(like))
    return vector.clone(element);
  return element;
}

/// The constant `value` of type shapedLike(like, its type), splat for a
/// vector.
static Value constantLike(OpBuilder &b, Location loc, Type like,
                          TypedAttr value) {
  Type type = shapedLike(like, value.getType());
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, value));
  return arith::ConstantOp::create(b, loc, value);
}

/// The code as i32 (bitcasting float-typed codes to integers first), in
/// the shape of the code.
static Value codeToI32(OpBuilder &b, Location loc, Value code) {
  Type type = code.getType();
  Type element = getElementTypeOrSelf(type);
  if (isa<FloatType>(element))
    code = arith::BitcastOp::create(
        b, loc,
        shapedLike(type, b.getIntegerType(element.getIntOrFloatBitWidth())),
        code);
  Type i32 = shapedLike(type, b.getI32Type());
  if (code.getType() == i32)
    return code;
  return arith::ExtUIOp::create(b, loc, i32, code);
}

Value mlir::quant_block::detail::emitE2M1TwiceValue(OpBuilder &b, Location loc,
                                                    Value code) {
  code = codeToI32(b, loc, code);
  Type type = code.getType();
  auto splat = [&](int64_t value) {
    return constantLike(b, loc, type, b.getI32IntegerAttr(value));
  };
  // Magnitude code m: 2v = m for m < 4 (0, 0.5, 1, 1.5 doubled); for m >= 4
  // (exponent e = m >> 1 >= 2, mantissa m & 1) 2v = (2 + (m & 1)) << (e - 1):
  // 4, 6, 8, 12.
  Value magnitude = arith::AndIOp::create(b, loc, code, splat(7));
  Value normal = arith::ShLIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::AndIOp::create(b, loc, magnitude, splat(1)), splat(2)),
      arith::SubIOp::create(b, loc,
                            arith::ShRUIOp::create(b, loc, magnitude, splat(1)),
                            splat(1)));
  Value isSmall = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        magnitude, splat(4));
  Value twice = arith::SelectOp::create(b, loc, isSmall, magnitude, normal);
  Value isNegative = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, loc, code, splat(8)), splat(0));
  return arith::SelectOp::create(b, loc, isNegative,
                                 arith::SubIOp::create(b, loc, splat(0), twice),
                                 twice);
}

Value mlir::quant_block::detail::emitBlockSumToF32(OpBuilder &b, Location loc,
                                                   Value sum,
                                                   bool twiceWeightValues) {
  Type f32 = shapedLike(sum.getType(), b.getF32Type());
  Value value = arith::SIToFPOp::create(b, loc, f32, sum);
  if (!twiceWeightValues)
    return value;
  return arith::MulFOp::create(
      b, loc, value, constantLike(b, loc, f32, b.getF32FloatAttr(0.5f)));
}

Value mlir::quant_block::detail::emitDecodeOCPFloat(OpBuilder &b, Location loc,
                                                    Value code,
                                                    Type storageType) {
  numerics::FloatFormatKind kind;
  const numerics::FloatFormatInfo &info = getFormatInfo(storageType, &kind);
  unsigned m = info.mantissaBits, w = info.bitWidth;
  Type like = code.getType();
  Type f32 = shapedLike(like, b.getF32Type());
  Type i32 = shapedLike(like, b.getI32Type());
  auto intConst = [&](int64_t v) -> Value {
    return constantLike(b, loc, like, b.getI32IntegerAttr(v));
  };
  auto f32Const = [&](float v) -> Value {
    return constantLike(b, loc, like, b.getF32FloatAttr(v));
  };
  Value c = codeToI32(b, loc, code);
  // Only the low w bits are the code (a packed lane may carry sign copies).
  c = arith::AndIOp::create(b, loc, c, intConst((1 << w) - 1));
  Value magnitudeCode =
      arith::AndIOp::create(b, loc, c, intConst((1 << (w - 1)) - 1));
  // The sign goes straight into the f32 sign bit, so -0.0 stays -0.0.
  Value signBit = arith::AndIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, c, intConst(32 - w)),
      intConst(int32_t(0x80000000u)));
  // Normal codes: the exponent and mantissa fields, moved to the top of the
  // f32 fields and rebiased by an integer add, are the f32 bit pattern of
  // the value (every value of these formats is a normal f32).
  Value normal = arith::BitcastOp::create(
      b, loc, f32,
      arith::AddIOp::create(
          b, loc,
          arith::ShLIOp::create(b, loc, magnitudeCode, intConst(23 - int(m))),
          intConst((127 - info.bias) << 23)));
  // Subnormal codes (exponent field 0): mantissa * 2^(1 - bias - m), exact.
  // Computed as a float product rather than built from bits because the
  // bit pattern would be an f32 subnormal only in the rebias step.
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::SIToFPOp::create(b, loc, f32, magnitudeCode),
      f32Const(std::ldexp(1.0f, 1 - info.bias - int(m))));
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            magnitudeCode, intConst(1 << m));
  Value magnitude =
      arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  Value value = arith::BitcastOp::create(
      b, loc, f32,
      arith::OrIOp::create(
          b, loc, arith::BitcastOp::create(b, loc, i32, magnitude), signBit));
  if (info.hasNaN) {
    int32_t maxMagnitude = (1 << (w - 1)) - 1;
    Value isNaN;
    if (info.hasInf) {
      // E5M2: the all-ones exponent is Inf (zero mantissa) or NaN.
      int32_t infMagnitude = maxMagnitude & ~((1 << m) - 1);
      Value isInf =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, magnitudeCode,
                                intConst(infMagnitude));
      Value isNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                               signBit, intConst(0));
      Value inf = arith::SelectOp::create(
          b, loc, isNegative, f32Const(-INFINITY), f32Const(INFINITY));
      value = arith::SelectOp::create(b, loc, isInf, inf, value);
      isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                    magnitudeCode, intConst(infMagnitude));
    } else {
      // E4M3FN: only S.1111.111 is NaN.
      isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    magnitudeCode, intConst(maxMagnitude));
    }
    value = arith::SelectOp::create(b, loc, isNaN, f32Const(NAN), value);
  }
  return value;
}

Value mlir::quant_block::detail::emitEncodeOCPFloat(OpBuilder &b, Location loc,
                                                    Value value,
                                                    Type storageType,
                                                    RoundingMode mode,
                                                    bool saturate) {
  numerics::FloatFormatKind kind;
  const numerics::FloatFormatInfo &info = getFormatInfo(storageType, &kind);
  int m = info.mantissaBits, w = info.bitWidth;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  value = convertFloat(b, loc, value, f32);
  Value bits = arith::BitcastOp::create(b, loc, i32, value);
  Value sign = arith::ShRUIOp::create(b, loc, bits, constI32(b, loc, 31));
  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
  // Beyond 2^(emax + 2) every value overflows the same way; clamping keeps
  // the arithmetic finite (Inf included).
  Value big = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(std::ldexp(1.0f, info.emax + 2)));
  Value a = arith::MinimumFOp::create(b, loc,
                                      math::AbsFOp::create(b, loc, value), big);
  Value aBits = arith::BitcastOp::create(b, loc, i32, a);
  Value exponent = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, aBits, constI32(b, loc, 23)),
      constI32(b, loc, 127));
  exponent =
      arith::MaxSIOp::create(b, loc, exponent, constI32(b, loc, info.emin));
  // 2^(m - e) from bits, then an exact scaling and one rounding.
  Value scaleBits = arith::ShLIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, constI32(b, loc, m + 127), exponent),
      constI32(b, loc, 23));
  Value scaled = arith::MulFOp::create(
      b, loc, a, arith::BitcastOp::create(b, loc, f32, scaleBits));
  Value q = arith::FPToSIOp::create(b, loc, i32,
                                    roundToIntegral(b, loc, scaled, mode));
  Value magnitude = arith::AddIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, exponent, constI32(b, loc, info.emin)),
          constI32(b, loc, m)),
      q);
  int64_t maxCode = numerics::encodeFloat(kind, info.maxNormal,
                                          numerics::RoundingMode::HalfToEven,
                                          /*saturate=*/true);
  Value maxValue = constI32(b, loc, maxCode);
  if (saturate || (!info.hasInf && !info.hasNaN)) {
    magnitude = arith::MinSIOp::create(b, loc, magnitude, maxValue);
  } else {
    // Overflow becomes Inf (E5M2) or NaN (E4M3FN), as ONNX saturate=0.
    int64_t overflowCode =
        numerics::encodeFloat(kind, INFINITY,
                              numerics::RoundingMode::HalfToEven,
                              /*saturate=*/false) &
        ((1 << (w - 1)) - 1);
    Value overflow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                           magnitude, maxValue);
    magnitude = arith::SelectOp::create(
        b, loc, overflow, constI32(b, loc, overflowCode), magnitude);
  }
  Value code = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, sign, constI32(b, loc, w - 1)),
      magnitude);
  // NaN: the format's NaN, or +0 for formats without one.
  std::optional<uint32_t> nanCode = numerics::getNaNCode(kind);
  return arith::SelectOp::create(
      b, loc, isNaN, constI32(b, loc, nanCode ? *nanCode : 0), code);
}

Value mlir::quant_block::detail::emitScaleToF32(OpBuilder &b, Location loc,
                                                Value scale) {
  Type like = scale.getType();
  Type type = getElementTypeOrSelf(like);
  Type f32 = shapedLike(like, b.getF32Type());
  if (isa<Float8E8M0FNUType>(type)) {
    // 2^(c - 127) is the f32 whose exponent field is c; code 0 is the f32
    // subnormal 2^-127 and 0xFF is NaN.
    auto intConst = [&](int64_t v) -> Value {
      return constantLike(b, loc, like, b.getI32IntegerAttr(v));
    };
    Value c = codeToI32(b, loc, scale);
    Value bits = arith::ShLIOp::create(b, loc, c, intConst(23));
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c, intConst(0));
    bits = arith::SelectOp::create(b, loc, isZero, intConst(0x00400000), bits);
    Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c,
                                        intConst(0xFF));
    bits = arith::SelectOp::create(b, loc, isNaN, intConst(0x7FC00000), bits);
    return arith::BitcastOp::create(b, loc, f32, bits);
  }
  if (isOCPFloatStorageType(type))
    return emitDecodeOCPFloat(b, loc, scale, type);
  if (like == type)
    return convertFloat(b, loc, scale, f32);
  return type.isF32() ? scale : arith::ExtFOp::create(b, loc, f32, scale);
}

Value mlir::quant_block::detail::codeToStorage(OpBuilder &b, Location loc,
                                               Value code, Type storageType) {
  unsigned width = storageType.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(width);
  if (code.getType() != intType)
    code = arith::TruncIOp::create(b, loc, intType, code);
  if (isa<FloatType>(storageType))
    return arith::BitcastOp::create(b, loc, storageType, code);
  return code;
}

Value mlir::quant_block::detail::getOuterScalesPart(SchemeAttr scheme,
                                                    ValueRange parts) {
  if (!scheme.getOuter())
    return {};
  return parts[scheme.getZeroPointType() ? 3 : 2];
}

Value mlir::quant_block::detail::extractOuterScale(OpBuilder &b, Location loc,
                                                   Value outer) {
  if (!outer)
    return {};
  auto type = cast<RankedTensorType>(outer.getType());
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  Value scalar = tensor::ExtractOp::create(b, loc, outer, zeros);
  return convertFloat(b, loc, scalar, b.getF32Type());
}
