//===- BlockIterationSpace.cpp - expanded iteration spaces ----------------===//
//
// Builds the expanded iteration space of a quantized tensor and the reshapes
// between natural and expanded views.
//
//===----------------------------------------------------------------------===//

#include "BlockIterationSpace.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

std::optional<BlockIterationSpace>
BlockIterationSpace::get(QuantizedTensorType type, std::string &whyNot,
                         bool packData) {
  BlockIterationSpace space;
  SchemeAttr scheme = type.getScheme();
  std::optional<PackingGroup> group = getPackingGroup(scheme);
  if (!group) {
    whyNot = "storage of " + std::to_string(scheme.getStorageBitWidth()) +
             " bits is not lowered (only 2- to 8-, 16- and 32-bit storage is)";
    return std::nullopt;
  }
  if (packData) {
    space.elementsPerGroup = group->elements;
    space.bytesPerGroup = group->bytes;
  }
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  if (rank == 0) {
    whyNot = "rank-0 quantized tensors are not lowered yet";
    return std::nullopt;
  }
  SmallVector<int64_t> block = type.getEffectiveBlockShape();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = shape[d], b = block[d];
    bool last = d == rank - 1;
    bool packed = last && space.elementsPerGroup > 1;
    ReassociationIndices elementGroup, packedGroup;
    auto addDim = [&](int64_t dimSize, bool inPacked) {
      unsigned index = space.iterShape.size();
      space.iterShape.push_back(dimSize);
      elementGroup.push_back(index);
      if (inPacked)
        packedGroup.push_back(index);
      return index;
    };
    if (b == 1 && !packed) {
      space.paramDims.push_back(addDim(size, true));
    } else {
      if (ShapedType::isDynamic(size) || ShapedType::isDynamic(b)) {
        whyNot = "dimension " + std::to_string(d) +
                 " is dynamic and blocked (or packed); only unblocked "
                 "dimensions may be dynamic in this lowering";
        return std::nullopt;
      }
      if (b == 1) {
        whyNot = "sub-byte data with one scale per element along the "
                 "innermost dimension is not lowered yet";
        return std::nullopt;
      }
      if (size % b != 0) {
        whyNot = "dimension " + std::to_string(d) + " (size " +
                 std::to_string(size) + ") ends in a ragged block of " +
                 std::to_string(b) + "; ragged blocks are not lowered yet";
        return std::nullopt;
      }
      space.paramDims.push_back(addDim(size / b, true));
      if (packed) {
        // A packing group must not straddle two blocks: then every block is
        // a whole number of groups and of bytes.
        if (b % space.elementsPerGroup != 0) {
          whyNot = "the innermost block " + std::to_string(b) +
                   " is not a multiple of the " +
                   std::to_string(space.elementsPerGroup) +
                   " elements of a packing group";
          return std::nullopt;
        }
        addDim(b / space.elementsPerGroup, true);
        space.laneDim = addDim(space.elementsPerGroup, false);
      } else {
        addDim(b, true);
      }
    }
    space.elementGroups.push_back(elementGroup);
    space.packedGroups.push_back(packedGroup);
  }
  // The byte within a multi-byte group is the packed view's last dimension,
  // part of the innermost data dimension.
  if (space.bytesPerGroup > 1)
    space.packedGroups.back().push_back(space.getNumDims() - 1);
  return space;
}

QuantizedTensorType
mlir::quant_block::detail::padToWholeBlocks(QuantizedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> block = type.getEffectiveBlockShape();
  for (auto [size, b] : llvm::zip(shape, block))
    if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(b) && b > 0)
      size = (size + b - 1) / b * b;
  return type.clone(shape, type.getScheme());
}

AffineMap BlockIterationSpace::getElementMap(MLIRContext *ctx) const {
  return AffineMap::getMultiDimIdentityMap(getNumDims(), ctx);
}

