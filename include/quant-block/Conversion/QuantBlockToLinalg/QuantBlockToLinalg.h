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

/// How the lowered data holds sub-byte storage: `elements` consecutive
/// elements of the innermost dimension fill exactly `bytes` bytes of the
/// little-endian bit stream of docs/Packing.md (2 in 1 for 4-bit, 4 in 1 for
/// 2-bit, 4 in 3 for 6-bit, 8 in w bytes for 3-, 5- and 7-bit storage), so
/// a group is the smallest unit that starts and ends on byte boundaries.
struct PackingGroup {
  int64_t elements = 1;
  int64_t bytes = 1;

  /// True for sub-byte storage (several elements share bytes).
  bool isPacked() const { return elements > 1; }
  /// True when no element straddles a byte boundary (2- and 4-bit storage).
  bool isBytewise() const { return bytes == 1; }
};

/// The packing group of `scheme`'s storage: {1, 1} (one storage value per
/// element, unpacked) for 8-, 16- and 32-bit storage, or std::nullopt for
/// widths this lowering does not handle (9..15 and 17..31 bits).
std::optional<PackingGroup> getPackingGroup(SchemeAttr scheme);

/// The lowered data type of `type`: the storage tensor for 8-, 16- and 32-bit
/// storage (signless), or for sub-byte storage an i8 tensor packed along the
/// innermost dimension, each innermost row of K elements taking its own
/// ceil(K * width / 8) bytes. Null if unsupported.
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
