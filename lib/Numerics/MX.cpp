//===- MX.cpp - OCP Microscaling (MX) block quantization ------------------===//
//
// Shared exponents, the E8M0 codec and the one-block reference quantizer.
// All scaling is by powers of two through std::ldexp, which is exact in
// double for every value these formats and scales can produce (the smallest
// is 2^-16 * 2^-127), so element rounding is the only rounding in a block.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/MX.h"

#include "quant-block/Numerics/IntegerQuant.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace quant_block::numerics {

//===----------------------------------------------------------------------===//
// MXElementType
//===----------------------------------------------------------------------===//

MXElementType MXElementType::getFloat(FloatFormatKind kind) {
  assert(kind != FloatFormatKind::F8E8M0FNU &&
         "E8M0 is a scale format, not an MX element format");
  return MXElementType(false, kind, 0);
}

MXElementType MXElementType::getInteger(unsigned bitWidth) {
  assert(bitWidth >= 2 && bitWidth <= 16 && "MX integer width out of range");
  return MXElementType(true, FloatFormatKind::F8E4M3FN, bitWidth);
}

FloatFormatKind MXElementType::getFloatKind() const {
  assert(!integer && "not a float element type");
  return floatKind;
}

unsigned MXElementType::getBitWidth() const {
  return integer ? intBitWidth : getFloatFormatInfo(floatKind).bitWidth;
}

int MXElementType::getEmax() const {
  return integer ? 0 : getFloatFormatInfo(floatKind).emax;
}

double MXElementType::getMaxNormal() const {
  if (!integer)
    return getFloatFormatInfo(floatKind).maxNormal;
  double maxK = std::ldexp(1.0, static_cast<int>(intBitWidth) - 1) - 1.0;
  return std::ldexp(maxK, 2 - static_cast<int>(intBitWidth));
}

//===----------------------------------------------------------------------===//
// Shared exponent
//===----------------------------------------------------------------------===//

namespace {

int floorLog2(double a) {
  int exp;
  std::frexp(a, &exp);
  return exp - 1;
}

/// Picks 2^lo or 2^(lo+1) for the ideal scale maxAbs / maxNormal, where
/// 2^lo <= maxAbs / maxNormal < 2^(lo+1). Compares maxAbs with exact
/// multiples of maxNormal rather than rounding the quotient, so a tie is a
/// tie only when it is one exactly.
int roundIdealScaleExponent(double maxAbs, double maxNormal, int lo,
                            ScaleRoundingMode mode) {
  if (mode == ScaleRoundingMode::Ceil)
    return maxAbs == std::ldexp(maxNormal, lo) ? lo : lo + 1;
  assert(mode == ScaleRoundingMode::HalfToEven);
  double tie = std::ldexp(1.5 * maxNormal, lo);
  if (maxAbs != tie)
    return maxAbs < tie ? lo : lo + 1;
  return lo % 2 == 0 ? lo : lo + 1;
}

} // namespace

std::optional<int> mxSharedExponent(double maxAbs, MXElementType element,
                                    ScaleRoundingMode mode,
                                    MXScaleFormat scale) {
  assert(scale.exponentBits >= 2 && scale.exponentBits <= 10 &&
         "unsupported scale exponent width");
  assert(!(maxAbs < 0.0) && "maxAbs is a magnitude");
  if (!std::isfinite(maxAbs))
    return std::nullopt;
  int maxExp = scale.getMaxExponent(), minExp = scale.getMinExponent();
  if (maxAbs == 0.0)
    return minExp;

  // OCP: floor(log2(maxAbs)) - emax.
  int e = floorLog2(maxAbs) - element.getEmax();
  // Ceil and HalfToEven work on the ideal scale s = maxAbs / maxNormal. As
  // 2^emax <= maxNormal < 2^(emax+1), floor(log2(s)) is e or e - 1, and the
  // result is one of floor(log2(s)) and floor(log2(s)) + 1. Far outside the
  // scale range the clamp below decides anyway; skipping those keeps every
  // ldexp here exact.
  if (mode != ScaleRoundingMode::Floor && e >= minExp - 2 && e <= maxExp + 2) {
    double maxNormal = element.getMaxNormal();
    int lo = maxAbs >= std::ldexp(maxNormal, e) ? e : e - 1;
    e = roundIdealScaleExponent(maxAbs, maxNormal, lo, mode);
  }

  if (e > maxExp) {
    if (scale.overflow == ScaleOverflow::NaN)
      return std::nullopt;
    return maxExp;
  }
  return std::max(e, minExp);
}

