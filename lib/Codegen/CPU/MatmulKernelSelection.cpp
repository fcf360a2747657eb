//===- MatmulKernelSelection.cpp - CPU matmul kernels as a pure choice ----===//
//
// Which register-tiled kernel a quantized matrix product gets, and with
// which tiles, as a function of the product and the target alone. The
// measurements behind the choices are in the comments; the emitters
// (MatmulKernels.cpp and the per-family files) only follow the answer.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/MatmulKernelSelection.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::cpu_kernel;

namespace {

/// The largest of `candidates` (descending) that divides `value`, or none.
std::optional<int64_t> findLargestDivisor(int64_t value,
                                          ArrayRef<int64_t> candidates) {
  for (int64_t candidate : candidates)
    if (candidate <= value && value % candidate == 0)
      return candidate;
  return std::nullopt;
}

int64_t getChunksPerBlock(const MatmulKernelProblem &problem) {
  return std::max<int64_t>(problem.blockSize / kChunk, 1);
}

int64_t getBlocksPerChunk(const MatmulKernelProblem &problem) {
  return std::max<int64_t>(kChunk / problem.blockSize, 1);
}

/// vpdpbusd takes two chunks at once: two blocks of 32, or one block of a
/// multiple of 64.
bool hasChunkPairs(const MatmulKernelProblem &problem) {
  int64_t chunksPerBlock = getChunksPerBlock(problem);
  return chunksPerBlock == 1 ? problem.numBlocks() % 2 == 0
                             : chunksPerBlock % 2 == 0;
}

/// Integer products whose codes, blocks or parameters only the kernels with
/// one weight row per lane read: 6-bit codes (unpacked to bytes per lane),
/// blocks of 16 (half a chunk), two-level scales, mins (a second term per
/// block, the activation block sum times the min).
bool needsRowLanes(const MatmulKernelProblem &problem) {
  return problem.integer &&
         (problem.storageBits == 6 || problem.halfChunkBlocks() ||
          problem.outerBlocks || problem.hasMins);
}

bool isRowLaneFamily(CPUMatmulKernelFamily family) {
  return family == CPUMatmulKernelFamily::OrderedRows ||
         family == CPUMatmulKernelFamily::VnniRowLanes ||
         family == CPUMatmulKernelFamily::Amx;
}

std::string quote(CPUMatmulKernelFamily family) {
  return ("'" + stringifyCPUMatmulKernelFamily(family) + "'").str();
}

/// Why the kernel `name` (amx_bf16) cannot be emitted for the float product
/// `problem` on `target`, if it cannot.
std::optional<std::string> checkAmxBF16(const MatmulKernelProblem &problem,
                                        const MatmulKernelTarget &target,
                                        const std::string &name) {
  if (!problem.bf16Activations)
    return name + " multiplies bf16 activations";
  if (problem.strictOrder)
    return name + " reassociates the sum over k, and the product has no "
                  "fastmath<reassoc>";
  if (!target.amxBF16)
    return name + " needs AMX-BF16 (the x86-amx-bf16 option)";
  if (problem.n % kLanes != 0)
    return name + " takes tiles of 16 weight rows: N (" +
           std::to_string(problem.n) + ") must be a multiple of 16";
  if (problem.halfChunkBlocks())
    return name + " decodes whole chunks of 32 codes of one block: the "
                  "blocks must be a multiple of 32";
  if (!problem.dynamicM() && problem.m < kAmxRows)
    return name + " needs at least 16 activation rows (M = " +
           std::to_string(problem.m) + ")";
  if (!chooseCPUMatmulBlocksPerStep(problem,
                                    CPUMatmulKernelFamily::PartialSums))
    return name + " decodes the weight with partial_sums's K step, and no "
                  "K step of it shares one outer scale";
  return std::nullopt;
}

/// Why `family` cannot be emitted for `problem` on `target`, if it cannot.
std::optional<std::string> checkFamily(const MatmulKernelProblem &problem,
                                       const MatmulKernelTarget &target,
                                       CPUMatmulKernelFamily family) {
  std::string name = "the kernel " + quote(family);
  bool integerFamily = family != CPUMatmulKernelFamily::PartialSums &&
                       family != CPUMatmulKernelFamily::OrderedRows &&
                       family != CPUMatmulKernelFamily::AmxBF16;
  if (integerFamily && !problem.integer)
    return name + " multiplies int8 activations (accumulate(i32)); the "
                  "activations are floats";
  if (!integerFamily && problem.integer)
    return name + " multiplies float activations; the product has int8 "
                  "activations (accumulate(i32))";
  switch (family) {
  case CPUMatmulKernelFamily::PartialSums:
    if (problem.strictOrder)
      return name + " reassociates the sum over k, and the product has no "
                    "fastmath<reassoc>";
    return std::nullopt;
  case CPUMatmulKernelFamily::OrderedRows:
    if (problem.n % kLanes != 0 || problem.halfChunkBlocks())
      return name + " takes one weight row per lane: N (" +
             std::to_string(problem.n) +
             ") must be a multiple of 16 and the blocks not [1, 16]";
    return std::nullopt;
  case CPUMatmulKernelFamily::AmxBF16:
    return checkAmxBF16(problem, target, name);
  case CPUMatmulKernelFamily::IntegerTiles:
    break;
  case CPUMatmulKernelFamily::VnniTiles:
  case CPUMatmulKernelFamily::VnniRowLanes:
  case CPUMatmulKernelFamily::Amx:
    if (!target.vnni)
      return name + " needs AVX512-VNNI (the x86-avx512-vnni option)";
    if (!hasChunkPairs(problem))
      return name + " takes two chunks of 32 codes per vpdpbusd: the blocks "
                    "of a row must pair up";
    break;
  }
  if (family == CPUMatmulKernelFamily::VnniTiles && problem.e2m1)
    return name + " does not decode E2M1 codes (vnni_row_lanes looks them up)";
  if (!isRowLaneFamily(family) && needsRowLanes(problem))
    return name + " does not read 6-bit codes, blocks of 16, two-level "
                  "scales or mins (only vnni_row_lanes and amx do)";
  if (isRowLaneFamily(family) && problem.n % kLanes != 0)
    return name + " takes one weight row per lane: N (" +
           std::to_string(problem.n) + ") must be a multiple of 16";
  if (family != CPUMatmulKernelFamily::Amx)
    return std::nullopt;
  if (!target.amx)
    return name + " needs AMX-INT8 (the x86-amx option)";
  if (problem.halfChunkBlocks() && problem.storageBits == 4)
    return name + " reads blocks of 16 only of 6- or 8-bit codes (4-bit "
                  "codes are de-interleaved per chunk of 32)";
  if (problem.blockSize > 256)
    return name + " reads blocks of at most 256 codes";
  if (problem.storageBits == 8 && problem.hasZeroPoints)
    return name + " needs 8-bit codes without zero points (the centered "
                  "codes must fit a signed byte)";
  if (!problem.dynamicM() && problem.m < kAmxRows)
    return name + " needs at least 16 activation rows (M = " +
           std::to_string(problem.m) + ")";
  if (!chooseCPUMatmulBlocksPerStep(problem,
                                    CPUMatmulKernelFamily::VnniRowLanes))
    return name + " takes the rows left over with vnni_row_lanes, and no K "
                  "step of it shares one outer scale";
  return std::nullopt;
}

/// The blocks per K step each family may take, largest first: whole chunks,
/// pairs of chunks for vpdpbusd, at most kMaxUnrolledChunks chunks, and a
/// step's blocks under one outer scale.
SmallVector<int64_t> getStepCandidates(const MatmulKernelProblem &problem,
                                       CPUMatmulKernelFamily family) {
  int64_t chunksPerBlock = getChunksPerBlock(problem);
  int64_t blocksPerChunk = getBlocksPerChunk(problem);
  SmallVector<int64_t> candidates;
  switch (family) {
  case CPUMatmulKernelFamily::OrderedRows:
    candidates = {1};
    break;
  case CPUMatmulKernelFamily::VnniRowLanes:
    // Blocks of 16: two or four (one or two chunks); blocks of 32: a pair;
    // larger blocks are pairs of chunks themselves.
    if (problem.halfChunkBlocks())
      candidates = {4, 2};
    else if (chunksPerBlock == 1)
      candidates = {2};
    else
      candidates = {1};
    break;
  case CPUMatmulKernelFamily::Amx:
    // One tile instruction per block (up to 4 of the 8 tile registers in
    // flight with the two operands').
    candidates = {4, 2, 1};
    break;
  case CPUMatmulKernelFamily::AmxBF16:
  case CPUMatmulKernelFamily::PartialSums:
  case CPUMatmulKernelFamily::IntegerTiles:
  case CPUMatmulKernelFamily::VnniTiles: {
    bool pairs = family == CPUMatmulKernelFamily::VnniTiles;
    for (int64_t c = std::max<int64_t>(
             kMaxUnrolledChunks * blocksPerChunk / chunksPerBlock, 1);
         c >= 1; --c)
      if ((!pairs || chunksPerBlock != 1 || c % 2 == 0) &&
          c % blocksPerChunk == 0)
        candidates.push_back(c);
    break;
  }
  }
  llvm::erase_if(candidates, [&](int64_t c) {
    return problem.outerBlocks && problem.outerBlocks % c != 0;
  });
  return candidates;
}

/// The most accumulators of a tile of the kernels that sum across lanes:
/// 16 (half the registers of AVX-512, leaving room for the unpacked weight
/// chunks and the activations), or the `rows` of a one-row tile.
int64_t getMaxAccumulators(const MatmulKernelTarget &target) {
  return std::max<int64_t>(16, target.rows);
}

} // namespace

