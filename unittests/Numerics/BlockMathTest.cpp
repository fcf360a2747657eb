//===- BlockMathTest.cpp - block shape arithmetic -------------------------===//
//
// Tests block shape resolution (right alignment, whole dimensions, dynamic
// sizes), the ceil(dim / block) contraction of ONNX's ragged blocks and
// WebNN's exact ones, block indices, and the blockwise reshape and slice
// rules, both as checks (the verifiers) and as inference (the propagation
// pass), which must agree.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/BlockMath.h"

#include "gtest/gtest.h"

using namespace quant_block::numerics;
using llvm::ArrayRef;
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

/// inferReshapedBlock's block, or the explanation as a failure.
SmallVector<int64_t> inferReshape(ArrayRef<int64_t> src,
                                  ArrayRef<int64_t> srcBlock,
                                  ArrayRef<int64_t> dst) {
  SmallVector<int64_t> block;
  std::optional<std::string> error =
      inferReshapedBlock(src, srcBlock, dst, block);
  EXPECT_FALSE(error) << *error;
  return block;
}

TEST(BlockMathTest, InfersReshapedBlocks) {
  using V = SmallVector<int64_t>;
  EXPECT_EQ(inferReshape({8, 128}, {1, 32}, {8, 4, 32}), V({1, 1, 32}));
  EXPECT_EQ(inferReshape({8, 4, 32}, {1, 1, 32}, {8, 128}), V({1, 32}));
  EXPECT_EQ(inferReshape({8, 128}, {1, 32}, {1024}), V({32}));
  EXPECT_EQ(inferReshape({64, 128}, {2, 32}, {32, 2, 128}), V({1, 2, 32}));
  EXPECT_EQ(inferReshape({2, 3, 10}, {1, 1, 4}, {6, 10}), V({1, 4}));
  // Whole rows stay whole: per-row blocks of a flattened (8, 128).
  EXPECT_EQ(inferReshape({8, 128}, {1, 128}, {8, 2, 64}), V({1, 2, 64}));
}

TEST(BlockMathTest, InferredReshapeBlocksPassTheCheck) {
  struct Case {
    SmallVector<int64_t> src, srcBlock, dst;
  };
  const Case cases[] = {{{8, 128}, {1, 32}, {8, 4, 32}},
                        {{8, 4, 32}, {1, 1, 32}, {8, 128}},
                        {{64, 128}, {2, 32}, {32, 2, 128}},
                        {{1, 8, 128}, {1, 1, 32}, {8, 1, 128}},
                        {{2, 3, 10}, {1, 1, 4}, {6, 10}},
                        {{4, 6, 8}, {2, 3, 8}, {2, 2, 48}}};
  for (const Case &c : cases) {
    SmallVector<int64_t> block;
    if (inferReshapedBlock(c.src, c.srcBlock, c.dst, block))
      continue; // No blocks fit; the check must refuse every guess too.
    EXPECT_FALSE(checkBlockwiseReshape(c.src, c.srcBlock, c.dst, block));
  }
}

TEST(BlockMathTest, InferReshapeRefusals) {
  SmallVector<int64_t> block;
  // 2-D blocks cannot be flattened into 1-D blocks.
  std::optional<std::string> error =
      inferReshapedBlock({64, 128}, {2, 32}, {8192}, block);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("would cut a block"), std::string::npos);
  // The same ragged-block explanation as the check.
  error = inferReshapedBlock({4, 10}, {1, 4}, {40}, block);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, *checkBlockwiseReshape({4, 10}, {1, 4}, {40}, {4}));
  error = inferReshapedBlock({4, 8}, {1, 8}, {30}, block);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "the element counts do not match");
}

TEST(BlockMathTest, SlicesStartAtBlockBoundaries) {
  SmallVector<int64_t> block;
  EXPECT_FALSE(inferSlicedBlock({4, 128}, {1, 32}, {1, 64}, {2, 40}, block));
  EXPECT_EQ(block, SmallVector<int64_t>({1, 32}));
  // A dynamic dimension's whole-dimension block: the slice size, from 0.
  EXPECT_FALSE(inferSlicedBlock({kDynamic, 64}, {kDynamic, 32}, {0, 32},
                                {5, 32}, block));
  EXPECT_EQ(block, SmallVector<int64_t>({5, 32}));

  std::optional<std::string> error =
      inferSlicedBlock({4, 128}, {1, 32}, {0, 16}, {4, 32}, block);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "offset 16 along dimension 1 is not a multiple of the "
                    "block size 32 (a slice must start at a block boundary)");
  error = inferSlicedBlock({4, 128}, {1, 32}, {0, 96}, {4, 64}, block);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "slice [96, 160) is out of bounds of dimension 1 (size "
                    "128)");
  error =
      inferSlicedBlock({kDynamic, 64}, {kDynamic, 32}, {8, 0}, {4, 64}, block);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "offset 8 along dimension 0 cuts the whole-dimension "
                    "block of a dynamic dimension");
}

TEST(BlockMathTest, SliceResultMustKeepTheBlocks) {
  EXPECT_FALSE(checkBlockwiseSlice({4, 128}, {1, 32}, {0, 32}, {4, 64}, {4, 64},
                                   {1, 32}));
  // A ragged slice of a ragged block: any block past the size is the same.
  EXPECT_FALSE(
      checkBlockwiseSlice({4, 100}, {1, 32}, {0, 96}, {4, 4}, {4, 4}, {1, 4}));
  std::optional<std::string> error =
      checkBlockwiseSlice({4, 128}, {1, 32}, {0, 0}, {4, 64}, {4, 64}, {1, 16});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "result block 16 along dimension 1 must be the input "
                    "block 32");
  error =
      checkBlockwiseSlice({4, 128}, {1, 32}, {0, 0}, {4, 64}, {4, 32}, {1, 32});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "result dimension 1 (size 32) must be the slice size 64");
}

TEST(BlockMathTest, BlockAlignedWindowIsAValidSlice) {
  SmallVector<int64_t> shape = {6, 100}, block = {2, 32};
  SmallVector<int64_t> offsets, sizes;
  // Elements [1, 4) x [40, 70) need rows [0, 4) and columns [32, 96).
  ASSERT_FALSE(getBlockAlignedWindow(shape, block, {1, 40}, {3, 30}, {1, 1},
                                     offsets, sizes));
  EXPECT_EQ(offsets, SmallVector<int64_t>({0, 32}));
  EXPECT_EQ(sizes, SmallVector<int64_t>({4, 64}));
  EXPECT_FALSE(checkBlockwiseSlice(shape, block, offsets, sizes, sizes, block));
  // Strided: columns 3 and 93 need blocks [0, 96).
  ASSERT_FALSE(getBlockAlignedWindow(shape, block, {0, 3}, {1, 2}, {1, 90},
                                     offsets, sizes));
  EXPECT_EQ(offsets, SmallVector<int64_t>({0, 0}));
  EXPECT_EQ(sizes, SmallVector<int64_t>({2, 96}));
  EXPECT_TRUE(getBlockAlignedWindow(shape, block, {0, 0}, {0, 1}, {1, 1},
                                    offsets, sizes));
}

} // namespace
