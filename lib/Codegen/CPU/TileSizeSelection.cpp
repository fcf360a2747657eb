//===- TileSizeSelection.cpp - CPU tile sizes as a pure function ----------===//
//
// See TileSizeSelection.h. No IR here: the vectorize pass translates a
// linalg op into a TileSizeProblem.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/TileSizeSelection.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <optional>

using namespace mlir::quant_block;

int64_t mlir::quant_block::getLargestDivisorAtMost(int64_t range,
                                                   int64_t limit) {
  int64_t divisor = std::max<int64_t>(std::min(limit, range), 1);
  while (range % divisor != 0)
    --divisor;
  return divisor;
}

llvm::SmallVector<int64_t>
mlir::quant_block::chooseCPUTileSizes(const TileSizeProblem &problem) {
  llvm::ArrayRef<int64_t> ranges = problem.loopRanges;
  assert(problem.isParallel.size() == ranges.size() &&
         "one iterator kind per loop");
  auto isDynamic = [](int64_t range) { return range < 0; };
  llvm::SmallVector<int64_t> sizes(ranges.size(), 1);
  int64_t remaining = std::max<int64_t>(problem.budget, 1);
  std::optional<size_t> laneLoop;
  if (problem.hasOrderedFloatSum) {
    for (size_t d = ranges.size(); d-- > 0;) {
      if (!problem.isParallel[d] || isDynamic(ranges[d]) || ranges[d] == 1)
        continue;
      int64_t size = getLargestDivisorAtMost(
          ranges[d], std::min(problem.lanes, remaining));
      if (size == 1)
        break;
      laneLoop = d;
      sizes[d] = size == ranges[d] ? 0 : size;
      remaining /= size;
      break;
    }
  }
  for (size_t d = ranges.size(); d-- > 0;) {
    if (laneLoop && d == *laneLoop)
      continue;
    int64_t range = ranges[d];
    if (isDynamic(range) || remaining == 1)
      break;
    if (range <= remaining) {
      sizes[d] = 0;
      remaining /= std::max<int64_t>(range, 1);
      continue;
    }
    sizes[d] = getLargestDivisorAtMost(range, remaining);
    break;
  }
  return sizes;
}

/// The iterations of a nest of loops of `ranges` for the threads'
/// threshold. A dynamic loop counts as one iteration: the static ones must
/// make the nest large enough on their own (a decode step's attention over a
/// dynamic context stays on one thread, a prefill's is split by tokens).
/// Saturates: only the comparison with the threshold matters.
static int64_t countStaticIterations(llvm::ArrayRef<int64_t> ranges) {
  int64_t iterations = 1;
  for (int64_t range : ranges) {
    if (range < 0)
      continue;
    iterations = range != 0 && iterations > INT64_MAX / range
                     ? INT64_MAX
                     : iterations * range;
  }
  return iterations;
}

std::optional<size_t>
mlir::quant_block::chooseCPUParallelLoop(const TileSizeProblem &problem,
                                         llvm::ArrayRef<int64_t> tileSizes,
                                         int64_t minIterations) {
  llvm::ArrayRef<int64_t> ranges = problem.loopRanges;
  assert(tileSizes.size() == ranges.size() && "one tile size per loop");
  if (countStaticIterations(ranges) < minIterations)
    return std::nullopt;
  std::optional<size_t> chosen;
  for (size_t d = 0, e = ranges.size(); d < e; ++d) {
    if (!problem.isParallel[d] || tileSizes[d] <= 0 ||
        ranges[d] / tileSizes[d] < 2)
      continue;
    if (!chosen || ranges[d] > ranges[*chosen])
      chosen = d;
  }
  return chosen;
}

std::optional<llvm::SmallVector<int64_t>>
mlir::quant_block::chooseCPUOuterProductTileSizes(
    const OuterProductProblem &problem) {
  llvm::ArrayRef<int64_t> ranges = problem.loopRanges;
  int64_t lanes = std::max<int64_t>(problem.lanes, 1);
  int64_t columns = ranges[problem.vectorLoop];
  int64_t rows = ranges[problem.rowLoop];
  if (columns <= 0 || rows <= 0 || columns % lanes != 0)
    return std::nullopt;
  // Whole vectors only: the largest divisor of the vector count.
  int64_t vectors = getLargestDivisorAtMost(
      columns / lanes, std::min<int64_t>(4, problem.accumulators));
  int64_t rowTile = getLargestDivisorAtMost(
      rows, std::max<int64_t>(problem.accumulators / vectors, 1));
  llvm::SmallVector<int64_t> sizes(ranges.size(), 1);
  auto wholeOr = [](int64_t tile, int64_t range) {
    return tile == range ? 0 : tile;
  };
  sizes[problem.vectorLoop] = wholeOr(vectors * lanes, columns);
  sizes[problem.rowLoop] = wholeOr(rowTile, rows);
  // Loops of one iteration need no tile loop.
  for (auto [size, range] : llvm::zip(sizes, ranges))
    if (range == 1)
      size = 0;
  return sizes;
}

llvm::SmallVector<int64_t> mlir::quant_block::getOuterProductLoopOrder(
    const OuterProductProblem &problem) {
  llvm::SmallVector<int64_t> order;
  for (size_t d = 0, e = problem.loopRanges.size(); d < e; ++d)
    if (d != problem.vectorLoop && d != problem.rowLoop &&
        !llvm::is_contained(problem.reductionLoops, d))
      order.push_back(d);
  order.push_back(problem.vectorLoop);
  order.push_back(problem.rowLoop);
  order.append(problem.reductionLoops.begin(), problem.reductionLoops.end());
  return order;
}

std::optional<size_t> mlir::quant_block::chooseCPUOuterProductParallelLoop(
    const OuterProductProblem &problem, llvm::ArrayRef<int64_t> tileSizes,
    llvm::ArrayRef<int64_t> order, int64_t minIterations) {
  llvm::ArrayRef<int64_t> ranges = problem.loopRanges;
  if (countStaticIterations(ranges) < minIterations)
    return std::nullopt;
  for (int64_t d : order) {
    if (llvm::is_contained(problem.reductionLoops, static_cast<size_t>(d)) ||
        ranges[d] <= 0 || tileSizes[d] <= 0 || ranges[d] / tileSizes[d] < 2)
      continue;
    return static_cast<size_t>(d);
  }
  return std::nullopt;
}
