// Quantize and dequantize int4 / uint2 data with group and ragged blocks,
// int and float zero points, NaN and saturation, compiled for the CPU and
// executed; f32 results are printed as bit patterns for exact checks.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!g = !quant_block.tensor<2x8, #quant_block.scheme<i4 : f32, block = [4], zero_point = i8>>
!r = !quant_block.tensor<2x7, #quant_block.scheme<ui2 : f32, block = [3], zero_point = f32>>

func.func @groups(%x: tensor<2x8xf32>, %s: tensor<2x2xf32>, %z: tensor<2x2xi8>) -> tensor<2x8xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi8>) : tensor<2x8xf32> -> !g
  %y = quant_block.dequantize %q : !g -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

func.func @ragged(%x: tensor<2x7xf32>, %s: tensor<2x3xf32>, %m: tensor<2x3xf32>) -> tensor<2x7xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<2x3xf32>) zero_points(%m : tensor<2x3xf32>) : tensor<2x7xf32> -> !r
  %y = quant_block.dequantize %q : !r -> tensor<2x7xf32>
  return %y : tensor<2x7xf32>
}

func.func @main() {
  // Row 0 block 0: s = 0.5, zp = 1; block 1: s = 0.25, zp = -1 (saturates at
  // -8 and 7). Row 1: ties 0.25 / 0.5 = 0.5 -> 0 and 1.25 / 0.5 = 2.5 -> 2
  // (half to even), NaN -> the zero point.
  %x = arith.constant dense<[[0.0, 0.5, 1.0, 1.5, -2.0, 2.5, 100.0, -100.0],
                             [0.3, 0.7, -0.7, 0.25, 0.75, 1.25, 3.0, 0x7FC00000]]> : tensor<2x8xf32>
  %s = arith.constant dense<[[0.5, 0.25], [0.5, 0.5]]> : tensor<2x2xf32>
  %z = arith.constant dense<[[1, -1], [0, 2]]> : tensor<2x2xi8>
  %y = func.call @groups(%x, %s, %z) : (tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xi8>) -> tensor<2x8xf32>
  %yb = arith.bitcast %y : tensor<2x8xf32> to tensor<2x8xi32>
  %u = tensor.cast %yb : tensor<2x8xi32> to tensor<*xi32>
  // 0, 0.5, 1, 1.5 | -1.75, 2, 2, -1.75 ; 0.5, 0.5, -0.5, 0 | 1, 1, 2.5, 0
  // CHECK: [0, 1056964608, 1065353216, 1069547520, -1075838976, 1073741824, 1073741824, -1075838976]
  // CHECK: [1056964608, 1056964608, -1090519040, 0, 1065353216, 1065353216, 1075838976, 0]
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()

  // uint2 in ragged blocks of 3 (ceil(7 / 3) = 3 per row), x = q * s + m.
  %x2 = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 9.0, -5.0, 1.4],
                              [0.5, 0.6, 0.9, 2.0, 2.5, 3.5, 10.0]]> : tensor<2x7xf32>
  %s2 = arith.constant dense<[[1.0, 2.0, 0.5], [0.25, 0.5, 4.0]]> : tensor<2x3xf32>
  %m2 = arith.constant dense<[[0.0, 1.0, 0.0], [0.5, 2.0, 0.0]]> : tensor<2x3xf32>
  %y2 = func.call @ragged(%x2, %s2, %m2) : (tensor<2x7xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  %y2fb = arith.bitcast %y2 : tensor<2x7xf32> to tensor<2x7xi32>
  %y2f = tensor.cast %y2fb : tensor<2x7xi32> to tensor<*xi32>
  // Row 0: [0, 1, 2] | 3 -> q=1 -> 3, 9 -> q=3 -> 7, -5 -> q=0 -> 1 | 1.4 -> q=3 (2.8, saturated) -> 1.5
  // Row 1: 0.5 -> 0 -> 0.5, 0.6 -> 0.4 -> 0 -> 0.5, 0.9 -> 1.6 -> 2 -> 1 | 2 -> 0 -> 2, 2.5 -> 1 -> 2.5, 3.5 -> 3 -> 3.5 | 10 -> 2.5 -> 2 -> 8
  // [0, 1, 2, 3, 7, 1, 1.5]
  // CHECK: [0, 1065353216, 1073741824, 1077936128, 1088421888, 1065353216, 1069547520]
  // [0.5, 0.5, 1, 2, 2.5, 3.5, 8]
  // CHECK: [1056964608, 1056964608, 1065353216, 1073741824, 1075838976, 1080033280, 1090519040]
  func.call @printMemrefI32(%y2f) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
