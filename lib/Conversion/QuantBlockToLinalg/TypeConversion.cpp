//===- TypeConversion.cpp - !quant_block.tensor to its lowered parts ------===//
//
// The type converter of --convert-quant-block-to-linalg: a quantized tensor
// becomes its lowered parts (Dialect/QuantBlock/Utils/LoweredParts.h).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"

using namespace mlir;
using namespace mlir::quant_block;

QuantBlockTypeConverter::QuantBlockTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion(
      [](QuantizedTensorType type,
         SmallVectorImpl<Type> &results) -> std::optional<LogicalResult> {
        return getLoweredPartTypes(type, results);
      });
}
