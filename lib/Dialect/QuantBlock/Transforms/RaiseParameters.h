//===- RaiseParameters.h - scales, zero points and schemes ------*- C++ -*-===//
//
// Internal to --quant-block-raise: what the dequantize, quantize and
// upstream-quant matchers share once they have found the data. Finding the
// scales and zero points of a decomposition (which smaller tensor they
// repeat, through which casts), deciding whether the float types on the way
// hold the integers exactly, bringing the two parameters to the same blocks,
// and building the scheme and the contracted parameter tensors the raised
// quant_block op takes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_RAISEPARAMETERS_H
#define QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_RAISEPARAMETERS_H

#include "BlockExpansion.h"
#include "ElementwiseChain.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "llvm/ADT/APFloat.h"

#include <optional>
#include <utility>

namespace mlir::quant_block::detail {

/// Scales and zero points: where they expand from, with every cast on the
/// way (the tensor chain's and the expression's) in `casts`.
std::optional<BlockExpansion> matchParam(const EwValue &value,
                                         ArrayRef<int64_t> shape);

/// The expressed and scale types the raised ops take.
bool isScaleType(Type type);

/// Splits the casts of a scale into those applied to the contracted scales
/// and a trailing run of widening casts that the quant_block op does itself
/// (so the scheme keeps the narrower scale type). Returns the scale type.
std::optional<Type> prepareScale(BlockExpansion &scale);

/// The integer `value` holds, if it holds one.
std::optional<int64_t> getExactInteger(const APFloat &value);

/// True when `type` (a float type) holds every integer in [min, max].
bool holdsIntegers(Type type, int64_t min, int64_t max);

/// The values of the integer storage type `type`.
std::pair<int64_t, int64_t> rangeOf(IntegerType type);

/// The signless (signed) or unsigned integer type of `width` bits.
IntegerType storageIntegerType(MLIRContext *context, unsigned width,
                               bool isSigned);

/// A zero point as the quant_block ops take it.
struct ZeroPoint {
  BlockExpansion expansion;
  /// Integer zero points: the (narrowest exact) integer type, signless or
  /// unsigned. Null when the zero points are float constants holding
  /// integers (converted once the storage type is known).
  IntegerType type;
  /// Float types the zero point passes through before it is used.
  SmallVector<Type> floatTypes;
  int64_t min = 0, max = 0;
};

/// Reads the casts of a zero point: an optional integer extension, one
/// integer-to-float conversion, then float casts; or only float casts of a
/// constant.
std::optional<ZeroPoint> prepareZeroPoint(BlockExpansion expansion);

/// Brings the scale and zero point expansions to the same blocks: equal, or
/// a constant refined to the other's (finer) blocks.
LogicalResult unifyBlocks(BlockExpansion &scale, BlockExpansion &zeroPoint);

/// The scheme's block list for `blocks` over `shape`: `*` for whole
/// dimensions, leading 1s dropped (they are implied), empty for
/// per-tensor.
SmallVector<int64_t> getBlockList(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> blocks);

/// A scale that is its own expansion (every block 1 element) leaves
/// nothing to contract: not a block-quantized tensor.
inline constexpr StringLiteral kNotBlockwise =
    "the scale is not a blockwise repetition of a smaller tensor";

/// True when `blocks` over `shape` is such a scale: one element per block
/// of a tensor of more than one element.
bool isTrivial(ArrayRef<int64_t> shape, ArrayRef<int64_t> blocks);

/// Builds a scheme, or returns null (silently) when the verifier refuses it.
SchemeAttr getScheme(MLIRContext *context, Type storage, Type expressed,
                     ArrayRef<int64_t> blockList, Type scale, Type zeroPoint,
                     int64_t qmin, int64_t qmax, RoundingMode rounding);

/// `value` with its integer elements reinterpreted as `elementType` (only
/// the signedness differs).
Value bitcastElements(OpBuilder &builder, Location loc, Value value,
                      Type elementType);

/// The contracted scale tensor of `scale`.
Value buildScales(OpBuilder &builder, Location loc,
                  const BlockExpansion &scale);

/// The contracted zero point tensor of `zp`, of `type` (its own integer
/// type, or the storage type for float constants).
Value buildZeroPoints(OpBuilder &builder, Location loc, const ZeroPoint &zp,
                      IntegerType type);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_RAISEPARAMETERS_H
