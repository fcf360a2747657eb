//===- BlockIterationSpace.h - expanded iteration spaces --------*- C++ -*-===//
//
// The iteration space in which a quantized tensor's elements, its packed data
// and its contracted parameters are all read through projected permutations:
// every blocked dimension d of size S with block B becomes two iteration
// dimensions (S / B, B), and for sub-byte storage the innermost block is
// split once more into (B / G, G), G elements per packing group (2 or 4 per
// byte for 4- and 2-bit storage; 4 per 3 bytes for 6-bit, 8 per w bytes for
// 3-, 5- and 7-bit storage). Scales then index the "which block" dimensions
// only, the packed data drops the lane dimension, and the lane is read with
// linalg.index. Groups of more than one byte are read as one tensor per byte
// of the group (a "byte plane", a strided slice of the data), each through
// the same projected permutation. This is what lets the upstream vectorizer
// accept the generics (a floordiv map, a constant in a map or a
// tensor.extract would be refused or turned into gathers).
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
  /// element view (floats, unpacked data) and for the packed data view. The
  /// packed view of multi-byte groups has one more dimension, the byte
  /// within the group, after all iteration dimensions.
  SmallVector<ReassociationIndices> elementGroups;
  SmallVector<ReassociationIndices> packedGroups;
  /// Per parameter (scale) dimension, the iteration dimension indexing it.
  SmallVector<unsigned> paramDims;
  /// The lane-within-a-group iteration dimension, for sub-byte storage (the
  /// last iteration dimension).
  std::optional<unsigned> laneDim;
  /// Elements and bytes per packing group (1 and 1 when not packed).
  int64_t elementsPerGroup = 1;
  int64_t bytesPerGroup = 1;

  /// Builds the space for `type`, or explains why this lowering cannot.
  /// With `packData` false the innermost dimension is not split into
  /// packing groups (for generics that only read the elements).
  static std::optional<BlockIterationSpace>
  get(QuantizedTensorType type, std::string &whyNot, bool packData = true);

  unsigned getNumDims() const { return iterShape.size(); }
  AffineMap getElementMap(MLIRContext *ctx) const;
  /// The map of the packed data (a byte plane for multi-byte groups).
  AffineMap getPackedMap(MLIRContext *ctx) const;
  AffineMap getParamMap(MLIRContext *ctx) const;
  /// The element view shape (the iteration shape).
  SmallVector<int64_t> getElementShape() const { return iterShape; }
  /// The shape of a packed byte plane (iteration shape without the lane).
  SmallVector<int64_t> getPackedShape() const;
  /// The packed data view shape: getPackedShape(), then the byte within the
  /// group for multi-byte groups.
  SmallVector<int64_t> getPackedViewShape() const;
  /// The lowered data viewed in this space: one tensor of getPackedShape()
  /// per byte of a packing group.
  SmallVector<Value> getBytePlanes(OpBuilder &b, Location loc,
                                   Value data) const;
};

/// `type` with every static dimension that ends in a ragged block rounded up
/// to whole blocks (the scale shape stays the same), or `type` itself.
QuantizedTensorType padToWholeBlocks(QuantizedTensorType type);

/// Expands `value` (a ranked tensor) by `groups` into `expandedShape`, taking
/// dynamic sizes from `value` (only singleton groups may be dynamic). Returns
/// `value` itself when no group has more than one dimension.
Value expandTo(OpBuilder &b, Location loc, Value value,
               ArrayRef<ReassociationIndices> groups,
               ArrayRef<int64_t> expandedShape);
/// The inverse of expandTo.
Value collapseTo(OpBuilder &b, Location loc, Value value,
                 ArrayRef<ReassociationIndices> groups, RankedTensorType type);
/// The byte planes of packed `bytes` whose last dimension is the byte
/// within a packing group: plane k is bytes[..., k] (a rank-reducing strided
/// slice), so a generic reads byte k of every group through a projected
/// permutation.
SmallVector<Value> splitBytePlanes(OpBuilder &b, Location loc, Value bytes);
/// An empty tensor of `shape` x `elementType` whose dynamic sizes are those
/// of `like` along `groups` (singleton groups only).
Value createEmptyLike(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                      Type elementType, Value like,
                      ArrayRef<ReassociationIndices> groups);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_BLOCKITERATIONSPACE_H
