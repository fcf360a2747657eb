//===- ScalarCodegen.h - the numerics contract as IR ------------*- C++ -*-===//
//
// Emits the scalar arithmetic of docs/Numerics.md inside linalg.generic
// bodies, shared by the lowering of every op so that quantize, dequantize and
// the fused kernels agree bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_SCALARCODEGEN_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_SCALARCODEGEN_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"

#include "mlir/IR/Builders.h"

namespace mlir::quant_block::detail {

/// The i8 storage code of lane `lane` (an index) of a packed byte or of a
/// packing group assembled into one integer `word` (assembleGroupWord): bits
/// [lane * width, (lane + 1) * width), sign-extended within the i8 when
/// `isSigned`.
Value extractPackedLane(OpBuilder &b, Location loc, Value word, Value lane,
                        unsigned width, bool isSigned);

/// The code in the low `width` bits of the integer `shifted` as an i8:
/// masked, or sign-extended from `width` bits when `isSigned`.
Value narrowToCode(OpBuilder &b, Location loc, Value shifted, unsigned width,
                   bool isSigned);

/// `code` (an integer of the storage width or the packed i8 lane) shifted
/// into lane `lane` of a byte: (code & mask) << (lane * width), as i8.
Value placeInLane(OpBuilder &b, Location loc, Value code, Value lane,
                  unsigned width);

/// The integer type that holds a packing group of `groupBytes` bytes: i8 for
/// one byte, else i32 or i64.
IntegerType getGroupWordType(MLIRContext *ctx, int64_t groupBytes);

/// The bytes of one packing group (i8 each, byte 0 first) as one
/// little-endian integer of getGroupWordType, in which lane j is bits
/// [j * width, (j + 1) * width) whether or not it straddles two bytes.
Value assembleGroupWord(OpBuilder &b, Location loc, ValueRange bytes);

/// The bits that lane `lane`'s `code` contributes to byte `byteIndex` (both
/// indices) of a packing group of `groupBytes` bytes, as an i8:
/// ((code & mask) << (lane * width)) >> (8 * byteIndex), zero when the lane
/// does not touch the byte. OR-ing over the lanes gives the byte.
Value placeInGroupByte(OpBuilder &b, Location loc, Value code, Value lane,
                       Value byteIndex, unsigned width, int64_t groupBytes);

/// Extends a signless integer to `type`, signed or unsigned.
Value extendInteger(OpBuilder &b, Location loc, Value value, Type type,
                    bool isSigned);

/// Converts f16 / bf16 / f32 / f64 to `type` exactly (extension) or with one
/// rounding to nearest even (truncation).
Value convertFloat(OpBuilder &b, Location loc, Value value, Type type);

/// Rounds a float to an integral float value with `mode`.
Value roundToIntegral(OpBuilder &b, Location loc, Value value,
                      RoundingMode mode);

/// The integer type quantize and dequantize compute in for `scheme`: i32, or
/// i64 for 32-bit storage (so that q - zp cannot overflow).
IntegerType getIntegerComputeType(MLIRContext *ctx, SchemeAttr scheme);
/// The float type quantize divides in: f32, or f64 for 32-bit storage (so
/// that quotients beyond 2^24 keep their integer part).
FloatType getQuantizeComputeType(MLIRContext *ctx, SchemeAttr scheme);

/// True if the zero points of `scheme` are unsigned integers.
bool hasUnsignedZeroPoints(SchemeAttr scheme);

/// Decodes an OCP narrow-float code (an integer holding the code in its low
/// bits) of `storageType` (f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, f4E2M1FN)
/// into f32 exactly, by bit manipulation: sign, exponent and mantissa fields,
/// the (sub)normal significand times a power of two built from bits. `code`
/// may be a vector: the result is then the vector of f32 values.
Value emitDecodeOCPFloat(OpBuilder &b, Location loc, Value code,
                         Type storageType);

/// Twice the value of an FP4 E2M1 code (an integer holding the code in its
/// low 4 bits, or a vector of them) as i32: -12..12, exact. This is what an
/// `accumulate(i32)` product multiplies by the activation codes for E2M1
/// weights (docs/Numerics.md); `code` may be a vector.
Value emitE2M1TwiceValue(OpBuilder &b, Location loc, Value code);

/// An exact i32 block sum of an `accumulate(i32)` product (or a vector of
/// them) as f32: converted, then halved (exactly) when the weight codes
/// entered it as twice their E2M1 values (emitE2M1TwiceValue), so that every
/// lowering scales the same value (docs/Numerics.md).
Value emitBlockSumToF32(OpBuilder &b, Location loc, Value sum,
                        bool twiceWeightValues);

/// Encodes an f32 value into the code of `storageType` (returned as i32):
/// q = round(|y| * 2^(M - e)) with e = max(floor(log2|y|), emin), code =
/// ((e - emin) << M) + q, which carries into the exponent by itself; then
/// saturation (or Inf / NaN without it), NaN and the sign.
Value emitEncodeOCPFloat(OpBuilder &b, Location loc, Value value,
                         Type storageType, RoundingMode mode, bool saturate);

/// Narrows an integer code to the lowered storage element type (an integer,
/// or an f8 type whose bits the code is).
Value codeToStorage(OpBuilder &b, Location loc, Value code, Type storageType);

/// Converts a stored scale (f32, f16, bf16, f8E8M0FNU, f8E4M3FN) to f32; a
/// vector of scales to a vector of f32.
Value emitScaleToF32(OpBuilder &b, Location loc, Value scale);

/// Reinterprets a tensor with another element signedness (or returns it
/// unchanged when the types already match).
Value castTensorElements(OpBuilder &b, Location loc, Value value, Type type);

/// The expressed value of one element: `code` is the storage code as an
/// integer (sign-extended or not as the storage is), `scale` and `zeroPoint`
/// (null without one) the block's parameters as stored, `outerScale` the f32
/// per-tensor outer scale (null without one).
Value emitDequantize(OpBuilder &b, Location loc, SchemeAttr scheme, Value code,
                     Value scale, Value zeroPoint, Value outerScale = {});

/// emitDequantize for storage without zero points, from the code's value
/// already in f32 (an integer code, exact for any code of at most 24 bits,
/// or a decoded float code): a GPU kernel builds it from the code's bits,
/// without an integer-to-float conversion or the general float decoding.
Value emitDequantizeCodeValue(OpBuilder &b, Location loc, SchemeAttr scheme,
                              Value codeValue, Value scale,
                              Value outerScale = {});

/// The storage code of one element as an integer (i32 for float storage,
/// getIntegerComputeType(scheme) otherwise): clamp(round(x / s) + zp) with
/// NaN -> zero point, or the OCP float encoding of x / s.
Value emitQuantize(OpBuilder &b, Location loc, SchemeAttr scheme, Value x,
                   Value scale, Value zeroPoint, Value outerScale = {});

/// The lowered outer-scale part among `parts` (data, scales, [zero points],
/// outer scales, ...), or null when the scheme has none.
Value getOuterScalesPart(SchemeAttr scheme, ValueRange parts);

/// A per-tensor outer scale tensor (all dimensions 1) as an f32 scalar, read
/// once outside the kernels; null for a null tensor.
Value extractOuterScale(OpBuilder &b, Location loc, Value outerScales);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_SCALARCODEGEN_H
