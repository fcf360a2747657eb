//===- BlockMathTest.cpp - block shape arithmetic -------------------------===//
//
// Tests block shape resolution (right alignment, whole dimensions, dynamic
// sizes), the ceil(dim / block) contraction of ONNX's ragged blocks and
// WebNN's exact ones, block indices, and the blockwise reshape rule.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/BlockMath.h"

#include "gtest/gtest.h"

using namespace quant_block::numerics;
using llvm::SmallVector;

namespace {

TEST(BlockMathTest, ResolvesRightAligned) {
  EXPECT_EQ(resolveBlockShape({32}, {4, 8, 64}),
            (SmallVector<int64_t>{1, 1, 32}));
  EXPECT_EQ(resolveBlockShape({kWholeDimension, 32}, {4, 64}),
            (SmallVector<int64_t>{4, 32}));
  // Per-tensor: no block entries means every dimension is whole.
  EXPECT_EQ(resolveBlockShape({}, {3, 2, 5}), (SmallVector<int64_t>{3, 2, 5}));
  EXPECT_EQ(resolveBlockShape({1, kWholeDimension}, {kDynamic, kDynamic}),
            (SmallVector<int64_t>{1, kDynamic}));
}

TEST(BlockMathTest, ContractsWithCeil) {
  // ONNX blocked: ceil(10 / 4) = 3, the last block holds 2 elements.
  EXPECT_EQ(contractShape({7, 10}, {1, 4}), (SmallVector<int64_t>{7, 3}));
  // WebNN's implied blocks divide exactly.
  EXPECT_EQ(contractShape({6, 4, 5}, {2, 2, 5}),
            (SmallVector<int64_t>{3, 2, 1}));
  EXPECT_EQ(contractShape({kDynamic, 4096}, {1, 32}),
            (SmallVector<int64_t>{kDynamic, 128}));
  // A whole dynamic dimension has one scale.
  EXPECT_EQ(contractShape({kDynamic}, {kDynamic}), (SmallVector<int64_t>{1}));
  EXPECT_EQ(contractShape({0, 8}, {1, 4}), (SmallVector<int64_t>{0, 2}));
}

TEST(BlockMathTest, SameBlockPartition) {
  EXPECT_TRUE(isSameBlockPartition(32, 32, 128));
  EXPECT_FALSE(isSameBlockPartition(16, 32, 128));
  // Both cover a dimension of 20 in a single block.
  EXPECT_TRUE(isSameBlockPartition(20, 32, 20));
  EXPECT_FALSE(isSameBlockPartition(16, 32, 20));
  EXPECT_FALSE(isSameBlockPartition(kDynamic, 32, kDynamic));
}

TEST(BlockMathTest, LinearBlockIndex) {
  // [4, 10] in blocks [2, 4]: contracted [2, 3].
  EXPECT_EQ(linearBlockIndex({0, 0}, {4, 10}, {2, 4}), 0);
  EXPECT_EQ(linearBlockIndex({1, 9}, {4, 10}, {2, 4}), 2);
  EXPECT_EQ(linearBlockIndex({2, 4}, {4, 10}, {2, 4}), 4);
  EXPECT_EQ(linearBlockIndex({3, 8}, {4, 10}, {2, 4}), 5);
}

TEST(BlockMathTest, ReshapeKeepingBlocks) {
  // (M, K) <-> (M, K/32, 32), the WebNN/ONNX group view.
  EXPECT_FALSE(
      checkBlockwiseReshape({8, 128}, {1, 32}, {8, 4, 32}, {1, 1, 32}));
  EXPECT_FALSE(
      checkBlockwiseReshape({8, 4, 32}, {1, 1, 32}, {8, 128}, {1, 32}));
  // Flattening rows of per-row groups keeps the groups.
  EXPECT_FALSE(checkBlockwiseReshape({8, 128}, {1, 32}, {1024}, {32}));
  // 2-D blocks survive splitting the outer dimension along block lines.
  EXPECT_FALSE(
      checkBlockwiseReshape({64, 128}, {2, 32}, {32, 2, 128}, {1, 2, 32}));
  // Unit dimensions anywhere are free.
  EXPECT_FALSE(
      checkBlockwiseReshape({1, 8, 128}, {1, 1, 32}, {8, 1, 128}, {1, 1, 32}));
  // A ragged dimension kept as is may stay ragged.
  EXPECT_FALSE(checkBlockwiseReshape({2, 3, 10}, {1, 1, 4}, {6, 10}, {1, 4}));
}

TEST(BlockMathTest, ReshapeRefusals) {
  // Splitting a 32-block into halves.
  EXPECT_TRUE(checkBlockwiseReshape({8, 128}, {1, 32}, {8, 8, 16}, {1, 1, 16}));
  // Merging rows would put two rows' groups under one block layout that
  // differs: (8, 128) per-row whole vs (1024) blocks of 256.
  EXPECT_TRUE(checkBlockwiseReshape({8, 128}, {1, 128}, {1024}, {256}));
  // 2-D blocks cannot be flattened into 1-D blocks.
  EXPECT_TRUE(checkBlockwiseReshape({64, 128}, {2, 32}, {8192}, {64}));
  // A ragged last block inside a regrouped dimension.
  std::optional<std::string> error =
      checkBlockwiseReshape({4, 10}, {1, 4}, {40}, {4});
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("ragged"), std::string::npos);
  // Element counts differ.
  EXPECT_TRUE(checkBlockwiseReshape({4, 8}, {1, 8}, {30}, {8}));
}

} // namespace
