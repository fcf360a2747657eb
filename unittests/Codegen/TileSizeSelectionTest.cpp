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

// Outer product contractions: rows x vectors of accumulators.

OuterProductProblem outerProduct(llvm::ArrayRef<int64_t> ranges, size_t row,
                                 size_t vector,
                                 llvm::ArrayRef<size_t> reductions,
                                 int64_t lanes = 16,
                                 int64_t accumulators = 24) {
  OuterProductProblem problem;
  problem.loopRanges = ranges;
  problem.rowLoop = row;
  problem.vectorLoop = vector;
  problem.reductionLoops.assign(reductions.begin(), reductions.end());
  problem.lanes = lanes;
  problem.accumulators = accumulators;
  return problem;
}

TEST(OuterProductTiles, MatrixProduct) {
  // C[m, n] += A[m, k] B[k, n], AVX-512: 4 vectors of 16 columns, and of
  // the 6 rows that 24 accumulators allow, 4 divide 512.
  llvm::SmallVector<int64_t> ranges = {512, 1024, 4096};
  OuterProductProblem problem = outerProduct(ranges, 0, 1, {2});
  EXPECT_EQ(chooseCPUOuterProductTileSizes(problem), (Sizes{4, 64, 1}));
  // AVX2: 8 lanes, 12 accumulators: 4 vectors of 8, 3 rows allowed, 2
  // divide 512.
  problem.lanes = 8;
  problem.accumulators = 12;
  EXPECT_EQ(chooseCPUOuterProductTileSizes(problem), (Sizes{2, 32, 1}));
  // The reduction runs innermost, the rows inside the columns.
  EXPECT_EQ(getOuterProductLoopOrder(problem), (Sizes{1, 0, 2}));
}

TEST(OuterProductTiles, AttentionScores) {
  // scores[t, k, g, b, l] += q[t, k, g, i] * keys[k, b, i, l]: 64 positions
  // per block (kept whole: 4 vectors), 4 of 512 tokens, one head and one
  // block at a time; a loop of one iteration (g) needs no tile loop.
  llvm::SmallVector<int64_t> ranges = {512, 32, 1, kDynamic, 64, 128};
  OuterProductProblem problem = outerProduct(ranges, 0, 4, {5});
  EXPECT_EQ(chooseCPUOuterProductTileSizes(problem), (Sizes{4, 1, 0, 1, 0, 1}));
  EXPECT_EQ(getOuterProductLoopOrder(problem), (Sizes{1, 2, 3, 4, 0, 5}));
}

TEST(OuterProductTiles, SeveralReductionLoopsRunInnermostInOrder) {
  // out[t, h, i] += p[t, h, b, l] * v[h, b, l, i].
  llvm::SmallVector<int64_t> ranges = {512, 32, 128, kDynamic, 64};
  OuterProductProblem problem = outerProduct(ranges, 0, 2, {3, 4});
  EXPECT_EQ(chooseCPUOuterProductTileSizes(problem), (Sizes{4, 1, 64, 1, 1}));
  EXPECT_EQ(getOuterProductLoopOrder(problem), (Sizes{1, 2, 0, 3, 4}));
}

TEST(OuterProductTiles, RowsThatDoNotDivide) {
  // 7 rows: only tiles of one row fit the 6 allowed.
  llvm::SmallVector<int64_t> ranges = {7, 64, 256};
  EXPECT_EQ(chooseCPUOuterProductTileSizes(outerProduct(ranges, 0, 1, {2})),
            (Sizes{1, 0, 1}));
}

TEST(OuterProductTiles, NoTileWithoutWholeStaticVectors) {
  // Columns that are not whole vectors, a dynamic vector or row loop.
  llvm::SmallVector<int64_t> partial = {64, 40, 256};
  EXPECT_EQ(chooseCPUOuterProductTileSizes(outerProduct(partial, 0, 1, {2})),
            std::nullopt);
  llvm::SmallVector<int64_t> dynamicColumns = {64, kDynamic, 256};
  EXPECT_EQ(
      chooseCPUOuterProductTileSizes(outerProduct(dynamicColumns, 0, 1, {2})),
      std::nullopt);
  llvm::SmallVector<int64_t> dynamicRows = {kDynamic, 64, 256};
  EXPECT_EQ(
      chooseCPUOuterProductTileSizes(outerProduct(dynamicRows, 0, 1, {2})),
      std::nullopt);
}

TEST(OuterProductTiles, ThreadsTakeTheOutermostLoop) {
  // Attention: whole heads per thread, so that each thread keeps the rows
  // of a panel of keys together.
  llvm::SmallVector<int64_t> ranges = {512, 32, 1, kDynamic, 64, 128};
  OuterProductProblem problem = outerProduct(ranges, 0, 4, {5});
  Sizes sizes = *chooseCPUOuterProductTileSizes(problem);
  Sizes order = getOuterProductLoopOrder(problem);
  EXPECT_EQ(chooseCPUOuterProductParallelLoop(problem, sizes, order, 65536),
            std::optional<size_t>(1));
  // A matrix product: panels of columns.
  llvm::SmallVector<int64_t> matmul = {512, 1024, 4096};
  OuterProductProblem product = outerProduct(matmul, 0, 1, {2});
  EXPECT_EQ(chooseCPUOuterProductParallelLoop(
                product, *chooseCPUOuterProductTileSizes(product),
                getOuterProductLoopOrder(product), 65536),
            std::optional<size_t>(1));
  // Small nests stay on one thread; the reduction is never split.
  llvm::SmallVector<int64_t> small = {8, 64, 64};
  OuterProductProblem tiny = outerProduct(small, 0, 1, {2});
  EXPECT_EQ(chooseCPUOuterProductParallelLoop(
                tiny, *chooseCPUOuterProductTileSizes(tiny),
                getOuterProductLoopOrder(tiny), 65536),
            std::nullopt);
  llvm::SmallVector<int64_t> onlyReduction = {4, 16, 1 << 20};
  OuterProductProblem deep = outerProduct(onlyReduction, 0, 1, {2});
  EXPECT_EQ(chooseCPUOuterProductParallelLoop(
                deep, *chooseCPUOuterProductTileSizes(deep),
                getOuterProductLoopOrder(deep), 1),
            std::nullopt);
}

} // namespace
