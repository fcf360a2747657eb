//===- DynamicQuant.h - Parameters of quantize_dynamic ----------*- C++ -*-===//
//
// The "Dynamic quantization" section of docs/Numerics.md: NaN-propagating
// block statistics (IEEE maximum / minimum, -0 < +0) and the absmax and
// minmax scales and zero points derived from them, in f32 and in the order
// the compiled code computes them, so that the constant folder's parameters
// are bit-identical to the run-time ones. MX shared exponents are in MX.h.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_DYNAMICQUANT_H
#define QUANT_BLOCK_NUMERICS_DYNAMICQUANT_H

#include "quant-block/Numerics/IntegerQuant.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace quant_block::numerics {

/// IEEE 754-2019 maximum (arith.maximumf): NaN propagates, +0 > -0.
float maximumF(float a, float b);
/// IEEE 754-2019 minimum (arith.minimumf): NaN propagates, -0 < +0.
float minimumF(float a, float b);

/// The absmax scale of a block before it is stored: maxAbs / storageMax in
/// f32 (storageMax is the f32 constant of qmax or of the float format's
/// largest normal), then divided by the outer scale when there is one; an
/// all-zero quotient gives 1 (tested before rounding to the scale type).
float getAbsMaxScale(float maxAbs, float storageMax,
                     std::optional<float> outer = std::nullopt);

/// The per-tensor outer scale of an absmax scheme with an outer scale
/// (NVFP4): maxAbs / f32(storageMax * scaleMax), 1 for an all-zero tensor.
float getAbsMaxOuterScale(float maxAbs, double storageMax, double scaleMax);

/// A block's [min, max] widened to include 0.
std::pair<float, float> includeZero(float min, float max);

/// The minmax scale of a block whose widened range is [lo, hi]:
/// (hi - lo) / f32(qmax - qmin), with 0 replaced by 1.
float getMinMaxScale(float lo, float hi, IntegerRange range);

/// The minmax integer zero point: round_half_even(qmin - lo / s) in f32
/// with the scale as stored (`storedScale`, its f32 value), clamped to
/// [qmin, qmax] in f32; std::nullopt when the result is not an i32 (the
/// compiled code converts it to i32), e.g. for a NaN.
std::optional<int32_t> getMinMaxIntZeroPoint(float lo, float storedScale,
                                             IntegerRange range);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_DYNAMICQUANT_H
