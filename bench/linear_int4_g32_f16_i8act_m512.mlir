// linear_int4_g32_f16_i8act with M = 512 tokens (prefill): x [512, 4096] f32
// is quantized per block of 32 (absmax, i8), then multiplied with W^T, W
// [4096, 4096] int4 in groups of 32 along K with f16 scales (packed i8 data
// [4096, 2048], f16 scales [4096, 128], a function argument), integer block
// sums in i32 (AMX tiles where the host has them), strict order of the f32
// sum over the blocks (docs/Numerics.md). Peer: ggml's Q4_0 x Q8_0 mul_mat
// with M = 512 (bench/ggml/). Run with --quantized-as-parts. From 128 rows the CPU
// pipeline repacks W into the row-tiled layout once per call where its
// kernel reads 16-row tiles (--quant-block-cpu-repack-weights; the
// _norepack_ kernels read it row-major).
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<512x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_int4_g32_f16_i8act_m512(%x: tensor<512x4096xf32>, %w: !w) -> tensor<512x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<512x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<512x4096xf32>
  return %y : tensor<512x4096xf32>
}
