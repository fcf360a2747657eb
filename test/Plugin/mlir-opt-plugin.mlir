// Debian's own mlir-opt loads the quant_block dialect (and the pass
// registrations) from the plugin, and round-trips and verifies the IR.
// RUN: mlir-opt %s --load-dialect-plugin=%quant_block_libs/QuantBlockPlugin.so --load-pass-plugin=%quant_block_libs/QuantBlockPlugin.so | FileCheck %s
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=WITHOUT
// Pass plugins register passes, not flags: they run through --pass-pipeline,
// as README.md and docs/Embedding.md show.
// RUN: mlir-opt %s --load-dialect-plugin=%quant_block_libs/QuantBlockPlugin.so --load-pass-plugin=%quant_block_libs/QuantBlockPlugin.so --pass-pipeline='builtin.module(quant-block-cpu-pipeline)' | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: llvm.func @plugin

// CHECK-LABEL: func.func @plugin
// CHECK: quant_block.dequantize %{{.*}} : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>> -> tensor<2x32xf32>
// WITHOUT: type created with unregistered dialect
func.func @plugin(%q: !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>) -> tensor<2x32xf32> {
  %x = quant_block.dequantize %q : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>> -> tensor<2x32xf32>
  return %x : tensor<2x32xf32>
}
