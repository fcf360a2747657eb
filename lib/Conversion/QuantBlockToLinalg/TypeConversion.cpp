//===- TypeConversion.cpp - !quant_block.tensor to its lowered parts ------===//
//
// A quantized tensor lowers to one plain tensor per part. The data part is
// what the memory holds: 8-, 16- and 32-bit storage as is (signless), 2- to
// 7-bit storage packed along the innermost dimension into i8 as the
// little-endian bit stream of docs/Packing.md. Each innermost row starts on
// a byte boundary, so that a row (and every whole packing group in it) can
// be addressed as bytes without bit offsets that depend on the row index.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"

#include <numeric>

using namespace mlir;
using namespace mlir::quant_block;

std::optional<PackingGroup>
mlir::quant_block::getPackingGroup(SchemeAttr scheme) {
  unsigned width = scheme.getStorageBitWidth();
  if (width == 8 || width == 16 || width == 32)
    return PackingGroup{1, 1};
  if (width < 2 || width > 8)
    return std::nullopt;
  // The shortest run of w-bit elements that ends on a byte boundary.
  unsigned common = std::gcd(width, 8u);
  return PackingGroup{8 / common, width / common};
}

/// Unsigned integer element types become signless (arith works on signless
/// integers; the scheme keeps the signedness).
static Type getSignless(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    if (!intType.isSignless())
      return IntegerType::get(type.getContext(), intType.getWidth());
  return type;
}

static RankedTensorType makeSignless(RankedTensorType type) {
  if (!type)
    return type;
  return RankedTensorType::get(type.getShape(),
                               getSignless(type.getElementType()));
}

RankedTensorType
mlir::quant_block::getLoweredDataType(QuantizedTensorType type) {
  SchemeAttr scheme = type.getScheme();
  std::optional<PackingGroup> group = getPackingGroup(scheme);
  if (!group || type.getRank() == 0)
    return {};
  if (!group->isPacked())
    return makeSignless(type.getDataType());
  SmallVector<int64_t> shape(type.getShape());
  if (!ShapedType::isDynamic(shape.back()))
    shape.back() = (shape.back() * scheme.getStorageBitWidth() + 7) / 8;
  return RankedTensorType::get(shape, IntegerType::get(type.getContext(), 8));
}

QuantBlockTypeConverter::QuantBlockTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion(
      [](QuantizedTensorType type,
         SmallVectorImpl<Type> &results) -> std::optional<LogicalResult> {
        RankedTensorType data = getLoweredDataType(type);
        if (!data)
          return failure();
        SmallVector<Type> rowMajor = {data, makeSignless(type.getScalesType())};
        for (RankedTensorType part :
             {type.getZeroPointsType(), type.getOuterScalesType(),
              type.getOuterMinsType()})
          if (part)
            rowMajor.push_back(makeSignless(part));
        for (auto [index, part] : llvm::enumerate(rowMajor))
          results.push_back(getRowTiledPartType(type, index, part));
        return success();
      });
}
