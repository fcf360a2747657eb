//===- CPUFuseElementwise.cpp - fuse elementwise consumers ----------------===//
//
// --quant-block-fuse-elementwise: producer-consumer fusion of elementwise
// linalg ops on tensors, with the reshapes between them (the collapse of a
// block iteration space) propagated by expansion. Only single-use producers
// that the consumer reads through a permutation are fused, so no work is
// duplicated: a producer read with a broadcast (the quantized activations of
// an i32 matmul, shared by every output column) would be recomputed for
// every element along the broadcast dimensions, a division and a rounding per
// multiply-add.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/Common/Passes.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "quant-block/Codegen/Common/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {
/// Fuses a single-use elementwise producer generic into its consumer. (The
/// upstream pattern set also folds splat constants into bodies, which would
/// turn a splat of an unsigned storage type, e.g. ui4 zero points, into an
/// invalid scalar arith.constant.)
struct FuseSingleUseProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!producer || !producer->hasOneUse() ||
          !linalg::areElementwiseOpsFusable(&operand) ||
          !consumer.getMatchingIndexingMap(&operand).isPermutation())
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      for (OpResult result : consumer->getResults())
        rewriter.replaceAllUsesWith(result, fused->replacements.lookup(result));
      rewriter.eraseOp(consumer);
      return success();
    }
    return failure();
  }
};

/// A generic that never reads its init (elementwise ops converted from arith
/// write into their first operand) gets a fresh tensor.empty instead, so the
/// operand has only its input use and its producer can fuse.
struct DropUnreadInit : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (op.payloadUsesValueFromOperand(&init) ||
          init.get().getDefiningOp<tensor::EmptyOp>())
        continue;
      rewriter.setInsertionPoint(op);
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, op.getLoc(), init.get());
      Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), sizes,
                                            getElementTypeOrSelf(init.get()));
      rewriter.modifyOpInPlace(op, [&] { init.set(empty); });
      changed = true;
    }
    return success(changed);
  }
};

struct FuseElementwisePass
    : public mlir::quant_block::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    linalg::ControlFusionFn singleUseProducer = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    RewritePatternSet patterns(ctx);
    patterns.add<FuseSingleUseProducer, DropUnreadInit>(ctx);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      singleUseProducer);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    // A pipeline stage (PatternDriver.h): the upstream fusion patterns work
    // on canonical forms, and folding cleans up what fusion leaves behind.
    if (failed(applyPatternsAndFold(getOperation(), std::move(patterns),
                                    "elementwise fusion")))
      return signalPassFailure();
  }
};
} // namespace
