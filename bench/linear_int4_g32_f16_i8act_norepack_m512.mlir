// linear_int4_g32_f16_i8act_m512 compiled with
// `quant-block-cpu-pipeline{repack-weights-min-rows=0}`: the row-major
// weight argument read as it is, each 16-row chunk transposed in registers
// at every K step, where the default pipeline repacks it into the row-tiled
// layout once per call (--quant-block-cpu-repack-weights, from 128 rows).
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<512x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_int4_g32_f16_i8act_norepack_m512(%x: tensor<512x4096xf32>, %w: !w) -> tensor<512x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<512x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<512x4096xf32>
  return %y : tensor<512x4096xf32>
}
