//===- ScalarCodegen.cpp - scalar arithmetic of the numerics contract -----===//
//
// Implements the scalar building blocks declared in ScalarCodegen.h.
//
//===----------------------------------------------------------------------===//

#include "ScalarCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

static Value laneShift(OpBuilder &b, Location loc, Value lane, unsigned width) {
  Type i8 = b.getI8Type();
  Value lane8 = arith::IndexCastUIOp::create(b, loc, i8, lane);
  Value widthValue =
      arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(width));
  return arith::MulIOp::create(b, loc, lane8, widthValue);
}

Value mlir::quant_block::detail::extractPackedLane(OpBuilder &b, Location loc,
                                                   Value byte, Value lane,
                                                   unsigned width,
                                                   bool isSigned) {
  Value shifted =
      arith::ShRUIOp::create(b, loc, byte, laneShift(b, loc, lane, width));
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

Value mlir::quant_block::detail::placeInLane(OpBuilder &b, Location loc,
                                             Value code, Value lane,
                                             unsigned width) {
  Type i8 = b.getI8Type();
  unsigned codeWidth = code.getType().getIntOrFloatBitWidth();
  if (codeWidth > 8)
    code = arith::TruncIOp::create(b, loc, i8, code);
  else if (codeWidth < 8)
    code = arith::ExtUIOp::create(b, loc, i8, code);
  Value mask =
      arith::ConstantOp::create(b, loc, b.getI8IntegerAttr((1 << width) - 1));
  Value masked = arith::AndIOp::create(b, loc, code, mask);
  return arith::ShLIOp::create(b, loc, masked, laneShift(b, loc, lane, width));
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

Value mlir::quant_block::detail::emitDequantize(OpBuilder &b, Location loc,
                                                SchemeAttr scheme, Value code,
                                                Value scale, Value zeroPoint) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  scale = convertFloat(b, loc, scale, f32);
  IntegerType intType = getIntegerComputeType(ctx, scheme);
  Value q = extendInteger(b, loc, code, intType, scheme.isSignedStorage());
  Value result;
  switch (scheme.getZeroPointDomain()) {
  case ZeroPointDomain::None:
    result = arith::MulFOp::create(
        b, loc, arith::SIToFPOp::create(b, loc, f32, q), scale);
    break;
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

Value mlir::quant_block::detail::emitQuantize(OpBuilder &b, Location loc,
                                              SchemeAttr scheme, Value x,
                                              Value scale, Value zeroPoint) {
  MLIRContext *ctx = b.getContext();
  FloatType computeType = getQuantizeComputeType(ctx, scheme);
  IntegerType intType = getIntegerComputeType(ctx, scheme);
  x = convertFloat(b, loc, x, computeType);
  scale = convertFloat(b, loc, scale, computeType);
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
  Value qmin = constant(double(scheme.getQmin()));
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
               Value cast = UnrealizedConversionCastOp::create(
                                b, loc, resultType.getElementType(), args[0])
                                .getResult(0);
               linalg::YieldOp::create(b, loc, cast);
             })
      .getResult(0);
}
