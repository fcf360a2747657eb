// linear_q4_k_i8act with the weight in the row-tiled layout (`row_tile =
// 16`, docs/Packing.md): the same product and bits, every part of the
// weight in tiles of 16 rows (data [256, 512, 16, 4] i8; scales and mins
// [256, 128, 16] u8; outer scales and outer mins [256, 16, 16] f16), so the
// VNNI kernel reads each chunk, and each block's parameters, with one load
// instead of transposing 16 rows. Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>, row_tile = 16>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_q4_k_i8act_tiled(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
