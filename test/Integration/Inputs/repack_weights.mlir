// int8 activations of 9 rows (a tile of 8 and a partial one) times a weight
// argument of 48 rows (three tiles of 16), int4 codes in blocks of 32 along
// K = 64 with f16 scales, for test/Integration/repack-weights.test.
!w = !quant_block.tensor<48x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<9x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @product(%x: tensor<9x64xf32>, %w: !w) -> tensor<9x48xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<9x64xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<9x48xf32>
  return %y : tensor<9x48xf32>
}
