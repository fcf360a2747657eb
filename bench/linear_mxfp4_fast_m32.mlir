// linear_mxfp4_fast with M = 32 tokens: x [32, 4096] f32 times W^T, W [4096,
// 4096] FP4 E2M1 in blocks of 32 along K with E8M0 scales (packed i8 codes
// [4096, 2048], ui8 E8M0 scales [4096, 128], a function argument),
// fastmath<fast> (docs/Numerics.md). Peer: ggml's MXFP4 mul_mat with M = 32
// (bench/ggml/). Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<mxfp4>>

func.func @linear_mxfp4_fast_m32(%x: tensor<32x4096xf32>, %w: !w) -> tensor<32x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<32x4096xf32>, !w -> tensor<32x4096xf32>
  return %y : tensor<32x4096xf32>
}
