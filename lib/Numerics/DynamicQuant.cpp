//===- DynamicQuant.cpp - Parameters of quantize_dynamic ------------------===//
//
// Every operation here is one f32 operation of the lowered
// quant_block.quantize_dynamic, in the same order; constants are rounded to
// f32 once, as the lowering's f32 literals are.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/DynamicQuant.h"

#include "quant-block/Numerics/FloatFormats.h"
#include "quant-block/Numerics/Rounding.h"

#include <cmath>

namespace quant_block::numerics {

float maximumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nanf("");
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

float minimumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nanf("");
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

float getAbsMaxScale(float maxAbs, float storageMax,
                     std::optional<float> outer) {
  float scale = maxAbs / storageMax;
  if (outer)
    scale = scale / *outer;
  return scale == 0.0f ? 1.0f : scale;
}

float getAbsMaxOuterScale(float maxAbs, double storageMax, double scaleMax) {
  float scale = maxAbs / roundToF32(storageMax * scaleMax);
  return scale == 0.0f ? 1.0f : scale;
}

std::pair<float, float> includeZero(float min, float max) {
  return {minimumF(min, 0.0f), maximumF(max, 0.0f)};
}

float getMinMaxScale(float lo, float hi, IntegerRange range) {
  float levels = roundToF32(double(range.max) - double(range.min));
  float scale = (hi - lo) / levels;
  return scale == 0.0f ? 1.0f : scale;
}

std::optional<int32_t> getMinMaxIntZeroPoint(float lo, float storedScale,
                                             IntegerRange range) {
  float qmin = roundToF32(double(range.min));
  float qmax = roundToF32(double(range.max));
  float shifted = qmin - lo / storedScale;
  float rounded = float(roundToIntegral(shifted, RoundingMode::HalfToEven));
  float clamped = minimumF(maximumF(rounded, qmin), qmax);
  if (!(clamped >= -2147483648.0f && clamped < 2147483648.0f))
    return std::nullopt;
  return int32_t(clamped);
}

} // namespace quant_block::numerics
