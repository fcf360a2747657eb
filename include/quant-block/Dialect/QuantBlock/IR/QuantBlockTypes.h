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

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKTYPES_H
