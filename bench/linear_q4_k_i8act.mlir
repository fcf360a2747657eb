// The Q4_K linear layer of a decode step (M = 1) with int8 activations, as
// llama.cpp computes Q4_K x Q8_K: x [1, 4096] f32 is quantized per block of
// 32 (absmax, i8), then multiplied with W^T, W [4096, 4096] in Q4_K's form
// (bench/linear_q4_k_fast.mlir: 4-bit codes, 8-bit scales and mins per 32
// under f16 outer scales and mins per 256; 9.70 MB), integer block sums in
// i32 plus each block's activation sum times its min (docs/Numerics.md).
// Strict order of the f32 sum over the blocks. Peer: ggml's Q4_K mul_mat
// (bench/ggml/). Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_q4_k_i8act(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