AffineMap BlockIterationSpace::getPackedMap(MLIRContext *ctx) const {
  SmallVector<AffineExpr> results;
  for (unsigned d = 0; d < getNumDims(); ++d)
    if (!laneDim || d != *laneDim)
      results.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(getNumDims(), 0, results, ctx);
}

AffineMap BlockIterationSpace::getParamMap(MLIRContext *ctx) const {
  SmallVector<AffineExpr> results;
  for (unsigned d : paramDims)
    results.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(getNumDims(), 0, results, ctx);
}

SmallVector<int64_t> BlockIterationSpace::getPackedShape() const {
  SmallVector<int64_t> shape;
  for (unsigned d = 0; d < getNumDims(); ++d)
    if (!laneDim || d != *laneDim)
      shape.push_back(iterShape[d]);
  return shape;
}

SmallVector<int64_t> BlockIterationSpace::getPackedViewShape() const {
  SmallVector<int64_t> shape = getPackedShape();
  if (bytesPerGroup > 1)
    shape.push_back(bytesPerGroup);
  return shape;
}

SmallVector<Value> BlockIterationSpace::getBytePlanes(OpBuilder &b,
                                                      Location loc,
                                                      Value data) const {
  Value view = expandTo(b, loc, data, packedGroups, getPackedViewShape());
  if (bytesPerGroup == 1)
    return {view};
  return splitBytePlanes(b, loc, view);
}

static bool isTrivial(ArrayRef<ReassociationIndices> groups) {
  return llvm::all_of(
      groups, [](const ReassociationIndices &g) { return g.size() == 1; });
}

Value mlir::quant_block::detail::expandTo(OpBuilder &b, Location loc,
                                          Value value,
                                          ArrayRef<ReassociationIndices> groups,
                                          ArrayRef<int64_t> expandedShape) {
  if (isTrivial(groups))
    return value;
  auto sourceType = cast<RankedTensorType>(value.getType());
  auto resultType =
      RankedTensorType::get(expandedShape, sourceType.getElementType());
  SmallVector<OpFoldResult> outputShape;
  for (auto [index, group] : llvm::enumerate(groups)) {
    for (int64_t dim : group) {
      if (ShapedType::isDynamic(expandedShape[dim]))
        outputShape.push_back(
            tensor::DimOp::create(b, loc, value, index).getResult());
      else
        outputShape.push_back(b.getIndexAttr(expandedShape[dim]));
    }
  }
  return tensor::ExpandShapeOp::create(b, loc, resultType, value, groups,
                                       outputShape);
}

Value mlir::quant_block::detail::collapseTo(
    OpBuilder &b, Location loc, Value value,
    ArrayRef<ReassociationIndices> groups, RankedTensorType type) {
  if (isTrivial(groups))
    return value;
  return tensor::CollapseShapeOp::create(b, loc, type, value, groups);
}

SmallVector<Value> mlir::quant_block::detail::splitBytePlanes(OpBuilder &b,
                                                              Location loc,
                                                              Value bytes) {
  auto type = cast<RankedTensorType>(bytes.getType());
  int64_t rank = type.getRank();
  auto planeType =
      RankedTensorType::get(type.getShape().drop_back(), type.getElementType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, bytes);
  sizes.back() = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<Value> planes;
  for (int64_t k = 0, e = type.getShape().back(); k < e; ++k) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets.back() = b.getIndexAttr(k);
    planes.push_back(tensor::ExtractSliceOp::create(b, loc, planeType, bytes,
                                                    offsets, sizes, strides));
  }
  return planes;
}

Value mlir::quant_block::detail::createEmptyLike(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elementType,
    Value like, ArrayRef<ReassociationIndices> groups) {
  SmallVector<Value> dynamicSizes;
  for (auto [index, group] : llvm::enumerate(groups))
    for (int64_t dim : group)
      if (ShapedType::isDynamic(shape[dim]))
        dynamicSizes.push_back(tensor::DimOp::create(b, loc, like, index));
  return tensor::EmptyOp::create(b, loc, shape, elementType, dynamicSizes);
}
