//===- BlockExpansion.h - which smaller tensor a value repeats --*- C++ -*-===//
//
// The analysis behind --quant-block-raise: given a tensor that frontends
// built by repeating a smaller tensor (scales, zero points) blockwise to the
// data's shape, find the smaller tensor and the block shape. Frontends spell
// the repetition in many ways (tensor.expand_shape + linalg.broadcast +
// tensor.collapse_shape, broadcasting linalg.generics, floordiv indexing
// maps, TOSA reshape + tile + reshape, TOSA's implicit broadcast of unit
// dimensions, folded constants); all of them are reduced here to one
// question about how each dimension of the result is composed of pieces of
// source dimensions and repetitions.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_BLOCKEXPANSION_H
#define QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_BLOCKEXPANSION_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::quant_block {

/// How a tensor repeats the elements of a smaller ("contracted") tensor:
/// element `i` of the expanded tensor (indexed in the iteration space it is
/// read in) is element `i / blockShape` (per dimension) of the contracted
/// tensor, after `casts`.
struct BlockExpansion {
  /// The repeated tensor; null when `constant` holds it.
  Value source;
  /// The contracted values when they are known at compile time, already in
  /// `contractedShape` (element type of the source, before `casts`).
  DenseElementsAttr constant;
  /// Elementwise unary ops (casts) met between the source and the expanded
  /// value, in the order they apply. They commute with the repetition, so
  /// they can be applied to the contracted tensor instead.
  SmallVector<Operation *> casts;
  /// One entry per dimension of the expanded tensor.
  SmallVector<int64_t> blockShape;
  /// The expanded shape divided by the block shape.
  SmallVector<int64_t> contractedShape;

  /// True when the blocks were found in the values of a constant rather
  /// than in shape ops: any finer block shape is then equally valid (see
  /// refineBlocks).
  bool isRefinable() const { return static_cast<bool>(constant); }
};

/// Returns how `value` repeats a smaller tensor blockwise, or nullopt when it
/// is not an exact blockwise repetition of anything (a tile that repeats the
/// whole tensor, a transposed or interleaved broadcast, a dynamic shape).
/// A value that repeats nothing has block 1 everywhere and itself as source.
std::optional<BlockExpansion> matchBlockwiseExpansion(Value value);

/// As above for `value` read at `readMap(i)` for each index `i` of an
/// iteration space of shape `iterationShape` (the indexing map of a
/// linalg.generic operand, an implicit TOSA broadcast). The map's results may
/// be `d`, `d floordiv c` or the constant 0 (unit dimensions).
std::optional<BlockExpansion>
matchBlockwiseExpansion(Value value, AffineMap readMap,
                        ArrayRef<int64_t> iterationShape);

/// The expansion of a compile-time splat of `value` (an integer or float
/// attribute) over `shape`: one block covering the whole tensor.
BlockExpansion getSplatExpansion(TypedAttr value, ArrayRef<int64_t> shape);

/// Returns `expansion` with the finer `blockShape` (each entry dividing the
/// current one); only for constant expansions.
std::optional<BlockExpansion> refineBlocks(const BlockExpansion &expansion,
                                           ArrayRef<int64_t> blockShape);

/// Builds the contracted tensor of `expansion` before its casts: the source
/// reshaped to the contracted shape (only unit dimensions move), or a
/// constant.
Value materializeContracted(OpBuilder &builder, Location loc,
                            const BlockExpansion &expansion);

/// True for the unary elementwise conversions that may sit between a
/// parameter and its use (arith int/float casts, tosa.cast), on tensors or
/// scalars.
bool isElementwiseCast(Operation *op);

/// Applies `op`, an elementwise unary op taken from a tensor or scalar
/// context, to the tensor `input`.
Value applyElementwiseCast(OpBuilder &builder, Location loc, Operation *op,
                           Value input);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_BLOCKEXPANSION_H
