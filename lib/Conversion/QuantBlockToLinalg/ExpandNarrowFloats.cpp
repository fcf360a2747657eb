//===- ExpandNarrowFloats.cpp - exact extensions from narrow floats -------===//
//
// --quant-block-expand-narrow-floats: see Passes.td. The decoding is the one
// dequantize uses (ScalarCodegen.h), so a value decodes to the same bits
// whichever way it reaches f32.
//
//===----------------------------------------------------------------------===//

#include "ScalarCodegen.h"

#include "quant-block/Conversion/Passes.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_EXPANDNARROWFLOATS
#include "quant-block/Conversion/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// The float types no backend here computes with: the OCP narrow formats
/// and E8M0.
static bool isNarrowFloat(Type type) {
  Type element = getElementTypeOrSelf(type);
  return isOCPFloatStorageType(element) || isa<Float8E8M0FNUType>(element);
}

namespace {

struct ExpandNarrowFloatExtension : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Value in = op.getIn();
    if (!isNarrowFloat(in.getType()) || isa<ShapedType>(in.getType()))
      return rewriter.notifyMatchFailure(op, "not a narrow float scalar");
    // emitScaleToF32 decodes E8M0 by bit placement and the OCP formats with
    // emitDecodeOCPFloat; both are exact.
    Value value = emitScaleToF32(rewriter, op.getLoc(), in);
    // Every value of these types is exact in the (wider) result type too.
    rewriter.replaceOp(
        op, convertFloat(rewriter, op.getLoc(), value, op.getType()));
    return success();
  }
};

struct ExpandNarrowFloatsPass
    : public quant_block::impl::ExpandNarrowFloatsBase<ExpandNarrowFloatsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandNarrowFloatExtension>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // What is left cannot be lowered: say so at each op rather than leaving
    // it to fail in the LLVM translation.
    bool anyLeft = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
          isa<arith::BitcastOp, arith::ConstantOp>(op))
        return;
      Type narrow;
      for (Type type :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
        if (!narrow && isNarrowFloat(type))
          narrow = type;
      if (!narrow)
        return;
      anyLeft = true;
      if (isa<arith::ExtFOp>(op)) {
        op->emitOpError() << "on " << narrow
                          << " is expanded on scalars only; run "
                             "--convert-elementwise-to-linalg first";
        return;
      }
      op->emitOpError() << "on " << getElementTypeOrSelf(narrow)
                        << " is not lowered: only extensions from it are "
                           "(exactly); convert to it with "
                           "quant_block.quantize, whose scheme defines the "
                           "rounding and the saturation";
    });
    if (anyLeft)
      signalPassFailure();
  }
};

} // namespace
