//===- QuantBlockToLinalg.h - quant_block to linalg -------------*- C++ -*-===//
//
// The type conversion of !quant_block.tensor into its lowered parts and the
// patterns that lower quant_block ops to linalg / tensor / arith / math, for
// reuse by other compilers' conversion passes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CONVERSION_QUANTBLOCKTOLINALG_QUANTBLOCKTOLINALG_H
#define QUANT_BLOCK_CONVERSION_QUANTBLOCKTOLINALG_QUANTBLOCKTOLINALG_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::quant_block {

/// Number of storage elements packed into one i8 of lowered data: 2 for
/// 4-bit, 4 for 2-bit storage, 1 for storage of 8 bits or more. Returns
/// std::nullopt for widths this lowering does not pack yet (3, 5, 6, 7).
std::optional<int64_t> getElementsPerByte(SchemeAttr scheme);

/// The lowered data type of `type`: the storage tensor for 8-, 16- and 32-bit
/// storage (signless), or the packed i8 tensor whose innermost dimension is
/// ceil(size / elements-per-byte) for sub-byte storage. Null if unsupported.
RankedTensorType getLoweredDataType(QuantizedTensorType type);

/// Lowers !quant_block.tensor to its parts: data (see getLoweredDataType),
/// scales, then zero points, outer scales and outer mins where present, with
/// unsigned element types made signless.
class QuantBlockTypeConverter : public TypeConverter {
public:
  QuantBlockTypeConverter();
};

/// Adds the patterns that lower quant_block ops and, with the given type
/// converter, the function, call and return signature conversions.
void populateQuantBlockToLinalgConversionPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CONVERSION_QUANTBLOCKTOLINALG_QUANTBLOCKTOLINALG_H
