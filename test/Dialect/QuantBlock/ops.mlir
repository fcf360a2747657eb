// Round trip of every quant_block op, type and scheme field: the custom form,
// the generic form and bytecode must all print back to the same IR.
// RUN: quant-opt %s --split-input-file | FileCheck %s
// RUN: quant-opt %s --split-input-file --mlir-print-op-generic | quant-opt --split-input-file | FileCheck %s
// RUN: quant-opt %s --emit-bytecode | quant-opt | FileCheck %s --check-prefix=BYTECODE

// The whole file (without splitting) through bytecode and back.
// BYTECODE-LABEL: func.func @quantize_int4_group
// BYTECODE: quant_block.quantize %{{.*}} scales(%{{.*}} : tensor<64x4xf16>) zero_points(%{{.*}} : tensor<64x4xi4>) : tensor<64x128xf32> -> !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>>
// BYTECODE-LABEL: func.func @all_scheme_fields
// BYTECODE-SAME: range = [1, 14], rounding = half_away_from_zero
// BYTECODE-SAME: rounding = toward_zero, saturate = false
// BYTECODE-SAME: scale_rounding = ceil
// BYTECODE-LABEL: func.func @named_schemes
// BYTECODE-SAME: #quant_block.scheme<nvfp4>
// BYTECODE-LABEL: func.func @k_quant_super_blocks
// BYTECODE: outer = <f16, block = [8], min = f16>
// BYTECODE-LABEL: func.func @matmul_fastmath
// BYTECODE: accumulate(f32) inhibit fastmath<fast> :
// BYTECODE-LABEL: func.func @layout_ops
// BYTECODE: quant_block.extract_slice %{{.*}} offsets = [16, 64] sizes = [8, 40]

// CHECK-LABEL: func.func @quantize_int4_group
// CHECK-SAME: (%[[W:.*]]: tensor<64x128xf32>, %[[S:.*]]: tensor<64x4xf16>, %[[ZP:.*]]: tensor<64x4xi4>)
// CHECK: %[[Q:.*]] = quant_block.quantize %[[W]] scales(%[[S]] : tensor<64x4xf16>) zero_points(%[[ZP]] : tensor<64x4xi4>) : tensor<64x128xf32> -> !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>>
// CHECK: quant_block.dequantize %[[Q]] : !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>> -> tensor<64x128xf32>
func.func @quantize_int4_group(%w: tensor<64x128xf32>, %s: tensor<64x4xf16>, %zp: tensor<64x4xi4>) -> tensor<64x128xf32> {
  %q = quant_block.quantize %w scales(%s : tensor<64x4xf16>) zero_points(%zp : tensor<64x4xi4>)
      : tensor<64x128xf32> -> !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>>
  %x = quant_block.dequantize %q : !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>> -> tensor<64x128xf32>
  return %x : tensor<64x128xf32>
}

// -----

// Every field of the scheme, with non-default values, survives the round trip.
// CHECK-LABEL: func.func @all_scheme_fields
// CHECK-SAME: !quant_block.tensor<8x64, #quant_block.scheme<ui4 : bf16, block = [1, 32], scale = bf16, zero_point = bf16, range = [1, 14], rounding = half_away_from_zero>>
// CHECK-SAME: !quant_block.tensor<16x96, #quant_block.scheme<f8E4M3FN : f16, block = [16, *], scale = f16, rounding = toward_zero, saturate = false>>
// CHECK-SAME: !quant_block.tensor<4x64, #quant_block.scheme<f8E5M2 : f32, block = [32], scale = f8E8M0FNU, scale_rounding = ceil>>
// CHECK-SAME: !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32], scale = f8E8M0FNU, scale_rounding = half_to_even>>
// CHECK-SAME: !quant_block.tensor<10x10, #quant_block.scheme<i2 : f32, range = [-1, 1]>>
// CHECK-SAME: !quant_block.tensor<10x10, #quant_block.scheme<i3 : f32, block = [1, *], zero_point = ui8>>
// CHECK-SAME: !quant_block.tensor<6x4, #quant_block.scheme<i32 : f32, block = [3, 2], zero_point = i32>>
// CHECK-SAME: !quant_block.tensor<6x4, #quant_block.scheme<ui16 : f16, block = [3, 2], scale = f16, zero_point = ui16>>
func.func @all_scheme_fields(
    %a: !quant_block.tensor<8x64, #quant_block.scheme<ui4 : bf16, block = [1, 32], scale = bf16, zero_point = bf16, range = [1, 14], rounding = half_away_from_zero>>,
    %b: !quant_block.tensor<16x96, #quant_block.scheme<f8E4M3FN : f16, block = [16, *], scale = f16, saturate = false, rounding = toward_zero>>,
    %c: !quant_block.tensor<4x64, #quant_block.scheme<f8E5M2 : f32, block = [32], scale = f8E8M0FNU, scale_rounding = ceil>>,
    %d: !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32], scale = f8E8M0FNU, scale_rounding = half_to_even>>,
    %e: !quant_block.tensor<10x10, #quant_block.scheme<i2 : f32, range = [-1, 1], rounding = half_to_even, saturate = true, zero_point = none>>,
    %f: !quant_block.tensor<10x10, #quant_block.scheme<i3 : f32, block = [1, *], zero_point = ui8>>,
    %g: !quant_block.tensor<6x4, #quant_block.scheme<i32 : f32, block = [3, 2], zero_point = i32>>,
    %h: !quant_block.tensor<6x4, #quant_block.scheme<ui16 : f16, block = [3, 2], scale = f16, zero_point = ui16>>) {
  return
}

