//===- MX.h - OCP Microscaling (MX) block quantization ----------*- C++ -*-===//
//
// The math of OCP MX v1.0 blocks: the shared exponent of a block (with the
// three scale rounding rules the scheme can name), the E8M0 scale codec, and
// a reference fake-quantizer for one block that verifiers, constant folding
// and tests share. Element formats are the OCP narrow floats (FloatFormats.h)
// and MX integers: an N-bit two's complement integer k with the implicit
// scale 2^-(N-2), so MXINT8 elements are k / 64 (emax 0, max 127/64).
//
// Rules, learned from microsoft/microxcaling (the reference the conformance
// vectors in test/Conformance/vectors/mx_formats.json come from):
//  * shared exponent = floor(log2(max|x|)) - emax(element) (Floor), clamped
//    below at -127 (a block of zeros uses -127);
//  * a NaN or +-Inf anywhere in a block makes its scale NaN, so every element
//    of the block dequantizes to NaN;
//  * elements are x / 2^e rounded with the element rounding mode and
//    saturated to +-maxNormal (never Inf); integers are clamped
//    symmetrically to +-(2^(N-1) - 1), so the two's complement code
//    1000...0 (-2^(N-1)) is never produced.
// The one place this file departs from microxcaling is an exponent above the
// scale's range: OCP E8M0 here clamps it to 127 (DESIGN.md "clamped to the
// E8M0 range"); microxcaling makes the block NaN. MXScaleFormat selects
// either, and also the non-OCP scale widths microxcaling tests (5 bits).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_MX_H
#define QUANT_BLOCK_NUMERICS_MX_H

#include "quant-block/Numerics/FloatFormats.h"
#include "quant-block/Numerics/Rounding.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace quant_block::numerics {

/// The element type of an MX block: an OCP float format (not E8M0), or an
/// N-bit two's complement integer (2 <= N <= 16) with implicit scale
/// 2^-(N-2).
class MXElementType {
public:
  static MXElementType getFloat(FloatFormatKind kind);
  static MXElementType getInteger(unsigned bitWidth);
  /// MXINT8: 8-bit integer, elements k / 64.
  static MXElementType getInt8() { return getInteger(8); }

  bool isInteger() const { return integer; }
  /// Only for float element types.
  FloatFormatKind getFloatKind() const;
  unsigned getBitWidth() const;
  /// Exponent of the largest element magnitude (OCP emax): the float
  /// format's emax, 0 for integers.
  int getEmax() const;
  /// Largest finite element magnitude: the float's maxNormal, or
  /// (2^(N-1) - 1) / 2^(N-2) for integers (1.984375 for MXINT8).
  double getMaxNormal() const;

private:
  MXElementType(bool integer, FloatFormatKind kind, unsigned bitWidth)
      : integer(integer), floatKind(kind), intBitWidth(bitWidth) {}
  bool integer;
  FloatFormatKind floatKind;
  unsigned intBitWidth;
};

/// What happens to a shared exponent above the scale's largest exponent.
enum class ScaleOverflow : uint32_t {
  /// Clamp to the largest exponent (this project's E8M0 rule).
  Clamp = 0,
  /// The scale becomes NaN, and so does the whole block (microxcaling).
  NaN = 1,
};

/// The shared-scale format: a power of two 2^e with e in [-L, L],
/// L = 2^(exponentBits - 1) - 1, and one NaN code. exponentBits = 8 is OCP
/// E8M0 (L = 127). Exponents below -L are always clamped to -L.
struct MXScaleFormat {
  unsigned exponentBits = 8;
  ScaleOverflow overflow = ScaleOverflow::Clamp;

  int getMaxExponent() const { return (1 << (exponentBits - 1)) - 1; }
  int getMinExponent() const { return -getMaxExponent(); }
};

/// OCP E8M0 as used by every named MX scheme.
inline constexpr MXScaleFormat kE8M0ScaleFormat{8, ScaleOverflow::Clamp};

/// Shared exponent for a block whose largest magnitude is maxAbs, for an
/// element format with the given emax. Floor (OCP default):
/// floor(log2(maxAbs)) - emax. Ceil: smallest e with
/// maxAbs / 2^e <= maxNormal(elem) (never saturates). HalfToEven: the ideal
/// scale maxAbs / maxNormal(elem) rounded to a power of two in the linear
/// domain (mantissa exactly 1.5 is a tie -> even exponent); decided with
/// exact comparisons, never with a rounded quotient. Result clamped to
/// [-127, 127]; maxAbs == 0 -> -127. Returns std::nullopt when maxAbs is NaN
/// or Inf (the scale is then the E8M0 NaN). `elementFormat` must not be
/// F8E8M0FNU.
std::optional<int> mxSharedExponent(double maxAbs,
                                    FloatFormatKind elementFormat,
                                    ScaleRoundingMode mode);

/// MXINT8 (elements k / 64, emax 0, maxNormal 127/64): same rules.
std::optional<int> mxSharedExponentInt8(double maxAbs, ScaleRoundingMode mode);

/// General form: any MX element type and scale format. With
/// ScaleOverflow::NaN an exponent above the scale range also gives
/// std::nullopt. The two functions above are this one with kE8M0ScaleFormat.
std::optional<int> mxSharedExponent(double maxAbs, MXElementType element,
                                    ScaleRoundingMode mode,
                                    MXScaleFormat scale = kE8M0ScaleFormat);

/// E8M0 code of a shared exponent in [-127, 127]: exponent + 127.
uint8_t encodeE8M0(int exponent);
/// E8M0 code of an optional shared exponent: std::nullopt -> 0xFF (NaN).
uint8_t encodeE8M0(std::optional<int> exponent);
/// 0xFF -> NaN, else 2^(code - 127) exactly.
double decodeE8M0(uint8_t code);

/// One quantized block. When sharedExponent is std::nullopt (NaN scale) all
/// codes are 0 and all dequantized values are NaN: the NaN scale alone
/// carries the information, as OCP says elements under a NaN scale are NaN.
struct MXBlockResult {
  std::optional<int> sharedExponent;
  /// Element codes in the low bits: the float format's code, or the
  /// integer's two's complement bits (k & (2^N - 1)).
  std::vector<uint32_t> codes;
  /// code value * 2^sharedExponent, exact (the fake-quantized input).
  std::vector<double> dequantized;
};

/// Fake-quantize (quantize then dequantize) one MX block with the
/// microxcaling/OCP rules. Element rounding per `mode` (HalfAwayFromZero
/// reproduces microxcaling "nearest"). `elementFormat` must not be
/// F8E8M0FNU.
MXBlockResult mxQuantizeBlock(const std::vector<double> &block,
                              FloatFormatKind elementFormat, RoundingMode mode,
                              ScaleRoundingMode scaleMode);
/// The same for MXINT8 elements.
MXBlockResult mxQuantizeBlockInt8(const std::vector<double> &block,
                                  RoundingMode mode,
                                  ScaleRoundingMode scaleMode);
/// General form: any MX element type and scale format.
MXBlockResult mxQuantizeBlock(const std::vector<double> &block,
                              MXElementType element, RoundingMode mode,
                              ScaleRoundingMode scaleMode,
                              MXScaleFormat scale = kE8M0ScaleFormat);

/// Value of one element code under a shared exponent (std::nullopt = NaN
/// scale -> NaN). Integer codes are sign-extended from the element width.
double mxDequantizeElement(uint32_t code, MXElementType element,
                           std::optional<int> sharedExponent);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_MX_H
