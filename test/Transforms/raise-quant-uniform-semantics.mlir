// RUN: quant-opt %s --lower-quant-ops -o %t.mlir
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %t.mlir \
// RUN:   --pass='quant-block-raise' --expect-change | FileCheck %s

// quant.dcast on per-tensor, per-axis and sub-channel !quant.uniform types,
// lowered by upstream's --lower-quant-ops (the "before") and raised from
// that lowering (the "after"): bit-for-bit equal. raise-quant-uniform.mlir
// checks that raising the quant ops directly gives the same quant_block ops
// as raising their lowering. (quant.qcast is not compared: upstream's
// lowering truncates and does not saturate, the contract rounds half to even
// and saturates; see the pass description.)

// CHECK-NOT: FAIL
// CHECK: PASS


func.func @dcast_per_tensor(%q: tensor<8x128xi8>) -> tensor<8x128xf32> {
  %0 = quant.scast %q : tensor<8x128xi8> to tensor<8x128x!quant.uniform<i8:f32, 0.5:-3>>
  %1 = quant.dcast %0 : tensor<8x128x!quant.uniform<i8:f32, 0.5:-3>> to tensor<8x128xf32>
  return %1 : tensor<8x128xf32>
}

func.func @dcast_per_tensor_symmetric(%q: tensor<8x128xi8>) -> tensor<8x128xf32> {
  %0 = quant.scast %q : tensor<8x128xi8> to tensor<8x128x!quant.uniform<i8:f32, 0.25>>
  %1 = quant.dcast %0 : tensor<8x128x!quant.uniform<i8:f32, 0.25>> to tensor<8x128xf32>
  return %1 : tensor<8x128xf32>
}

func.func @dcast_per_axis(%q: tensor<4x8xi8>) -> tensor<4x8xf32> {
  %0 = quant.scast %q : tensor<4x8xi8> to tensor<4x8x!quant.uniform<i8:f32:0, {1.0:1, 2.0:2, 3.0:3, 4.0:4}>>
  %1 = quant.dcast %0 : tensor<4x8x!quant.uniform<i8:f32:0, {1.0:1, 2.0:2, 3.0:3, 4.0:4}>> to tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

func.func @dcast_sub_channel(%q: tensor<2x64xi8>) -> tensor<2x64xf32> {
  %0 = quant.scast %q : tensor<2x64xi8> to tensor<2x64x!quant.uniform<i8:f32:{1:32}, {{0.5:1, 0.25:2}}>>
  %1 = quant.dcast %0 : tensor<2x64x!quant.uniform<i8:f32:{1:32}, {{0.5:1, 0.25:2}}>> to tensor<2x64xf32>
  return %1 : tensor<2x64xf32>
}

func.func @dcast_sub_channel_2d(%q: tensor<2x64xi8>) -> tensor<2x64xf32> {
  %0 = quant.scast %q : tensor<2x64xi8> to tensor<2x64x!quant.uniform<i8:f32:{0:1, 1:32}, {{0.5, 0.25}, {2.0, 4.0}}>>
  %1 = quant.dcast %0 : tensor<2x64x!quant.uniform<i8:f32:{0:1, 1:32}, {{0.5, 0.25}, {2.0, 4.0}}>> to tensor<2x64xf32>
  return %1 : tensor<2x64xf32>
}


// Scales that f32 rounds (0.1, 0.3, 0.7): both paths round the f64
// literal to the expressed type the same way.
func.func @dcast_inexact_scales(%q: tensor<3x16xi8>) -> tensor<3x16xf32> {
  %0 = quant.scast %q : tensor<3x16xi8> to tensor<3x16x!quant.uniform<i8:f32:0, {0.1:7, 0.3:-5, 0.7:0}>>
  %1 = quant.dcast %0 : tensor<3x16x!quant.uniform<i8:f32:0, {0.1:7, 0.3:-5, 0.7:0}>> to tensor<3x16xf32>
  return %1 : tensor<3x16xf32>
}
