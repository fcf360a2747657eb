//===- Patterns.h - quant_block to linalg pattern groups --------*- C++ -*-===//
//
// Internal: each op's lowering lives in its own file and adds its patterns
// here; populateQuantBlockToLinalgConversionPatterns collects them.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_PATTERNS_H
#define QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_PATTERNS_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::quant_block::detail {

void populateDequantizePatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns);
void populateQuantizePatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);
void populateQuantizeDynamicPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns);
void populateMatmulPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populateLayoutPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
void populatePackPatterns(const TypeConverter &converter,
                          RewritePatternSet &patterns);
/// tensor.bitcast between integer element types that differ only in
/// signedness, as elementwise casts that bufferize.
void populateSignednessCastPatterns(RewritePatternSet &patterns);
bool isSignednessCast(tensor::BitcastOp op);

/// Why the i32-accumulating lowering of `op` cannot handle it yet.
std::optional<std::string> getIntegerMatmulUnsupportedReason(MatmulOp op);

/// Why this lowering cannot handle `op` yet, or std::nullopt if it can.
std::optional<std::string> getUnsupportedReason(Operation *op);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_PATTERNS_H
