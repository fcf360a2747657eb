//===- Pipelines.h - named end-to-end quant-block pipelines -----*- C++ -*-===//
//
// The named pipelines that take a module with quant_block ops (and any
// upstream IR around them) all the way down: --quant-block-cpu-pipeline to the
// LLVM dialect, runnable with mlir-runner.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_PIPELINES_PIPELINES_H
#define QUANT_BLOCK_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::quant_block {

struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> raise{
      *this, "raise",
      llvm::cl::desc("Run --quant-block-raise first: upstream quant ops and "
                     "frontend quantization emulations become quant_block "
                     "ops (upstream quant ops have no other lowering here)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> lowerTosa{
      *this, "lower-tosa",
      llvm::cl::desc("Lower TOSA ops around the quant_block ops to linalg"),
      llvm::cl::init(true)};
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
};

/// Appends the CPU pipeline to `pm` (a module pass manager): quant_block to
/// linalg, TOSA to linalg, bufferization, loops, and the LLVM dialect.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers --quant-block-cpu-pipeline.
void registerCPUPipeline();

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_PIPELINES_PIPELINES_H
