// What the SPIR-V pipeline cannot compile is an error at the op, before the
// SPIR-V lowering would miscompile or fail obscurely.
// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-spirv-pipeline -o /dev/null

!q = !quant_block.tensor<4x32, #quant_block.scheme<i8 : bf16, block = [1, 32]>>
func.func @to_bf16(%q: !q) -> tensor<4x32xbf16> {
  // expected-error @+1 {{result of type 'bf16': bf16 has no SPIR-V type for Vulkan (dequantize to f32 or f16 instead)}}
  %y = quant_block.dequantize %q : !q -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}


// -----

// 32-bit codes are quantized in 64-bit arithmetic; the error is at the op
// even where the offending value is a hoisted constant without a location.
!q32 = !quant_block.tensor<1x4, #quant_block.scheme<i32 : f32, block = [4], zero_point = i32>>
func.func @i32_codes(%x: tensor<1x4xf32>) -> !q32 {
  // expected-error @+2 {{64-bit integers need the Int64 capability}}
  // expected-error @+1 {{f64 needs the Float64 capability}}
  %q = quant_block.quantize_dynamic minmax %x : tensor<1x4xf32> -> !q32
  return %q : !q32
}
