/*===- quant-block-c/Passes.h - quant-block passes in the C API ---*- C -*-===*\
|*                                                                            *|
|* The quant-block passes and pipelines for C hosts, as upstream dialects     *|
|* expose theirs (mlir-c/Dialect/Linalg.h): the mlirCreate... and             *|
|* mlirRegister... functions of every pass are generated from the five        *|
|* Passes.td files, so they never drift from the passes. After                *|
|* mlirRegisterQuantBlockPasses(), mlirParsePassPipeline understands          *|
|* `quant-block-raise`, `quant-block-cpu-pipeline` and the others, and        *|
|* mlirPassManagerRunOnOp runs them.                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUANT_BLOCK_C_PASSES_H
#define QUANT_BLOCK_C_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include "quant-block/Codegen/CPU/Passes.capi.h.inc"
#include "quant-block/Codegen/Common/Passes.capi.h.inc"
#include "quant-block/Codegen/GPU/Passes.capi.h.inc"
#include "quant-block/Codegen/NVVM/Passes.capi.h.inc"
#include "quant-block/Codegen/SPIRV/Passes.capi.h.inc"
#include "quant-block/Conversion/Passes.capi.h.inc"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every quant-block pass (the five families above) and the
/// pipelines (mlirRegisterQuantBlockPipelines), so that textual pipelines
/// may name them. Idempotent.
MLIR_CAPI_EXPORTED void mlirRegisterQuantBlockPasses(void);

/// Registers only the pipelines: `quant-block-linalg-pipeline` and
/// `quant-block-cpu-pipeline`. Idempotent.
MLIR_CAPI_EXPORTED void mlirRegisterQuantBlockPipelines(void);

/// Registers every upstream MLIR pass (mlir/InitAllPasses.h), so that
/// pipelines may mix them with ours (`canonicalize`, `cse`, ...). Idempotent.
MLIR_CAPI_EXPORTED void mlirQuantBlockRegisterUpstreamPasses(void);

/// Inserts into `registry` every dialect and extension the pipelines produce
/// or consume (all upstream dialects, their interface extensions and LLVM IR
/// translations) and the quant_block dialect: what a context needs to parse
/// frontend IR and run --quant-block-cpu-pipeline on it.
MLIR_CAPI_EXPORTED void
mlirQuantBlockRegisterAllDialects(MlirDialectRegistry registry);

// The GGUF reader and importer (quant-block-c/GGUF.h) are declared there:
// mlirQuantBlockGGUFFileOpen, mlirQuantBlockGGUFTensorRepack,
// mlirQuantBlockGGUFImport, ...

#ifdef __cplusplus
}
#endif

#endif // QUANT_BLOCK_C_PASSES_H