// -----

// The named OCP MX / NVFP4 schemes print in their short form; a named scheme
// with a changed field prints in full, and a full spelling of a named scheme
// prints short.
// CHECK-LABEL: func.func @named_schemes
// CHECK-SAME: #quant_block.scheme<mxfp8_e4m3>
// CHECK-SAME: #quant_block.scheme<mxfp8_e5m2 : bf16>
// CHECK-SAME: #quant_block.scheme<mxfp6_e2m3 : f16>
// CHECK-SAME: #quant_block.scheme<mxfp6_e3m2>
// CHECK-SAME: #quant_block.scheme<mxfp4>
// CHECK-SAME: #quant_block.scheme<mxint8>
// CHECK-SAME: #quant_block.scheme<nvfp4>
// CHECK-SAME: #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU, rounding = half_away_from_zero>
// CHECK-SAME: #quant_block.scheme<mxfp4>
// CHECK-SAME: #quant_block.scheme<f4E2M1FN : f32, block = [32, 1], scale = f8E8M0FNU>
func.func @named_schemes(
    %a: !quant_block.tensor<2x32, #quant_block.scheme<mxfp8_e4m3>>,
    %b: !quant_block.tensor<2x32, #quant_block.scheme<mxfp8_e5m2 : bf16>>,
    %c: !quant_block.tensor<2x32, #quant_block.scheme<mxfp6_e2m3 : f16>>,
    %d: !quant_block.tensor<2x32, #quant_block.scheme<mxfp6_e3m2>>,
    %e: !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>,
    %f: !quant_block.tensor<2x32, #quant_block.scheme<mxint8>>,
    %g: !quant_block.tensor<2x32, #quant_block.scheme<nvfp4>>,
    %h: !quant_block.tensor<2x32, #quant_block.scheme<mxfp4, rounding = half_away_from_zero>>,
    %i: !quant_block.tensor<2x32, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU>>,
    %j: !quant_block.tensor<64x2, #quant_block.scheme<mxfp4, block = [32, 1]>>) {
  return
}

// -----

// Per-tensor, per-axis, ragged, 2-D and dynamic shapes.
// CHECK-LABEL: func.func @granularities
// CHECK-SAME: !quant_block.tensor<3x2x5, #quant_block.scheme<i8 : f32>>
// CHECK-SAME: !quant_block.tensor<3x2x5, #quant_block.scheme<i8 : f32, block = [1, *, *]>>
// CHECK-SAME: !quant_block.tensor<7x10, #quant_block.scheme<i4 : f32, block = [1, 4]>>
// CHECK-SAME: !quant_block.tensor<256x384, #quant_block.scheme<f8E4M3FN : bf16, block = [128, 128]>>
// CHECK-SAME: !quant_block.tensor<?x4096, #quant_block.scheme<mxfp4 : bf16>>
// CHECK-SAME: !quant_block.tensor<?x?, #quant_block.scheme<i8 : f32, block = [1, *]>>
func.func @granularities(
    %per_tensor: !quant_block.tensor<3x2x5, #quant_block.scheme<i8 : f32>>,
    %per_axis: !quant_block.tensor<3x2x5, #quant_block.scheme<i8 : f32, block = [1, *, *]>>,
    %ragged: !quant_block.tensor<7x10, #quant_block.scheme<i4 : f32, block = [1, 4]>>,
    %blocks_2d: !quant_block.tensor<256x384, #quant_block.scheme<f8E4M3FN : bf16, block = [128, 128]>>,
    %dynamic: !quant_block.tensor<?x4096, #quant_block.scheme<mxfp4 : bf16>>,
    %per_token: !quant_block.tensor<?x?, #quant_block.scheme<i8 : f32, block = [1, *]>>) {
  return
}

