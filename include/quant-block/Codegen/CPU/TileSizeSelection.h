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

/// A float contraction that is a sum of outer products: `out += a * b`, where
/// the innermost dimension of `out` (the vector loop) is also the innermost
/// one of `b` and absent from `a`, and a parallel loop of `a` and `out` that
/// `b` lacks (the row loop) reuses each vector of `b`: a matrix product
/// `C[m, n] += A[m, k] * B[k, n]` with m the rows, n the vectors and k the
/// reduction, and the two products of an attention.
struct OuterProductProblem {
  /// The static size of each loop, outermost first (negative: dynamic).
  llvm::ArrayRef<int64_t> loopRanges;
  size_t rowLoop = 0;
  size_t vectorLoop = 0;
  /// The reduction loops, outermost first (a sum over positions taken in
  /// blocks has two).
  llvm::SmallVector<size_t, 2> reductionLoops;
  /// How many elements one vector register holds.
  int64_t lanes = 1;
  /// How many vector registers the accumulator tile may hold.
  int64_t accumulators = 1;
};

/// Tile sizes (0: the loop is kept whole) for a register tile of an outer
/// product contraction: the vector loop by its largest divisor that is a
/// multiple of `lanes` and at most 4 vectors, the row loop by its largest
/// divisor that keeps the tile within `accumulators` vector registers, the
/// reductions and every other loop by 1. The reduction loops, run innermost,
/// then add one outer product per iteration to accumulators that stay in
/// registers: each vector of `b` is loaded once per row tile and each element
/// of `a` broadcast once per vector tile, and every output still adds its
/// terms in reduction order. None when the vector loop is dynamic or has no
/// such divisor, or when the row loop is dynamic.
std::optional<llvm::SmallVector<int64_t>>
chooseCPUOuterProductTileSizes(const OuterProductProblem &problem);

/// The order of the tile loops of an outer product contraction, outermost
/// first: the other loops in their order, then the vector loop, the row loop
/// and the reduction loops innermost, in their order. The row tiles inside a
/// vector tile reuse its panel of `b` (every reduction step of a few vectors)
/// from the cache.
llvm::SmallVector<int64_t>
getOuterProductLoopOrder(const OuterProductProblem &problem);

/// The loop whose tiles run on different threads for an outer product
/// contraction tiled by `tileSizes` with its loops nested in `order`
/// (getOuterProductLoopOrder): the outermost static loop of at least two
/// tiles, never the reduction, in a nest of at least `minIterations` static
/// iterations. Outermost, so that each thread keeps the loop order inside
/// its share: the row tiles of a panel of `b` still follow one another (for
/// an attention, each thread takes whole heads; for a matrix product, whole
/// panels of columns).
std::optional<size_t> chooseCPUOuterProductParallelLoop(
    const OuterProductProblem &problem, llvm::ArrayRef<int64_t> tileSizes,
    llvm::ArrayRef<int64_t> order, int64_t minIterations);

/// The largest divisor of `range` that is at most `limit` (at least 1).
int64_t getLargestDivisorAtMost(int64_t range, int64_t limit);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_CPU_TILESIZESELECTION_H
