// MXFP4 (OCP MX: FP4 E2M1 elements in blocks of 32 along the last dimension,
// one E8M0 shared scale per block) [4096, 4096] dequantized to f32. Run with
// --quantized-as-parts: 8 MiB of packed FP4 codes (i8 [4096, 2048]) and
// 512 KiB of E8M0 scales (uint8 [4096, 128]).
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<mxfp4>>

func.func @dequant_mxfp4(%w: !w) -> tensor<4096x4096xf32> {
  %y = quant_block.dequantize %w : !w -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
