//===- CPULowerReductions.cpp - order-aware multi-reduction lowering ------===//
//
// --quant-block-cpu-lower-reductions: see Passes.td. The upstream lowering
// patterns are applied twice, each time to the reductions (and the
// reductions the patterns create from them) of one class.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPULOWERREDUCTIONS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// Whether the result of combining with `kind` depends on the order of the
/// terms (float addition and multiplication round at every step).
static bool isOrderSensitive(vector::MultiDimReductionOp op) {
  if (!isa<FloatType>(getElementTypeOrSelf(op.getSourceVectorType())))
    return false;
  vector::CombiningKind kind = op.getKind();
  return kind == vector::CombiningKind::ADD ||
         kind == vector::CombiningKind::MUL;
}

namespace {
struct CPULowerReductionsPass
    : public quant_block::impl::CPULowerReductionsBase<CPULowerReductionsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    for (bool ordered : {true, false}) {
      SmallVector<Operation *> reductions;
      getOperation().walk([&](vector::MultiDimReductionOp op) {
        if (isOrderSensitive(op) == ordered)
          reductions.push_back(op);
      });
      if (reductions.empty())
        continue;
      RewritePatternSet patterns(ctx);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, ordered
                        ? vector::VectorMultiReductionLowering::InnerParallel
                        : vector::VectorMultiReductionLowering::InnerReduction);
      // Not one of PatternDriver.h's drivers: the patterns must see only the
      // reductions of this class (and what they create from them), so the
      // driver is given that op list.
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      if (failed(
              applyOpPatternsGreedily(reductions, std::move(patterns), config)))
        return signalPassFailure();
    }
  }
};
} // namespace
