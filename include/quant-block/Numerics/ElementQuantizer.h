//===- ElementQuantizer.h - One element of a scheme, both ways --*- C++ -*-===//
//
// Quantizes and dequantizes single elements of a scheme given their block's
// parameters, exactly as docs/Numerics.md states it and as the compiled code
// computes it: f32 values and scales (f64 quotients for 32-bit integer
// storage), the outer scale and the MX integer fraction folded into the
// scale by f32 multiplies, then the integer or narrow-float codecs of this
// library. The constant folder and the canonicalizer's round-trip proof use
// it, so they cannot drift from the contract or from each other.
//
// The scheme is described at the numerics level (ElementScheme), without
// any IR; the dialect builds one from a SchemeAttr.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_ELEMENTQUANTIZER_H
#define QUANT_BLOCK_NUMERICS_ELEMENTQUANTIZER_H

#include "quant-block/Numerics/FloatFormats.h"
#include "quant-block/Numerics/IntegerQuant.h"
#include "quant-block/Numerics/Rounding.h"

#include <cstdint>
#include <optional>

namespace quant_block::numerics {

/// Where a scheme's zero point lives.
enum class ZeroPointKind : uint32_t {
  /// No zero point: x = q * s.
  None,
  /// An integer zero point: x = (q - zp) * s.
  Int,
  /// A float zero point (a minimum): x = fma(q, s, m).
  Float,
};

/// What quantizing or dequantizing one element needs to know of a scheme.
struct ElementScheme {
  /// The OCP float storage format; std::nullopt for integer storage.
  std::optional<FloatFormatKind> floatStorage;
  /// Storage width in bits (integer storage: 2..32).
  unsigned storageBitWidth = 8;
  /// Integer storage: two's complement (true) or unsigned codes.
  bool storageSigned = true;
  /// Integer storage: the stored range [qmin, qmax] (possibly narrowed).
  IntegerRange range = {-128, 127};
  ZeroPointKind zeroPoint = ZeroPointKind::None;
  /// Element rounding.
  RoundingMode rounding = RoundingMode::HalfToEven;
  /// Float storage: saturate finite overflow and +-Inf (ONNX saturate=1).
  bool saturate = true;
  /// E8M0 (MX) scales: integer elements are fixed point k / 2^(N-2) and
  /// clamp symmetrically to [-qmax, qmax].
  bool mxScale = false;
  /// The type dequantized values are rounded to.
  IEEEFloatKind expressed = IEEEFloatKind::F32;
};

class ElementQuantizer {
public:
  explicit ElementQuantizer(const ElementScheme &scheme);

  const ElementScheme &getScheme() const { return scheme; }
  bool isFloatStorage() const { return scheme.floatStorage.has_value(); }
  /// The range integer quantization produces (MX integers: symmetric).
  IntegerRange getQuantizedRange() const { return range; }

  /// The f32 scale an element is divided by (or multiplied with): the
  /// stored scale as f32, times the outer scale, times 2^-(N-2) for MX
  /// integers, each an f32 multiply.
  float getEffectiveScale(float scale,
                          std::optional<float> outer = std::nullopt) const;

  /// The storage code of `x` (low storageBitWidth bits) under the effective
  /// `scale`; `zeroPoint` is the integer zero point (ZeroPointKind::Int),
  /// `min` the float one (ZeroPointKind::Float); the other is ignored.
  uint32_t quantize(float x, float scale, int64_t zeroPoint = 0,
                    float min = 0.0f) const;

  /// The value of storage code `code` under the effective `scale`, rounded
  /// once to the expressed type (returned as its exact f32 value).
  float dequantize(uint32_t code, float scale, int64_t zeroPoint = 0,
                   float min = 0.0f) const;

private:
  ElementScheme scheme;
  IntegerRange range;
  float mxFraction = 1.0f;
};

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_ELEMENTQUANTIZER_H
