//===- CPUPipeline.cpp - --quant-block-cpu-pipeline -----------------------===//
//
// From quant_block (and func / linalg / tensor / arith / math / TOSA / quant
// IR around it) to the LLVM dialect: the shared front half, then the CPU back
// half. Functions keep plain memref arguments (identity-layout bufferization)
// so that mlir-runner and C callers can pass buffers; every tensor is
// bufferized and deallocated.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "quant-block/Codegen/CPU/CPUTarget.h"
#include "quant-block/Codegen/CPU/Passes.h"
#include "quant-block/Codegen/Common/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_block;

namespace {
/// The target-dependent choices of the pipeline: the options as given, or,
/// with `target-cpu` / `target-features`, what the target has for each
/// option the user did not set.
struct TargetChoices {
  bool x86Vnni, x86Amx, x86AmxBF16, x86Avx512, x86F16c, x86Vbmi, x86BF16;
  int64_t vectorBits;
  /// Whether the target options resolved (false: the record-target pass
  /// reports why, before anything else runs).
  bool resolved = true;
  bool hasTarget = false;
};
} // namespace

static TargetChoices chooseTarget(const CPUPipelineOptions &options) {
  TargetChoices choices{
      options.x86Vnni, options.x86Amx,  options.x86AmxBF16, options.x86Avx512,
      options.x86F16c, options.x86Vbmi, options.x86BF16,    options.vectorBits};
  if (options.targetCPU.empty() && options.targetFeatures.empty())
    return choices;
  choices.hasTarget = true;
  llvm::Expected<CPUTarget> target =
      resolveCPUTarget(options.targetCPU, options.targetFeatures);
  if (!target) {
    llvm::consumeError(target.takeError());
    choices.resolved = false;
    return choices;
  }
  // Options given on the command line win over the target's.
  if (!options.x86Vnni.getNumOccurrences())
    choices.x86Vnni = target->avx512Vnni;
  if (!options.x86Amx.getNumOccurrences())
    choices.x86Amx = target->amxInt8;
  if (!options.x86AmxBF16.getNumOccurrences())
    choices.x86AmxBF16 = target->amxBF16;
  if (!options.x86Avx512.getNumOccurrences())
    choices.x86Avx512 = target->avx512f;
  if (!options.x86F16c.getNumOccurrences())
    choices.x86F16c = target->f16c;
  if (!options.x86Vbmi.getNumOccurrences())
    choices.x86Vbmi = target->avx512Vbmi;
  if (!options.x86BF16.getNumOccurrences())
    choices.x86BF16 = target->avx512BF16;
  if (!options.vectorBits.getNumOccurrences())
    choices.vectorBits = target->vectorBits;
  return choices;
}

/// The pass that records the target on the lowered functions (or reports
/// why its options do not resolve).
static std::unique_ptr<Pass>
createRecordTarget(const CPUPipelineOptions &options) {
  CPURecordTargetOptions record;
  record.cpu = options.targetCPU;
  record.features = options.targetFeatures;
  return createCPURecordTarget(record);
}

