// A module that --quant-block-cpu-pipeline cannot lower (12-bit storage is
// not lowered), for errors.mlir.
!q12 = !quant_block.tensor<2x32, #quant_block.scheme<i12 : f32, block = [16]>>

func.func @main(%x: tensor<2x32xf32>, %s: tensor<2x2xf32>) -> tensor<2x32xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<2x2xf32>) : tensor<2x32xf32> -> !q12
  %y = quant_block.dequantize %q : !q12 -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
