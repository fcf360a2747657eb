// linear_int4_g32_f16_i8act_m8 with the weight in the row-tiled
// layout quant_block.llama loads its weights in (`row_tile = 16`,
// docs/Packing.md; data [256, 512, 16, 4] i8, scales [256, 128, 16]
// f16): the same product and bits, each chunk of 16 rows read with one
// load. Peer: ggml's Q4_0 x Q8_0 at the same shape and M = 8, its
// weights repacked at load (CPU_REPACK) where that is its best.
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
!a = !quant_block.tensor<8x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_int4_g32_f16_i8act_tiled_m8(%x: tensor<8x4096xf32>, %w: !w) -> tensor<8x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<8x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<8x4096xf32>
  return %y : tensor<8x4096xf32>
}
