// What the SPIR-V pipeline cannot compile is an error at the op, before the
// SPIR-V lowering would miscompile or fail obscurely.
// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-spirv-pipeline -o /dev/null

// bf16 values are carried as i16 bits (a dequantize to bf16 compiles, its
// rounding in integer arithmetic); math on bf16, which nothing widens to
// f32 before the kernels, cannot be.
func.func @exp_bf16(%x: tensor<64xbf16>) -> tensor<64xbf16> {
  // expected-error @+1 {{'math.exp' op computes on bf16, which has no SPIR-V type for Vulkan: only loads, stores, constants, selects and vector moves of bf16 values are carried as their i16 bits}}
  %y = math.exp %x : tensor<64xbf16>
  return %y : tensor<64xbf16>
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
