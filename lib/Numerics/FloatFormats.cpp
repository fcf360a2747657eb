//===- FloatFormats.cpp - OCP narrow float formats ------------------------===//
//
// The format table and the exact codecs. Encoding works on the magnitude in
// double arithmetic: pick the binade (clipped below at emin so subnormals
// share the smallest normal's quantum), scale by a power of two (exact), round
// to an integer with the requested mode, scale back (exact) and only then
// decide about overflow. Because scaling by powers of two is exact and the
// rounding happens once, the result is the correctly rounded value of the
// format for every finite double.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/FloatFormats.h"

#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace quant_block::numerics {

namespace {

// Positional initialisation follows the field order of FloatFormatInfo:
// name, bitWidth, exponentBits, mantissaBits, bias, hasSign, hasInf, hasNaN,
// emax, maxNormal, minNormal, minSubnormal, emin, maxSubnormal.
constexpr FloatFormatInfo kFormatInfos[] = {
    // E4M3FN: exponent field 15 is still normal; only S.1111.111 is NaN.
    {"f8E4M3FN", 8, 4, 3, 7, true, false, true, 8, 448.0, 0x1p-6, 0x1p-9, -6,
     0x1.cp-7},
    // E5M2: IEEE-like, exponent field 31 holds Inf and NaN.
    {"f8E5M2", 8, 5, 2, 15, true, true, true, 15, 57344.0, 0x1p-14, 0x1p-16,
     -14, 0x1.8p-15},
    {"f6E2M3FN", 6, 2, 3, 1, true, false, false, 2, 7.5, 1.0, 0.125, 0, 0.875},
    {"f6E3M2FN", 6, 3, 2, 3, true, false, false, 4, 28.0, 0.25, 0.0625, -2,
     0.1875},
    {"f4E2M1FN", 4, 2, 1, 1, true, false, false, 2, 6.0, 1.0, 0.5, 0, 0.5},
    // E8M0FNU: exponent only, unsigned, no zero, no subnormals, 0xFF = NaN.
    {"f8E8M0FNU", 8, 8, 0, 127, false, false, true, 127, 0x1p127, 0x1p-127, 0.0,
     -127, 0.0},
};

static_assert(sizeof(kFormatInfos) / sizeof(kFormatInfos[0]) ==
                  sizeof(kAllFloatFormatKinds) /
                      sizeof(kAllFloatFormatKinds[0]),
              "one FloatFormatInfo per FloatFormatKind");

uint32_t signMask(const FloatFormatInfo &info) {
  return info.hasSign ? 1u << (info.bitWidth - 1) : 0u;
}

uint32_t exponentFieldMax(const FloatFormatInfo &info) {
  return (1u << info.exponentBits) - 1;
}

uint32_t mantissaFieldMax(const FloatFormatInfo &info) {
  return (1u << info.mantissaBits) - 1;
}

/// Code of +Inf for formats with Inf (exponent all ones, mantissa zero).
uint32_t infMagnitudeCode(const FloatFormatInfo &info) {
  return exponentFieldMax(info) << info.mantissaBits;
}

/// floor(log2(a)) for a finite a > 0, exact (frexp never rounds).
int floorLog2(double a) {
  int exp;
  std::frexp(a, &exp);
  return exp - 1;
}

/// Rounds the finite magnitude `a` >= 0 onto the grid of a sign/exponent/
/// mantissa format with subnormals, ignoring the upper range (the result may
/// exceed maxNormal or even be +Inf for huge inputs; the caller decides).
double roundMagnitude(double a, const FloatFormatInfo &info,
                      RoundingMode mode) {
  if (a == 0.0)
    return 0.0;
  int e = std::max(floorLog2(a), info.emin);
  int shift = static_cast<int>(info.mantissaBits) - e;
  // a * 2^shift lies in [0, 2^(mantissaBits+1)): exact in double.
  double units = roundToIntegral(std::ldexp(a, shift), mode);
  return std::ldexp(units, -shift);
}

/// Code (without sign) of a magnitude that is exactly on the grid and at most
/// maxNormal.
uint32_t encodeExactMagnitude(double m, const FloatFormatInfo &info) {
  if (m == 0.0)
    return 0;
  int M = static_cast<int>(info.mantissaBits);
  if (m < info.minNormal) {
    double units = std::ldexp(m, M - info.emin);
    assert(units == std::floor(units) && "subnormal not on the grid");
    return static_cast<uint32_t>(units);
  }
  int e = floorLog2(m);
  double units = std::ldexp(m, M - e) - std::ldexp(1.0, M);
  assert(units == std::floor(units) && "normal not on the grid");
  uint32_t expField = static_cast<uint32_t>(e + info.bias);
  return (expField << info.mantissaBits) | static_cast<uint32_t>(units);
}

/// Rounds a finite a > 0 to a power of two, in the linear domain, and returns
/// its exponent (not yet clamped to the E8M0 range).
int roundToPowerOfTwoExponent(double a, RoundingMode mode) {
  int e = floorLog2(a);
  double mantissa = std::ldexp(a, -e); // in [1, 2), exact
  switch (mode) {
  case RoundingMode::TowardZero:
    return e;
  case RoundingMode::HalfAwayFromZero:
    return mantissa >= 1.5 ? e + 1 : e;
  case RoundingMode::HalfToEven:
    if (mantissa != 1.5)
      return mantissa > 1.5 ? e + 1 : e;
    return e % 2 == 0 ? e : e + 1;
  }
  assert(false && "unknown RoundingMode");
  return e;
}

uint32_t encodeE8M0Value(double value, RoundingMode mode, bool saturate) {
  constexpr uint32_t kNaN = 0xFF, kMax = 0xFE, kMin = 0x00;
  if (std::isnan(value))
    return kNaN;
  if (value == 0.0)
    return kMin;
  if (value < 0.0)
    return kNaN;
  if (std::isinf(value))
    return saturate ? kMax : kNaN;
  int e = roundToPowerOfTwoExponent(value, mode);
  if (e > 127)
    return saturate ? kMax : kNaN;
  return static_cast<uint32_t>(std::max(e, -127) + 127);
}

} // namespace

