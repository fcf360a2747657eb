//===- PatternDriver.h - apply exactly a pass's own patterns ----*- C++ -*-===//
//
// Internal: the transformation passes that promise to leave everything they
// do not rewrite byte-identical run their patterns with this driver: no
// folding, no constant CSE and no region simplification of the IR around.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_PATTERNDRIVER_H
#define QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_PATTERNDRIVER_H

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block::detail {

/// Applies `patterns` to `root` greedily and nothing else.
inline LogicalResult applyOnlyPatterns(Operation *root,
                                       RewritePatternSet &&patterns) {
  GreedyRewriteConfig config;
  config.enableFolding(false);
  config.enableConstantCSE(false);
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return applyPatternsGreedily(root, std::move(patterns), config);
}

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_DIALECT_QUANTBLOCK_TRANSFORMS_PATTERNDRIVER_H
