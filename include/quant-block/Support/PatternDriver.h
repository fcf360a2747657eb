//===- PatternDriver.h - the one greedy-driver policy -----------*- C++ -*-===//
//
// How every quant-block pass applies its rewrite patterns. There are two
// kinds of pass, and each kind has one driver:
//
// * Transformations and expansions that a user runs on their own IR (raise,
//   propagate, fold-constants, fuse, the narrow-float and bf16 / f16
//   expansions) promise to change only what their patterns rewrite: no
//   folding, no constant CSE or hoisting, no region simplification of the IR
//   around. They use applyOnlyPatterns. (Ops the rewrites make dead are still
//   erased.)
// * Code generation stages inside a pipeline (vectorization clean-ups, vector
//   flattening, elementwise fusion) produce IR that only the next stage
//   reads, and upstream patterns there expect canonical forms. They use
//   applyPatternsAndFold: the upstream defaults, with folding and region
//   simplification.
//
// A pass that does something else says why next to the call:
// --quant-block-select-zero-point makes one decision per op with
// walkAndApplyPatterns, and --quant-block-cpu-lower-reductions restricts the
// driver to the reductions of one class at a time.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_SUPPORT_PATTERNDRIVER_H
#define QUANT_BLOCK_SUPPORT_PATTERNDRIVER_H

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {

/// The configuration of applyOnlyPatterns.
inline GreedyRewriteConfig getOnlyPatternsConfig() {
  GreedyRewriteConfig config;
  config.enableFolding(false);
  config.enableConstantCSE(false);
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return config;
}

/// Applies `patterns` to `root` greedily and nothing else. Fails if the
/// rewrites do not converge.
inline LogicalResult applyOnlyPatterns(Operation *root,
                                       RewritePatternSet &&patterns) {
  return applyPatternsGreedily(root, std::move(patterns),
                               getOnlyPatternsConfig());
}

/// Applies `patterns` to `root` with the upstream defaults: folding,
/// constant CSE and region simplification. For code generation stages.
inline LogicalResult applyPatternsAndFold(Operation *root,
                                          RewritePatternSet &&patterns) {
  return applyPatternsGreedily(root, std::move(patterns));
}

/// `converged`, after reporting at `root` that the patterns of `what` did
/// not converge if they did not: the greedy driver itself says nothing, so
/// a pass that fails on it must.
inline LogicalResult reportNonConvergence(LogicalResult converged,
                                          Operation *root, StringRef what) {
  if (succeeded(converged))
    return success();
  return root->emitError()
         << what
         << " did not converge (its rewrite patterns kept rewriting each "
            "other's results)";
}

/// applyOnlyPatterns that reports a failure to converge as an error.
inline LogicalResult applyOnlyPatterns(Operation *root,
                                       RewritePatternSet &&patterns,
                                       StringRef what) {
  return reportNonConvergence(applyOnlyPatterns(root, std::move(patterns)),
                              root, what);
}

/// applyPatternsAndFold that reports a failure to converge as an error.
inline LogicalResult applyPatternsAndFold(Operation *root,
                                          RewritePatternSet &&patterns,
                                          StringRef what) {
  return reportNonConvergence(applyPatternsAndFold(root, std::move(patterns)),
                              root, what);
}

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_SUPPORT_PATTERNDRIVER_H
