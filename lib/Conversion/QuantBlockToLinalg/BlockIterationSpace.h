//===- BlockIterationSpace.h - expanded iteration spaces --------*- C++ -*-===//
//
// The iteration space in which a quantized tensor's elements, its packed data
// and its contracted parameters are all read through projected permutations:
// every blocked dimension d of size S with block B becomes two iteration
// dimensions (S / B, B), and for sub-byte storage the innermost block is
// split once more into (B / p, p), p elements per byte. Scales then index the
// "which block" dimensions only, the packed data drops the lane dimension, and
// the lane is read with linalg.index. This is what lets the upstream
// vectorizer accept the generics (a floordiv map would be refused).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_BLOCKITERATIONSPACE_H
#define QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_BLOCKITERATIONSPACE_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace mlir::quant_block::detail {

struct BlockIterationSpace {
  /// Sizes of the iteration dimensions (ShapedType::kDynamic allowed on
  /// unblocked dimensions).
  SmallVector<int64_t> iterShape;
  /// Per tensor dimension, the iteration dimensions it expands into: for the
  /// element view (floats, unpacked data) and for the packed data view.
  SmallVector<ReassociationIndices> elementGroups;
  SmallVector<ReassociationIndices> packedGroups;
  /// Per parameter (scale) dimension, the iteration dimension indexing it.
  SmallVector<unsigned> paramDims;
  /// The lane-within-a-byte iteration dimension, for sub-byte storage.
  std::optional<unsigned> laneDim;
  int64_t elementsPerByte = 1;

  /// Builds the space for `type`, or explains why this lowering cannot.
  static std::optional<BlockIterationSpace> get(QuantizedTensorType type,
                                                std::string &whyNot);

  unsigned getNumDims() const { return iterShape.size(); }
  AffineMap getElementMap(MLIRContext *ctx) const;
  AffineMap getPackedMap(MLIRContext *ctx) const;
  AffineMap getParamMap(MLIRContext *ctx) const;
  /// The element view shape (the iteration shape).
  SmallVector<int64_t> getElementShape() const { return iterShape; }
  /// The packed data view shape (iteration shape without the lane).
  SmallVector<int64_t> getPackedShape() const;
};

/// Expands `value` (a ranked tensor) by `groups` into `expandedShape`, taking
/// dynamic sizes from `value` (only singleton groups may be dynamic). Returns
/// `value` itself when no group has more than one dimension.
Value expandTo(OpBuilder &b, Location loc, Value value,
               ArrayRef<ReassociationIndices> groups,
               ArrayRef<int64_t> expandedShape);
/// The inverse of expandTo.
Value collapseTo(OpBuilder &b, Location loc, Value value,
                 ArrayRef<ReassociationIndices> groups, RankedTensorType type);
/// An empty tensor of `shape` x `elementType` whose dynamic sizes are those
/// of `like` along `groups` (singleton groups only).
Value createEmptyLike(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                      Type elementType, Value like,
                      ArrayRef<ReassociationIndices> groups);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_BLOCKITERATIONSPACE_H
