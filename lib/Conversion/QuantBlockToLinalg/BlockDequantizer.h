//===- BlockDequantizer.h - dequantization inside a generic ----*- C++ -*-===//
//
// The operands, indexing maps and scalar body that dequantize one element of
// a quantized tensor in its block iteration space. quant_block.dequantize
// builds its generic from it, and the fused matmul embeds the same
// dequantization in a contraction (its iteration space contains the weight's
// block iteration space), so both compute bit-identical weights.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_BLOCKDEQUANTIZER_H
#define QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_BLOCKDEQUANTIZER_H

#include "BlockIterationSpace.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

namespace mlir::quant_block::detail {

class BlockDequantizer {
public:
  /// Prepares the inputs (byte planes of the data, scales, zero points) of
  /// the lowered `parts` of a tensor of `type`, whose space is `space`.
  BlockDequantizer(OpBuilder &b, Location loc, QuantizedTensorType type,
                   const BlockIterationSpace &space, ValueRange parts);

  /// The generic inputs, in order.
  ArrayRef<Value> getInputs() const { return inputs; }

  /// Their indexing maps in a generic of `numDims` dimensions in which
  /// dimension d of the block iteration space is dimension `dimMap[d]`.
  SmallVector<AffineMap> getMaps(MLIRContext *ctx, ArrayRef<unsigned> dimMap,
                                 unsigned numDims) const;
  /// The same for a generic whose iteration space is the block space itself.
  SmallVector<AffineMap> getMaps(MLIRContext *ctx) const;

  /// In the generic's body: the dequantized element (of the expressed type)
  /// from `args`, the block arguments of getInputs().
  Value emit(OpBuilder &b, Location loc, ValueRange args,
             ArrayRef<unsigned> dimMap) const;
  Value emit(OpBuilder &b, Location loc, ValueRange args) const;

  /// In the generic's body: the storage code minus the zero point, as an
  /// i32, for i32-accumulating products (integer storage; for FP4 E2M1
  /// codes twice their value, which the product halves per block).
  Value emitCenteredCode(OpBuilder &b, Location loc, ValueRange args,
                         ArrayRef<unsigned> dimMap) const;
  Value emitCenteredCode(OpBuilder &b, Location loc, ValueRange args) const;

  /// The per-tensor outer scale as an f32 value, extracted before the
  /// generic (null without one).
  Value getOuterScale() const { return outerScale; }

  /// The indexing map of the scales alone (as in getMaps).
  AffineMap getScaleMap(MLIRContext *ctx, ArrayRef<unsigned> dimMap,
                        unsigned numDims) const;

private:
  Value emitCode(OpBuilder &b, Location loc, ValueRange args,
                 ArrayRef<unsigned> dimMap) const;

  SchemeAttr scheme;
  const BlockIterationSpace &space;
  SmallVector<Value> inputs;
  size_t numPlanes;
  bool hasZeroPoints;
  Value outerScale;
};

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_BLOCKDEQUANTIZER_H
