// linear_mxfp4_i8act at LLaMA-7B's MLP shape (N, K) = (11008, 4096), M = 1:
// x [1, 4096] f32 quantized per block of 32 (absmax, i8) times W^T, W
// [11008, 4096] FP4 E2M1 in blocks of 32 along K with E8M0 scales (23.9 MB,
// a function argument), exact i32 block sums (docs/Numerics.md). Run with
// --quantized-as-parts.
!w = !quant_block.tensor<11008x4096, #quant_block.scheme<mxfp4>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_mxfp4_i8act_n11008(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x11008xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x11008xf32>
  return %y : tensor<1x11008xf32>
}
