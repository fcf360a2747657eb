// linear_int4_g32_f16_i8act_m32 with the weight in the row-tiled layout
// (`row_tile = 16`, docs/Packing.md): the same product and bits, the
// weight's parts stored as a tile of 16 rows per contiguous stream (data
// [256, 512, 16, 4] i8: word d of the tile's 16 rows, then word d + 1;
// scales [256, 128, 16] f16), so the VNNI kernel reads each chunk with one
// load instead of transposing 16 rows' bytes (and the AMX kernel decodes
// its operand from it). Peer: ggml's Q4_0 at M = 32, whose AMX buffer
// repacks its weight at load as well.
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
!a = !quant_block.tensor<32x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_int4_g32_f16_i8act_tiled_m32(%x: tensor<32x4096xf32>, %w: !w) -> tensor<32x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<32x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<32x4096xf32>
  return %y : tensor<32x4096xf32>
}
