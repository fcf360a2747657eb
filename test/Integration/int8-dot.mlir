// An i32-accumulating matmul (llama.cpp style) compiled for the CPU and
// executed: int8 activations with one f32 scale per block of 4 along K, an
// int4 weight [N, K] with f16 scales and int4 zero points per block of 4.
// Per block the centered code products are summed in i32; the block sums are
// scaled by both block scales and summed in f32 (docs/Numerics.md).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!x = !quant_block.tensor<2x8, #quant_block.scheme<i8 : f32, block = [1, 4]>>
!w = !quant_block.tensor<3x8, #quant_block.scheme<i4 : f32, block = [1, 4], scale = f16, zero_point = i4>>

func.func @main() {
  %xc = arith.constant dense<[[1, -2, 3, -4, 127, -128, 0, 5], [10, 20, 30, 40, -1, -1, -1, -1]]> : tensor<2x8xi8>
  %xs = arith.constant dense<[[0.5, 0.25], [2.0, 0.125]]> : tensor<2x2xf32>
  %wc = arith.constant dense<[[0, 1, 2, 3, 7, 6, 5, -8], [-1, -1, -1, -1, 1, 1, 1, 1], [1, 0, 1, 0, 1, 0, 1, 0]]> : tensor<3x8xi4>
  %ws = arith.constant dense<[[1.0, 0.5], [0.25, 2.0], [1.0, 1.0]]> : tensor<3x2xf16>
  %wz = arith.constant dense<[[0, 1], [-1, 0], [0, 1]]> : tensor<3x2xi4>
  %x = quant_block.pack %xc scales(%xs : tensor<2x2xf32>) : tensor<2x8xi8> -> !x
  %w = quant_block.pack %wc scales(%ws : tensor<3x2xf16>) zero_points(%wz : tensor<3x2xi4>) : tensor<3x8xi4> -> !w
  // y[0][0]: block 0: 1*0 - 2*1 + 3*2 - 4*3 = -8, * 0.5 * 1.0 = -4;
  //          block 1: codes - 1 = [6, 5, 4, -9]: 762 - 640 + 0 - 45 = 77,
  //          * 0.25 * 0.5 = 9.625; -4 + 9.625 = 5.625.
  // y[1][1]: block 0 codes - (-1) = 0 -> 0; block 1: -4 * 0.125 * 2 = -1.
  // y[1][0]: block 0: 0 + 20 + 60 + 120 = 200 * 2 = 400; block 1: -(6 + 5 +
  //          4 - 9) = -6 * 0.125 * 0.5 = -0.375; 399.625.
  // Printed as bit patterns: [5.625, 2, 32.75] = [0x40b40000, 0x40000000,
  // 0x42030000], [399.625, -1, 80.25] = [0x43c7d000, 0xbf800000,
  // 0x42a08000].
  // CHECK: [1085538304, 1073741824, 1107492864]
  // CHECK: [1137168384, -1082130432, 1117814784]
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !x, !w -> tensor<2x3xf32>
  %yb = arith.bitcast %y : tensor<2x3xf32> to tensor<2x3xi32>
  %u = tensor.cast %yb : tensor<2x3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
