// linear_int4_g32_f16_fast with M = 512 tokens (prefill; the compute-bound
// float path): x [512, 4096] f32 times W^T, W [4096, 4096] int4 in groups
// of 32 along K with f16 scales, the weight a function argument (packed i8 data
// [4096, 2048], f16 scales [4096, 128]). fastmath<fast>: the sum over k may
// be reordered and fused (docs/Numerics.md). Peer: ggml's Q4_0 mul_mat with
// M = 512 (bench/ggml/). Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>

func.func @linear_int4_g32_f16_fast_m512(%x: tensor<512x4096xf32>, %w: !w) -> tensor<512x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<512x4096xf32>, !w -> tensor<512x4096xf32>
  return %y : tensor<512x4096xf32>
}
