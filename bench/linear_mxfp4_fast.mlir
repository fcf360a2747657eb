// The MXFP4 linear layer of a decode step (M = 1), as gpt-oss ships its
// expert weights: x [1, 4096] f32 times W^T, W [4096, 4096] FP4 E2M1 in
// blocks of 32 along K with one E8M0 scale each (OCP MX), the weight a
// function argument (packed i8 codes [4096, 2048], ui8 E8M0 scales [4096,
// 128]: 8.91 MB). fastmath<fast>: the sum over k may be reordered and fused
// (docs/Numerics.md). Peer: ggml's MXFP4 mul_mat (bench/ggml/).
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<mxfp4>>

func.func @linear_mxfp4_fast(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<1x4096xf32>, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
