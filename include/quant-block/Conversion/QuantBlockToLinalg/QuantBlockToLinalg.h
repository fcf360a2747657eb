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

class MatmulOp;

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

/// The lowered type of part `index` (data, scales, ...) of `type`, given
/// its row-major lowered type `rowMajor`: `rowMajor` itself unless the
/// scheme is row-tiled (`row_tile = R`), where the data [N, 4 W] becomes
/// [N / R, W, R, 4] and the scales and zero points [N, K / B] become
/// [N / R, K / B, R] (docs/Packing.md, "The row-tiled layout").
Type getRowTiledPartType(QuantizedTensorType type, size_t index, Type rowMajor);

/// The row-tiled lowered parts of `type` (a row-tiled quantized tensor)
/// from its row-major lowered parts `rowMajor`, and back. Each is one
/// reshape and one linalg.transpose per part that the layout changes.
SmallVector<Value> tileLoweredParts(OpBuilder &b, Location loc,
                                    QuantizedTensorType type,
                                    ValueRange rowMajor);
SmallVector<Value> untileLoweredParts(OpBuilder &b, Location loc,
                                      QuantizedTensorType type,
                                      ValueRange tiled);

/// Why this lowering cannot compute an `accumulate(i32)` quant_block.matmul
/// of the activations `lhs` and the weight `rhs` yet (operands the verifier
/// accepts), or std::nullopt if it can. --quant-block-fuse asks before it
/// forms such a product, so that it never turns a program the float product
/// lowers into one that fails to lower.
std::optional<std::string>
getIntegerMatmulUnsupportedReason(QuantizedTensorType lhs,
                                  QuantizedTensorType rhs);

/// Lowers !quant_block.tensor to its parts: data (see getLoweredDataType),
/// scales, then zero points, outer scales and outer mins where present, with
/// unsigned element types made signless.
class QuantBlockTypeConverter : public TypeConverter {
public:
  QuantBlockTypeConverter();
};

/// The lowered parts of the quantized tensor `quantized` for code written
/// before the lowering (the matmul kernels): a
/// builtin.unrealized_conversion_cast from it to exactly its part types,
/// which --convert-quant-block-to-linalg resolves to the parts themselves
/// (docs/Packing.md, "Lowered tensors"). Fails, creating nothing, when the
/// type has no lowering.
FailureOr<SmallVector<Value>>
materializeLoweredParts(OpBuilder &b, Location loc, Value quantized);

/// `lhs` (the float activations of `op`, a quant_block.matmul) with the
/// weight's static K where its own K is dynamic (the verifier checked that
/// they are compatible); `lhs` itself otherwise. The lowering and the CPU
/// kernels contract over a static k: one that was static in one operand
/// and dynamic in the other made the elementwise fusion stage reshape the
/// dynamic operand back and forth without converging.
Value castToWeightDepth(OpBuilder &b, Location loc, MatmulOp op, Value lhs);

/// Why `lhs` is not the activations the integer matmul kernels
/// (`accumulate(i32)`) take, or std::nullopt if it is: a rank-2 quantized
/// tensor (the rows may be dynamic, K is static) of signed i8 in blocks
/// [1, B], f32, f16 or bf16 scales,
/// no zero points, MX or outer scales, expressed type f32 (what
/// quant_block.quantize_dynamic makes of f32 activations).
std::optional<std::string> getInt8ActivationsUnsupportedReason(Type lhs);

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
