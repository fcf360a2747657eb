//===- ElementwiseChain.h - a decomposition seen from its root --*- C++ -*-===//
//
// Internal to --quant-block-raise: the elementwise part of a decomposition
// may be written with arith/math ops on tensors, TOSA ops (with their
// implicit broadcast of unit dimensions) or inside linalg.generic bodies, in
// any mix. The matchers walk it through one view: every value is looked at
// "from the root", as a tensor read through an affine map from the root's
// index space or as a scalar in a linalg body whose iteration space the root
// indexes, so that one matcher serves all the spellings.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_ELEMENTWISECHAIN_H
#define QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_ELEMENTWISECHAIN_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::quant_block::detail {

/// A value of the matched expression. Either a tensor, read at `map(i)` for
/// root index `i`, or a scalar: inside the body of `body` (whose iteration
/// index is `map(i)`) or free (a splat operand, a captured constant).
struct EwValue {
  Value value;
  AffineMap map;
  linalg::LinalgOp body;
  bool scalar = false;
};

/// An operation of the matched expression and its operands, seen from the
/// root.
struct EwOp {
  Operation *op;
  SmallVector<EwValue> operands;
};

/// The type of `op`'s result when `op` can be the root of a decomposition:
/// one static tensor of rank 1 or more, not produced by a quant_block op.
/// Null otherwise.
RankedTensorType getRootType(Operation *op);

/// The root's result as seen from itself: the identity map.
EwValue getRootValue(Operation *root);

/// Tries `raise` on every op whose result is one static tensor of
/// `ElementTy` elements (FloatType: a dequantize, IntegerType: a quantize).
/// Anchored on every op because the root may be an arith op on tensors, a
/// TOSA op or any linalg op with the formula in its body.
template <typename ElementTy> class RaiseDecomposition : public RewritePattern {
public:
  using RaiseFn = LogicalResult (*)(PatternRewriter &, Operation *);

  RaiseDecomposition(MLIRContext *context, RaiseFn raise)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        raise(raise) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = getRootType(op);
    if (!type || !isa<ElementTy>(type.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "not one static tensor of the element kind raised here");
    return raise(rewriter, op);
  }

private:
  RaiseFn raise;
};

/// Moves `value` across op boundaries without changing what it computes:
/// into the body of the linalg op that produced it (identity generics and
/// copies included), out of a body through the block argument of an input,
/// and through casts and reshapes to the type the value already has.
EwValue normalize(EwValue value);

/// The operation that defines `value` if it is one of the elementwise ops
/// the decompositions are made of, with its operands seen from the root.
std::optional<EwOp> classify(const EwValue &value);

/// As classify, when the operation is one of `OpTys`.
template <typename... OpTys> std::optional<EwOp> matchOp(const EwValue &value) {
  std::optional<EwOp> op = classify(value);
  if (!op || !isa<OpTys...>(op->op))
    return std::nullopt;
  return op;
}

/// The element type of `op`'s (single) result.
Type elementTypeOf(Operation *op);
/// The element type of `op`'s first operand.
Type operandElementTypeOf(Operation *op);

/// An int-to-float conversion: arith.sitofp / uitofp or a TOSA cast (TOSA
/// integers are signed).
bool isIntToFloat(Operation *op);
/// A float-to-float conversion: arith.extf / truncf or a TOSA cast.
bool isFloatToFloat(Operation *op);
/// Widening float casts never change a value.
bool isExactWidening(Operation *op);

/// The root tensor itself: identity map, same shape, a tensor.
std::optional<Value> matchRootShaped(const EwValue &value,
                                     ArrayRef<int64_t> shape);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_ELEMENTWISECHAIN_H
