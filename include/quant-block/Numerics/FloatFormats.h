//===- FloatFormats.h - OCP narrow float formats ----------------*- C++ -*-===//
//
// Facts about, and exact codecs for, the narrow float formats quant-block
// stores data and scales in: the OCP 8-bit floats (E4M3FN, E5M2), the MX
// 6-bit and 4-bit element floats (E2M3FN, E3M2FN, E2M1FN) and the E8M0 scale
// (F8E8M0FNU). Every value of these formats is exactly a double, so decoding
// is exact and encoding rounds once, with an explicit rounding mode and an
// explicit saturation rule; no software-float library is involved.
//
// Codes are the raw bit patterns in the low `bitWidth` bits of a uint32_t
// (sign in the top bit for signed formats), as stored before any packing.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_FLOATFORMATS_H
#define QUANT_BLOCK_NUMERICS_FLOATFORMATS_H

#include "quant-block/Numerics/Rounding.h"

#include <cstdint>
#include <optional>

namespace quant_block::numerics {

enum class FloatFormatKind : uint32_t {
  F8E4M3FN,
  F8E5M2,
  F6E2M3FN,
  F6E3M2FN,
  F4E2M1FN,
  F8E8M0FNU,
};

/// Every kind, in enum order (handy for exhaustive loops).
inline constexpr FloatFormatKind kAllFloatFormatKinds[] = {
    FloatFormatKind::F8E4M3FN, FloatFormatKind::F8E5M2,
    FloatFormatKind::F6E2M3FN, FloatFormatKind::F6E3M2FN,
    FloatFormatKind::F4E2M1FN, FloatFormatKind::F8E8M0FNU};

struct FloatFormatInfo {
  /// MLIR type spelling: "f8E4M3FN", "f8E5M2", "f6E2M3FN", "f6E3M2FN",
  /// "f4E2M1FN", "f8E8M0FNU" (for messages; IR code maps types to kinds with
  /// mlir::quant_block::getFloatFormatKind, never by name).
  const char *name;
  unsigned bitWidth, exponentBits, mantissaBits;
  int bias;
  bool hasSign, hasInf, hasNaN;
  /// Unbiased exponent of the largest normal (the OCP "emax").
  int emax;
  /// minSubnormal is 0 when the format has no subnormals (E8M0).
  double maxNormal, minNormal, minSubnormal;
  /// Unbiased exponent of the smallest normal (1 - bias; -127 for E8M0).
  int emin;
  /// Largest subnormal; 0 when the format has none.
  double maxSubnormal;
};

const FloatFormatInfo &getFloatFormatInfo(FloatFormatKind kind);

/// The canonical NaN code: all magnitude bits set with the given sign
/// (0x7F/0xFF for E4M3FN and E5M2, 0xFF for E8M0, which has no sign bit).
/// std::nullopt for formats without NaN (the fp6 and fp4 formats).
std::optional<uint32_t> getNaNCode(FloatFormatKind kind, bool negative = false);

/// True when `code` encodes a NaN in `kind`.
bool isNaNCode(FloatFormatKind kind, uint32_t code);

/// Decodes `code` (must fit in bitWidth bits) exactly. NaN codes give a quiet
/// NaN carrying the code's sign; the sign bit of zero is kept (-0.0).
double decodeFloat(FloatFormatKind kind, uint32_t code);

/// Encodes `value`, rounding once with `mode` onto the format's grid
/// (subnormals included, exactly). Sign of zero is kept (-0.0 and negative
/// values that round to zero get the sign bit).
///
/// Out of range (after rounding) and +-Inf:
///  * saturate = true: clamp to +-maxNormal (ONNX saturate=1, MX elements).
///  * saturate = false (ONNX saturate=0): +-Inf where the format has Inf
///    (E5M2), otherwise NaN (E4M3FN, E8M0).
///  * formats with neither Inf nor NaN (fp6, fp4) always saturate.
/// Values below +-maxNormal never overflow, whatever the rounding mode.
///
/// NaN input: the canonical NaN code (getNaNCode, sign kept) where the format
/// has NaN; for the fp6/fp4 formats, which cannot represent it, code 0 (+0.0).
/// MX blocks never reach that case: a NaN in a block makes the scale NaN.
///
/// E8M0 (unsigned, no zero, no Inf) is rounded in the linear domain between
/// neighbouring powers of two: HalfToEven picks the even exponent on a tie
/// (mantissa exactly 1.5), HalfAwayFromZero the larger one, TowardZero the
/// smaller one. Values below 2^-127, +0.0 and -0.0 all give code 0x00 (the
/// format has no zero; the smallest scale is the closest). Negative values
/// give the NaN code 0xFF (the format has no sign). Above 2^127: 0xFE when
/// saturating, else 0xFF.
uint32_t encodeFloat(FloatFormatKind kind, double value, RoundingMode mode,
                     bool saturate);

//===----------------------------------------------------------------------===//
// IEEE types values are expressed in
//===----------------------------------------------------------------------===//

/// The IEEE types quant-block data is expressed in, and scales, outer scales
/// and float zero points are stored in. Every backend computes in f32 and
/// converts to and from these with round to nearest even.
enum class IEEEFloatKind : uint32_t { F32, F16, BF16 };

/// The bits (low 32 or 16) of `value` rounded to nearest even into `kind`;
/// values beyond the range become +-Inf, NaN stays NaN.
uint32_t encodeIEEEFloat(IEEEFloatKind kind, float value);

/// The f32 value of the bits of a `kind` value (exact).
float decodeIEEEFloat(IEEEFloatKind kind, uint32_t bits);

/// `value` rounded to nearest even into `kind` and extended back to f32.
float roundToIEEEFloat(IEEEFloatKind kind, float value);

/// `value` rounded to nearest even to f32 (beyond the f32 range: +-Inf), as
/// an f32 constant of the compiled code is.
float roundToF32(double value);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_FLOATFORMATS_H
