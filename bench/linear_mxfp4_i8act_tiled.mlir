// linear_mxfp4_i8act with the weight in the row-tiled layout (`row_tile =
// 16`, docs/Packing.md): the same product and bits, the weight's parts
// stored as a tile of 16 rows per contiguous stream (codes [256, 512, 16, 4]
// i8: word d of the tile's 16 rows, then word d + 1; E8M0 scales [256, 128,
// 16] ui8), so the kernel reads each chunk with one load. Run with
// --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<mxfp4, row_tile = 16>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_mxfp4_i8act_tiled(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
