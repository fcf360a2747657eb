//===- ElementQuantizerTest.cpp - Tests for ElementQuantizer.h ------------===//
//
// Checks the per-element quantize / dequantize that constant folding and the
// canonicalizer's round-trip proof share, rule by rule of docs/Numerics.md:
// the f32 quotient, rounding before the zero point, NaN / Inf, the three
// zero-point forms, MX integers (fixed point, symmetric clamp), OCP float
// storage with and without saturation, and the single rounding of a
// dequantized value to the expressed type; and the IEEE f16 / bf16 codecs.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/ElementQuantizer.h"

#include "TestUtils.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace quant_block::numerics;
using namespace quant_block::numerics::testing;

namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();

ElementScheme intScheme(unsigned width, bool isSigned, ZeroPointKind zp,
                        RoundingMode rounding = kEven) {
  ElementScheme scheme;
  scheme.storageBitWidth = width;
  scheme.storageSigned = isSigned;
  scheme.range = getIntegerStorageRange(width, isSigned);
  scheme.zeroPoint = zp;
  scheme.rounding = rounding;
  return scheme;
}

ElementScheme floatScheme(FloatFormatKind kind, bool saturate = true) {
  ElementScheme scheme;
  scheme.floatStorage = kind;
  scheme.storageBitWidth = getFloatFormatInfo(kind).bitWidth;
  scheme.saturate = saturate;
  return scheme;
}

TEST(ElementQuantizerTest, IntegerQuotientIsF32) {
  ElementQuantizer i8(intScheme(8, true, ZeroPointKind::None));
  // 0.35f / 0.1f is exactly 3.5 in f32: ties to even give 4, not the 3 of
  // a double division.
  EXPECT_EQ(i8.quantize(0.35f, 0.1f), 4u);
  EXPECT_EQ(i8.quantize(-0.35f, 0.1f), uint32_t(-4) & 0xFF);
  ElementQuantizer away(
      intScheme(8, true, ZeroPointKind::None, RoundingMode::HalfAwayFromZero));
  EXPECT_EQ(away.quantize(0.25f, 0.5f), 1u);
  ElementQuantizer trunc(intScheme(8, true, ZeroPointKind::None, kTrunc));
  EXPECT_EQ(trunc.quantize(0.99f, 0.5f), 1u);
}

TEST(ElementQuantizerTest, IntegerZeroPointAfterRounding) {
  ElementQuantizer u8(intScheme(8, false, ZeroPointKind::Int));
  // round(0.5) + 1 = 1, not round(1.5) = 2.
  EXPECT_EQ(u8.quantize(0.5f, 1.0f, 1), 1u);
  EXPECT_EQ(u8.quantize(1000.0f, 1.0f, 128), 255u);
  EXPECT_EQ(u8.quantize(-1000.0f, 1.0f, 128), 0u);
  // NaN gives the zero point, +-Inf the range ends, by the quotient's sign.
  EXPECT_EQ(u8.quantize(kNaNF, 1.0f, 7), 7u);
  EXPECT_EQ(u8.quantize(0.0f, 0.0f, 7), 7u);
  EXPECT_EQ(u8.quantize(kInfF, 1.0f, 7), 255u);
  EXPECT_EQ(u8.quantize(1.0f, -0.0f, 7), 0u);
  // Dequantize: (q - zp) * s in f32.
  EXPECT_EQ(u8.dequantize(130, 0.5f, 128), 1.0f);
}

TEST(ElementQuantizerTest, FloatZeroPointIsFused) {
  ElementQuantizer u4(intScheme(4, false, ZeroPointKind::Float));
  // q = round((x - m) / s): (1.0 - -1.0) / 0.25 = 8.
  EXPECT_EQ(u4.quantize(1.0f, 0.25f, 0, -1.0f), 8u);
  EXPECT_EQ(u4.quantize(kNaNF, 0.25f, 0, -1.0f), 0u);
  // x = fma(q, s, m) rounds once: 3 * (1 + 2^-23) - 3 = 3 * 2^-23.
  const float s = 1.0f + 0x1p-23f;
  EXPECT_EQ(u4.dequantize(3, s, 0, -3.0f), 3 * 0x1p-23f);
}

TEST(ElementQuantizerTest, ThirtyTwoBitStorageDividesInF64) {
  ElementQuantizer i32(intScheme(32, true, ZeroPointKind::Int));
  // 2^24 / 0.75 = 22369621.33: f64 keeps the integer part.
  EXPECT_EQ(i32.quantize(0x1p24f, 0.75f, 0), 22369621u);
  EXPECT_EQ(i32.quantize(-1.0f, 1.0f, 0), 0xFFFFFFFFu);
  EXPECT_EQ(i32.quantize(kInfF, 1.0f, 0), 0x7FFFFFFFu);
}

