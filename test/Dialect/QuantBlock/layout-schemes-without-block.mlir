// RUN: quant-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// The layout ops' verifiers compare the input and result schemes in
// everything but the block shapes. They once did so by building each scheme
// with its block shape removed, which is not a valid scheme when the scale
// needs a block (MX's E8M0 scales need exactly 32 elements, NVFP4's 16):
// an assertion in builds with assertions (found by the ASan + UBSan lane,
// docs/Fuzzing.md), an invalid attribute in the others.

// CHECK-LABEL: func.func @reshape_mxfp4
// CHECK: quant_block.reshape %{{.*}} : !quant_block.tensor<2x64, #quant_block.scheme<mxfp4>> -> !quant_block.tensor<128, #quant_block.scheme<mxfp4>>
func.func @reshape_mxfp4(%q: !quant_block.tensor<2x64, #quant_block.scheme<mxfp4>>) -> !quant_block.tensor<128, #quant_block.scheme<mxfp4>> {
  %r = quant_block.reshape %q : !quant_block.tensor<2x64, #quant_block.scheme<mxfp4>> -> !quant_block.tensor<128, #quant_block.scheme<mxfp4>>
  return %r : !quant_block.tensor<128, #quant_block.scheme<mxfp4>>
}

// -----

// CHECK-LABEL: func.func @transpose_nvfp4
// CHECK: quant_block.transpose
func.func @transpose_nvfp4(%q: !quant_block.tensor<32x64, #quant_block.scheme<nvfp4>>) -> !quant_block.tensor<64x32, #quant_block.scheme<f4E2M1FN : f32, block = [16, 1], scale = f8E4M3FN, outer = <f32>>> {
  %t = quant_block.transpose %q permutation = [1, 0] : !quant_block.tensor<32x64, #quant_block.scheme<nvfp4>> -> !quant_block.tensor<64x32, #quant_block.scheme<f4E2M1FN : f32, block = [16, 1], scale = f8E4M3FN, outer = <f32>>>
  return %t : !quant_block.tensor<64x32, #quant_block.scheme<f4E2M1FN : f32, block = [16, 1], scale = f8E4M3FN, outer = <f32>>>
}

// -----

func.func @reshape_mx_scale_rounding(%q: !quant_block.tensor<2x64, #quant_block.scheme<mxfp4>>) {
  // expected-error @+1 {{'quant_block.reshape' op may only change the block shape of the scheme, but the input scheme is #quant_block.scheme<mxfp4> and the result scheme is #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU, scale_rounding = ceil>}}
  %r = quant_block.reshape %q : !quant_block.tensor<2x64, #quant_block.scheme<mxfp4>> -> !quant_block.tensor<128, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU, scale_rounding = ceil>>
  return
}
