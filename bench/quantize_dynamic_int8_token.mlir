// Dynamic int8 quantization of activations, one absmax scale per token
// (row), as int8 matmul kernels need their left-hand side: [512, 4096] f32
// in, int8 codes and f32 scales out as plain tensors (quant_block.unpack).
!a = !quant_block.tensor<512x4096, #quant_block.scheme<i8 : f32, block = [1, *]>>

func.func @quantize_dynamic_int8_token(%x: tensor<512x4096xf32>)
    -> (tensor<512x4096xi8>, tensor<512x1xf32>) {
  %q = quant_block.quantize_dynamic absmax %x : tensor<512x4096xf32> -> !a
  %data, %scales = quant_block.unpack %q : !a -> tensor<512x4096xi8>, tensor<512x1xf32>
  return %data, %scales : tensor<512x4096xi8>, tensor<512x1xf32>
}
