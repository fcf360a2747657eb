// The examples the README's demo command compiles must keep verifying and
// canonicalizing as documented.
// RUN: quant-opt %src_root/examples/int4_linear.mlir --canonicalize | FileCheck %s --check-prefix=INT4
// RUN: quant-opt %src_root/examples/mxfp4_linear.mlir --canonicalize | FileCheck %s --check-prefix=MXFP4

// INT4-LABEL: func.func @linear(
// INT4: %[[W:.*]] = quant_block.pack %{{.*}} scales(%{{.*}} : tensor<256x4xf16>) zero_points(%{{.*}} : tensor<256x4xui4>) : tensor<256x512xui4> -> !quant_block.tensor<256x512, #quant_block.scheme<ui4 : f32, block = [128], scale = f16, zero_point = ui4>>
// INT4: quant_block.matmul %{{.*}}, %[[W]] transpose_rhs accumulate(f32) inhibit
// INT4-LABEL: func.func @linear_int8_activations(
// INT4: %[[XQ:.*]] = quant_block.quantize_dynamic absmax
// INT4: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit

// The unpack/pack pair folds away: one pack feeds the matmul.
// MXFP4-LABEL: func.func @linear(
// MXFP4: %[[W:.*]] = quant_block.pack
// MXFP4-NOT: quant_block.unpack
// MXFP4-NOT: quant_block.pack
// MXFP4: quant_block.matmul %{{.*}}, %[[W]] transpose_rhs accumulate(f32) inhibit
