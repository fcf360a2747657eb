// linear_mxfp4_i8act with M = 32 tokens: x [32, 4096] f32 is quantized per
// block of 32 (absmax, i8), then multiplied with W^T, W [4096, 4096] FP4
// E2M1 in blocks of 32 along K with E8M0 scales (a function argument),
// exact i32 block sums of twice the E2M1 values, halved, strict order of the
// f32 sum over the blocks (docs/Numerics.md). Peer: ggml's MXFP4 x Q8_0
// mul_mat with M = 32 (bench/ggml/). Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<mxfp4>>
!a = !quant_block.tensor<32x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @linear_mxfp4_i8act_m32(%x: tensor<32x4096xf32>, %w: !w) -> tensor<32x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<32x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<32x4096xf32>
  return %y : tensor<32x4096xf32>
}
