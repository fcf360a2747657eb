//===- QuantBlockAttrs.h - quant_block attributes ---------------*- C++ -*-===//
//
// Declares the scheme and outer-scale attributes and the dialect's enums.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKATTRS_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h.inc"

namespace mlir::quant_block {

/// True if `type` may be the storage type of a scheme: integers of 2..32 bits
/// (signless means signed, or unsigned) and the OCP narrow float formats.
bool isValidStorageType(Type type);
/// True if `type` may be a scheme's expressed type: f32, f16, bf16.
bool isValidExpressedType(Type type);
/// True if `type` is one of the OCP narrow float formats usable as storage.
bool isOCPFloatStorageType(Type type);
/// The [min, max] range of an integer storage type.
std::pair<int64_t, int64_t> getIntegerStorageRange(IntegerType type);

/// Returns true if two block sizes partition a dimension of size `dimSize`
/// the same way: `a == b`, or both cover the dimension in one block.
bool isSameBlockPartition(int64_t a, int64_t b, int64_t dimSize);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKATTRS_H
