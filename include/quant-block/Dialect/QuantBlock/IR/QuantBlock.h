//===- QuantBlock.h - quant_block dialect umbrella header -------*- C++ -*-===//
//
// Includes everything a user of the quant_block IR needs: dialect, attributes,
// types and operations.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCK_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCK_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCK_H
