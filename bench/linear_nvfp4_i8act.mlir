// The NVFP4 linear layer of a decode step (M = 1) with int8 activations:
// x [1, 4096] f32 is quantized per block of 16 (absmax, i8), then multiplied
// with W^T, W [4096, 4096] FP4 E2M1 in blocks of 16 along K with one
// f8E4M3FN scale each and one f32 scale for the tensor (packed i8 codes
// [4096, 2048], E4M3 scales [4096, 256], the outer scale [1, 1]: 9.44 MB, a
// function argument). The weight codes enter exact i32 block sums as twice
// their values, each block sum is halved and scaled by both sides' block
// scales (the weight's times the outer one, rounded once), and the f32 sum
// over the blocks runs in order (docs/Numerics.md). No ggml peer (ggml has
// no NVFP4). Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<nvfp4>>
!a = !quant_block.tensor<1x4096, #quant_block.scheme<i8 : f32, block = [1, 16]>>

func.func @linear_nvfp4_i8act(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<1x4096xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
