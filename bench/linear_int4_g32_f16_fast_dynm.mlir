// linear_int4_g32_f16_fast with the activation rows unknown to the compiler
// (a frontend's dynamic batch / token count), run with M = 1: the decode
// step through the kernel that a dynamic M gets.
// Run with --quantized-as-parts.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>

func.func @linear_int4_g32_f16_fast_dynm(%x: tensor<?x4096xf32>, %w: !w) -> tensor<?x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<?x4096xf32>, !w -> tensor<?x4096xf32>
  return %y : tensor<?x4096xf32>
}
