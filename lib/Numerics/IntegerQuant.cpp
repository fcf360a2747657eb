//===- IntegerQuant.cpp - Integer quantization contract -------------------===//
//
// Integer quantize / dequantize exactly as DESIGN.md states them. The clamp
// is done in double before converting to int64_t, so huge quotients (or
// +-Inf) never reach an undefined float-to-integer conversion.
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

int64_t quantizeInteger(double x, double scale, int64_t zeroPoint,
                        IntegerRange range, RoundingMode mode) {
  assert(range.min <= range.max && "empty integer range");
  double quotient = x / scale;
  // NaN has no integer: treat it as x / scale == 0 (documented choice).
  double rounded = std::isnan(quotient) ? 0.0 : roundToIntegral(quotient, mode);
  // |zeroPoint| and the range bounds are far below 2^53 for 2..32-bit
  // storage, so both conversions and the clamp bounds are exact; a sum that
  // rounds is already far outside the range and clamps the same way.
  double shifted = rounded + static_cast<double>(zeroPoint);
  double clamped = std::clamp(shifted, static_cast<double>(range.min),
                              static_cast<double>(range.max));
  return static_cast<int64_t>(clamped);
}

double dequantizeIntegerWithIntZeroPoint(int64_t q, double scale,
                                         int64_t zeroPoint) {
  return static_cast<double>(q - zeroPoint) * scale;
}

double dequantizeIntegerWithFloatZeroPoint(int64_t q, double scale,
                                           double min) {
  return std::fma(static_cast<double>(q), scale, min);
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
