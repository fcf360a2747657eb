//===- Raise.cpp - --quant-block-raise ------------------------------------===//
//
// Folds the ways other frontends spell block-wise quantization into
// quant_block ops. The pass only collects and runs the pattern families,
// each in its own file so that an embedder can take the ones its input
// needs:
//
//  * RaiseDequantize.cpp: `(cast(q) - expand(zp)) * expand(s)` and
//    `cast(q) * expand(s)` (also `cast(q - zp)`);
//  * RaiseQuantize.cpp: `convert(clamp(round(x / expand(s)) + expand(zp)))`;
//  * RaiseUpstreamQuant.cpp: upstream `quant.dcast`, `quant.qcast` and
//    `quant.scast` on `!quant.uniform` per-tensor, per-axis and sub-channel
//    types.
//
// The first two read the elementwise part the same way, whatever mix of
// arith/math, TOSA and linalg.generic spells it (ElementwiseChain.h), and
// find the parameters with RaiseParameters.h; where `expand` came from is
// BlockExpansion.h's business. A decomposition is raised only when the
// quant_block op computes exactly the same values under docs/Numerics.md;
// every refusal leaves the IR untouched.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_QUANTBLOCKRAISE
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

void mlir::quant_block::populateQuantBlockRaisePatterns(
    RewritePatternSet &patterns) {
  populateQuantBlockRaiseDequantizePatterns(patterns);
  populateQuantBlockRaiseQuantizePatterns(patterns);
  populateQuantBlockRaiseUpstreamQuantPatterns(patterns);
}

namespace {
struct QuantBlockRaisePass
    : public mlir::quant_block::impl::QuantBlockRaiseBase<QuantBlockRaisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQuantBlockRaisePatterns(patterns);
    // Only these rewrites (PatternDriver.h); folding in particular would
    // erase what this pass is here to raise (upstream folds
    // quant.dcast(quant.qcast(x)) to x). Not converging only means some
    // decomposition stayed as it was, which is not an error here.
    (void)applyOnlyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