std::optional<std::string>
mlir::quant_block::checkCPUMatmulKernel(const MatmulKernelProblem &problem,
                                        const MatmulKernelTarget &target,
                                        const MatmulKernelChoice &choice) {
  if (std::optional<std::string> whyNot =
          checkFamily(problem, target, choice.family))
    return whyNot;
  std::string name = "the kernel " + quote(choice.family);
  std::string tile = "[" + std::to_string(choice.tileM) + ", " +
                     std::to_string(choice.tileN) + "]";
  if (choice.tileM < 1 || choice.tileN < 1 || choice.blocksPerStep < 1)
    return "the tile " + tile + " and blocks_per_step " +
           std::to_string(choice.blocksPerStep) + " must be positive";
  if (choice.family == CPUMatmulKernelFamily::Amx ||
      choice.family == CPUMatmulKernelFamily::AmxBF16) {
    if (choice.tileM != kAmxRows || choice.tileN != kLanes)
      return name + " has tiles of [16, 16], not " + tile;
  } else if (isRowLaneFamily(choice.family)) {
    if (choice.tileN != kLanes || choice.tileM > kMaxRowLaneTileRows)
      return name +
             " takes 16 weight rows (one per lane) and at most 8 "
             "activation rows, not " +
             tile;
  } else {
    if (problem.n % choice.tileN != 0)
      return "the tile " + tile +
             " does not divide N = " + std::to_string(problem.n);
    if (choice.tileM * choice.tileN > getMaxAccumulators(target))
      return "the tile " + tile + " needs " +
             std::to_string(choice.tileM * choice.tileN) +
             " accumulators, more than " +
             std::to_string(getMaxAccumulators(target));
    // Without one weight row per lane there is no loop for the rows left
    // over.
    if (problem.dynamicM() && choice.tileM != 1)
      return name +
             " takes one activation row per tile with a dynamic M, "
             "not " +
             tile;
  }
  if (!problem.dynamicM() && choice.family != CPUMatmulKernelFamily::Amx &&
      choice.family != CPUMatmulKernelFamily::AmxBF16 &&
      problem.m % choice.tileM != 0)
    return "the tile " + tile +
           " does not divide M = " + std::to_string(problem.m);
  SmallVector<int64_t> steps = getStepCandidates(problem, choice.family);
  if (!llvm::is_contained(steps, choice.blocksPerStep) ||
      problem.numBlocks() % choice.blocksPerStep != 0) {
    std::string allowed;
    for (int64_t step : steps)
      if (problem.numBlocks() % step == 0)
        allowed += (allowed.empty() ? "" : ", ") + std::to_string(step);
    return "blocks_per_step " + std::to_string(choice.blocksPerStep) +
           " is not one " + name + " takes for " +
           std::to_string(problem.numBlocks()) + " blocks per row" +
           (problem.outerBlocks
                ? " under outer scales of " +
                      std::to_string(problem.outerBlocks) + " blocks"
                : std::string()) +
           " (allowed: " + (allowed.empty() ? "none" : allowed) + ")";
  }
  return std::nullopt;
}