TEST(ElementQuantizerTest, MXIntegersAreSymmetricFixedPoint) {
  ElementScheme scheme = intScheme(8, true, ZeroPointKind::None);
  scheme.mxScale = true;
  ElementQuantizer mxint8(scheme);
  EXPECT_EQ(mxint8.getQuantizedRange().min, -127);
  EXPECT_EQ(mxint8.getQuantizedRange().max, 127);
  // Elements are k / 64: scale 1 becomes 2^-6.
  float scale = mxint8.getEffectiveScale(1.0f);
  EXPECT_EQ(scale, 0x1p-6f);
  EXPECT_EQ(mxint8.quantize(0.5f, scale), 32u);
  EXPECT_EQ(mxint8.quantize(-100.0f, scale), uint32_t(-127) & 0xFF);
  // The outer scale multiplies first, then the fraction.
  EXPECT_EQ(mxint8.getEffectiveScale(2.0f, 4.0f), 0x1p-3f);
  // The most negative code still decodes.
  EXPECT_EQ(mxint8.dequantize(0x80, scale), -2.0f);
}

TEST(ElementQuantizerTest, OCPFloatStorage) {
  ElementQuantizer e4m3(floatScheme(FloatFormatKind::F8E4M3FN));
  EXPECT_EQ(e4m3.quantize(1.0f, 1.0f), 0x38u);
  EXPECT_EQ(e4m3.quantize(1000.0f, 1.0f), 0x7Eu); // saturates to 448
  EXPECT_EQ(e4m3.quantize(-kInfF, 1.0f), 0xFEu);
  EXPECT_EQ(e4m3.quantize(kNaNF, 1.0f), 0x7Fu);
  EXPECT_EQ(e4m3.quantize(-0.0f, 1.0f), 0x80u);
  ElementQuantizer e4m3NoSat(floatScheme(FloatFormatKind::F8E4M3FN, false));
  EXPECT_TRUE(
      isNaNCode(FloatFormatKind::F8E4M3FN, e4m3NoSat.quantize(1000.0f, 1.0f)));
  ElementQuantizer e5m2NoSat(floatScheme(FloatFormatKind::F8E5M2, false));
  EXPECT_EQ(e5m2NoSat.quantize(1e6f, 1.0f), 0x7Cu); // +Inf
  ElementQuantizer e2m1(floatScheme(FloatFormatKind::F4E2M1FN, false));
  EXPECT_EQ(e2m1.quantize(100.0f, 1.0f), 0x7u); // fp4 always saturates
  EXPECT_EQ(e2m1.quantize(kNaNF, 1.0f), 0x0u);
  EXPECT_EQ(e2m1.dequantize(0x7, 0.5f), 3.0f);
}

TEST(ElementQuantizerTest, DequantizeRoundsOnceToTheExpressedType) {
  ElementScheme scheme = intScheme(8, true, ZeroPointKind::None);
  scheme.expressed = IEEEFloatKind::BF16;
  ElementQuantizer bf16(scheme);
  // 3 * (1 + 2^-20) is exact in f32 and rounds to 3 in bf16.
  EXPECT_EQ(bf16.dequantize(3, 1.0f + 0x1p-20f), 3.0f);
  scheme.expressed = IEEEFloatKind::F16;
  ElementQuantizer f16(scheme);
  EXPECT_EQ(f16.dequantize(127, 1000.0f), kInfF);
}

TEST(ElementQuantizerTest, IEEECodecs) {
  EXPECT_EQ(encodeIEEEFloat(IEEEFloatKind::F16, 1.0f), 0x3C00u);
  EXPECT_EQ(encodeIEEEFloat(IEEEFloatKind::BF16, 1.0f), 0x3F80u);
  EXPECT_EQ(encodeIEEEFloat(IEEEFloatKind::F32, 1.0f), 0x3F800000u);
  EXPECT_EQ(decodeIEEEFloat(IEEEFloatKind::F16, 0x3555), 0x1.554p-2f);
  EXPECT_EQ(decodeIEEEFloat(IEEEFloatKind::BF16, 0xC000), -2.0f);
  // Ties to even: 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7.
  EXPECT_EQ(roundToIEEEFloat(IEEEFloatKind::BF16, 1.0f + 0x1p-8f), 1.0f);
  EXPECT_EQ(roundToIEEEFloat(IEEEFloatKind::F16, 70000.0f), kInfF);
  EXPECT_TRUE(sameValue(roundToIEEEFloat(IEEEFloatKind::F16, -0.0f), -0.0));
  EXPECT_EQ(roundToF32(1e300), kInfF);
  EXPECT_EQ(roundToF32(0.1), 0.1f);
}

} // namespace
