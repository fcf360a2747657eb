// Inputs of the semantic test of --quant-block-propagate=propagation=inhibit
// (propagate.mlir): matmuls that return quantized results, which the pass
// splits into a float matmul and quantize_dynamic.

!w = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [32]>>
!ymm = !quant_block.tensor<4x16, #quant_block.scheme<ui8 : f32, block = [1, *], zero_point = ui8>>
!ymx = !quant_block.tensor<4x32, #quant_block.scheme<mxfp8_e4m3>>
!yab = !quant_block.tensor<4x16, #quant_block.scheme<i4 : f32, block = [8], scale = f16>>

func.func @matmul_minmax(%x: tensor<4x64xf32>, %d: tensor<16x64xi8>, %s: tensor<16x2xf32>) -> tensor<4x16xf32> {
  %w = quant_block.pack %d scales(%s : tensor<16x2xf32>) : tensor<16x64xi8> -> !w
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<4x64xf32>, !w -> !ymm
  %r = quant_block.dequantize %y : !ymm -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

!wb = !quant_block.tensor<64x32, #quant_block.scheme<i8 : f32, block = [32, 1]>>

func.func @matmul_mx(%x: tensor<4x64xf32>, %d: tensor<64x32xi8>, %s: tensor<2x32xf32>) -> tensor<4x32xf32> {
  %w = quant_block.pack %d scales(%s : tensor<2x32xf32>) : tensor<64x32xi8> -> !wb
  %y = quant_block.matmul %x, %w accumulate(f32) propagate : tensor<4x64xf32>, !wb -> !ymx
  %r = quant_block.dequantize %y : !ymx -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

func.func @matmul_absmax(%x: tensor<4x64xf32>, %d: tensor<16x64xi8>, %s: tensor<16x2xf32>) -> tensor<4x16xf32> {
  %w = quant_block.pack %d scales(%s : tensor<16x2xf32>) : tensor<16x64xi8> -> !w
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<4x64xf32>, !w -> !yab
  %r = quant_block.dequantize %y : !yab -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