// -----

// Ragged last block: ceil(10 / 4) = 3 scales per row (ONNX block_size rule).
// CHECK-LABEL: func.func @pack_unpack_ragged
// CHECK: %[[Q:.*]] = quant_block.pack %{{.*}} scales(%{{.*}} : tensor<7x3xf32>) zero_points(%{{.*}} : tensor<7x3xi4>) : tensor<7x10xi4> -> !quant_block.tensor<7x10, #quant_block.scheme<i4 : f32, block = [1, 4], zero_point = i4>>
// CHECK: %{{.*}}:3 = quant_block.unpack %[[Q]] : !quant_block.tensor<7x10, #quant_block.scheme<i4 : f32, block = [1, 4], zero_point = i4>> -> tensor<7x10xi4>, tensor<7x3xf32>, tensor<7x3xi4>
func.func @pack_unpack_ragged(%d: tensor<7x10xi4>, %s: tensor<7x3xf32>, %zp: tensor<7x3xi4>) -> (tensor<7x10xi4>, tensor<7x3xf32>, tensor<7x3xi4>) {
  %q = quant_block.pack %d scales(%s : tensor<7x3xf32>) zero_points(%zp : tensor<7x3xi4>)
      : tensor<7x10xi4> -> !quant_block.tensor<7x10, #quant_block.scheme<i4 : f32, block = [1, 4], zero_point = i4>>
  %p:3 = quant_block.unpack %q : !quant_block.tensor<7x10, #quant_block.scheme<i4 : f32, block = [1, 4], zero_point = i4>> -> tensor<7x10xi4>, tensor<7x3xf32>, tensor<7x3xi4>
  return %p#0, %p#1, %p#2 : tensor<7x10xi4>, tensor<7x3xf32>, tensor<7x3xi4>
}

// -----

// NVFP4: E4M3 block scales of 16 elements and a per-tensor f32 outer scale.
// CHECK-LABEL: func.func @nvfp4
// CHECK: quant_block.pack %{{.*}} scales(%{{.*}} : tensor<4x2xf8E4M3FN>) outer_scales(%{{.*}} : tensor<1x1xf32>) : tensor<4x32xf4E2M1FN> -> !quant_block.tensor<4x32, #quant_block.scheme<nvfp4>>
// CHECK: quant_block.quantize_dynamic absmax %{{.*}} : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<nvfp4>>
func.func @nvfp4(%d: tensor<4x32xf4E2M1FN>, %s: tensor<4x2xf8E4M3FN>, %g: tensor<1x1xf32>, %x: tensor<4x32xf32>) {
  %q = quant_block.pack %d scales(%s : tensor<4x2xf8E4M3FN>) outer_scales(%g : tensor<1x1xf32>)
      : tensor<4x32xf4E2M1FN> -> !quant_block.tensor<4x32, #quant_block.scheme<nvfp4>>
  %r = quant_block.quantize_dynamic absmax %x : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<nvfp4>>
  return
}

// -----

// GGUF Q4_K-style super-blocks: 6-bit scales and mins under f16 super-scales.
// CHECK-LABEL: func.func @k_quant_super_blocks
// CHECK: quant_block.pack %{{.*}} scales(%{{.*}} : tensor<4x8xui6>) zero_points(%{{.*}} : tensor<4x8xui6>) outer_scales(%{{.*}} : tensor<4x1xf16>) outer_mins(%{{.*}} : tensor<4x1xf16>) : tensor<4x256xui4> -> !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>
func.func @k_quant_super_blocks(%d: tensor<4x256xui4>, %s: tensor<4x8xui6>, %m: tensor<4x8xui6>, %os: tensor<4x1xf16>, %om: tensor<4x1xf16>) {
  %q = quant_block.pack %d scales(%s : tensor<4x8xui6>) zero_points(%m : tensor<4x8xui6>) outer_scales(%os : tensor<4x1xf16>) outer_mins(%om : tensor<4x1xf16>)
      : tensor<4x256xui4> -> !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>
  return
}

