// A target without Int8: the i8 arithmetic of the dequantization would run
// in 32 bits without wrapping (a miscompile spirv-val accepts), so the
// pipeline refuses it.
// RUN: quant-opt %s --verify-diagnostics --quant-block-spirv-pipeline="caps=Shader,StorageBuffer8BitAccess exts=SPV_KHR_8bit_storage,SPV_KHR_storage_buffer_storage_class" -o /dev/null

!q8 = !quant_block.tensor<4x32, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @no_int8(%q: !q8) -> tensor<4x32xf32> {
  // expected-error @+1 {{8-bit integers need the Int8 capability}}
  %y = quant_block.dequantize %q : !q8 -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
