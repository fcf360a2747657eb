// linear_int4_g32_f16_i8act at LLaMA-7B's MLP shape (N, K) = (11008, 4096)
// with M = 512 tokens: x [512, 4096] f32 quantized per block of 32 (absmax,
// i8) times W^T, W [11008, 4096] int4 in groups of 32 along K with f16
// scales (packed i8 data [11008, 2048], f16 scales [11008, 128], a function
// argument), integer block sums in i32 (AMX tiles where the host has them
// and M >= 16), strict order of the f32 sum over the blocks. Peer: ggml's
// Q4_0 mul_mat at the same shape (bench/ggml/, plain, repacked and AMX
// buffers). Run with --quantized-as-parts. From 128 rows the CPU
// pipeline repacks W into the row-tiled layout once per call where its
// kernel reads 16-row tiles (--quant-block-cpu-repack-weights; the
// _norepack_ kernels read it row-major).
!w = !quant_block.tensor<11008x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<512x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_int4_g32_f16_i8act_n11008_m512(%x: tensor<512x4096xf32>, %w: !w) -> tensor<512x11008xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<512x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<512x11008xf32>
  return %y : tensor<512x11008xf32>
}
