//===- RuntimeBuiltinsTest.cpp - quant-run's bf16 builtins
//-----------------===//
//
// The builtins serve code that rounds to bf16 outside the CPU pipeline (a
// custom --pipeline): they must round like the numerics contract, once, to
// nearest even, with subnormals kept.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/RuntimeBuiltins.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mlir::quant_block::runner;

namespace {

TEST(RuntimeBuiltins, F32ToBF16RoundsToNearestEven) {
  EXPECT_EQ(truncateF32ToBF16Bits(1.0f), 0x3F80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to the even 1.
  EXPECT_EQ(truncateF32ToBF16Bits(1.0f + 0x1p-8f), 0x3F80);
  EXPECT_EQ(truncateF32ToBF16Bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);
  EXPECT_EQ(truncateF32ToBF16Bits(-0.0f), 0x8000);
}

TEST(RuntimeBuiltins, F32ToBF16KeepsSubnormals) {
  // The smallest bf16 subnormal, and 1.5 times it (ties to even: 2 codes).
  EXPECT_EQ(truncateF32ToBF16Bits(0x1p-133f), 0x0001);
  EXPECT_EQ(truncateF32ToBF16Bits(0x1.8p-133f), 0x0002);
  EXPECT_EQ(truncateF32ToBF16Bits(0x1p-134f), 0x0000);
  EXPECT_EQ(truncateF32ToBF16Bits(-0x1.8p-134f), 0x8001);
}

TEST(RuntimeBuiltins, F32ToBF16SpecialValues) {
  EXPECT_EQ(truncateF32ToBF16Bits(std::numeric_limits<float>::infinity()),
            0x7F80);
  EXPECT_EQ(truncateF32ToBF16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(truncateF32ToBF16Bits(std::nanf("")), 0x7FC0);
  EXPECT_EQ(truncateF32ToBF16Bits(-std::nanf("")), 0xFFC0);
}

TEST(RuntimeBuiltins, F64ToBF16RoundsOnce) {
  // Through f32 the 2^-30 would be lost and the tie would go to even.
  EXPECT_EQ(truncateF64ToBF16Bits(1.0 + 0x1p-8 + 0x1p-30), 0x3F81);
  EXPECT_EQ(truncateF64ToBF16Bits(0x1p-133), 0x0001);
  EXPECT_EQ(truncateF64ToBF16Bits(0x1p-134 * (1 + 0x1p-30)), 0x0001);
  EXPECT_EQ(truncateF64ToBF16Bits(0x1p-134), 0x0000);
}

TEST(RuntimeBuiltins, F64ToBF16OverflowsOnlyFromTheMidpoint) {
  // The largest bf16 is 0x1.fep127; the midpoint to 2^128 is 0x1.ffp127.
  // Below it the value rounds to the largest finite bf16 (this used to
  // give infinity from 0x1.fep127 on).
  EXPECT_EQ(truncateF64ToBF16Bits(0x1.fep127), 0x7F7F);
  EXPECT_EQ(truncateF64ToBF16Bits(0x1.ffp127 * (1 - 0x1p-40)), 0x7F7F);
  EXPECT_EQ(truncateF64ToBF16Bits(0x1.ffp127), 0x7F80);
  EXPECT_EQ(truncateF64ToBF16Bits(-1e300), 0xFF80);
}

} // namespace
