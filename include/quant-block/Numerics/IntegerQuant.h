//===- IntegerQuant.h - Integer quantization contract -----------*- C++ -*-===//
//
// The integer half of the docs/Numerics.md contract: storage ranges of
// 2..32-bit integers, quantize q = clamp(round(x / s) + zp, qmin, qmax) with
// a true division, and the two dequantize forms (integer zero point
// (q - zp) * s, float zero point fma(q, s, m)), computed in the float types
// docs/Numerics.md prescribes (f32, f64 for 32-bit storage), so that the
// constant folder and the compiled code agree bit for bit.
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

/// The float type x / s is computed in (docs/Numerics.md "Integer
/// storage"): f32, or f64 for 32-bit storage so that quotients beyond 2^24
/// keep their integer part.
inline bool isWideIntegerStorage(unsigned bitWidth) { return bitWidth >= 32; }

/// q = clamp(round(x / scale) + zeroPoint, range.min, range.max) exactly as
/// the contract states it: a true division (never a reciprocal multiply) in
/// f32 (f16 and bf16 inputs are extended first), or in f64 when
/// isWideIntegerStorage(storageBitWidth); rounding before the zero point is
/// added (WebNN/ONNX order); the clamp in the same float type, then the
/// conversion to an integer. Non-finite quotients: NaN (NaN x, or 0/0) gives
/// clamp(zeroPoint); +-Inf (Inf x, or a finite x / 0) gives range.max /
/// range.min by the quotient's sign.
int64_t quantizeInteger(float x, float scale, int64_t zeroPoint,
                        IntegerRange range, RoundingMode mode,
                        unsigned storageBitWidth);

/// The float-zero-point form: q = clamp(round((x - min) / scale), range.min,
/// range.max), in the same float type and with the same NaN / Inf rules (a
/// NaN quotient gives clamp(0)).
int64_t quantizeIntegerWithFloatZeroPoint(float x, float scale, float min,
                                          IntegerRange range, RoundingMode mode,
                                          unsigned storageBitWidth);

/// f32((q - zeroPoint)) * scale in f32: the difference is exact (i64), one
/// rounding for the conversion, one for the multiply; the caller rounds the
/// result once more to the expressed type.
float dequantizeIntegerWithIntZeroPoint(int64_t q, float scale,
                                        int64_t zeroPoint);

/// fma(q, scale, min) in f32: a single rounding, the form ggml Q4_1 and
/// float-zero-point int4 kernels use.
float dequantizeIntegerWithFloatZeroPoint(int64_t q, float scale, float min);

/// Two's complement (or plain unsigned) bits of `value` in the low
/// `bitWidth` (1..32) bits, as stored before packing. `value` must be in the
/// signed or unsigned range of that width.
uint32_t encodeIntegerCode(int64_t value, unsigned bitWidth);

/// Inverse of encodeIntegerCode: sign-extends from `bitWidth` bits when
/// `isSigned`.
int64_t decodeIntegerCode(uint32_t code, unsigned bitWidth, bool isSigned);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_INTEGERQUANT_H
