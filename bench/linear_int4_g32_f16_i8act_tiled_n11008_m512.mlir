// linear_int4_g32_f16_i8act_n11008_m512 with the weight in the row-tiled
// layout quant_block.llama loads its weights in (`row_tile = 16`,
// docs/Packing.md; data [688, 512, 16, 4] i8, scales [688, 128, 16]
// f16): the same product and bits, each chunk of 16 rows read with one
// load. Peer: ggml's Q4_0 x Q8_0 at the same shape and M = 512, its
// weights repacked at load (CPU_REPACK) where that is its best.
// Run with --quantized-as-parts.
!w = !quant_block.tensor<11008x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
!a = !quant_block.tensor<512x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_int4_g32_f16_i8act_tiled_n11008_m512(%x: tensor<512x4096xf32>, %w: !w) -> tensor<512x11008xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<512x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<512x11008xf32>
  return %y : tensor<512x11008xf32>
}
