// A GEMM with bf16 activations and bf16 scales (input of
// test/GPU/NVVM/matmul-kernels.test: SPIR-V for Vulkan has no bf16).
!w = !quant_block.tensor<5x64, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = bf16>>
func.func @bf16_gemm(%x: tensor<3x64xbf16>, %w: !w) -> tensor<3x5xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<3x64xbf16>, !w -> tensor<3x5xbf16>
  return %y : tensor<3x5xbf16>
}
