//===- ExpandNarrowFloats.cpp - exact extensions from narrow floats -------===//
//
// --quant-block-expand-narrow-floats: see Passes.td. The decoding is the one
// dequantize uses (NarrowFloatCodegen.h), so a value decodes to the same bits
// whichever way it reaches f32.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/Common/Passes.h"
#include "quant-block/Dialect/QuantBlock/Utils/NarrowFloatCodegen.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_EXPANDNARROWFLOATS
#include "quant-block/Codegen/Common/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

/// The f32 `value` as `type` (f16, bf16, f32, f64, or vectors of them);
/// exact for the decoded value of any narrow float that `type` can hold
/// (arith.extf only widens).
static Value convertDecoded(OpBuilder &b, Location loc, Value value,
                            Type type) {
  unsigned width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  if (width == 32)
    return value;
  if (width > 32)
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}

namespace {

struct ExpandNarrowFloatExtension : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Value in = op.getIn();
    if (!isNarrowFloatType(in.getType()) || isa<TensorType>(in.getType()))
      return rewriter.notifyMatchFailure(op,
                                         "not a narrow float scalar or vector");
    Value value = emitNarrowFloatToF32(rewriter, op.getLoc(), in);
    // Every value of these types is exact in the (wider) result type too.
    rewriter.replaceOp(
        op, convertDecoded(rewriter, op.getLoc(), value, op.getType()));
    return success();
  }
};

struct ExpandNarrowFloatsPass
    : public quant_block::impl::ExpandNarrowFloatsBase<ExpandNarrowFloatsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandNarrowFloatExtension>(&getContext());
    if (failed(applyOnlyPatterns(getOperation(), std::move(patterns),
                                 "narrow float expansion")))
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
        if (!narrow && isNarrowFloatType(type))
          narrow = type;
      if (!narrow)
        return;
      anyLeft = true;
      if (isa<arith::ExtFOp>(op)) {
        op->emitOpError() << "on " << narrow
                          << " is expanded on scalars and vectors only; run "
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
