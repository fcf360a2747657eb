//===- DotProducts.cpp - 4-way byte dot products as PTX dp4a --------------===//
//
// --quant-block-nvvm-dot-products: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/NVVM/Passes.h"

#include "quant-block/Codegen/GPU/ByteDotProducts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_NVVMDOTPRODUCTS
#include "quant-block/Codegen/NVVM/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {

struct ReductionToDp4a : ByteDotProductPattern {
  using ByteDotProductPattern::ByteDotProductPattern;

protected:
  Value build(PatternRewriter &rewriter, Location loc,
              const ByteDotProduct &dot) const override {
    auto type = [&](const ByteDotFactor &factor) {
      return NVVM::DotAccumulateTypeAttr::get(
          rewriter.getContext(), factor.isSigned
                                     ? NVVM::DotAccumulateType::SIGNED
                                     : NVVM::DotAccumulateType::UNSIGNED);
    };
    Value acc = dot.acc ? dot.acc
                        : arith::ConstantOp::create(
                              rewriter, loc, rewriter.getI32IntegerAttr(0));
    return NVVM::DotAccumulate4WayOp::create(
        rewriter, loc, rewriter.getI32Type(),
        dot.lhs.materialize(rewriter, loc), type(dot.lhs),
        dot.rhs.materialize(rewriter, loc), type(dot.rhs), acc);
  }
};

struct NVVMDotProductsPass
    : public quant_block::impl::NVVMDotProductsBase<NVVMDotProductsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReductionToDp4a>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
