//===- RowTiledLayout.cpp - the row-tiled layout of lowered parts ---------===//
//
// `row_tile = R` (docs/Packing.md, "The row-tiled layout") changes only how
// the lowered parts of an [N, K] weight are stored: the data as [N / R,
// W, R, 4] (word d of each of the tile's R rows, in row order, W = bytes
// per row / 4), the scales and zero points as [N / R, K / B, R] (blocked
// outer scales and mins likewise, [N / R, K / (B O), R]). All are
// transposes of the row-major parts after splitting the rows into tiles,
// so tiling and untiling are tensor.expand_shape / linalg.transpose /
// tensor.collapse_shape, which bufferize to one copy each. Constant parts
// (a weight packed at compile time) are tiled here, into new constants.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/Utils/LoweredParts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;
using namespace mlir::quant_block;

/// Bytes per word of the tiled data: what one vpdpbusd lane takes.
static constexpr int64_t kWordBytes = 4;

/// Whether the layout changes lowered part `index`: the data, the block
/// scales and zero points, and blocked outer scales and outer mins ([N, X]
/// each, one row of blocks per weight row, which the scheme verifier
/// requires); a per-tensor outer scale ([1, 1]) is unchanged.
static bool isTiledPart(QuantizedTensorType type, size_t index) {
  SchemeAttr scheme = type.getScheme();
  size_t blockParts = scheme.getZeroPointType() ? 3 : 2;
  if (index < blockParts)
    return true;
  OuterScaleAttr outer = scheme.getOuter();
  return outer && !outer.getBlockShape().empty();
}

/// The tiled shape of row-major lowered part `index` ([N, X]).
static SmallVector<int64_t> getTiledShape(ArrayRef<int64_t> rowMajor,
                                          size_t index, int64_t rowTile) {
  int64_t tiles = rowMajor[0] / rowTile;
  if (index == 0)
    return {tiles, rowMajor[1] / kWordBytes, rowTile, kWordBytes};
  return {tiles, rowMajor[1], rowTile};
}

Type mlir::quant_block::getRowTiledPartType(QuantizedTensorType type,
                                            size_t index, Type rowMajor) {
  if (!type.getScheme().isRowTiled() || !isTiledPart(type, index))
    return rowMajor;
  auto tensor = cast<RankedTensorType>(rowMajor);
  return RankedTensorType::get(
      getTiledShape(tensor.getShape(), index, type.getScheme().getRowTile()),
      tensor.getElementType());
}

/// `value` with its dimensions permuted by `permutation` (linalg.transpose
/// into a new tensor).
static Value transpose(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : permutation)
    shape.push_back(type.getDimSize(d));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, init, permutation)
      .getResult()[0];
}

/// The row splitting of part `index`: [N, X] <-> [N / R, R, X] (data: [N /
/// R, R, W, 4]).
static SmallVector<ReassociationIndices> getRowSplit(size_t index) {
  if (index == 0)
    return {{0, 1}, {2, 3}};
  return {{0, 1}, {2}};
}

/// The permutation between [N / R, R, ...] and the tiled order; its own
/// inverse.
static SmallVector<int64_t> getTilePermutation(size_t index) {
  if (index == 0)
    return {0, 2, 1, 3};
  return {0, 2, 1};
}

/// The row-major [N, X] constant `value` tiled as part `index` into `type`,
/// or null when `value` is not a constant whose elements are whole bytes.
static DenseElementsAttr tileConstant(Value value, RankedTensorType type,
                                      size_t index) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return {};
  auto source = cast<RankedTensorType>(value.getType());
  ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return dense.reshape(type);
    raw = dense.getRawData();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return {};
    raw = blob->getData();
  } else {
    return {};
  }
  // Dense storage rounds sub-byte elements up to a byte each (not i1).
  unsigned bits = source.getElementTypeBitWidth();
  if (bits < 2)
    return {};
  size_t elementBytes = (bits + 7) / 8;
  if (raw.size() != size_t(source.getNumElements()) * elementBytes)
    return {};
  int64_t rows = source.getDimSize(0), width = source.getDimSize(1);
  int64_t rowTile = type.getDimSize(2);
  // Element (row, column) goes to tile row / R, and within it to
  // [column / 4][row % R][column % 4] (data) or [column][row % R].
  int64_t unit = index == 0 ? 4 : 1;
  std::vector<char> tiled(raw.size());
  for (int64_t row = 0; row < rows; ++row) {
    int64_t tile = row / rowTile, lane = row % rowTile;
    for (int64_t column = 0; column < width; ++column) {
      int64_t to =
          ((tile * (width / unit) + column / unit) * rowTile + lane) * unit +
          column % unit;
      std::memcpy(&tiled[to * elementBytes],
                  &raw[(row * width + column) * elementBytes], elementBytes);
    }
  }
  return DenseElementsAttr::getFromRawBuffer(type, tiled);
}

SmallVector<Value> mlir::quant_block::tileLoweredParts(OpBuilder &b,
                                                       Location loc,
                                                       QuantizedTensorType type,
                                                       ValueRange rowMajor) {
  SmallVector<Value> result(rowMajor.begin(), rowMajor.end());
  int64_t rowTile = type.getScheme().getRowTile();
  for (size_t index = 0, e = rowMajor.size(); index < e; ++index) {
    if (!isTiledPart(type, index))
      continue;
    auto partType = cast<RankedTensorType>(rowMajor[index].getType());
    if (DenseElementsAttr constant = tileConstant(
            rowMajor[index],
            cast<RankedTensorType>(getRowTiledPartType(type, index, partType)),
            index)) {
      result[index] = arith::ConstantOp::create(b, loc, constant);
      continue;
    }
    ArrayRef<int64_t> shape = partType.getShape();
    SmallVector<int64_t> split = {shape[0] / rowTile, rowTile};
    if (index == 0)
      llvm::append_range(split,
                         ArrayRef<int64_t>{shape[1] / kWordBytes, kWordBytes});
    else
      split.push_back(shape[1]);
    Value rows = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(split, partType.getElementType()),
        rowMajor[index], getRowSplit(index));
    result[index] = transpose(b, loc, rows, getTilePermutation(index));
  }
  return result;
}

SmallVector<Value> mlir::quant_block::untileLoweredParts(
    OpBuilder &b, Location loc, QuantizedTensorType type, ValueRange tiled) {
  SmallVector<Value> result(tiled.begin(), tiled.end());
  for (size_t index = 0, e = tiled.size(); index < e; ++index) {
    if (!isTiledPart(type, index))
      continue;
    Value rows = transpose(b, loc, tiled[index], getTilePermutation(index));
    result[index] =
        tensor::CollapseShapeOp::create(b, loc, rows, getRowSplit(index));
  }
  return result;
}
