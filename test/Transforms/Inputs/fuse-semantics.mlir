// Inputs of fuse-semantics.test: matrix products of dequantized weights that
// --quant-block-fuse turns into quant_block.matmul; every function must give
// the same bits before and after.

!w4 = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f32>>
func.func @linear_int4(%x: tensor<4x64xf32>, %codes: tensor<16x64xi8>, %s: tensor<16x2xf32>) -> tensor<4x16xf32> {
  %c = arith.trunci %codes : tensor<16x64xi8> to tensor<16x64xi4>
  %w = quant_block.pack %c scales(%s : tensor<16x2xf32>) : tensor<16x64xi4> -> !w4
  %wd = quant_block.dequantize %w : !w4 -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

!wz = !quant_block.tensor<64x8, #quant_block.scheme<i4 : f16, block = [32, 1], scale = f16, zero_point = i4>>
func.func @matmul_int4_zero_points(%x: tensor<3x64xf16>, %codes: tensor<64x8xi8>, %s: tensor<2x8xf16>, %zp: tensor<2x8xi8>) -> tensor<3x8xf16> {
  %c = arith.trunci %codes : tensor<64x8xi8> to tensor<64x8xi4>
  %z = arith.trunci %zp : tensor<2x8xi8> to tensor<2x8xi4>
  %w = quant_block.pack %c scales(%s : tensor<2x8xf16>) zero_points(%z : tensor<2x8xi4>) : tensor<64x8xi4> -> !wz
  %wd = quant_block.dequantize %w : !wz -> tensor<64x8xf16>
  %zero = arith.constant dense<0.0> : tensor<3x8xf16>
  %y = linalg.matmul ins(%x, %wd : tensor<3x64xf16>, tensor<64x8xf16>) outs(%zero : tensor<3x8xf16>) -> tensor<3x8xf16>
  return %y : tensor<3x8xf16>
}

!w8 = !quant_block.tensor<2x64x8, #quant_block.scheme<i8 : f32, block = [1, 16, 1]>>
func.func @batch_matmul_int8(%x: tensor<2x4x64xf32>, %codes: tensor<2x64x8xi8>, %s: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %w = quant_block.pack %codes scales(%s : tensor<2x4x8xf32>) : tensor<2x64x8xi8> -> !w8
  %wd = quant_block.dequantize %w : !w8 -> tensor<2x64x8xf32>
  %zero = arith.constant dense<0.0> : tensor<2x4x8xf32>
  %y = linalg.batch_matmul ins(%x, %wd : tensor<2x4x64xf32>, tensor<2x64x8xf32>) outs(%zero : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// A ragged last block along k (k = 40, blocks of 32): the fused lowering
// takes the separate-dequantization fallback, with the same numerics.
!wr = !quant_block.tensor<8x40, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @linear_ragged_k(%x: tensor<2x40xf32>, %codes: tensor<8x40xi8>, %s: tensor<8x2xf32>) -> tensor<2x8xf32> {
  %w = quant_block.pack %codes scales(%s : tensor<8x2xf32>) : tensor<8x40xi8> -> !wr
  %wd = quant_block.dequantize %w : !wr -> tensor<8x40xf32>
  %zero = arith.constant dense<0.0> : tensor<2x8xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wd : tensor<2x40xf32>, tensor<8x40xf32>) outs(%zero : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!wt = !quant_block.tensor<1x64x8, #quant_block.scheme<i4 : f32, block = [1, 32, 1], scale = f32>>
func.func @tosa_matmul_int4(%x: tensor<1x4x64xf32>, %codes: tensor<1x64x8xi8>, %s: tensor<1x2x8xf32>) -> tensor<1x4x8xf32> {
  %c = arith.trunci %codes : tensor<1x64x8xi8> to tensor<1x64x8xi4>
  %w = quant_block.pack %c scales(%s : tensor<1x2x8xf32>) : tensor<1x64x8xi4> -> !wt
  %wd = quant_block.dequantize %w : !wt -> tensor<1x64x8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %wd, %zp, %zp : (tensor<1x4x64xf32>, tensor<1x64x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}
