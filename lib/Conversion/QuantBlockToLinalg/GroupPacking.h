//===- GroupPacking.h - packing whole groups of sub-byte codes --*- C++ -*-===//
//
// The expanded (vectorizable) form of sub-byte packing. A row whose length
// is a multiple of the packing group (G elements in B bytes, see
// PackingGroup) is viewed as [..., K / G, G] codes and [..., K / G, B]
// bytes; one linalg.generic with projected-permutation maps only converts
// between the two. Rows of any other length take the gather form
// (GatherLowering.h).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_GROUPPACKING_H
#define QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_GROUPPACKING_H

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"

#include "mlir/IR/Builders.h"

namespace mlir::quant_block::detail {

/// Packs integer `codes` of shape [..., G] (any integer type; only the low
/// `width` bits of each code are used) into i8 bytes: [...] for one-byte
/// groups, [..., B] otherwise. The lanes are a reduction dimension that ORs
/// each code's bits into the bytes it touches.
Value packGroups(OpBuilder &b, Location loc, Value codes, PackingGroup group,
                 unsigned width);

/// The inverse of packGroups: `bytes` ([...] or [..., B]) to codes [..., G]
/// of `codeType` (an integer of at least `width` bits), sign-extended from
/// `width` bits when `isSigned`.
Value unpackGroups(OpBuilder &b, Location loc, Value bytes, PackingGroup group,
                   unsigned width, bool isSigned, Type codeType);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_GROUPPACKING_H
