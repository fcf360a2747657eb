// Inputs of the domain=float semantic test of --quant-block-select-zero-point
// (select-zero-point.mlir): integer zero points become float ones
// m = -zp * s. Where -zp * s is exact in f32 (@exact_m: f16 scales, small
// zero points, positive scales) dequantize gives the same bits; where m is
// rounded (@rounded_m) it does not, as the pass description says.

!e = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32], scale = f16, zero_point = i8>>

func.func @exact_m(%d: tensor<4x64xi8>) -> tensor<4x64xf32> {
  %s = arith.constant dense<[[0.5, 0.0999755859], [3.0, 1.5], [0.0078125, 2.0], [0.125, 0.00123405457]]> : tensor<4x2xf16>
  %z = arith.constant dense<[[-3, 2], [24, -10], [127, 0], [-128, 7]]> : tensor<4x2xi8>
  %q = quant_block.pack %d scales(%s : tensor<4x2xf16>) zero_points(%z : tensor<4x2xi8>) : tensor<4x64xi8> -> !e
  %x = quant_block.dequantize %q : !e -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

!r = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>

func.func @rounded_m(%d: tensor<4x64xi8>) -> tensor<4x64xf32> {
  %s = arith.constant dense<[[0.1, 0.0123456791], [3.14159274, 1.0e-3], [0.3, 2.71828175], [7.77777767, 0.0666666701]]> : tensor<4x2xf32>
  %z = arith.constant dense<[[-3, 101], [57, -99], [127, 33], [-128, 77]]> : tensor<4x2xi8>
  %q = quant_block.pack %d scales(%s : tensor<4x2xf32>) zero_points(%z : tensor<4x2xi8>) : tensor<4x64xi8> -> !r
  %x = quant_block.dequantize %q : !r -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}
