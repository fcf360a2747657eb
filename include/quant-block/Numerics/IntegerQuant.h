//===- IntegerQuant.h - Integer quantization contract -----------*- C++ -*-===//
//
// The integer half of the DESIGN.md numerics contract: storage ranges of
// 2..32-bit integers, quantize q = clamp(round(x / s) + zp, qmin, qmax) with
// a true division, and the two dequantize forms (integer zero point
// (q - zp) * s, float zero point q * s + m). Arithmetic is done in double,
// which holds every f32/f16/bf16 input and every 32-bit integer exactly, so
// the only roundings are the ones the formulas name.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_INTEGERQUANT_H
#define QUANT_BLOCK_NUMERICS_INTEGERQUANT_H

#include "quant-block/Numerics/Rounding.h"

#include <cstdint>

namespace quant_block::numerics {

/// Inclusive range of stored integers. Narrow ranges such as [-7, 7] are
/// plain IntegerRange values too.
struct IntegerRange {
  int64_t min, max;
};

/// Full range of a `bitWidth`-bit (2..32) integer: [-2^(b-1), 2^(b-1) - 1]
/// signed, [0, 2^b - 1] unsigned.
IntegerRange getIntegerStorageRange(unsigned bitWidth, bool isSigned);

/// q = clamp(round(x / scale) + zeroPoint, range.min, range.max): the
/// division is a true division in double (never a reciprocal multiply) and
/// the rounding happens before the zero point is added (WebNN/ONNX order).
/// Non-finite quotients: NaN (NaN x, or 0/0) quantizes as if x / scale were
/// 0, i.e. to clamp(zeroPoint); +-Inf (Inf x, or a finite x / 0) clamp to
/// range.max / range.min by the quotient's sign, so +Inf x with a positive
/// scale gives range.max.
int64_t quantizeInteger(double x, double scale, int64_t zeroPoint,
                        IntegerRange range, RoundingMode mode);

/// (q - zeroPoint) * scale: the difference is exact, one rounding (the
/// multiply) to double.
double dequantizeIntegerWithIntZeroPoint(int64_t q, double scale,
                                         int64_t zeroPoint);

/// q * scale + min as one fused multiply-add (std::fma): a single rounding,
/// the form ggml Q4_1 and float-zero-point int4 kernels use.
double dequantizeIntegerWithFloatZeroPoint(int64_t q, double scale, double min);

/// Two's complement (or plain unsigned) bits of `value` in the low
/// `bitWidth` (1..32) bits, as stored before packing. `value` must be in the
/// signed or unsigned range of that width.
uint32_t encodeIntegerCode(int64_t value, unsigned bitWidth);

/// Inverse of encodeIntegerCode: sign-extends from `bitWidth` bits when
/// `isSigned`.
int64_t decodeIntegerCode(uint32_t code, unsigned bitWidth, bool isSigned);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_INTEGERQUANT_H
