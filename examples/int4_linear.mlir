// An int4 group-quantized linear layer, as GPTQ/AWQ-style checkpoints store
// it: a [N, K] = [256, 512] weight in groups of 128 along K, with f16 scales
// and uint4 zero points, packed from its parts as a loader would provide them,
// then applied to f32 activations of any batch size.
//
//   quant-opt examples/int4_linear.mlir --canonicalize

!weight = !quant_block.tensor<256x512, #quant_block.scheme<ui4 : f32, block = [128], scale = f16, zero_point = ui4>>

func.func @linear(%x: tensor<?x512xf32>, %data: tensor<256x512xui4>,
                  %scales: tensor<256x4xf16>, %zero_points: tensor<256x4xui4>)
    -> tensor<?x256xf32> {
  %w = quant_block.pack %data scales(%scales : tensor<256x4xf16>)
      zero_points(%zero_points : tensor<256x4xui4>)
      : tensor<256x512xui4> -> !weight
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
      : tensor<?x512xf32>, !weight -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}

// The same layer with dynamic int8 per-token activation quantization in
// groups of 128, accumulating in i32 (llama.cpp style).
func.func @linear_int8_activations(%x: tensor<?x512xf32>, %w: !quant_block.tensor<256x512, #quant_block.scheme<i4 : f32, block = [128], scale = f16>>)
    -> tensor<?x256xf32> {
  %xq = quant_block.quantize_dynamic absmax %x
      : tensor<?x512xf32> -> !quant_block.tensor<?x512, #quant_block.scheme<i8 : f32, block = [1, 128]>>
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
      : !quant_block.tensor<?x512, #quant_block.scheme<i8 : f32, block = [1, 128]>>,
        !quant_block.tensor<256x512, #quant_block.scheme<i4 : f32, block = [128], scale = f16>>
      -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
