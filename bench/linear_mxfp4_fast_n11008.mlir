// linear_mxfp4_fast at LLaMA-7B's MLP shape (N, K) = (11008, 4096), M = 1:
// x [1, 4096] f32 times W^T, W [11008, 4096] FP4 E2M1 in blocks of 32 along
// K with E8M0 scales, the weight a function argument (packed i8 codes
// [11008, 2048], ui8 E8M0 scales [11008, 128]: 23.9 MB). fastmath<fast>
// (docs/Numerics.md). Run with --quantized-as-parts.
!w = !quant_block.tensor<11008x4096, #quant_block.scheme<mxfp4>>

func.func @linear_mxfp4_fast_n11008(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x11008xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<1x4096xf32>, !w -> tensor<1x11008xf32>
  return %y : tensor<1x11008xf32>
}
