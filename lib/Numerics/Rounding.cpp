//===- Rounding.cpp - Rounding modes of the quantization schemes ----------===//
//
// Exact rounding of doubles to integral values under the three element
// rounding modes. Half-to-even is done by hand rather than with
// std::nearbyint so that the result never depends on the floating-point
// environment's current rounding direction (a library linked into a
// compiler cannot assume nobody called fesetround).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/Rounding.h"

#include <cassert>
#include <cmath>

namespace quant_block::numerics {

double roundToIntegral(double x, RoundingMode mode) {
  if (!std::isfinite(x))
    return x;
  switch (mode) {
  case RoundingMode::TowardZero:
    return std::trunc(x);
  case RoundingMode::HalfAwayFromZero:
    // std::round is exactly ties-away; floor(x + 0.5) would round
    // 0.49999999999999994 up because the addition itself rounds.
    return std::round(x);
  case RoundingMode::HalfToEven: {
    double lower = std::floor(x);
    // Exact: x and floor(x) share their binade's ulp, and for |x| >= 2^52
    // every double is already an integer (fraction 0).
    double fraction = x - lower;
    double result;
    if (fraction < 0.5)
      result = lower;
    else if (fraction > 0.5)
      result = lower + 1.0;
    else
      result = std::fmod(lower, 2.0) == 0.0 ? lower : lower + 1.0;
    // Only a zero result can have lost the sign (-0.3 -> floor -1, +1 -> 0).
    return std::copysign(result, x);
  }
  }
  assert(false && "unknown RoundingMode");
  return x;
}

const char *getRoundingModeName(RoundingMode mode) {
  switch (mode) {
  case RoundingMode::HalfToEven:
    return "half_to_even";
  case RoundingMode::HalfAwayFromZero:
    return "half_away_from_zero";
  case RoundingMode::TowardZero:
    return "toward_zero";
  }
  return "unknown";
}

const char *getScaleRoundingModeName(ScaleRoundingMode mode) {
  switch (mode) {
  case ScaleRoundingMode::Floor:
    return "floor";
  case ScaleRoundingMode::Ceil:
    return "ceil";
  case ScaleRoundingMode::HalfToEven:
    return "half_to_even";
  }
  return "unknown";
}

} // namespace quant_block::numerics
