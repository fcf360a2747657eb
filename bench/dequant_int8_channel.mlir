// int8 weights [4096, 4096] with one f32 scale per output channel (row),
// dequantized to f32. Plain tensors in and out: the quantized value is built
// inside with quant_block.pack, as a frontend that loads int8 weights would.
!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i8 : f32, block = [1, *]>>

func.func @dequant_int8_channel(%data: tensor<4096x4096xi8>,
                                %scales: tensor<4096x1xf32>) -> tensor<4096x4096xf32> {
  %w = quant_block.pack %data scales(%scales : tensor<4096x1xf32>)
         : tensor<4096x4096xi8> -> !w
  %y = quant_block.dequantize %w : !w -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
