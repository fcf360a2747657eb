//===- QuantBlockDialect.h - quant_block dialect ----------------*- C++ -*-===//
//
// Declares the quant_block dialect class (generated from ODS).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKDIALECT_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKDIALECT_H

#include "mlir/IR/Dialect.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOpsDialect.h.inc"

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKDIALECT_H
