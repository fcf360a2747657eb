// The Q4_K linear layer of a decode step (M = 1), as a GGUF Q4_K_M model
// holds most of its weights: x [1, 4096] f32 times W^T, W [4096, 4096] with
// 4-bit codes in blocks of 32 along K, each block an 8-bit scale and an
// 8-bit zero point (min) under an f16 outer scale and outer min per 8
// blocks (ggml's super-block of 256: d, -dmin), the weight a function
// argument (packed i8 codes [4096, 2048], ui8 scales and zero points [4096,
// 128], f16 outer scales and mins [4096, 16]: 9.70 MB). Each weight is
// fma(q, s_eff, m_eff) (docs/Numerics.md); fastmath<fast>: the sum over k
// may be reordered and fused. Peer: ggml's Q4_K mul_mat (bench/ggml/).
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>

func.func @linear_q4_k_fast(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<1x4096xf32>, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