const FloatFormatInfo &getFloatFormatInfo(FloatFormatKind kind) {
  auto index = static_cast<size_t>(kind);
  assert(index < sizeof(kFormatInfos) / sizeof(kFormatInfos[0]) &&
         "unknown FloatFormatKind");
  return kFormatInfos[index];
}

std::optional<uint32_t> getNaNCode(FloatFormatKind kind, bool negative) {
  const FloatFormatInfo &info = getFloatFormatInfo(kind);
  if (!info.hasNaN)
    return std::nullopt;
  uint32_t sign = signMask(info);
  uint32_t magnitude = sign ? sign - 1 : (1u << info.bitWidth) - 1;
  return magnitude | (negative ? sign : 0u);
}

bool isNaNCode(FloatFormatKind kind, uint32_t code) {
  const FloatFormatInfo &info = getFloatFormatInfo(kind);
  if (!info.hasNaN)
    return false;
  uint32_t magnitude = code & ~signMask(info);
  uint32_t expField = magnitude >> info.mantissaBits;
  uint32_t mantissa = magnitude & mantissaFieldMax(info);
  if (expField != exponentFieldMax(info))
    return false;
  if (info.hasInf)
    return mantissa != 0; // IEEE: exponent all ones, mantissa non-zero.
  return mantissa == mantissaFieldMax(info); // FN/FNU: all ones only.
}

