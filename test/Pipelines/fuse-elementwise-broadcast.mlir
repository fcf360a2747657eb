// --quant-block-fuse-elementwise does not fuse a producer that its consumer
// reads with a broadcast: the quantization of the activations of an
// accumulate(i32) matmul (a division and a rounding per element) would be
// recomputed for every output column, once per multiply-add (it made the
// int8-activation GEMV of issue 10 50x slower than the weight stream).
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg --quant-block-fuse-elementwise | FileCheck %s

// The activation codes are computed once, in their own generic; the block
// sums multiply integers only.
// CHECK-LABEL: func.func @integer_gemv
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: linalg.yield %{{.*}} : i8
// CHECK: linalg.generic
// CHECK-NOT: arith.divf
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: arith.addi
// CHECK: return
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<1x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @integer_gemv(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x64xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
