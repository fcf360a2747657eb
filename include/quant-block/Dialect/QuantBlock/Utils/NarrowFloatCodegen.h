//===- NarrowFloatCodegen.h - decoding of narrow floats as IR ---*- C++ -*-===//
//
// The exact decoding of FP8 / FP6 / FP4 / E8M0 codes that the quant_block
// lowering emits, for code generation passes outside this conversion (the
// narrow-float expansion of Codegen/Common), so that a value decodes to the
// same bits whichever way it reaches f32.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_NARROWFLOATCODEGEN_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_NARROWFLOATCODEGEN_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::quant_block {

/// Whether `type` (or its element type) is one of the float types no backend
/// here computes with: f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, f4E2M1FN and
/// f8E8M0FNU.
bool isNarrowFloatType(Type type);

/// The f32 value of `value`, a scalar or vector of a narrow float type,
/// decoded with integer arithmetic (every value of these types is exact in
/// f32); a vector gives the vector of f32 values.
Value emitNarrowFloatToF32(OpBuilder &b, Location loc, Value value);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_NARROWFLOATCODEGEN_H
