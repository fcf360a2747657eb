//===- TestUtils.h - Shared helpers of the numerics unit tests --*- C++ -*-===//
//
// The short names and the value comparison every numerics test file uses,
// defined once: rounding modes, infinities and NaN, and a value equality that
// tells -0.0 from +0.0 and matches NaN with NaN.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_UNITTESTS_NUMERICS_TESTUTILS_H
#define QUANT_BLOCK_UNITTESTS_NUMERICS_TESTUTILS_H

#include "quant-block/Numerics/Rounding.h"

#include <cmath>
#include <limits>

namespace quant_block::numerics::testing {

constexpr RoundingMode kEven = RoundingMode::HalfToEven;
constexpr RoundingMode kAway = RoundingMode::HalfAwayFromZero;
constexpr RoundingMode kTrunc = RoundingMode::TowardZero;
constexpr RoundingMode kAllModes[] = {kEven, kAway, kTrunc};
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Value equality that also treats NaN == NaN and tells -0.0 from +0.0.
inline bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace quant_block::numerics::testing

#endif // QUANT_BLOCK_UNITTESTS_NUMERICS_TESTUTILS_H
