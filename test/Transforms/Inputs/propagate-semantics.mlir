// Inputs of the semantic test of --quant-block-propagate (propagate.mlir):
// every public function dequantizes quantized data and changes its layout;
// the pass moves the dequantization below the layout change.

!i8g = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32], zero_point = i8>>

func.func @transpose_int8(%d: tensor<4x64xi8>, %s: tensor<4x2xf32>, %z: tensor<4x2xi8>) -> tensor<64x4xf32> {
  %q = quant_block.pack %d scales(%s : tensor<4x2xf32>) zero_points(%z : tensor<4x2xi8>) : tensor<4x64xi8> -> !i8g
  %x = quant_block.dequantize %q : !i8g -> tensor<4x64xf32>
  %e = tensor.empty() : tensor<64x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x64xf32>) outs(%e : tensor<64x4xf32>) permutation = [1, 0]
  return %t : tensor<64x4xf32>
}

!i4g = !quant_block.tensor<4x64, #quant_block.scheme<i4 : bf16, block = [32], scale = bf16, zero_point = f32>>

func.func @reshape_int4(%d: tensor<4x64xi8>, %s: tensor<4x2xbf16>, %m: tensor<4x2xf32>) -> tensor<8x32xbf16> {
  %c = arith.trunci %d : tensor<4x64xi8> to tensor<4x64xi4>
  %q = quant_block.pack %c scales(%s : tensor<4x2xbf16>) zero_points(%m : tensor<4x2xf32>) : tensor<4x64xi4> -> !i4g
  %x = quant_block.dequantize %q : !i4g -> tensor<4x64xbf16>
  %f = tensor.collapse_shape %x [[0, 1]] : tensor<4x64xbf16> into tensor<256xbf16>
  %r = tensor.expand_shape %f [[0, 1]] output_shape [8, 32] : tensor<256xbf16> into tensor<8x32xbf16>
  return %r : tensor<8x32xbf16>
}

!mx = !quant_block.tensor<4x64, #quant_block.scheme<mxfp4>>

func.func @slice_mxfp4(%x: tensor<4x64xf32>) -> (tensor<2x32xf32>, tensor<2x7xf32>, tensor<20xf32>) {
  %q = quant_block.quantize_dynamic mx %x : tensor<4x64xf32> -> !mx
  %d = quant_block.dequantize %q : !mx -> tensor<4x64xf32>
  %aligned = tensor.extract_slice %d[2, 32] [2, 32] [1, 1] : tensor<4x64xf32> to tensor<2x32xf32>
  %inner = tensor.extract_slice %d[1, 40] [2, 7] [1, 3] : tensor<4x64xf32> to tensor<2x7xf32>
  %row = tensor.extract_slice %d[3, 10] [1, 20] [1, 1] : tensor<4x64xf32> to tensor<20xf32>
  return %aligned, %inner, %row : tensor<2x32xf32>, tensor<2x7xf32>, tensor<20xf32>
}

!nv = !quant_block.tensor<32x16, #quant_block.scheme<nvfp4>>

func.func @transpose_nvfp4(%x: tensor<32x16xf32>) -> tensor<16x32xf32> {
  %q = quant_block.quantize_dynamic absmax %x : tensor<32x16xf32> -> !nv
  %d = quant_block.dequantize %q : !nv -> tensor<32x16xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%d : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0]
  return %t : tensor<16x32xf32>
}

!ch = !quant_block.tensor<8x16, #quant_block.scheme<i8 : f16, block = [1, *], scale = f16>>

func.func @broadcast_per_channel(%d: tensor<8x16xi8>, %s: tensor<8x1xf16>) -> tensor<8x3x16xf16> {
  %q = quant_block.pack %d scales(%s : tensor<8x1xf16>) : tensor<8x16xi8> -> !ch
  %x = quant_block.dequantize %q : !ch -> tensor<8x16xf16>
  %e = tensor.empty() : tensor<8x3x16xf16>
  %b = linalg.broadcast ins(%x : tensor<8x16xf16>) outs(%e : tensor<8x3x16xf16>) dimensions = [1]
  return %b : tensor<8x3x16xf16>
}

!w = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [32]>>
!y = !quant_block.tensor<4x16, #quant_block.scheme<i8 : f32, block = [16]>>

func.func @matmul_requantized(%x: tensor<4x64xf32>, %d: tensor<16x64xi8>, %s: tensor<16x2xf32>) -> tensor<4x16xf32> {
  %w = quant_block.pack %d scales(%s : tensor<16x2xf32>) : tensor<16x64xi8> -> !w
  %p = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<4x64xf32>, !w -> tensor<4x16xf32>
  %q = quant_block.quantize_dynamic absmax %p : tensor<4x16xf32> -> !y
  %r = quant_block.dequantize %q : !y -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
