// int4 weights [4096, 4096] in groups of 32 along K with f32 scales (the
// GPTQ / llama.cpp Q4 layout, symmetric), dequantized to f32. The weight
// arrives as its lowered parts, run with --quantized-as-parts: 8 MiB of
// packed nibbles (i8 [4096, 2048]) and 2 MiB of scales ([4096, 128]).
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32]>>

func.func @dequant_int4_g32(%w: !w) -> tensor<4096x4096xf32> {
  %y = quant_block.dequantize %w : !w -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
