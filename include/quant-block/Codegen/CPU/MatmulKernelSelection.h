//===- MatmulKernelSelection.h - the CPU matmul kernel choice ---*- C++ -*-===//
//
// The strategy of --quant-block-cpu-matmul-kernels apart from the IR it
// emits: a product is described by what the kernels depend on
// (MatmulKernelProblem), the target by the instructions the kernels may use
// (MatmulKernelTarget), and the answer is a kernel family with its tile
// sizes (MatmulKernelChoice), the fields of #quant_block.cpu_matmul_kernel.
// chooseCPUMatmulKernel is what the pass picks; checkCPUMatmulKernel says
// whether a given choice (a user's override) can be emitted. Both are
// unit-tested (unittests/Codegen/MatmulKernelSelectionTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_CPU_MATMULKERNELSELECTION_H
#define QUANT_BLOCK_CODEGEN_CPU_MATMULKERNELSELECTION_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::quant_block {

/// The fixed shapes every kernel is built from.
namespace cpu_kernel {
/// Lanes of one accumulator. Fixed (not the host's register width) because
/// the lanes are partial sums: the same IR on every host gives the same
/// bits.
constexpr int64_t kLanes = 16;
/// Weight elements per chunk: one accumulator's worth of two products.
constexpr int64_t kChunk = 2 * kLanes;
/// Chunks unrolled per iteration of the K loop (code size vs. loop overhead).
constexpr int64_t kMaxUnrolledChunks = 8;
/// Activation rows of an AMX tile (its most rows).
constexpr int64_t kAmxRows = 16;
/// The most activation rows of a tile with one weight row per lane (one
/// accumulator vector each).
constexpr int64_t kMaxRowLaneTileRows = 8;
} // namespace cpu_kernel

/// A quantized matrix product `x[M, K] * w[N, K]^T` the kernels cover: what
/// the choice depends on, taken from the op's types and flags.
struct MatmulKernelProblem {
  /// M (negative: dynamic), N and K.
  int64_t m = 1, n = 1, k = 1;
  /// The weight's block size along K (blocks [1, blockSize]).
  int64_t blockSize = 32;
  /// 4 or 8.
  unsigned storageBits = 4;
  /// int8 activations with accumulate(i32) (otherwise float activations).
  bool integer = false;
  /// Float activations without fastmath<reassoc>: the sum over k keeps the
  /// contract's order.
  bool strictOrder = false;
  /// Float activations of type bf16 (the expressed type).
  bool bf16Activations = false;
  /// FP4 E2M1 codes (MXFP4, NVFP4).
  bool e2m1 = false;
  /// Integer zero points (not mins).
  bool hasZeroPoints = false;
  /// Float mins, or integer zero points under an outer min (Q4_1, Q4_K).
  bool hasMins = false;
  /// Blocks of scales per blocked outer scale (K-quants); 0 without.
  int64_t outerBlocks = 0;

  int64_t numBlocks() const { return k / blockSize; }
  bool dynamicM() const { return m < 0; }
  /// Blocks of 16, half a chunk of 32 (NVFP4, the widened Q6_K).
  bool halfChunkBlocks() const { return blockSize == 16; }
};

/// The instructions the kernels may use, from the pass options (which the
/// CPU pipeline resolves from `target-cpu` / `target-features`).
struct MatmulKernelTarget {
  /// AVX512-VNNI (vpdpbusd).
  bool vnni = false;
  /// AMX-INT8 tiles (needs vnni for the rows left over).
  bool amx = false;
  /// AMX-BF16 tiles (tdpbf16ps) for reassociated bf16 products.
  bool amxBF16 = false;
  /// The most weight rows of a tile of one activation row (the pass's
  /// `rows` option) for the kernels that sum across lanes.
  int64_t rows = 4;
};

/// A kernel family and its tiles: what #quant_block.cpu_matmul_kernel holds.
struct MatmulKernelChoice {
  CPUMatmulKernelFamily family = CPUMatmulKernelFamily::PartialSums;
  /// Activation rows and weight rows of one register tile.
  int64_t tileM = 1, tileN = 1;
  /// Blocks of K per iteration of the K loop.
  int64_t blocksPerStep = 1;

  bool operator==(const MatmulKernelChoice &other) const {
    return family == other.family && tileM == other.tileM &&
           tileN == other.tileN && blocksPerStep == other.blocksPerStep;
  }
};

/// The kernel the pass emits for `problem` on `target`, or why there is
/// none (a product only some targets cover: integer products in blocks of
/// 16 or with two-level scales need the VNNI kernel with one row per lane).
/// The answer always passes checkCPUMatmulKernel.
std::optional<std::string>
chooseCPUMatmulKernel(const MatmulKernelProblem &problem,
                      const MatmulKernelTarget &target,
                      MatmulKernelChoice &choice);

/// Why `choice` cannot be emitted for `problem` on `target` (the rule it
/// breaks), or std::nullopt when it can.
std::optional<std::string>
checkCPUMatmulKernel(const MatmulKernelProblem &problem,
                     const MatmulKernelTarget &target,
                     const MatmulKernelChoice &choice);

/// The blocks per K step that `family` takes by default for `problem`: the
/// largest it allows that divides a row's blocks (none if no step of whole
/// chunks shares one outer scale). The AMX kernel's rows left over take the
/// step of vnni_row_lanes.
std::optional<int64_t>
chooseCPUMatmulBlocksPerStep(const MatmulKernelProblem &problem,
                             CPUMatmulKernelFamily family);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_CPU_MATMULKERNELSELECTION_H