// -----

// CHECK-LABEL: func.func @quantize_dynamic_methods
// CHECK: quant_block.quantize_dynamic absmax %{{.*}} : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [1, *]>>
// CHECK: quant_block.quantize_dynamic minmax %{{.*}} : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<ui8 : f32, block = [1, *], zero_point = ui8>>
// CHECK: quant_block.quantize_dynamic minmax %{{.*}} : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = f32>>
// CHECK: quant_block.quantize_dynamic mx %{{.*}} : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<mxfp6_e2m3>>
func.func @quantize_dynamic_methods(%x: tensor<?x64xf32>) {
  %a = quant_block.quantize_dynamic absmax %x : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [1, *]>>
  %b = quant_block.quantize_dynamic minmax %x : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<ui8 : f32, block = [1, *], zero_point = ui8>>
  %c = quant_block.quantize_dynamic minmax %x : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = f32>>
  %d = quant_block.quantize_dynamic mx %x : tensor<?x64xf32> -> !quant_block.tensor<?x64, #quant_block.scheme<mxfp6_e2m3>>
  return
}

// -----

// CHECK-LABEL: func.func @matmuls
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(f32) inhibit : tensor<?x128xf32>, !quant_block.tensor<256x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16>> -> tensor<?x256xf32>
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(i32) inhibit : !quant_block.tensor<?x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>, !quant_block.tensor<256x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16>> -> tensor<?x256xf32>
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} accumulate(f32) propagate : tensor<2x8x128xbf16>, !quant_block.tensor<128x64, #quant_block.scheme<f4E2M1FN : bf16, block = [32, 1], scale = f8E8M0FNU>> -> !quant_block.tensor<2x8x64, #quant_block.scheme<mxfp8_e4m3 : bf16>>
func.func @matmuls(%x: tensor<?x128xf32>, %xq: !quant_block.tensor<?x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>,
                   %w: !quant_block.tensor<256x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16>>,
                   %xb: tensor<2x8x128xbf16>, %wk: !quant_block.tensor<128x64, #quant_block.scheme<mxfp4 : bf16, block = [32, 1]>>) {
  %0 = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
      : tensor<?x128xf32>, !quant_block.tensor<256x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16>> -> tensor<?x256xf32>
  %1 = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
      : !quant_block.tensor<?x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>, !quant_block.tensor<256x128, #quant_block.scheme<i4 : f32, block = [32], scale = f16>> -> tensor<?x256xf32>
  %2 = quant_block.matmul %xb, %wk accumulate(f32) propagate
      : tensor<2x8x128xbf16>, !quant_block.tensor<128x64, #quant_block.scheme<f4E2M1FN : bf16, block = [32, 1], scale = f8E8M0FNU>> -> !quant_block.tensor<2x8x64, #quant_block.scheme<mxfp8_e4m3 : bf16>>
  return
}

// -----

// arith's fast-math flags after the other keywords, printed as arith prints
// them; `fastmath<none>` is the default and is not printed.
// CHECK-LABEL: func.func @matmul_fastmath
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x128xf32>
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(i32) inhibit fastmath<reassoc,contract> : !quant_block.tensor<1x128
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(f32) inhibit : tensor<1x128xf32>
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} accumulate(f32) propagate fastmath<reassoc> : tensor<2x8x128xbf16>
!wf = !quant_block.tensor<256x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!xq = !quant_block.tensor<1x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @matmul_fastmath(%x: tensor<1x128xf32>, %xq: !xq, %w: !wf,
                           %xb: tensor<2x8x128xbf16>, %wk: !quant_block.tensor<128x64, #quant_block.scheme<mxfp4 : bf16, block = [32, 1]>>) {
  %0 = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
      : tensor<1x128xf32>, !wf -> tensor<1x256xf32>
  %1 = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit fastmath<contract,reassoc>
      : !xq, !wf -> tensor<1x256xf32>
  %2 = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<none>
      : tensor<1x128xf32>, !wf -> tensor<1x256xf32>
  %3 = quant_block.matmul %xb, %wk accumulate(f32) propagate fastmath<reassoc>
      : tensor<2x8x128xbf16>, !quant_block.tensor<128x64, #quant_block.scheme<f4E2M1FN : bf16, block = [32, 1], scale = f8E8M0FNU>> -> !quant_block.tensor<2x8x64, #quant_block.scheme<mxfp8_e4m3 : bf16>>
  return
}

// -----

