//===- DynamicQuantTest.cpp - Tests for Numerics/DynamicQuant.h -----------===//
//
// Checks the quantize_dynamic details docs/Numerics.md pins down: NaN
// propagation and -0 < +0 in the block statistics, the all-zero test on the
// f32 quotient, the minmax range widened to include 0, and the minmax
// integer zero point rounded half to even from the stored scale and clamped.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/DynamicQuant.h"

#include "TestUtils.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace quant_block::numerics;
using namespace quant_block::numerics::testing;

namespace {

TEST(DynamicQuantTest, StatisticsPropagateNaNAndOrderSignedZeros) {
  EXPECT_TRUE(std::isnan(maximumF(1.0f, std::nanf(""))));
  EXPECT_TRUE(std::isnan(minimumF(std::nanf(""), 1.0f)));
  EXPECT_TRUE(sameValue(maximumF(-0.0f, 0.0f), 0.0));
  EXPECT_TRUE(sameValue(minimumF(0.0f, -0.0f), -0.0));
  EXPECT_EQ(maximumF(-3.0f, 2.0f), 2.0f);
  EXPECT_EQ(minimumF(-3.0f, 2.0f), -3.0f);
}

TEST(DynamicQuantTest, AbsMaxScale) {
  EXPECT_EQ(getAbsMaxScale(127.0f, 127.0f), 1.0f);
  EXPECT_EQ(getAbsMaxScale(6.0f, 6.0f, 0.5f), 2.0f);
  // An all-zero block gets 1.
  EXPECT_EQ(getAbsMaxScale(0.0f, 127.0f), 1.0f);
  // A tiny quotient stays (the zero test is on the f32 quotient).
  EXPECT_EQ(getAbsMaxScale(0x1p-140f, 127.0f), 0x1p-140f / 127.0f);
  // NVFP4: max|x| / (6 * 448).
  EXPECT_EQ(getAbsMaxOuterScale(2688.0f, 6.0, 448.0), 1.0f);
  EXPECT_EQ(getAbsMaxOuterScale(0.0f, 6.0, 448.0), 1.0f);
}

TEST(DynamicQuantTest, MinMaxScaleAndZeroPoint) {
  // [1, 3] widens to [0, 3].
  auto [lo, hi] = includeZero(1.0f, 3.0f);
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 3.0f);
  EXPECT_TRUE(sameValue(includeZero(-0.0f, 1.0f).first, -0.0));
  IntegerRange u8 = {0, 255};
  EXPECT_EQ(getMinMaxScale(-1.0f, 1.0f, u8), 2.0f / 255.0f);
  EXPECT_EQ(getMinMaxScale(0.0f, 0.0f, u8), 1.0f);
  // zp = round_half_even(0 - (-1) / s) with s = f32(2 / 255) (slightly
  // above 2 / 255): 127.4999924 in f32, so 127 where exact arithmetic would
  // have the tie 127.5 -> 128.
  float s = 2.0f / 255.0f;
  ASSERT_LT(0.0f - -1.0f / s, 127.5f);
  EXPECT_EQ(getMinMaxIntZeroPoint(-1.0f, s, u8), 127);
  // Exact ties go to even: lo = -2.5, s = 1: 2.5 -> 2.
  EXPECT_EQ(getMinMaxIntZeroPoint(-2.5f, 1.0f, u8), 2);
  EXPECT_EQ(getMinMaxIntZeroPoint(-3.5f, 1.0f, u8), 4);
  // Clamped to [qmin, qmax].
  EXPECT_EQ(getMinMaxIntZeroPoint(-1000.0f, 1.0f, u8), 255);
  EXPECT_EQ(getMinMaxIntZeroPoint(-100.0f, 1.0f, IntegerRange{-8, 7}), 7);
  // qmin - lo / s: -8 + 10 = 2 for int4.
  EXPECT_EQ(getMinMaxIntZeroPoint(-10.0f, 1.0f, IntegerRange{-8, 7}), 2);
  // A NaN has no i32.
  EXPECT_FALSE(getMinMaxIntZeroPoint(std::nanf(""), 1.0f, u8));
}

} // namespace
