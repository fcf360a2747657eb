//===- RoundingTest.cpp - Tests for Numerics/Rounding.h -------------------===//
//
// Checks roundToIntegral under every mode: ties in both directions, values
// just beside a tie, the sign of zero, doubles where naive formulas
// (floor(x + 0.5)) round twice, huge values, and NaN/Inf pass-through.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/Rounding.h"

#include "TestUtils.h"

#include "gtest/gtest.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

using namespace quant_block::numerics;
using namespace quant_block::numerics::testing;

namespace {

struct TieCase {
  double x, even, away, trunc;
};

TEST(RoundingTest, TiesUnderEveryMode) {
  const TieCase cases[] = {
      {0.5, 0.0, 1.0, 0.0},
      {1.5, 2.0, 2.0, 1.0},
      {2.5, 2.0, 3.0, 2.0},
      {3.5, 4.0, 4.0, 3.0},
      {-0.5, -0.0, -1.0, -0.0},
      {-1.5, -2.0, -2.0, -1.0},
      {-2.5, -2.0, -3.0, -2.0},
      {66.5, 66.0, 67.0, 66.0},
      {127.5, 128.0, 128.0, 127.0},
      // Largest half-integers below 2^52: the last doubles with a fraction.
      {4503599627370495.5, 4503599627370496.0, 4503599627370496.0,
       4503599627370495.0},
      {4503599627370494.5, 4503599627370494.0, 4503599627370495.0,
       4503599627370494.0},
  };
  for (const TieCase &c : cases) {
    SCOPED_TRACE(c.x);
    EXPECT_EQ(roundToIntegral(c.x, kEven), c.even);
    EXPECT_EQ(roundToIntegral(c.x, kAway), c.away);
    EXPECT_EQ(roundToIntegral(c.x, kTrunc), c.trunc);
  }
}

TEST(RoundingTest, NextToTiesRoundToNearest) {
  for (RoundingMode mode : {kEven, kAway}) {
    EXPECT_EQ(roundToIntegral(std::nextafter(2.5, 0.0), mode), 2.0);
    EXPECT_EQ(roundToIntegral(std::nextafter(2.5, 3.0), mode), 3.0);
    EXPECT_EQ(roundToIntegral(std::nextafter(-2.5, 0.0), mode), -2.0);
    EXPECT_EQ(roundToIntegral(std::nextafter(-2.5, -3.0), mode), -3.0);
    // The largest double below 0.5: floor(x + 0.5) would give 1.
    EXPECT_EQ(roundToIntegral(0.49999999999999994, mode), 0.0);
  }
  EXPECT_EQ(roundToIntegral(2.9999999, kTrunc), 2.0);
  EXPECT_EQ(roundToIntegral(-2.9999999, kTrunc), -2.0);
}

TEST(RoundingTest, SignOfZeroIsKept) {
  for (RoundingMode mode : {kEven, kAway, kTrunc}) {
    for (double x : {-0.0, -0.3, -0.25}) {
      double r = roundToIntegral(x, mode);
      EXPECT_EQ(r, 0.0);
      EXPECT_TRUE(std::signbit(r)) << x << " " << getRoundingModeName(mode);
    }
    double r = roundToIntegral(0.3, mode);
    EXPECT_EQ(r, 0.0);
    EXPECT_FALSE(std::signbit(r));
  }
}

TEST(RoundingTest, IntegersAndHugeValuesAreUnchanged) {
  for (RoundingMode mode : {kEven, kAway, kTrunc}) {
    for (double x : {0.0, 7.0, -8.0, 0x1p52 + 1.0, 0x1p53, -0x1p60, 1e300,
                     std::numeric_limits<double>::max()})
      EXPECT_EQ(roundToIntegral(x, mode), x);
    EXPECT_EQ(roundToIntegral(std::numeric_limits<double>::denorm_min(), mode),
              0.0);
  }
}

TEST(RoundingTest, NonFinitePassThrough) {
  const double inf = std::numeric_limits<double>::infinity();
  for (RoundingMode mode : {kEven, kAway, kTrunc}) {
    EXPECT_EQ(roundToIntegral(inf, mode), inf);
    EXPECT_EQ(roundToIntegral(-inf, mode), -inf);
    EXPECT_TRUE(std::isnan(
        roundToIntegral(std::numeric_limits<double>::quiet_NaN(), mode)));
  }
}

TEST(RoundingTest, IndependentOfTheFloatingPointEnvironment) {
  // A compiler library cannot assume nobody changed the rounding direction.
  const int saved = std::fegetround();
  for (int direction : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    ASSERT_EQ(std::fesetround(direction), 0);
    volatile double tie = 2.5, negativeTie = -3.5;
    EXPECT_EQ(roundToIntegral(tie, kEven), 2.0);
    EXPECT_EQ(roundToIntegral(negativeTie, kEven), -4.0);
    EXPECT_EQ(roundToIntegral(tie, kAway), 3.0);
    EXPECT_EQ(roundToIntegral(tie, kTrunc), 2.0);
  }
  std::fesetround(saved);
}

TEST(RoundingTest, EnumValuesAndNamesAreStable) {
  // The enum values are stored in IR attributes; they must never move.
  EXPECT_EQ(static_cast<uint32_t>(RoundingMode::HalfToEven), 0u);
  EXPECT_EQ(static_cast<uint32_t>(RoundingMode::HalfAwayFromZero), 1u);
  EXPECT_EQ(static_cast<uint32_t>(RoundingMode::TowardZero), 2u);
  EXPECT_EQ(static_cast<uint32_t>(ScaleRoundingMode::Floor), 0u);
  EXPECT_EQ(static_cast<uint32_t>(ScaleRoundingMode::Ceil), 1u);
  EXPECT_EQ(static_cast<uint32_t>(ScaleRoundingMode::HalfToEven), 2u);
  EXPECT_STREQ(getRoundingModeName(kEven), "half_to_even");
  EXPECT_STREQ(getRoundingModeName(kAway), "half_away_from_zero");
  EXPECT_STREQ(getRoundingModeName(kTrunc), "toward_zero");
  EXPECT_STREQ(getScaleRoundingModeName(ScaleRoundingMode::Floor), "floor");
  EXPECT_STREQ(getScaleRoundingModeName(ScaleRoundingMode::Ceil), "ceil");
  EXPECT_STREQ(getScaleRoundingModeName(ScaleRoundingMode::HalfToEven),
               "half_to_even");
}

} // namespace
