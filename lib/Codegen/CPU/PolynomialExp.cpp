//===- PolynomialExp.cpp - f32 exp as a polynomial ------------------------===//
//
// --quant-block-cpu-polynomial-exp: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"
#include "quant-block/Support/PatternDriver.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUPOLYNOMIALEXP
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {
struct CPUPolynomialExpPass
    : public quant_block::impl::CPUPolynomialExpBase<CPUPolynomialExpPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Only exp: the approximations of the other functions are not needed
    // here, and each changes results the way this one does.
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return name == "math.exp"; });
    // Only the patterns, no folding: here (after
    // arith-emulate-unsupported-floats, before the bf16 / f16 conversions
    // are expanded) the greedy driver's folding changed bf16 and f16
    // products' bits (test/Differential/differential_matmul.test): the
    // emulation's rounding steps must stay as they are.
    if (failed(quant_block::reportNonConvergence(
            quant_block::applyOnlyPatterns(getOperation(), std::move(patterns)),
            getOperation(), "polynomial exp")))
      return signalPassFailure();
  }
};
} // namespace
