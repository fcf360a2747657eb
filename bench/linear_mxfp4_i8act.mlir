// The MXFP4 linear layer of a decode step (M = 1) with int8 activations, as
// llama.cpp computes MXFP4 x Q8_0: x [1, 4096] f32 is quantized per block of
// 32 (absmax, i8), then multiplied with W^T, W [4096, 4096] FP4 E2M1 in
// blocks of 32 along K with one E8M0 scale each (packed i8 codes [4096,
// 2048], ui8 E8M0 scales [4096, 128]: 8.91 MB, a function argument). The
// weight codes enter exact i32 block sums as twice their values, each
// block sum is halved, and the f32 sum over the blocks runs in order
// (docs/Numerics.md). Peer: ggml's MXFP4 mul_mat (bench/ggml/).
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<mxfp4>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_mxfp4_i8act(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