std::optional<std::string>
mlir::quant_block::chooseCPUMatmulKernel(const MatmulKernelProblem &problem,
                                         const MatmulKernelTarget &target,
                                         MatmulKernelChoice &choice) {
  auto isPossible = [&](CPUMatmulKernelFamily family) {
    return !checkFamily(problem, target, family);
  };
  using Family = CPUMatmulKernelFamily;
  if (!problem.integer && isPossible(Family::AmxBF16)) {
    // bf16 activations on AMX-BF16 tiles: the weight dequantized to bf16
    // once per chunk of activation rows, 16 x 16 x 32 products per
    // tdpbf16ps (bench/README.md).
    choice.family = Family::AmxBF16;
  } else if (!problem.integer) {
    choice.family =
        problem.strictOrder ? Family::OrderedRows : Family::PartialSums;
    if (std::optional<std::string> whyNot =
            checkFamily(problem, target, choice.family))
      return std::string("the sum over k is ordered (no fastmath<reassoc>), "
                         "and N is not a multiple of 16 (or the blocks are "
                         "[1, 16])");
  } else if (isPossible(Family::Amx)) {
    // AMX: 16 x 16 block sums per tdpbssd, the weight tile decoded once per
    // chunk of activation rows (pp512 of LLaMA-7B-shaped Q4_0 layers: 0.56x
    // -> 1.2x llama.cpp's AMX path).
    choice.family = Family::Amx;
  } else if (isPossible(Family::VnniRowLanes)) {
    // One weight row per lane: the transposed weight chunk serves tileM
    // activation rows, and there are no sums across lanes. Measured faster
    // than the VNNI tiles at every M (4096 x 4096, one thread, cold: M = 1
    // 0.93 -> 0.83 ms, M = 8 2.84 -> 1.34 ms, M = 32 10.8 -> 4.5 ms).
    choice.family = Family::VnniRowLanes;
  } else if (needsRowLanes(problem)) {
    return std::string(problem.storageBits == 6
                           ? "integer products of 6-bit codes need "
                             "AVX512-VNNI and N a multiple of 16 (one weight "
                             "row per lane)"
                       : problem.halfChunkBlocks()
                           ? "integer products in blocks of 16 need "
                             "AVX512-VNNI and N a multiple of 16 (one weight "
                             "row per lane)"
                           : "integer products with two-level scales or mins "
                             "need AVX512-VNNI and N a multiple of 16 (one "
                             "weight row per lane)");
  } else {
    choice.family = isPossible(Family::VnniTiles) ? Family::VnniTiles
                                                  : Family::IntegerTiles;
  }

  // Activation rows: the most a tile takes that divide a static M; with a
  // dynamic M the kernels with one weight row per lane take 8 and the rows
  // left over one at a time, the others the tiles of M = 1 (a decode step).
  SmallVector<int64_t> rowCandidates = choice.family == Family::VnniTiles
                                           ? SmallVector<int64_t>{2, 1}
                                           : SmallVector<int64_t>{8, 4, 2, 1};
  if (choice.family == Family::Amx || choice.family == Family::AmxBF16) {
    choice.tileM = kAmxRows;
    choice.tileN = kLanes;
  } else if (isRowLaneFamily(choice.family)) {
    choice.tileM = problem.dynamicM()
                       ? rowCandidates.front()
                       : *findLargestDivisor(problem.m, rowCandidates);
    choice.tileN = kLanes;
  } else {
    choice.tileM =
        problem.dynamicM() ? 1 : *findLargestDivisor(problem.m, rowCandidates);
    // Weight rows: the accumulators left. With vpdpbusd, decoding a weight
    // chunk is cheap next to adding up the lanes of the block sums and
    // scaling them, which more weight rows per tile amortize: 2 x 8 tiles
    // (measured at M = 8 / 32, 4096 x 4096: 3.1 / 10.6 ms cold; 4 x 4 tiles
    // 5.0 / 14.2 ms, 1 x 8 tiles 3.6 / 12.4 ms).
    int64_t rows = std::max<int64_t>(target.rows, 1);
    int64_t maxTileN = choice.family == Family::VnniTiles
                           ? std::min<int64_t>(16 / choice.tileM, 2 * rows)
                       : choice.tileM == 1 ? rows
                                           : 16 / choice.tileM;
    SmallVector<int64_t> candidates;
    for (int64_t c = maxTileN; c >= 1; --c)
      candidates.push_back(c);
    choice.tileN = *findLargestDivisor(problem.n, candidates);
  }

  std::optional<int64_t> step =
      chooseCPUMatmulBlocksPerStep(problem, choice.family);
  // The AMX kernel's rows left over take the VNNI kernel's step.
  if (!step || (choice.family == Family::Amx &&
                !chooseCPUMatmulBlocksPerStep(problem, Family::VnniRowLanes)))
    return std::string("no K step of whole chunks shares one outer scale");
  choice.blocksPerStep = *step;
  return std::nullopt;
}

std::optional<int64_t> mlir::quant_block::chooseCPUMatmulBlocksPerStep(
    const MatmulKernelProblem &problem, CPUMatmulKernelFamily family) {
  return findLargestDivisor(problem.numBlocks(),
                            getStepCandidates(problem, family));
}
