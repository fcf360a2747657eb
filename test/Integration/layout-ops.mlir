// The layout ops move packed int4 data and its parameters without
// dequantizing: dequantize(layout(q)) equals layout(dequantize(q)) for a
// transpose, a reshape, a block-aligned slice and a broadcast. Compiled for
// the CPU and executed; each result is printed as its f32 bit patterns (the
// decimals are in the comment above each CHECK).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!q = !quant_block.tensor<4x8, #quant_block.scheme<i4 : f32, block = [1, 4], zero_point = i4>>
!t = !quant_block.tensor<8x4, #quant_block.scheme<i4 : f32, block = [4, 1], zero_point = i4>>
!r = !quant_block.tensor<32, #quant_block.scheme<i4 : f32, block = [4], zero_point = i4>>
!s = !quant_block.tensor<2x4, #quant_block.scheme<i4 : f32, block = [1, 4], zero_point = i4>>
!b = !quant_block.tensor<3x4x8, #quant_block.scheme<i4 : f32, block = [*, 1, 4], zero_point = i4>>
func.func @layouts(%q: !q) -> (tensor<8x4xf32>, tensor<32xf32>, tensor<2x4xf32>, tensor<3x4x8xf32>) {
  %t = quant_block.transpose %q permutation = [1, 0] : !q -> !t
  %r = quant_block.reshape %q : !q -> !r
  %s = quant_block.extract_slice %q offsets = [1, 4] sizes = [2, 4] : !q -> !s
  %b = quant_block.broadcast %q dimensions = [0] : !q -> !b
  %td = quant_block.dequantize %t : !t -> tensor<8x4xf32>
  %rd = quant_block.dequantize %r : !r -> tensor<32xf32>
  %sd = quant_block.dequantize %s : !s -> tensor<2x4xf32>
  %bd = quant_block.dequantize %b : !b -> tensor<3x4x8xf32>
  return %td, %rd, %sd, %bd : tensor<8x4xf32>, tensor<32xf32>, tensor<2x4xf32>, tensor<3x4x8xf32>
}
func.func @main() {
  %d = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7], [-8, -7, -6, -5, -4, -3, -2, -1], [1, 1, 1, 1, 2, 2, 2, 2], [7, 6, 5, 4, 3, 2, 1, 0]]> : tensor<4x8xi4>
  %s = arith.constant dense<[[1.0, 2.0], [0.5, 0.25], [4.0, 8.0], [1.0, -1.0]]> : tensor<4x2xf32>
  %z = arith.constant dense<[[0, 1], [-1, 0], [1, 2], [0, 7]]> : tensor<4x2xi4>
  %q = quant_block.pack %d scales(%s : tensor<4x2xf32>) zero_points(%z : tensor<4x2xi4>) : tensor<4x8xi4> -> !q
  %x = quant_block.dequantize %q : !q -> tensor<4x8xf32>
  %uxb = arith.bitcast %x : tensor<4x8xf32> to tensor<4x8xi32>
  %ux = tensor.cast %uxb : tensor<4x8xi32> to tensor<*xi32>
  // dequantize(q):
  // [0, 1, 2, 3, 6, 8, 10, 12]
  // CHECK: [0, 1065353216, 1073741824, 1077936128, 1086324736, 1090519040, 1092616192, 1094713344]
  // [-3.5, -3, -2.5, -2, -1, -0.75, -0.5, -0.25]
  // CHECK: [-1067450368, -1069547520, -1071644672, -1073741824, -1082130432, -1086324736, -1090519040, -1098907648]
  // [0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: [0, 0, 0, 0, 0, 0, 0, 0]
  // [7, 6, 5, 4, 4, 5, 6, 7]
  // CHECK: [1088421888, 1086324736, 1084227584, 1082130432, 1082130432, 1084227584, 1086324736, 1088421888]
  func.call @printMemrefI32(%ux) : (tensor<*xi32>) -> ()
  %r:4 = func.call @layouts(%q) : (!q) -> (tensor<8x4xf32>, tensor<32xf32>, tensor<2x4xf32>, tensor<3x4x8xf32>)
  %u0b = arith.bitcast %r#0 : tensor<8x4xf32> to tensor<8x4xi32>
  %u0 = tensor.cast %u0b : tensor<8x4xi32> to tensor<*xi32>
  // Its transpose:
  // [0, -3.5, 0, 7]
  // CHECK: [0, -1067450368, 0, 1088421888]
  // [1, -3, 0, 6]
  // CHECK: [1065353216, -1069547520, 0, 1086324736]
  // [2, -2.5, 0, 5]
  // CHECK: [1073741824, -1071644672, 0, 1084227584]
  // [3, -2, 0, 4]
  // CHECK: [1077936128, -1073741824, 0, 1082130432]
  // [6, -1, 0, 4]
  // CHECK: [1086324736, -1082130432, 0, 1082130432]
  // [8, -0.75, 0, 5]
  // CHECK: [1090519040, -1086324736, 0, 1084227584]
  // [10, -0.5, 0, 6]
  // CHECK: [1092616192, -1090519040, 0, 1086324736]
  // [12, -0.25, 0, 7]
  // CHECK: [1094713344, -1098907648, 0, 1088421888]
  func.call @printMemrefI32(%u0) : (tensor<*xi32>) -> ()
  %u1b = arith.bitcast %r#1 : tensor<32xf32> to tensor<32xi32>
  %u1 = tensor.cast %u1b : tensor<32xi32> to tensor<*xi32>
  // Flattened:
  // [0, 1, 2, 3, 6, 8, 10, 12, -3.5, -3, -2.5, -2, -1, -0.75, -0.5, -0.25, 0, 0, 0, 0, 0, 0, 0, 0, 7, 6, 5, 4, 4, 5, 6, 7]
  // CHECK: [0, 1065353216, 1073741824, 1077936128, 1086324736, 1090519040, 1092616192, 1094713344, -1067450368, -1069547520, -1071644672, -1073741824, -1082130432, -1086324736, -1090519040, -1098907648, 0, 0, 0, 0, 0, 0, 0, 0, 1088421888, 1086324736, 1084227584, 1082130432, 1082130432, 1084227584, 1086324736, 1088421888]
  func.call @printMemrefI32(%u1) : (tensor<*xi32>) -> ()
  %u2b = arith.bitcast %r#2 : tensor<2x4xf32> to tensor<2x4xi32>
  %u2 = tensor.cast %u2b : tensor<2x4xi32> to tensor<*xi32>
  // Rows 1-2, columns 4-7 (the second block of each row):
  // [-1, -0.75, -0.5, -0.25]
  // CHECK: [-1082130432, -1086324736, -1090519040, -1098907648]
  // [0, 0, 0, 0]
  // CHECK: [0, 0, 0, 0]
  func.call @printMemrefI32(%u2) : (tensor<*xi32>) -> ()
  %u3b = arith.bitcast %r#3 : tensor<3x4x8xf32> to tensor<3x4x8xi32>
  %u3 = tensor.cast %u3b : tensor<3x4x8xi32> to tensor<*xi32>
  // Broadcast three times along a new leading dimension:
  // [0, 1, 2, 3, 6, 8, 10, 12]
  // CHECK-COUNT-3: [0, 1065353216, 1073741824, 1077936128, 1086324736, 1090519040, 1092616192, 1094713344]
  func.call @printMemrefI32(%u3) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
