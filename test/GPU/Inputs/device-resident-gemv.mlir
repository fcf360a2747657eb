// The fused int4 GEMV (M = 1, 64 x 256, block 32, f32 scales) with its
// weight device-resident: test/GPU/SPIRV/device-resident.test and
// test/GPU/CUDA/device-resident.test call it through quant-run
// --quantized-as-parts, where the weight's two parts (8 KiB of packed
// codes, 2 KiB of scales) are uploaded once.
!w = !quant_block.tensor<64x256, #quant_block.scheme<i4 : f32, block = [1, 32]>>

func.func @gemv(%x: tensor<1x256xf32>, %w: !w {quant_block.device_resident}) -> tensor<1x64xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<1x256xf32>, !w -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}
