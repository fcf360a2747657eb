// linear_int4_g32_f16_i8act_tiled_m32 at (N, K) = (11008, 4096), the
// feed-forward's gate and up products of a LLaMA-7B prefill in the
// row-tiled layout quant_block.llama loads its weights in (data [688, 512,
// 16, 4] i8, scales [688, 128, 16] f16). Peer: ggml's Q4_0 at the same
// shape and M = 32.
// Run with --quantized-as-parts.
!w = !quant_block.tensor<11008x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
!a = !quant_block.tensor<32x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_int4_g32_f16_i8act_tiled_n11008_m32(%x: tensor<32x4096xf32>, %w: !w) -> tensor<32x11008xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<32x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<32x11008xf32>
  return %y : tensor<32x11008xf32>
}
