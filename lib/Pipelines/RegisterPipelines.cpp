//===- RegisterPipelines.cpp - the named pipelines of quant-opt -----------===//
//
// Registers the pipelines only; the passes they are made of are registered
// by registerAllPasses() (InitAll.h), so that an embedder that wants one
// pipeline does not get unrelated flags as a side effect.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::quant_block;

void mlir::quant_block::registerPipelines() {
  PassPipelineRegistration<LinalgPipelineOptions>(
      "quant-block-linalg-pipeline",
      "The target-neutral front half every target pipeline starts with: "
      "quant_block, TOSA, upstream quant and frontend decompositions to "
      "fused linalg on tensors",
      [](OpPassManager &pm, const LinalgPipelineOptions &options) {
        buildFrontHalfPipeline(pm, options.getFrontHalfOptions());
      });
  PassPipelineRegistration<CPUPipelineOptions>(
      "quant-block-cpu-pipeline",
      "Lower quant_block and the upstream IR around it to the LLVM dialect "
      "for the host CPU (runnable with mlir-runner)",
      buildCPUPipeline);
  PassPipelineRegistration<SPIRVPipelineOptions>(
      "quant-block-spirv-pipeline",
      "Lower quant_block and the IR around it to SPIR-V kernels for Vulkan "
      "in a gpu.binary and LLVM host code (runnable with mlir-runner and "
      "libQuantBlockVulkanRuntime.so)",
      buildSPIRVPipeline);
  PassPipelineRegistration<NVVMPipelineOptions>(
      "quant-block-nvvm-pipeline",
      "Lower quant_block and the IR around it to NVVM kernels (PTX, cubin or "
      "fatbin) in a gpu.binary and LLVM host code (runnable with "
      "mlir-runner and libQuantBlockCudaRuntime.so)",
      buildNVVMPipeline);
}