std::optional<int> mxSharedExponent(double maxAbs,
                                    FloatFormatKind elementFormat,
                                    ScaleRoundingMode mode) {
  return mxSharedExponent(maxAbs, MXElementType::getFloat(elementFormat), mode,
                          kE8M0ScaleFormat);
}

std::optional<int> mxSharedExponentInt8(double maxAbs, ScaleRoundingMode mode) {
  return mxSharedExponent(maxAbs, MXElementType::getInt8(), mode,
                          kE8M0ScaleFormat);
}

//===----------------------------------------------------------------------===//
// E8M0
//===----------------------------------------------------------------------===//

uint8_t encodeE8M0(int exponent) {
  assert(exponent >= -127 && exponent <= 127 && "exponent outside E8M0");
  return static_cast<uint8_t>(exponent + 127);
}

uint8_t encodeE8M0(std::optional<int> exponent) {
  return exponent ? encodeE8M0(*exponent) : uint8_t(0xFF);
}

double decodeE8M0(uint8_t code) {
  if (code == 0xFF)
    return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, static_cast<int>(code) - 127);
}

//===----------------------------------------------------------------------===//
// Block quantization
//===----------------------------------------------------------------------===//

namespace {

/// Code of one element already divided by the block scale.
uint32_t quantizeElement(double v, MXElementType element, RoundingMode mode) {
  if (!element.isInteger())
    return encodeFloat(element.getFloatKind(), v, mode, /*saturate=*/true);
  int width = static_cast<int>(element.getBitWidth());
  double maxK = std::ldexp(1.0, width - 1) - 1.0;
  // Symmetric clamp: microxcaling never produces -2^(N-1) (its MXINT8
  // vector -1.9921875 -> -1.984375 pins this).
  double k =
      std::clamp(roundToIntegral(std::ldexp(v, width - 2), mode), -maxK, maxK);
  return encodeIntegerCode(static_cast<int64_t>(k), element.getBitWidth());
}

} // namespace

double mxDequantizeElement(uint32_t code, MXElementType element,
                           std::optional<int> sharedExponent) {
  if (!sharedExponent)
    return std::numeric_limits<double>::quiet_NaN();
  if (!element.isInteger())
    return std::ldexp(decodeFloat(element.getFloatKind(), code),
                      *sharedExponent);
  int width = static_cast<int>(element.getBitWidth());
  int64_t k = decodeIntegerCode(code, element.getBitWidth(), /*isSigned=*/true);
  return std::ldexp(static_cast<double>(k), *sharedExponent - (width - 2));
}

MXBlockResult mxQuantizeBlock(const std::vector<double> &block,
                              MXElementType element, RoundingMode mode,
                              ScaleRoundingMode scaleMode,
                              MXScaleFormat scale) {
  MXBlockResult result;
  double maxAbs = 0.0;
  bool nonFinite = false;
  for (double x : block) {
    if (!std::isfinite(x))
      nonFinite = true;
    else
      maxAbs = std::max(maxAbs, std::fabs(x));
  }
  if (!nonFinite)
    result.sharedExponent = mxSharedExponent(maxAbs, element, scaleMode, scale);

  if (!result.sharedExponent) {
    result.codes.assign(block.size(), 0u);
    result.dequantized.assign(block.size(),
                              std::numeric_limits<double>::quiet_NaN());
    return result;
  }

  int e = *result.sharedExponent;
  result.codes.reserve(block.size());
  result.dequantized.reserve(block.size());
  for (double x : block) {
    uint32_t code = quantizeElement(std::ldexp(x, -e), element, mode);
    result.codes.push_back(code);
    result.dequantized.push_back(mxDequantizeElement(code, element, e));
  }
  return result;
}

MXBlockResult mxQuantizeBlock(const std::vector<double> &block,
                              FloatFormatKind elementFormat, RoundingMode mode,
                              ScaleRoundingMode scaleMode) {
  return mxQuantizeBlock(block, MXElementType::getFloat(elementFormat), mode,
                         scaleMode, kE8M0ScaleFormat);
}

MXBlockResult mxQuantizeBlockInt8(const std::vector<double> &block,
                                  RoundingMode mode,
                                  ScaleRoundingMode scaleMode) {
  return mxQuantizeBlock(block, MXElementType::getInt8(), mode, scaleMode,
                         kE8M0ScaleFormat);
}

} // namespace quant_block::numerics
