// linear_int4_g32_f16_fast at LLaMA-7B's MLP shape (N, K) = (11008, 4096)
// (gate and up projections), M = 1: x [1, 4096] f32 times W^T, W [11008,
// 4096] int4 in groups of 32 along K with f16 scales, the weight a function
// argument (packed i8 data [11008, 2048], f16 scales [11008, 128]: 25.4 MB).
// fastmath<fast> (docs/Numerics.md). Run with --quantized-as-parts.
!w = !quant_block.tensor<11008x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>

func.func @linear_int4_g32_f16_fast_n11008(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x11008xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<1x4096xf32>, !w -> tensor<1x11008xf32>
  return %y : tensor<1x11008xf32>
}
