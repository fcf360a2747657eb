//===- QuantBlockNumerics.h - IR to numerics-library mappings ---*- C++ -*-===//
//
// The one place where IR types and attributes become the plain C++
// descriptions of the numerics library (lib/Numerics): float formats by type
// (never by spelling), the dialect's enums by checked mappings (never by
// casting their integer values), a scheme as a numerics::ElementScheme, and
// the f32 value of stored bits of any float type a scheme uses. The
// dialect's canonicalizer, the constant folder and the lowering all go
// through these.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKNUMERICS_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKNUMERICS_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"
#include "quant-block/Numerics/ElementQuantizer.h"
#include "quant-block/Numerics/FloatFormats.h"
#include "quant-block/Numerics/Rounding.h"

#include <optional>

namespace mlir::quant_block {

/// The OCP narrow float format (or E8M0) of `type`, if it is one.
std::optional<::quant_block::numerics::FloatFormatKind>
getFloatFormatKind(Type type);

/// The IEEE kind of f32, f16 and bf16; std::nullopt for other types.
std::optional<::quant_block::numerics::IEEEFloatKind>
getIEEEFloatKind(Type type);

::quant_block::numerics::RoundingMode toNumerics(RoundingMode mode);
::quant_block::numerics::ScaleRoundingMode toNumerics(ScaleRoundingMode mode);
::quant_block::numerics::ZeroPointKind toNumerics(ZeroPointDomain domain);

/// The numerics-level description of `scheme`'s elements. Requires float
/// storage to be an OCP format and integer storage to have 2..32 bits (what
/// the scheme verifier allows).
::quant_block::numerics::ElementScheme getElementScheme(SchemeAttr scheme);

/// The exact f32 value of the stored bits of an element of `type`: f32, f16,
/// bf16 or an OCP format (E8M0 included), as the compiled code extends and
/// decodes it.
float decodeToF32(Type type, uint64_t bits);

/// The bits of `value` rounded to nearest even into `type` (f32, f16, bf16).
uint64_t encodeFromF32(Type type, float value);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKNUMERICS_H
