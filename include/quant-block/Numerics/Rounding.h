//===- Rounding.h - Rounding modes of the quantization schemes --*- C++ -*-===//
//
// The rounding rules every quant-block scheme names: how a real quotient
// becomes an integer (element rounding) and how an ideal MX scale becomes a
// power of two (scale rounding). The enum values are part of the dialect's
// attribute encoding, so they are fixed numbers, never reordered. The
// functions here are plain C++ on doubles so that verifiers, constant folders
// and runtime references all round the same way, bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_ROUNDING_H
#define QUANT_BLOCK_NUMERICS_ROUNDING_H

#include <cstdint>

namespace quant_block::numerics {

/// How a value is rounded to the nearest representable one (an integer, or a
/// point of a narrow float grid).
enum class RoundingMode : uint32_t {
  /// IEEE 754 roundTiesToEven: the default of ONNX, WebNN and the DESIGN.md
  /// contract.
  HalfToEven = 0,
  /// Ties go away from zero: what microxcaling calls "nearest" (its default
  /// MX rounding), needed to reproduce its test vectors.
  HalfAwayFromZero = 1,
  /// Truncation: microxcaling's "floor" (sign(v) * floor(|v|)).
  TowardZero = 2,
};

/// How the ideal MX scale is turned into a power of two (an E8M0 value).
enum class ScaleRoundingMode : uint32_t {
  /// OCP MX v1.0: floor(log2(max|x|)) - emax(element). May saturate elements.
  Floor = 0,
  /// Smallest power of two that keeps every element in range: never
  /// saturates, may lose one bit of precision.
  Ceil = 1,
  /// Round the ideal scale max|x| / maxNormal(element) to the nearest power
  /// of two in the linear domain; a tie (mantissa exactly 1.5) goes to the
  /// even exponent.
  HalfToEven = 2,
};

/// Rounds `x` to an integral value with `mode`. NaN and +-Inf pass through
/// unchanged, the sign of zero is kept (-0.3 -> -0.0) and the result is exact
/// for every finite double: no `floor(x + 0.5)` style double rounding.
double roundToIntegral(double x, RoundingMode mode);

/// Returns "half_to_even", "half_away_from_zero" or "toward_zero".
const char *getRoundingModeName(RoundingMode mode);

/// Returns "floor", "ceil" or "half_to_even".
const char *getScaleRoundingModeName(ScaleRoundingMode mode);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_ROUNDING_H
