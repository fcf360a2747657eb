//===- FrontHalfPipeline.cpp - the target-neutral front half --------------===//
//
// Everything every target does before it decides how to run the loops: the
// frontends' IR becomes quant_block ops, dequantization moves below layout
// ops and fuses into the contractions that consume it, quant_block becomes
// linalg, and the elementwise consumers of a dequantization fuse into it. The
// CPU pipeline (and the coming GPU pipelines) start here, so a module computes
// the same numerics on every target. --quant-block-linalg-pipeline stops here.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Pipelines/Pipelines.h"

#include "quant-block/Codegen/Common/Passes.h"
#include "quant-block/Conversion/Passes.h"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::quant_block;

void mlir::quant_block::buildFrontHalfPipeline(
    OpPassManager &pm, const FrontHalfOptions &options) {
  buildFrontHalfTransformStage(pm, options);
  buildFrontHalfLoweringStage(pm, options);
}

void mlir::quant_block::buildFrontHalfTransformStage(
    OpPassManager &pm, const FrontHalfOptions &options) {
  if (options.raise)
    pm.addPass(createQuantBlockRaise());
  // Before TOSA is lowered: both passes match tosa.transpose / reshape /
  // matmul as well as their linalg and tensor forms. Propagation carries the
  // packed weight through the layout ops a frontend puts between the
  // dequantization and the matmul (aten.linear's transpose of the weight);
  // fusion then makes the contraction read the packed weight and folds the
  // weight's transpose into `transpose_rhs`. Together, plain frontend IR
  // reaches the fused kernel with no weight-sized temporary. (No
  // canonicalizer here: it would fold arith.extf of FP8 constants before
  // --quant-block-expand-narrow-floats decodes them exactly.)
  if (options.propagate)
    pm.addPass(createQuantBlockPropagate());
  if (options.fuse) {
    QuantBlockFuseOptions fuse;
    fuse.integerDot = options.integerDot;
    pm.addPass(createQuantBlockFuse(fuse));
  }
  // Identical pure ops become one (quant_block ops are Pure): a model that
  // feeds one activation to several products quantizes it once rather than
  // once per product (the LLaMA model's q, k, v and gate, up where they are
  // not one fused product: on the GPU pipelines each quantize_dynamic was
  // four kernels). CSE folds no constant, unlike the canonicalizer.
  pm.addPass(createCSEPass());
}

void mlir::quant_block::buildFrontHalfLoweringStage(
    OpPassManager &pm, const FrontHalfOptions &options) {
  if (options.lowerTosa) {
    // TOSA around the quantized ops goes through the standard lowering.
    OpPassManager &funcPm = pm.nest<func::FuncOp>();
    funcPm.addPass(tosa::createTosaToLinalgNamed());
    funcPm.addPass(tosa::createTosaToLinalg());
    funcPm.addPass(createTosaToArithPass());
    funcPm.addPass(createTosaToTensorPass());
  }
  pm.addPass(createConvertQuantBlockToLinalg());
  // Elementwise arith / math on tensors (as frontends and tests write them)
  // becomes linalg so that it bufferizes.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // FP8 / FP6 / FP4 / E8M0 outside quant_block: extensions are decoded
  // exactly, anything else is an error here rather than in the LLVM
  // translation.
  pm.addPass(createExpandNarrowFloats());
  // Elementwise consumers of a dequantization (bias, activation, residual)
  // fuse into its generic, through the collapse of the block iteration
  // space, so the dequantized tensor is never materialized.
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  pm.addPass(createCanonicalizerPass());
}
