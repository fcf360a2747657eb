// --quant-block-cpu-pipeline fuses elementwise consumers of a dequantization
// into its generic: one generic computes (q * s) + b and the dequantized
// tensor is never materialized.
// RUN: quant-opt %s --quant-block-cpu-pipeline --mlir-print-ir-after=quant-block-fuse-elementwise -o /dev/null 2>&1 | FileCheck %s
// The shared front half alone (what every target pipeline starts with) ends
// with the same fused generic, on tensors.
// RUN: quant-opt %s --quant-block-linalg-pipeline | FileCheck %s

// CHECK-LABEL: func.func @dequantize_add
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<64x8x16xi8>, tensor<64x8xf16>, tensor<64x8x16x2xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %{{.*}} into tensor<64x256xf32>
!q = !quant_block.tensor<64x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @dequantize_add(%q: !q, %b: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<64x256xf32>
  %y = arith.addf %x, %b : tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