void mlir::quant_block::buildCPUBackHalfPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  TargetChoices target = chooseTarget(options);
  if (options.vectorize) {
    CPUVectorizeOptions vectorize;
    vectorize.vectorBits = target.vectorBits;
    vectorize.registers = options.registers;
    vectorize.parallel = options.parallel;
    pm.addNestedPass<func::FuncOp>(createCPUVectorize(vectorize));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Every linalg op left now becomes scalar loops.
  if (options.reportUnvectorized)
    pm.addNestedPass<func::FuncOp>(createCPUReportUnvectorized());

  buildBufferizationStage(pm);
  // Temporaries are freed after their last use, not when the function
  // returns: a layer's peak memory is then its largest live set.
  pm.addNestedPass<func::FuncOp>(createDeallocateAfterLastUse());
  // Before the linalg ops become loops: a copy into a strided view would
  // otherwise call the runner utility library.
  pm.addNestedPass<func::FuncOp>(createLowerStridedCopies());

  // After bufferization: buffer deallocation refuses the intrinsic calls.
  if (options.vectorize && options.matmulKernels && target.x86Vnni)
    pm.addNestedPass<func::FuncOp>(createCPUX86DotProducts());
  if (options.vectorize && options.matmulKernels && target.x86Vnni &&
      target.x86Vbmi)
    pm.addNestedPass<func::FuncOp>(createCPUX86SixBitSpreads());
  if (options.vectorize && options.matmulKernels && target.x86Avx512)
    pm.addNestedPass<func::FuncOp>(createCPUX86TableLookups());

  if (options.vectorize) {
    pm.addNestedPass<func::FuncOp>(createCPUFlattenVectors());
    pm.addPass(createCanonicalizerPass());
  }
  // What was not vectorized (dynamic loops, tile loops) becomes loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createCPULowerReductions());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  // bf16 and f16: no host conversion instruction may decide the bits
  // (vcvtneps2bf16 flushes subnormals on AVX512-BF16 hosts), and f16
  // arithmetic must not be native on some hosts and promoted on others.
  arith::ArithEmulateUnsupportedFloatsOptions halfWidth;
  halfWidth.sourceTypeStrs = {"bf16", "f16"};
  halfWidth.targetTypeStr = "f32";
  pm.addNestedPass<func::FuncOp>(
      arith::createArithEmulateUnsupportedFloats(halfWidth));
  // Vectorizable, host-independent exp (softmax, SiLU) instead of a libm
  // call per lane.
  pm.addNestedPass<func::FuncOp>(createCPUPolynomialExp());
  ExpandFloatConversionsOptions conversions;
  conversions.nativeF16Extension = target.x86F16c;
  conversions.nativeBF16Truncation = target.x86BF16;
  pm.addNestedPass<func::FuncOp>(createExpandFloatConversions(conversions));
  if (options.vectorize && options.parallel) {
    // The threads' scf.forall loops (parallel=true in the vectorizer).
    pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
    pm.addPass(createConvertSCFToOpenMPPass());
    CPUThreadScheduleOptions schedule;
    schedule.schedule = options.threadSchedule;
    schedule.chunk = options.threadChunk;
    pm.addPass(createCPUThreadSchedule(schedule));
    // convert-scf-to-openmp wraps each iteration in a memref.alloca_scope,
    // which must stay one block; the tiles allocate nothing, so
    // canonicalization inlines it before the loops inside become blocks.
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  if (options.vectorize && options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCPULegalizeBF16Vectors());
  pm.addPass(createCanonicalizerPass());
  if (target.hasTarget && target.resolved)
    pm.addPass(createRecordTarget(options));
}

void mlir::quant_block::buildCPUPipeline(OpPassManager &pm,
                                         const CPUPipelineOptions &options) {
  TargetChoices target = chooseTarget(options);
  if (!target.resolved) {
    // Nothing else runs: the pass says what is wrong with the options.
    pm.addPass(createRecordTarget(options));
    return;
  }
  FrontHalfOptions frontHalf = options.getFrontHalfOptions();
  buildFrontHalfTransformStage(pm, frontHalf);
  // On quant_block ops, after fusion made the products read packed weights
  // and before the generic lowering would turn them into linalg.
  if (options.vectorize && options.matmulKernels) {
    CPUMatmulKernelsOptions kernels;
    kernels.parallel = options.parallel;
    kernels.x86Vnni = target.x86Vnni;
    kernels.x86Amx = target.x86Amx;
    kernels.x86AmxBF16 = target.x86AmxBF16;
    kernels.x86Avx512 = target.x86Avx512;
    // The choice as an attribute first, so that a product a user gave a
    // kernel keeps it and a dump between the passes shows the strategy.
    CPUSelectMatmulKernelsOptions selection;
    selection.x86Vnni = target.x86Vnni;
    selection.x86Amx = target.x86Amx;
    selection.x86AmxBF16 = target.x86AmxBF16;
    pm.addNestedPass<func::FuncOp>(createCPUSelectMatmulKernels(selection));
    // Constant weights of the kernels that read 16-row tiles take that
    // layout at compile time (an imported model's initializers).
    if (options.tileConstantWeights)
      pm.addNestedPass<func::FuncOp>(createCPUTileConstantWeights());
    // Other weights of long products: repacked once per call.
    if (options.repackWeightsMinRows > 0) {
      CPURepackWeightsOptions repack;
      repack.minRows = options.repackWeightsMinRows;
      pm.addNestedPass<func::FuncOp>(createCPURepackWeights(repack));
    }
    pm.addNestedPass<func::FuncOp>(createCPUMatmulKernels(kernels));
  }
  buildFrontHalfLoweringStage(pm, frontHalf);
  buildCPUBackHalfPipeline(pm, options);
}
