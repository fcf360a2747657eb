//===- LoweredParts.h - the tensors a quantized tensor lowers to -*- C++
//-*-===//
//
// A !quant_block.tensor lowers to one plain tensor per part (docs/Packing.md,
// "Lowered tensors"): its packed data, its scales, and its zero points and
// outer parameters where present, row-major or row-tiled. The conversion to
// linalg and the matmul kernels that run before it (Codegen: CPU and GPU)
// both build on these helpers.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_LOWEREDPARTS_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_LOWEREDPARTS_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

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

/// The lowered parts of `type`, in order: data (see getLoweredDataType),
/// scales, then zero points, outer scales and outer mins where present,
/// unsigned element types made signless, each in the row-tiled form where
/// the scheme has a row tile (getRowTiledPartType). Fails for a type with
/// no lowering.
LogicalResult getLoweredPartTypes(QuantizedTensorType type,
                                  SmallVectorImpl<Type> &parts);

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

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_UTILS_LOWEREDPARTS_H
