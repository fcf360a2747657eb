// The GGUF Q6_K linear layer of a decode step (M = 1) with int8
// activations in Q6_K's own 6-bit codes (4 per 24 bits; two levels of
// scales: i8 per 16, f16 per 256; 6.56 bits per weight, 13.4 MB), as
// quant_block.llama runs it where the int8 kernels read them (before:
// linear_q6_k_i8_i8act, the codes widened to bytes). x [1, 4096] quantized
// per block of 16 (absmax, i8), integer block sums in i32, the f32 sum over
// the blocks in order (docs/Numerics.md). Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 16]>>

func.func @linear_q6_k_i6_i8act(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
