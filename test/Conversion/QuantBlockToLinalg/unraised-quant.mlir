// Upstream quant.dcast / quant.qcast that --quant-block-raise leaves alone
// are an error at the op when they reach the lowering, not a bufferization
// failure ("op was not bufferized") later in the CPU pipeline.
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline --verify-diagnostics

// The quantized axis is dynamic: two scales for a size known at run time.
func.func @dcast_dynamic_axis(%q: tensor<?x4xi8>) -> tensor<?x4xf32> {
  %0 = quant.scast %q : tensor<?x4xi8> to tensor<?x4x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  // expected-error @+1 {{cannot lower to linalg: quant.dcast was not raised to quant_block}}
  %1 = quant.dcast %0 : tensor<?x4x!quant.uniform<i8:f32:0, {0.5, 0.25}>> to tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// An unranked tensor.
func.func @qcast_unranked(%x: tensor<*xf32>) -> tensor<*xi8> {
  // expected-error @+1 {{cannot lower to linalg: quant.qcast was not raised to quant_block}}
  %0 = quant.qcast %x : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32, 0.5:-3>>
  %1 = quant.scast %0 : tensor<*x!quant.uniform<i8:f32, 0.5:-3>> to tensor<*xi8>
  return %1 : tensor<*xi8>
}
