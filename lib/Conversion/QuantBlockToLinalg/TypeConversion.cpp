//===- TypeConversion.cpp - !quant_block.tensor to its lowered parts ------===//
//
// A quantized tensor lowers to one plain tensor per part. The data part is
// what the memory holds: 8-, 16- and 32-bit storage as is (signless), 2- and
// 4-bit storage packed along the innermost dimension into i8 so that memory
// holds 4 or 2 elements per byte, as docs/Packing.md specifies.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"

using namespace mlir;
using namespace mlir::quant_block;

std::optional<int64_t>
mlir::quant_block::getElementsPerByte(SchemeAttr scheme) {
  switch (scheme.getStorageBitWidth()) {
  case 2:
    return 4;
  case 4:
    return 2;
  case 8:
  case 16:
  case 32:
    return 1;
  default:
    return std::nullopt;
  }
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
  std::optional<int64_t> perByte = getElementsPerByte(scheme);
  if (!perByte || type.getRank() == 0)
    return {};
  if (*perByte == 1)
    return makeSignless(type.getDataType());
  SmallVector<int64_t> shape(type.getShape());
  if (!ShapedType::isDynamic(shape.back()))
    shape.back() = (shape.back() + *perByte - 1) / *perByte;
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
        results.push_back(data);
        results.push_back(makeSignless(type.getScalesType()));
        for (RankedTensorType part :
             {type.getZeroPointsType(), type.getOuterScalesType(),
              type.getOuterMinsType()})
          if (part)
            results.push_back(makeSignless(part));
        return success();
      });
}
