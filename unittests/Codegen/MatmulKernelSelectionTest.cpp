//===- MatmulKernelSelectionTest.cpp - CPU matmul kernel choice ----------===//
//
// chooseCPUMatmulKernel and checkCPUMatmulKernel on the products a LLaMA
// model compiles (prefill and decode, Q4_0, Q4_K, the widened Q6_K, NVFP4,
// float activations), and over a grid of products and targets: every
// choice the function makes is one the check accepts.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/MatmulKernelSelection.h"

#include "gtest/gtest.h"

using namespace mlir::quant_block;
using Family = CPUMatmulKernelFamily;

namespace {

constexpr int64_t kDynamic = -1;

MatmulKernelProblem makeInt8Product(int64_t m, int64_t n, int64_t k,
                                    int64_t blockSize = 32) {
  MatmulKernelProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.blockSize = blockSize;
  problem.integer = true;
  return problem;
}

/// GGUF Q4_K: unsigned 4-bit codes, blocks of 32 with 8-bit scales and
/// mins under an outer scale and min per 8 blocks.
MatmulKernelProblem makeQ4K(int64_t m, int64_t n, int64_t k) {
  MatmulKernelProblem problem = makeInt8Product(m, n, k);
  problem.hasMins = true;
  problem.outerBlocks = 8;
  return problem;
}

/// GGUF Q6_K widened to 8-bit codes: blocks of 16 under an outer scale per
/// 16 blocks.
MatmulKernelProblem makeWidenedQ6K(int64_t m, int64_t n, int64_t k) {
  MatmulKernelProblem problem = makeInt8Product(m, n, k, 16);
  problem.storageBits = 8;
  problem.outerBlocks = 16;
  return problem;
}

MatmulKernelChoice choose(const MatmulKernelProblem &problem,
                          const MatmulKernelTarget &target) {
  MatmulKernelChoice choice;
  std::optional<std::string> whyNot =
      chooseCPUMatmulKernel(problem, target, choice);
  EXPECT_FALSE(whyNot) << *whyNot;
  return choice;
}

const MatmulKernelTarget kPortable{};
const MatmulKernelTarget kVnni{/*vnni=*/true, /*amx=*/false};
const MatmulKernelTarget kAmx{/*vnni=*/true, /*amx=*/true};
const MatmulKernelTarget kAmxBF16{/*vnni=*/true, /*amx=*/true,
                                  /*amxBF16=*/true};

/// Reassociated bf16 activations with Q4_0's weight (int4, blocks of 32).
MatmulKernelProblem makeBF16Product(int64_t m, int64_t n, int64_t k) {
  MatmulKernelProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.bf16Activations = true;
  return problem;
}

TEST(MatmulKernelSelection, BF16PrefillTakesAmxBF16Tiles) {
  // 16 x 16 tiles, partial_sums's step of 8 blocks (the weight's decoding
  // and the rows left over).
  MatmulKernelChoice expected{Family::AmxBF16, 16, 16, 8};
  EXPECT_EQ(choose(makeBF16Product(512, 4096, 4096), kAmxBF16), expected);
  EXPECT_EQ(choose(makeBF16Product(kDynamic, 11008, 4096), kAmxBF16), expected);
  // Not without AMX-BF16, below 16 rows, in the strict order, with f32
  // activations, or for N not a multiple of 16.
  EXPECT_EQ(choose(makeBF16Product(512, 4096, 4096), kAmx).family,
            Family::PartialSums);
  EXPECT_EQ(choose(makeBF16Product(8, 4096, 4096), kAmxBF16).family,
            Family::PartialSums);
  MatmulKernelProblem strict = makeBF16Product(512, 4096, 4096);
  strict.strictOrder = true;
  EXPECT_EQ(choose(strict, kAmxBF16).family, Family::OrderedRows);
  MatmulKernelProblem f32 = makeBF16Product(512, 4096, 4096);
  f32.bf16Activations = false;
  EXPECT_EQ(choose(f32, kAmxBF16).family, Family::PartialSums);
  EXPECT_EQ(choose(makeBF16Product(512, 4104, 4096), kAmxBF16).family,
            Family::PartialSums);
  // An override on a target without it names the option.
  std::optional<std::string> whyNot =
      checkCPUMatmulKernel(makeBF16Product(512, 4096, 4096), kAmx, expected);
  ASSERT_TRUE(whyNot);
  EXPECT_NE(whyNot->find("x86-amx-bf16"), std::string::npos) << *whyNot;
}

TEST(MatmulKernelSelection, PrefillTakesAmxTiles) {
  MatmulKernelChoice expected{Family::Amx, 16, 16, 4};
  EXPECT_EQ(choose(makeInt8Product(512, 4096, 4096), kAmx), expected);
  EXPECT_EQ(choose(makeInt8Product(kDynamic, 4096, 4096), kAmx), expected);
  // Q4_K: a step's blocks share an outer scale (8 blocks): 4 divides 8.
  EXPECT_EQ(choose(makeQ4K(512, 4096, 4096), kAmx), expected);
}

TEST(MatmulKernelSelection, DecodeTakesVnniRowLanes) {
  // AMX needs 16 activation rows; one row gets the VNNI kernel with one
  // weight row per lane, blocks of 32 in pairs.
  MatmulKernelChoice expected{Family::VnniRowLanes, 1, 16, 2};
  EXPECT_EQ(choose(makeInt8Product(1, 4096, 4096), kAmx), expected);
  EXPECT_EQ(choose(makeInt8Product(1, 4096, 4096), kVnni), expected);
  // A dynamic M without AMX: tiles of 8 rows, the rest one at a time.
  EXPECT_EQ(choose(makeInt8Product(kDynamic, 4096, 4096), kVnni),
            (MatmulKernelChoice{Family::VnniRowLanes, 8, 16, 2}));
  EXPECT_EQ(choose(makeInt8Product(12, 4096, 4096), kVnni),
            (MatmulKernelChoice{Family::VnniRowLanes, 4, 16, 2}));
}

TEST(MatmulKernelSelection, WidenedQ6KTakesAmxWithBlocksOf16) {
  EXPECT_EQ(choose(makeWidenedQ6K(512, 4096, 11008), kAmx),
            (MatmulKernelChoice{Family::Amx, 16, 16, 4}));
  EXPECT_EQ(choose(makeWidenedQ6K(512, 4096, 11008), kVnni),
            (MatmulKernelChoice{Family::VnniRowLanes, 8, 16, 4}));
}

TEST(MatmulKernelSelection, SixBitQ6KTakesRowLanesOnly) {
  // GGUF Q6_K's own 6-bit codes: the same kernels and tiles as its
  // widened form, and no kernel without VNNI (the codes are unpacked per
  // lane) nor for the families that sum across lanes.
  MatmulKernelProblem problem = makeWidenedQ6K(512, 4096, 11008);
  problem.storageBits = 6;
  EXPECT_EQ(choose(problem, kAmx),
            (MatmulKernelChoice{Family::Amx, 16, 16, 4}));
  problem.m = 1;
  EXPECT_EQ(choose(problem, kVnni),
            (MatmulKernelChoice{Family::VnniRowLanes, 1, 16, 4}));
  MatmulKernelChoice choice;
  std::optional<std::string> whyNot =
      chooseCPUMatmulKernel(problem, kPortable, choice);
  ASSERT_TRUE(whyNot);
  EXPECT_EQ(*whyNot, "integer products of 6-bit codes need AVX512-VNNI and "
                     "N a multiple of 16 (one weight row per lane)");
  EXPECT_TRUE(
      checkCPUMatmulKernel(problem, kVnni, {Family::VnniTiles, 1, 8, 4}));
}

TEST(MatmulKernelSelection, Nvfp4StaysOnVnni) {
  // 4-bit codes in blocks of 16 are de-interleaved per chunk of 32: not
  // AMX's 16 consecutive bytes.
  MatmulKernelProblem problem = makeInt8Product(512, 4096, 4096, 16);
  problem.e2m1 = true;
  EXPECT_EQ(choose(problem, kAmx),
            (MatmulKernelChoice{Family::VnniRowLanes, 8, 16, 4}));
  EXPECT_TRUE(checkCPUMatmulKernel(problem, kAmx, {Family::Amx, 16, 16, 4}));
}

TEST(MatmulKernelSelection, PortableIntegerTiles) {
  // No VNNI: the generic i32 tiles, 8 activation rows x 2 weight rows (16
  // accumulators), or `rows` weight rows for one activation row.
  EXPECT_EQ(choose(makeInt8Product(32, 4096, 4096), kPortable),
            (MatmulKernelChoice{Family::IntegerTiles, 8, 2, 8}));
  EXPECT_EQ(choose(makeInt8Product(1, 4096, 4096), kPortable),
            (MatmulKernelChoice{Family::IntegerTiles, 1, 4, 8}));
  // N not a multiple of 16 with VNNI: the tiles that add lanes by shuffles.
  EXPECT_EQ(choose(makeInt8Product(32, 24, 4096), kVnni),
            (MatmulKernelChoice{Family::VnniTiles, 2, 8, 8}));
}

TEST(MatmulKernelSelection, TwoLevelScalesNeedRowLanes) {
  MatmulKernelChoice choice;
  std::optional<std::string> whyNot =
      chooseCPUMatmulKernel(makeQ4K(8, 4096, 4096), kPortable, choice);
  ASSERT_TRUE(whyNot);
  EXPECT_NE(whyNot->find("two-level scales or mins need AVX512-VNNI"),
            std::string::npos)
      << *whyNot;
  whyNot =
      chooseCPUMatmulKernel(makeWidenedQ6K(8, 4096, 4096), kPortable, choice);
  ASSERT_TRUE(whyNot);
  EXPECT_NE(whyNot->find("blocks of 16 need AVX512-VNNI"), std::string::npos)
      << *whyNot;
}

TEST(MatmulKernelSelection, FloatActivations) {
  MatmulKernelProblem problem;
  problem.m = 32;
  problem.n = 4096;
  problem.k = 4096;
  EXPECT_EQ(choose(problem, kAmx),
            (MatmulKernelChoice{Family::PartialSums, 8, 2, 8}));
  problem.strictOrder = true;
  EXPECT_EQ(choose(problem, kAmx),
            (MatmulKernelChoice{Family::OrderedRows, 8, 16, 1}));
  // The strict order has no kernel for N not a multiple of 16.
  problem.n = 24;
  MatmulKernelChoice choice;
  EXPECT_TRUE(chooseCPUMatmulKernel(problem, kAmx, choice));
  // And a reassociated product may take the strict kernel.
  problem.n = 4096;
  problem.strictOrder = false;
  EXPECT_FALSE(
      checkCPUMatmulKernel(problem, kAmx, {Family::OrderedRows, 8, 16, 1}));
  problem.strictOrder = true;
  EXPECT_TRUE(
      checkCPUMatmulKernel(problem, kAmx, {Family::PartialSums, 8, 2, 8}));
}

TEST(MatmulKernelSelection, CheckNamesTheTarget) {
  MatmulKernelProblem problem = makeInt8Product(512, 4096, 4096);
  std::optional<std::string> whyNot =
      checkCPUMatmulKernel(problem, kVnni, {Family::Amx, 16, 16, 4});
  ASSERT_TRUE(whyNot);
  EXPECT_EQ(*whyNot, "the kernel 'amx' needs AMX-INT8 (the x86-amx option)");
  whyNot = checkCPUMatmulKernel(problem, kPortable,
                                {Family::VnniRowLanes, 8, 16, 2});
  ASSERT_TRUE(whyNot);
  EXPECT_EQ(*whyNot, "the kernel 'vnni_row_lanes' needs AVX512-VNNI (the "
                     "x86-avx512-vnni option)");
}

/// Over a grid of products and targets, every choice passes the check, and
/// a product chooseCPUMatmulKernel declines passes no family's check with
/// any tile of the grid.
TEST(MatmulKernelSelection, EveryChoicePassesTheCheck) {
  const MatmulKernelTarget targets[] = {
      kPortable, kVnni, kAmx, kAmxBF16, {true, true, false, 8}};
  int chosen = 0, declined = 0;
  for (int64_t m : {kDynamic, int64_t(1), int64_t(3), int64_t(8), int64_t(16),
                    int64_t(35), int64_t(512)})
    for (int64_t n : {16, 24, 4096})
      for (int64_t k : {64, 96, 256, 4096})
        for (int64_t blockSize : {16, 32, 64, 256})
          for (unsigned bits : {4u, 6u, 8u})
            for (int kind = 0; kind < 8; ++kind)
              for (const MatmulKernelTarget &target : targets) {
                if (k % blockSize != 0)
                  continue;
                // 6-bit codes: int8 activations, no zero points or mins
                // (the products describeProduct passes on).
                if (bits == 6 && kind != 0)
                  continue;
                MatmulKernelProblem problem =
                    makeInt8Product(m, n, k, blockSize);
                problem.storageBits = bits;
                problem.integer = kind < 4;
                problem.hasZeroPoints = kind == 1;
                problem.hasMins = kind == 2;
                problem.outerBlocks =
                    kind == 2 && (k / blockSize) % 8 == 0 ? 8 : 0;
                if (kind == 2 && !problem.outerBlocks)
                  continue;
                problem.e2m1 = kind == 3 && bits == 4;
                problem.strictOrder = kind == 5 || kind == 7;
                problem.bf16Activations = kind >= 6;
                MatmulKernelChoice choice;
                if (!chooseCPUMatmulKernel(problem, target, choice)) {
                  ++chosen;
                  std::optional<std::string> whyNot =
                      checkCPUMatmulKernel(problem, target, choice);
                  EXPECT_FALSE(whyNot)
                      << *whyNot << " (m " << m << ", n " << n << ", k " << k
                      << ", block " << blockSize << ", kind " << kind << ")";
                  continue;
                }
                ++declined;
                for (int family = 0; family <= 6; ++family)
                  for (int64_t tileM : {1, 2, 8, 16})
                    for (int64_t tileN : {1, 4, 16})
                      for (int64_t step : {1, 2, 4, 8})
                        EXPECT_TRUE(checkCPUMatmulKernel(
                            problem, target,
                            {static_cast<Family>(family), tileM, tileN, step}))
                            << "m " << m << ", n " << n << ", k " << k
                            << ", block " << blockSize << ", kind " << kind;
              }
  EXPECT_GT(chosen, 1000);
  EXPECT_GT(declined, 10);
}

} // namespace
