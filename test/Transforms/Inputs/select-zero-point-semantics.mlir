// Inputs of the exact semantic tests of --quant-block-select-zero-point
// (select-zero-point.mlir): constant zero points that the pass drops or turns
// into integer ones, under the default (auto), none and int domains. Every
// result must stay bit for bit the same; negative scales and signed zeros
// are there on purpose.

!i8z = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>

// Int zero points that are all zero, under negative and positive scales.
func.func @drop_int_zeros(%d: tensor<4x64xi8>) -> tensor<64x4xf32> {
  %s = arith.constant dense<[[0.5, -0.25], [-3.0, 1.5], [0.0, 2.0], [-0.0, 1.0e-3]]> : tensor<4x2xf32>
  %z = arith.constant dense<0> : tensor<4x2xi8>
  %q = quant_block.pack %d scales(%s : tensor<4x2xf32>) zero_points(%z : tensor<4x2xi8>) : tensor<4x64xi8> -> !i8z
  %t = quant_block.transpose %q permutation = [1, 0] : !i8z -> !quant_block.tensor<64x4, #quant_block.scheme<i8 : f32, block = [32, 1], zero_point = i8>>
  %x = quant_block.dequantize %t : !quant_block.tensor<64x4, #quant_block.scheme<i8 : f32, block = [32, 1], zero_point = i8>> -> tensor<64x4xf32>
  return %x : tensor<64x4xf32>
}

!i4f = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f16, block = [32], scale = f16, zero_point = f16>>

// Float zero points -0.0 (any scale) and +0.0 (positive scales).
func.func @drop_float_zeros(%d: tensor<4x64xi8>) -> tensor<4x64xf16> {
  %c = arith.trunci %d : tensor<4x64xi8> to tensor<4x64xi4>
  %s = arith.constant dense<[[0.5, 0.25], [3.0, 1.5], [7.0, 2.0], [0.125, 1.0e-3]]> : tensor<4x2xf16>
  %z = arith.constant dense<[[0.0, -0.0], [0.0, 0.0], [-0.0, -0.0], [0.0, 0.0]]> : tensor<4x2xf16>
  %q = quant_block.pack %c scales(%s : tensor<4x2xf16>) zero_points(%z : tensor<4x2xf16>) : tensor<4x64xi4> -> !i4f
  %x = quant_block.dequantize %q : !i4f -> tensor<4x64xf16>
  return %x : tensor<4x64xf16>
}

!i4b = !quant_block.tensor<4x64, #quant_block.scheme<i4 : bf16, block = [32], scale = bf16, zero_point = bf16>>

// Float zero points m = -zp * s for integers zp in [-8, 7]: int zero points.
func.func @float_to_int(%d: tensor<4x64xi8>, %a: tensor<3x64xbf16>) -> (tensor<4x64xbf16>, tensor<3x4xbf16>) {
  %c = arith.trunci %d : tensor<4x64xi8> to tensor<4x64xi4>
  %s = arith.constant dense<[[0.5, 0.25], [3.0, 1.5], [0.0078125, 2.0], [0.125, 0.0009765625]]> : tensor<4x2xbf16>
  %z = arith.constant dense<[[-1.5, 2.0], [24.0, -10.5], [0.0546875, 0.0], [-0.875, 0.0068359375]]> : tensor<4x2xbf16>
  %q = quant_block.pack %c scales(%s : tensor<4x2xbf16>) zero_points(%z : tensor<4x2xbf16>) : tensor<4x64xi4> -> !i4b
  %x = quant_block.dequantize %q : !i4b -> tensor<4x64xbf16>
  %y = quant_block.matmul %a, %q transpose_rhs accumulate(f32) inhibit : tensor<3x64xbf16>, !i4b -> tensor<3x4xbf16>
  return %x, %y : tensor<4x64xbf16>, tensor<3x4xbf16>
}

!i8q = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [1, 64], zero_point = i8>>

// quantize with all-zero int zero points: the codes do not change either.
func.func @quantize_drop(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %s = arith.constant dense<[[0.0625], [-0.3]]> : tensor<2x1xf32>
  %z = arith.constant dense<0> : tensor<2x1xi8>
  %q = quant_block.quantize %x scales(%s : tensor<2x1xf32>) zero_points(%z : tensor<2x1xi8>) : tensor<2x64xf32> -> !i8q
  %y = quant_block.dequantize %q : !i8q -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}
