// The GGUF Q6_K linear layer of a decode step (M = 1) with int8
// activations, as quant_block.llama runs it: Q6_K's 6-bit codes widened
// at load to 8-bit ones (-32..31, exact) keeping its two levels of scales
// (i8 per 16, f16 per 256; 8.56 bits per weight, 17.5 MB), x [1, 4096]
// quantized per block of 16 (absmax, i8), integer block sums in i32, the
// f32 sum over the blocks in order (docs/Numerics.md). Run with
// --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 16]>>

func.func @linear_q6_k_i8_i8act(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
