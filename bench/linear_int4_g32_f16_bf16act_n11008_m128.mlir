// The int4 layer with bf16 activations, M = 128, (N, K) = (11008, 4096): x [128,
// 4096] bf16 times W^T, W [11008, 4096] int4 in groups of 32 along K with f16
// scales (packed i8 data, f16 scales: Q4_0's content), the sums in f32,
// reassociated (AMX-BF16 tiles with target-cpu=host on a host that has
// them, docs/CPU.md), the result rounded to bf16. Peer: ggml's Q4_0 x Q8_0
// mul_mat at the same shape (bench/ggml/). Run with --quantized-as-parts
// and the pipeline bench/make_inputs.py gives it.
!w = !quant_block.tensor<11008x4096, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>

func.func @linear_int4_g32_f16_bf16act_n11008_m128(%x: tensor<128x4096xbf16>, %w: !w) -> tensor<128x11008xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<128x4096xbf16>, !w -> tensor<128x11008xbf16>
  return %y : tensor<128x11008xbf16>
}
