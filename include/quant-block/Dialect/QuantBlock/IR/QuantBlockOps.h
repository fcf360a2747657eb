//===- QuantBlockOps.h - quant_block operations -----------------*- C++ -*-===//
//
// Declares the quant_block operations.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKOPS_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

#define GET_OP_CLASSES
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h.inc"

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKOPS_H
