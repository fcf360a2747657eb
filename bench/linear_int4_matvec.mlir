// A linear layer with int4 group-32 weights, one token (a matrix-vector
// product, the decode step of an LLM): x [1, 4096] f32 times W^T, W [4096,
// 4096] int4 with f32 scales per group of 32 along K. Memory-bound: the
// 8 MiB of packed weights dominate the bytes. Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32]>>

func.func @linear_int4_matvec(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<1x4096xf32>, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
