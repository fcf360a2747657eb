// linear_q6_k_i6_i8act with the weight row-tiled (`row_tile = 16`,
// docs/Packing.md): data [256, 768, 16, 4] i8 (6-bit codes, 3 words per
// block of 16), scales [256, 256, 16] i8, outer scales [256, 16, 16] f16;
// the same product and bits. Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>, row_tile = 16>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 16]>>

func.func @linear_q6_k_i6_i8act_tiled(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
