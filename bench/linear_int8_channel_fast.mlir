// An int8 linear layer with one f32 scale per output channel (W8A32, as
// torch's per-channel weight-only quantization), M = 1: x [1, 4096] f32 times
// W^T, W [4096, 4096] i8 with scales [4096, 1], the weight a function
// argument (16.8 MB). fastmath<fast>: the sum over k may be reordered and
// fused (docs/Numerics.md). Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i8 : f32, block = [1, *]>>

func.func @linear_int8_channel_fast(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<1x4096xf32>, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
