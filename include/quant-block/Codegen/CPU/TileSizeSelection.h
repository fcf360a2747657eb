//===- TileSizeSelection.h - CPU tile sizes as a pure function --*- C++ -*-===//
//
// The CPU strategy's choice of tile sizes, apart from any IR, so that it can
// be unit-tested and reused by other drivers: --quant-block-cpu-vectorize
// describes each linalg op as a TileSizeProblem and tiles by the answer.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_CPU_TILESIZESELECTION_H
#define QUANT_BLOCK_CODEGEN_CPU_TILESIZESELECTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::quant_block {

/// What the tile-size choice looks at in a loop nest.
struct TileSizeProblem {
  /// The static size of each loop, outermost first; ShapedType::kDynamic
  /// (any negative value) for dynamic loops.
  llvm::ArrayRef<int64_t> loopRanges;
  /// Whether each loop is parallel (false: a reduction).
  llvm::ArrayRef<bool> isParallel;
  /// Whether the nest sums floats over its reduction loops. Such sums are
  /// ordered, so a vector along a reduction loop is one dependent chain.
  bool hasOrderedFloatSum = false;
  /// How many elements one tile may hold (vector bits * registers / widest
  /// element bits).
  int64_t budget = 1;
  /// How many elements one vector register holds (vector bits / widest
  /// element bits).
  int64_t lanes = 1;
};

/// Tile sizes (0: the loop is not tiled, kept whole): from the innermost
/// loop outwards, static loops are kept whole while they fit the budget, the
/// first that does not fit is tiled by its largest divisor that does, and
/// the rest (and every loop outside a dynamic one) by 1, so every tile is
/// static and needs no mask. With an ordered float sum, the innermost static
/// parallel loop of more than one iteration gets `lanes` elements (or its
/// largest divisor below that) first, so that each vector lane carries the
/// chain of one output and the lanes add in parallel.
llvm::SmallVector<int64_t> chooseCPUTileSizes(const TileSizeProblem &problem);

/// The loop whose tiles run on different threads, for a nest tiled by
/// `tileSizes` (chooseCPUTileSizes' answer), or none. Only a parallel loop
/// is split (never a reduction: each output keeps its one order of
/// additions, whatever the thread count), only one that is tiled into at
/// least two tiles (a static loop), and only in a nest whose static loops
/// alone make at least `minIterations` iterations (a dynamic loop counts as
/// one), so that small ops do not pay for starting threads. Of those, the
/// largest loop: the output rows of a matrix-vector product (N), not the tokens
/// (M), so that each thread streams its own rows of the weight; on ties the
/// outermost, so that each thread's tiles are contiguous.
std::optional<size_t> chooseCPUParallelLoop(const TileSizeProblem &problem,
                                            llvm::ArrayRef<int64_t> tileSizes,
                                            int64_t minIterations);

/// The largest divisor of `range` that is at most `limit` (at least 1).
int64_t getLargestDivisorAtMost(int64_t range, int64_t limit);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_CPU_TILESIZESELECTION_H
