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

!d = !quant_block.tensor<?x32, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @dynamic(%q: !d) -> tensor<?x32xf32> {
  // expected-error @+1 {{SPIR-V kernels take statically shaped, identity-layout memrefs only}}
  %y = quant_block.dequantize %q : !d -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