// The layout ops and their qparam rules.
// CHECK-LABEL: func.func @layout_ops
// CHECK: quant_block.transpose %{{.*}} permutation = [1, 0] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [32, 1]>>
// CHECK: quant_block.reshape %{{.*}} : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<64x4x32, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>>
// CHECK: quant_block.reshape %{{.*}} : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<8192, #quant_block.scheme<i8 : f32, block = [32]>>
// CHECK: quant_block.extract_slice %{{.*}} offsets = [16, 64] sizes = [8, 40] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<8x40, #quant_block.scheme<i8 : f32, block = [1, 32]>>
// CHECK: quant_block.broadcast %{{.*}} dimensions = [0] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<3x64x128, #quant_block.scheme<i8 : f32, block = [*, 1, 32]>>
func.func @layout_ops(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>) {
  %t = quant_block.transpose %q permutation = [1, 0]
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [32, 1]>>
  %r = quant_block.reshape %q
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<64x4x32, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>>
  %f = quant_block.reshape %q
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<8192, #quant_block.scheme<i8 : f32, block = [32]>>
  %s = quant_block.extract_slice %q offsets = [16, 64] sizes = [8, 40]
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<8x40, #quant_block.scheme<i8 : f32, block = [1, 32]>>
  %b = quant_block.broadcast %q dimensions = [0]
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<3x64x128, #quant_block.scheme<i8 : f32, block = [*, 1, 32]>>
  return
}

// -----

// 2-D blocks transpose with the block shape; the outer block of a Q4_K-style
// scheme is transposed too.
// CHECK-LABEL: func.func @transpose_2d_blocks
// CHECK: quant_block.transpose %{{.*}} permutation = [1, 0] : !quant_block.tensor<256x128, #quant_block.scheme<f8E4M3FN : bf16, block = [128, 64]>> -> !quant_block.tensor<128x256, #quant_block.scheme<f8E4M3FN : bf16, block = [64, 128]>>
// CHECK: quant_block.transpose %{{.*}} permutation = [1, 0] : !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>> -> !quant_block.tensor<256x4, #quant_block.scheme<ui4 : f32, block = [32, 1], scale = ui6, outer = <f16, block = [8, 1]>>>
func.func @transpose_2d_blocks(%q: !quant_block.tensor<256x128, #quant_block.scheme<f8E4M3FN : bf16, block = [128, 64]>>,
                               %k: !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>>) {
  %t = quant_block.transpose %q permutation = [1, 0]
      : !quant_block.tensor<256x128, #quant_block.scheme<f8E4M3FN : bf16, block = [128, 64]>> -> !quant_block.tensor<128x256, #quant_block.scheme<f8E4M3FN : bf16, block = [64, 128]>>
  %u = quant_block.transpose %k permutation = [1, 0]
      : !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>> -> !quant_block.tensor<256x4, #quant_block.scheme<ui4 : f32, block = [32, 1], scale = ui6, outer = <f16, block = [8, 1]>>>
  return
}

// -----

// The row-tiled layout: a scheme field, printed after the others (also after
// a named scheme), and the op that converts between layouts.
// CHECK-LABEL: func.func @row_tiled
// CHECK-SAME: !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4, row_tile = 16>>
// CHECK-SAME: !quant_block.tensor<16x64, #quant_block.scheme<mxfp4, row_tile = 16>>
// CHECK: %[[T:.*]] = quant_block.repack %{{.*}} : !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4>> -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4, row_tile = 16>>
// CHECK: quant_block.matmul %{{.*}}, %[[T]] transpose_rhs accumulate(f32) inhibit
func.func @row_tiled(%w: !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4>>,
                     %t: !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4, row_tile = 16>>,
                     %mx: !quant_block.tensor<16x64, #quant_block.scheme<mxfp4, row_tile = 16>>,
                     %x: tensor<2x64xf32>) -> tensor<2x32xf32> {
  %r = quant_block.repack %w : !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4>> -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4, row_tile = 16>>
  %y = quant_block.matmul %x, %r transpose_rhs accumulate(f32) inhibit : tensor<2x64xf32>, !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4, row_tile = 16>> -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

// -----

// The CPU kernel of a product, as --quant-block-cpu-select-matmul-kernels
// records it (or a user writes it), prints back as it was written.
// CHECK-LABEL: func.func @cpu_kernel_attribute
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>}
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @cpu_kernel_attribute(%x: !a, %w: !w) -> tensor<32x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}
