//===- QuantBlockDialect.cpp - quant_block dialect ------------------------===//
//
// Registers the quant_block attributes, types and operations.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

using namespace mlir;
using namespace mlir::quant_block;

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOpsDialect.cpp.inc"

void QuantBlockDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.cpp.inc"
      >();
}
