// --quant-block-cpu-pipeline reports arithmetic on FP8 / FP6 / FP4 / E8M0
// outside quant_block at the op, instead of leaving casts that fail in the
// LLVM translation. A truncation needs a rounding and a saturation rule,
// which quant_block.quantize's scheme gives.
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline --verify-diagnostics

func.func @truncation(%x: tensor<4xf32>) -> tensor<4xf8E5M2> {
  // expected-error @+1 {{'arith.truncf' op on 'f8E5M2' is not lowered: only extensions from it are (exactly); convert to it with quant_block.quantize, whose scheme defines the rounding and the saturation}}
  %y = arith.truncf %x : tensor<4xf32> to tensor<4xf8E5M2>
  return %y : tensor<4xf8E5M2>
}

// -----

func.func @multiply(%x: tensor<4xf4E2M1FN>) -> tensor<4xf4E2M1FN> {
  // expected-error @+1 {{'arith.mulf' op on 'f4E2M1FN' is not lowered: only extensions from it are (exactly); convert to it with quant_block.quantize, whose scheme defines the rounding and the saturation}}
  %y = arith.mulf %x, %x : tensor<4xf4E2M1FN>
  return %y : tensor<4xf4E2M1FN>
}
