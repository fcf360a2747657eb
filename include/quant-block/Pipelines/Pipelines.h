//===- Pipelines.h - named end-to-end quant-block pipelines -----*- C++ -*-===//
//
// The pipelines only compose passes: one target-neutral front half (raise,
// propagation and fusion of dequantization, TOSA to linalg, quant_block to
// linalg, elementwise to linalg, narrow-float expansion, elementwise fusion)
// that every target pipeline starts with, and one back half per target.
// --quant-block-linalg-pipeline is the front half alone;
// --quant-block-cpu-pipeline goes on to the LLVM dialect, runnable with
// mlir-runner. The passes themselves live in Codegen/Common (target-neutral)
// and Codegen/CPU.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_PIPELINES_PIPELINES_H
#define QUANT_BLOCK_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::quant_block {

/// Options of the target-neutral front half.
struct FrontHalfOptions {
  /// Run --quant-block-raise first.
  bool raise = true;
  /// Lower TOSA around the quant_block ops to linalg / arith / tensor.
  bool lowerTosa = true;
  /// Run --quant-block-propagate: dequantization moves below layout ops, so
  /// transposes and reshapes of a weight move its packed form.
  bool propagate = true;
  /// Run --quant-block-fuse: dequantized weights fuse into the contractions
  /// that consume them, a transposed weight folded into `transpose_rhs`.
  bool fuse = true;
  /// --quant-block-fuse's `integer-dot`: products of dynamically quantized
  /// int8 activations and integer weights accumulate in i32 per block.
  bool integerDot = true;
};

/// Appends the target-neutral front half to `pm` (a module pass manager):
/// from quant_block, TOSA, upstream quant and frontend decompositions to
/// fused linalg on tensors, with narrow-float extensions decoded exactly.
/// Every target pipeline starts with it, so every target computes the same
/// numerics from the same IR.
void buildFrontHalfPipeline(OpPassManager &pm, const FrontHalfOptions &options);

/// The front half's options as pipeline options, shared by every pipeline
/// that starts with the front half (`Derived` is the pipeline's own options).
template <typename Derived>
struct FrontHalfPipelineOptions : public PassPipelineOptions<Derived> {
  mlir::detail::PassOptions::Option<bool> raise{
      *this, "raise",
      llvm::cl::desc("Run --quant-block-raise first: upstream quant ops and "
                     "frontend quantization emulations become quant_block "
                     "ops (upstream quant ops have no other lowering here)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> lowerTosa{
      *this, "lower-tosa",
      llvm::cl::desc("Lower TOSA ops around the quant_block ops to linalg"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> propagate{
      *this, "propagate",
      llvm::cl::desc("Run --quant-block-propagate: dequantization moves below "
                     "transposes, reshapes, slices and broadcasts, which then "
                     "move the packed data (bit for bit the same values)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Run --quant-block-fuse and fold transposed weights into "
                     "transpose_rhs: a contraction of a dequantized weight "
                     "reads the packed weight, which is never dequantized "
                     "into a tensor of its own (a named linalg contraction "
                     "gets fastmath<reassoc,contract>, see the pass)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<bool> integerDot{
      *this, "integer-dot",
      llvm::cl::desc("With fuse: products of dynamically quantized int8 "
                     "activations and integer weights accumulate in i32 per "
                     "block (rounds differently from the float product)"),
      llvm::cl::init(true)};

  FrontHalfOptions getFrontHalfOptions() const {
    FrontHalfOptions options;
    options.raise = raise;
    options.lowerTosa = lowerTosa;
    options.propagate = propagate;
    options.fuse = fuse;
    options.integerDot = integerDot;
    return options;
  }
};

/// --quant-block-linalg-pipeline: the front half alone.
struct LinalgPipelineOptions
    : public FrontHalfPipelineOptions<LinalgPipelineOptions> {};

/// --quant-block-cpu-pipeline: the front half, then the CPU back half.
struct CPUPipelineOptions
    : public FrontHalfPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize the linalg ops (off: scalar loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width of the target CPU in bits (128: "
                     "SSE / NEON, 256: AVX2, 512: AVX-512)"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> registers{
      *this, "registers",
      llvm::cl::desc("How many vector registers one vectorized tile fills"),
      llvm::cl::init(8)};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Split the output rows of large vectorized ops across "
                     "threads with OpenMP (OMP_NUM_THREADS sets the count; "
                     "the code calls libomp). Never splits a reduction, so "
                     "results do not depend on the thread count"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> reportUnvectorized{
      *this, "report-unvectorized",
      llvm::cl::desc("Emit a remark, with the reason, for every linalg op "
                     "that stays scalar after vectorization "
                     "(--quant-block-cpu-report-unvectorized)"),
      llvm::cl::init(false)};
};

/// Appends the CPU back half to `pm` (a module pass manager): tiling and
/// vectorization, bufferization, loops, host-independent bf16 / f16, and
/// the LLVM dialect.
void buildCPUBackHalfPipeline(OpPassManager &pm,
                              const CPUPipelineOptions &options);

/// Appends the whole CPU pipeline: the front half, then the CPU back half.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers --quant-block-linalg-pipeline and --quant-block-cpu-pipeline
/// (only the pipelines: the passes they use are registered by
/// registerAllPasses() in InitAll.h).
void registerPipelines();

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_PIPELINES_PIPELINES_H
