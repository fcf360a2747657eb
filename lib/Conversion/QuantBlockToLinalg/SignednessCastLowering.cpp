//===- SignednessCastLowering.cpp - i8 <-> ui8 tensor.bitcast -------------===//
//
// --quant-block-raise reinterprets a frontend's signless integer tensors as
// the unsigned storage of a scheme (i8 -> ui8) with tensor.bitcast, and the
// lowered parts are signless again. MLIR 22 cannot bufferize a tensor.bitcast,
// so a bitcast that only changes the signedness of integer elements becomes
// an elementwise generic of unrealized casts, which vanish in the LLVM
// lowering (LLVM integers have no signedness).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

bool mlir::quant_block::detail::isSignednessCast(tensor::BitcastOp op) {
  auto from = dyn_cast<IntegerType>(op.getSource().getType().getElementType());
  auto to = dyn_cast<IntegerType>(op.getType().getElementType());
  return from && to && from != to && from.getWidth() == to.getWidth() &&
         isa<RankedTensorType>(op.getSource().getType()) &&
         isa<RankedTensorType>(op.getType());
}

namespace {

struct SignednessCastLowering : public OpRewritePattern<tensor::BitcastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::BitcastOp op,
                                PatternRewriter &rewriter) const override {
    if (!isSignednessCast(op))
      return rewriter.notifyMatchFailure(op, "not a signedness-only cast");
    rewriter.replaceOp(op, castTensorElements(rewriter, op.getLoc(),
                                              op.getSource(), op.getType()));
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populateSignednessCastPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SignednessCastLowering>(patterns.getContext());
}
