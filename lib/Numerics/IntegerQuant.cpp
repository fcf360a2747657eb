//===- IntegerQuant.cpp - Integer quantization contract -------------------===//
//
// Integer quantize / dequantize exactly as docs/Numerics.md states them, step
// by step as the compiled code computes them. The clamp is done in the
// compute type before converting to int64_t, so huge quotients (or +-Inf)
// never reach an undefined float-to-integer conversion.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/IntegerQuant.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace quant_block::numerics {

IntegerRange getIntegerStorageRange(unsigned bitWidth, bool isSigned) {
  assert(bitWidth >= 2 && bitWidth <= 32 && "storage width out of range");
  if (isSigned)
    return {-(int64_t(1) << (bitWidth - 1)),
            (int64_t(1) << (bitWidth - 1)) - 1};
  return {0, (int64_t(1) << bitWidth) - 1};
}

namespace {

/// arith.maximumf / arith.minimumf: NaN propagates (the caller handles it).
template <typename T> T clampTo(T value, T lo, T hi) {
  if (std::isnan(value))
    return value;
  return std::min(std::max(value, lo), hi);
}

/// round(quotient) + offset, clamped, in the compute type T; a NaN result
/// gives clamp(offset).
template <typename T>
int64_t roundAndClamp(T quotient, T offset, IntegerRange range,
                      RoundingMode mode) {
  assert(range.min <= range.max && "empty integer range");
  // The bounds are rounded to T once, as the compiled code's constants are.
  T lo = T(range.min), hi = T(range.max);
  T rounded = T(roundToIntegral(double(quotient), mode));
  T clamped = clampTo<T>(rounded + offset, lo, hi);
  if (std::isnan(clamped))
    clamped = clampTo<T>(offset, lo, hi);
  return static_cast<int64_t>(clamped);
}

template <typename T>
int64_t quantizeIn(float x, float scale, int64_t zeroPoint, float min,
                   bool floatZeroPoint, IntegerRange range, RoundingMode mode) {
  T value = T(x);
  if (floatZeroPoint)
    value = value - T(min);
  T quotient = value / T(scale);
  return roundAndClamp<T>(quotient, floatZeroPoint ? T(0) : T(zeroPoint), range,
                          mode);
}

} // namespace

int64_t quantizeInteger(float x, float scale, int64_t zeroPoint,
                        IntegerRange range, RoundingMode mode,
                        unsigned storageBitWidth) {
  if (isWideIntegerStorage(storageBitWidth))
    return quantizeIn<double>(x, scale, zeroPoint, 0.0f, false, range, mode);
  return quantizeIn<float>(x, scale, zeroPoint, 0.0f, false, range, mode);
}

int64_t quantizeIntegerWithFloatZeroPoint(float x, float scale, float min,
                                          IntegerRange range, RoundingMode mode,
                                          unsigned storageBitWidth) {
  if (isWideIntegerStorage(storageBitWidth))
    return quantizeIn<double>(x, scale, 0, min, true, range, mode);
  return quantizeIn<float>(x, scale, 0, min, true, range, mode);
}

float dequantizeIntegerWithIntZeroPoint(int64_t q, float scale,
                                        int64_t zeroPoint) {
  return static_cast<float>(q - zeroPoint) * scale;
}

float dequantizeIntegerWithFloatZeroPoint(int64_t q, float scale, float min) {
  return std::fma(static_cast<float>(q), scale, min);
}

uint32_t encodeIntegerCode(int64_t value, unsigned bitWidth) {
  assert(bitWidth >= 1 && bitWidth <= 32 && "code width out of range");
  assert(value >= -(int64_t(1) << (bitWidth - 1)) &&
         value < (int64_t(1) << bitWidth) && "value does not fit the width");
  uint64_t mask = (uint64_t(1) << bitWidth) - 1;
  return static_cast<uint32_t>(static_cast<uint64_t>(value) & mask);
}

int64_t decodeIntegerCode(uint32_t code, unsigned bitWidth, bool isSigned) {
  assert(bitWidth >= 1 && bitWidth <= 32 && "code width out of range");
  assert((bitWidth == 32 || code < (uint32_t(1) << bitWidth)) &&
         "code wider than its width");
  int64_t value = code;
  if (isSigned && (code >> (bitWidth - 1)) & 1)
    value -= int64_t(1) << bitWidth;
  return value;
}

} // namespace quant_block::numerics
