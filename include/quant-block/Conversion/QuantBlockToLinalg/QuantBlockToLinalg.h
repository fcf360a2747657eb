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
#include "quant-block/Dialect/QuantBlock/Utils/LoweredParts.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::quant_block {

/// Why this lowering cannot compute an `accumulate(i32)` quant_block.matmul
/// of the activations `lhs` and the weight `rhs` yet (operands the verifier
/// accepts), or std::nullopt if it can. --quant-block-fuse asks before it
/// forms such a product, so that it never turns a program the float product
/// lowers into one that fails to lower.
std::optional<std::string>
getIntegerMatmulUnsupportedReason(QuantizedTensorType lhs,
                                  QuantizedTensorType rhs);

/// Lowers !quant_block.tensor to its parts (getLoweredPartTypes: data,
/// scales, then zero points, outer scales and outer mins where present, with
/// unsigned element types made signless).
class QuantBlockTypeConverter : public TypeConverter {
public:
  QuantBlockTypeConverter();
};

/// Why the lowering cannot handle `op` (a quant_block op) yet, or
/// std::nullopt if it can.
std::optional<std::string>
getQuantBlockToLinalgUnsupportedReason(Operation *op);

/// Emits "cannot lower to linalg: <reason>" at every quant_block op under
/// `root` (and, when no op explains it, at every function whose signature)
/// the lowering cannot handle, and fails if there was one. Run it before the
/// conversion: a dialect conversion only says "failed to legalize".
LogicalResult checkQuantBlockToLinalgSupport(Operation *root);

/// Marks quant_block illegal and linalg / tensor / arith / math legal,
/// function signatures, calls, returns and unknown ops legal once
/// `typeConverter` leaves nothing to convert, and signedness-only
/// tensor.bitcast illegal (it does not bufferize). `typeConverter` must
/// outlive `target`.
void configureQuantBlockToLinalgConversionTarget(
    ConversionTarget &target, const TypeConverter &typeConverter);

/// Adds every pattern --convert-quant-block-to-linalg uses: the lowering of
/// each quant_block op, the function, call and return signature conversions
/// (all with `typeConverter`, which must convert !quant_block.tensor as
/// QuantBlockTypeConverter does), and the lowering of signedness-only
/// tensor.bitcast into elementwise casts.
///
///   if (failed(checkQuantBlockToLinalgSupport(root))) return failure();
///   QuantBlockTypeConverter converter;
///   ConversionTarget target(*ctx);
///   configureQuantBlockToLinalgConversionTarget(target, converter);
///   RewritePatternSet patterns(ctx);
///   populateQuantBlockToLinalgConversionPatterns(converter, patterns);
///   return applyPartialConversion(root, target, std::move(patterns));
void populateQuantBlockToLinalgConversionPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CONVERSION_QUANTBLOCKTOLINALG_QUANTBLOCKTOLINALG_H