double decodeFloat(FloatFormatKind kind, uint32_t code) {
  const FloatFormatInfo &info = getFloatFormatInfo(kind);
  assert(code < (1u << info.bitWidth) && "code wider than the format");
  uint32_t sign = code & signMask(info);
  double signValue = sign ? -1.0 : 1.0;
  if (isNaNCode(kind, code))
    return std::copysign(std::numeric_limits<double>::quiet_NaN(), signValue);
  uint32_t magnitude = code & ~signMask(info);
  uint32_t expField = magnitude >> info.mantissaBits;
  uint32_t mantissa = magnitude & mantissaFieldMax(info);
  int M = static_cast<int>(info.mantissaBits);
  if (info.hasInf && expField == exponentFieldMax(info))
    return std::copysign(std::numeric_limits<double>::infinity(), signValue);
  // E8M0 has no subnormals: exponent field 0 is 2^-127, not zero.
  if (expField == 0 && kind != FloatFormatKind::F8E8M0FNU)
    return std::copysign(std::ldexp(mantissa, info.emin - M), signValue);
  double significand = std::ldexp(1.0, M) + mantissa;
  return std::copysign(
      std::ldexp(significand, static_cast<int>(expField) - info.bias - M),
      signValue);
}

uint32_t encodeFloat(FloatFormatKind kind, double value, RoundingMode mode,
                     bool saturate) {
  if (kind == FloatFormatKind::F8E8M0FNU)
    return encodeE8M0Value(value, mode, saturate);

  const FloatFormatInfo &info = getFloatFormatInfo(kind);
  bool negative = std::signbit(value);
  uint32_t sign = negative ? signMask(info) : 0u;
  // docs/Numerics.md: a NaN input encodes as the positive NaN code whatever
  // its sign (the compiled code does not look at a NaN's sign bit).
  if (std::isnan(value))
    return info.hasNaN ? *getNaNCode(kind, /*negative=*/false) : 0u;

  double magnitude = std::fabs(value);
  double rounded =
      std::isinf(magnitude) ? magnitude : roundMagnitude(magnitude, info, mode);
  if (rounded > info.maxNormal) {
    bool canOverflow = info.hasInf || info.hasNaN;
    if (saturate || !canOverflow)
      rounded = info.maxNormal;
    else if (info.hasInf)
      return sign | infMagnitudeCode(info);
    else
      return *getNaNCode(kind, negative);
  }
  return sign | encodeExactMagnitude(rounded, info);
}

//===----------------------------------------------------------------------===//
// IEEE types
//===----------------------------------------------------------------------===//

static const llvm::fltSemantics &getSemantics(IEEEFloatKind kind) {
  switch (kind) {
  case IEEEFloatKind::F32:
    return llvm::APFloat::IEEEsingle();
  case IEEEFloatKind::F16:
    return llvm::APFloat::IEEEhalf();
  case IEEEFloatKind::BF16:
    return llvm::APFloat::BFloat();
  }
  assert(false && "unknown IEEEFloatKind");
  return llvm::APFloat::IEEEsingle();
}

uint32_t encodeIEEEFloat(IEEEFloatKind kind, float value) {
  if (kind == IEEEFloatKind::F32) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  }
  llvm::APFloat ap(value);
  bool losesInfo;
  ap.convert(getSemantics(kind), llvm::APFloat::rmNearestTiesToEven,
             &losesInfo);
  return static_cast<uint32_t>(ap.bitcastToAPInt().getZExtValue());
}

float decodeIEEEFloat(IEEEFloatKind kind, uint32_t bits) {
  float value;
  switch (kind) {
  case IEEEFloatKind::F32:
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  case IEEEFloatKind::BF16: {
    uint32_t wide = bits << 16;
    std::memcpy(&value, &wide, sizeof(value));
    return value;
  }
  case IEEEFloatKind::F16: {
    llvm::APFloat half(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
    bool losesInfo;
    half.convert(llvm::APFloat::IEEEsingle(),
                 llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return half.convertToFloat();
  }
  }
  assert(false && "unknown IEEEFloatKind");
  return 0.0f;
}

float roundToIEEEFloat(IEEEFloatKind kind, float value) {
  return decodeIEEEFloat(kind, encodeIEEEFloat(kind, value));
}

float roundToF32(double value) {
  llvm::APFloat ap(value);
  bool losesInfo;
  ap.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
             &losesInfo);
  return ap.convertToFloat();
}

} // namespace quant_block::numerics
