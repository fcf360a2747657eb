//===- QuantBlockTypes.h - quant_block types --------------------*- C++ -*-===//
//
// Declares the quantized tensor type.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKTYPES_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"

#define GET_TYPEDEF_CLASSES
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOpsTypes.h.inc"

namespace mlir::quant_block {

/// True if `type` is a !quant_block.tensor in the row-tiled layout.
inline bool isRowTiled(Type type) {
  auto quantized = dyn_cast<QuantizedTensorType>(type);
  return quantized && quantized.getScheme().isRowTiled();
}

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKTYPES_H
