//===- TileSizeSelectionTest.cpp - CPU tile-size selection
//-----------------===//
//
// chooseCPUTileSizes on the loop nests the quant_block lowering produces:
// the expanded block iteration space of a dequantization, an ordered float
// sum (the fused matmul), dynamic loops, and budgets that do not divide.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/TileSizeSelection.h"

#include "gtest/gtest.h"

using namespace mlir::quant_block;

namespace {

constexpr int64_t kDynamic = -1;

llvm::SmallVector<int64_t> choose(llvm::ArrayRef<int64_t> ranges,
                                  llvm::ArrayRef<bool> isParallel,
                                  int64_t budget, int64_t lanes = 8,
                                  bool orderedSum = false) {
  TileSizeProblem problem;
  problem.loopRanges = ranges;
  problem.isParallel = isParallel;
  problem.budget = budget;
  problem.lanes = lanes;
  problem.hasOrderedFloatSum = orderedSum;
  return chooseCPUTileSizes(problem);
}

using Sizes = llvm::SmallVector<int64_t>;

TEST(TileSizeSelection, LargestDivisorAtMost) {
  EXPECT_EQ(getLargestDivisorAtMost(4096, 64), 64);
  EXPECT_EQ(getLargestDivisorAtMost(100, 64), 50);
  EXPECT_EQ(getLargestDivisorAtMost(97, 64), 1); // a prime
  EXPECT_EQ(getLargestDivisorAtMost(12, 100), 12);
  EXPECT_EQ(getLargestDivisorAtMost(12, 0), 1);
}

TEST(TileSizeSelection, InnerLoopsKeptWholeWhileTheyFit) {
  // int4 dequantize, groups of 32: [rows, groups, 32]; 64 f32 per tile.
  // The 32-element group fits (0 = whole), then 2 groups of 64 / 32.
  EXPECT_EQ(choose({4096, 128, 32}, {true, true, true}, 64), (Sizes{1, 2, 0}));
}

TEST(TileSizeSelection, FirstLoopThatDoesNotFitIsTiledByADivisor) {
  EXPECT_EQ(choose({8, 100}, {true, true}, 64), (Sizes{1, 50}));
  // No divisor fits but 1: the loop is tiled by 1.
  EXPECT_EQ(choose({8, 97}, {true, true}, 64), (Sizes{1, 1}));
}

TEST(TileSizeSelection, WholeNestThatFitsIsNotTiled) {
  EXPECT_EQ(choose({4, 8}, {true, true}, 64), (Sizes{0, 0}));
}

TEST(TileSizeSelection, DynamicLoopsAreTiledByOne) {
  // Everything outside a dynamic loop stays 1, so tiles stay static.
  EXPECT_EQ(choose({16, kDynamic, 8}, {true, true, true}, 64),
            (Sizes{1, 1, 0}));
  EXPECT_EQ(choose({kDynamic}, {true}, 64), (Sizes{1}));
}

TEST(TileSizeSelection, OrderedSumPutsOutputsInTheLanes) {
  // Matrix-vector product y[n] = sum_k x[k] w[n, k], loops (n, k): the
  // output loop gets the 8 lanes first, k the rest of the budget (64 / 8).
  EXPECT_EQ(choose({4096, 4096}, {true, false}, 64, 8, /*orderedSum=*/true),
            (Sizes{8, 8}));
  // Without the ordered sum, k (innermost) would take the whole budget.
  EXPECT_EQ(choose({4096, 4096}, {true, false}, 64, 8, /*orderedSum=*/false),
            (Sizes{1, 64}));
}

TEST(TileSizeSelection, OrderedSumSkipsUnitAndDynamicOutputs) {
  // (m = 1, n, k): the unit m loop cannot carry lanes; n does.
  EXPECT_EQ(choose({1, 256, 512}, {true, true, false}, 64, 8, true),
            (Sizes{1, 8, 8}));
  // A dynamic n cannot carry lanes either: no lane loop at all, and the
  // reductions take the budget from the inside.
  EXPECT_EQ(choose({kDynamic, 512}, {true, false}, 64, 8, true),
            (Sizes{1, 64}));
}

TEST(TileSizeSelection, OrderedSumWithSmallOutputLoop) {
  // 4 outputs only: they are kept whole (0) in the lanes, and k gets
  // 64 / 4 = 16.
  EXPECT_EQ(choose({4, 512}, {true, false}, 64, 8, true), (Sizes{0, 16}));
}

std::optional<size_t> chooseParallel(llvm::ArrayRef<int64_t> ranges,
                                     llvm::ArrayRef<bool> isParallel,
                                     llvm::ArrayRef<int64_t> sizes,
                                     int64_t minIterations = 1 << 16) {
  TileSizeProblem problem;
  problem.loopRanges = ranges;
  problem.isParallel = isParallel;
  return chooseCPUParallelLoop(problem, sizes, minIterations);
}

TEST(TileSizeSelection, ParallelLoopIsTheOutputRowsOfAMatVec) {
  // [M, N, K blocks, 32]: N, not the unit M nor the reductions.
  EXPECT_EQ(chooseParallel({1, 4096, 128, 32}, {true, true, false, false},
                           {1, 8, 4, 0}),
            std::optional<size_t>(1));
  // M = 32: still N, the larger loop, so each thread reads its own rows.
  EXPECT_EQ(chooseParallel({32, 4096, 128, 32}, {true, true, false, false},
                           {1, 8, 4, 0}),
            std::optional<size_t>(1));
}

TEST(TileSizeSelection, ParallelLoopIsNeverAReduction) {
  EXPECT_EQ(chooseParallel({8, 1 << 20}, {true, false}, {0, 64}), std::nullopt);
}

TEST(TileSizeSelection, ParallelLoopTiesGoToTheOutermost) {
  EXPECT_EQ(chooseParallel({4096, 4096}, {true, true}, {1, 64}),
            std::optional<size_t>(0));
}

TEST(TileSizeSelection, SmallNestsStaySequential) {
  // 4096 iterations: below the threshold.
  EXPECT_EQ(chooseParallel({1, 4096}, {true, true}, {1, 64}), std::nullopt);
  // A dynamic loop counts as one iteration, and is never the one split.
  EXPECT_EQ(chooseParallel({kDynamic, 4096}, {true, true}, {1, 64}),
            std::nullopt);
  EXPECT_EQ(chooseParallel({kDynamic, 1 << 20}, {true, true}, {1, 64}),
            std::optional<size_t>(1));
  // Attention scores over a dynamic context: split by the 512 tokens.
  EXPECT_EQ(chooseParallel({512, 32, kDynamic, 128}, {true, true, true, false},
                           {1, 1, 1, 0}),
            std::optional<size_t>(0));
  // A loop kept whole (0) or of one tile is not split.
  EXPECT_EQ(chooseParallel({1 << 20, 8}, {true, true}, {0, 0}, 1),
            std::nullopt);
  EXPECT_EQ(chooseParallel({64, 1 << 20}, {true, false}, {64, 0}, 1),
            std::nullopt);
}

} // namespace
