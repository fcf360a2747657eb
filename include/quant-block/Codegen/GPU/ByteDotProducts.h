//===- ByteDotProducts.h - Byte dot products in vector form ----*- C++ -*-===//
//
// The target-neutral form of a 4-way byte dot product that
// --quant-block-gpu-matmul-kernels emits (`byte-dot-products`) and that the
// NVVM and SPIR-V dot-product passes turn into one instruction each (PTX's
// dp4a, SPIR-V's SDot / SUDot / UDot):
//
//   %a32 = arith.extsi %a : vector<4xi8> to vector<4xi32>   // or extui
//   %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
//   %p = arith.muli %a32, %b32 : vector<4xi32>
//   %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
//
// The accumulator is optional; either factor may also be a constant whose
// elements fit in a signed or an unsigned byte (canonicalization folds the
// extension of a constant), and a reduction of one extended vector of bytes
// is its dot product with ones (canonicalization folds a product by ones).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_GPU_BYTEDOTPRODUCTS_H
#define QUANT_BLOCK_CODEGEN_GPU_BYTEDOTPRODUCTS_H

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::quant_block {

/// One factor of a byte dot product: 4 bytes, signed or unsigned.
struct ByteDotFactor {
  /// The vector<4xi8> value, or null for a constant.
  Value bytes;
  /// The constant's values (i32), when `bytes` is null.
  DenseIntElementsAttr constant;
  bool isSigned = true;
  /// The factor as a vector<4xi8> value (the constant created at `loc`).
  Value materialize(OpBuilder &b, Location loc) const;
};

/// A matched byte dot product: `acc` (or zero, when null) plus the sum of
/// the four products of `lhs` and `rhs`.
struct ByteDotProduct {
  ByteDotFactor lhs, rhs;
  Value acc;
};

/// Matches the form above at `reduction`.
std::optional<ByteDotProduct>
matchByteDotProduct(vector::ReductionOp reduction);

/// Replaces each byte dot product by what a target makes of it (`build`:
/// the i32 sum, accumulator included).
class ByteDotProductPattern : public OpRewritePattern<vector::ReductionOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const final {
    std::optional<ByteDotProduct> dot = matchByteDotProduct(op);
    if (!dot)
      return rewriter.notifyMatchFailure(op, "not a 4-way byte dot product");
    rewriter.replaceOp(op, build(rewriter, op.getLoc(), *dot));
    return success();
  }

protected:
  virtual Value build(PatternRewriter &rewriter, Location loc,
                      const ByteDotProduct &dot) const = 0;
};

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_GPU_BYTEDOTPRODUCTS_H
