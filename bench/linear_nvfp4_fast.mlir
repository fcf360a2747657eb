// The NVFP4 linear layer of a decode step (M = 1): x [1, 4096] f32 times
// W^T, W [4096, 4096] FP4 E2M1 in blocks of 16 along K with one f8E4M3FN
// scale each and one f32 scale for the tensor (NVIDIA's NVFP4), the weight a
// function argument (packed i8 codes [4096, 2048], E4M3 scales [4096, 256],
// the outer scale [1, 1]: 9.44 MB, as many bytes as int4 in groups of 32
// with f16 scales). fastmath<fast>: the sum over k may be reordered and
// fused (docs/Numerics.md).
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<nvfp4>>

func.func @linear_nvfp4_fast(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<1x4096xf32>, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
