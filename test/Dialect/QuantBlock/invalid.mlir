// Every verifier rule of the quant_block dialect, one case each.
// RUN: quant-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// #quant_block.scheme and its outer scale
//===----------------------------------------------------------------------===//

// expected-error @+1 {{write signed storage as the signless i4}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<si4 : f32>>)

// -----

// expected-error @+1 {{storage type 'f16' is not supported; expected a 2..32-bit integer}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f16 : f32>>)

// -----

// expected-error @+1 {{storage type 'i1' is not supported}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i1 : f32>>)

// -----

// expected-error @+1 {{storage type 'i64' is not supported}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i64 : f32>>)

// -----

// expected-error @+1 {{expressed type 'f64' is not supported; expected f32, f16 or bf16}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f64>>)

// -----

// expected-error @+1 {{block size 0 at position 1 must be positive or '*'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 0]>>)

// -----

// expected-error @+1 {{integer scale type 'ui16' is not supported; expected a 2..8-bit}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui16, outer = <f16>>>)

// -----

// expected-error @+1 {{integer scale type 'ui6' needs an outer (second-level) float scale}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6>>)

// -----

// expected-error @+1 {{scale type 'f64' is not supported; expected f32, f16, bf16, f8E8M0FNU or f8E4M3FN}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, scale = f64>>)

// -----

// expected-error @+1 {{zero point type 'i8' needs integer storage, but the storage type is 'f8E4M3FN'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f8E4M3FN : f32, zero_point = i8>>)

// -----

// expected-error @+1 {{integer zero point type 'si8' is not supported}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, zero_point = si8>>)

// -----

// expected-error @+1 {{zero point type 'f64' is not supported; expected an integer type (int domain) or f32, f16, bf16 (float domain)}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, zero_point = f64>>)

// -----

// expected-error @+1 {{MX schemes (f8E8M0FNU scales) have no zero point, but zero point type 'i8' is given}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32], scale = f8E8M0FNU, zero_point = i8>>)

// -----

// expected-error @+1 {{range [-8, 8] is outside the storage range [-8, 7] of 'i4'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, range = [-8, 8]>>)

// -----

// expected-error @+1 {{range [0, 256] is outside the storage range [0, 255] of 'ui8'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui8 : f32, range = [0, 256]>>)

// -----

// expected-error @+1 {{range [3, 3] is empty: qmin must be less than qmax}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, range = [3, 3]>>)

// -----

// expected-error @+1 {{'range' needs integer storage, not 'f4E2M1FN'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f4E2M1FN : f32, range = [-6, 6]>>)

// -----

// expected-error @+1 {{saturate = false needs a storage type that encodes Inf or NaN (f8E4M3FN, f8E5M2), not 'f4E2M1FN'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f4E2M1FN : f32, saturate = false>>)

// -----

// expected-error @+1 {{saturate = false needs a storage type that encodes Inf or NaN (f8E4M3FN, f8E5M2), not 'i8'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, saturate = false>>)

// -----

// expected-error @+1 {{scale_rounding = ceil needs f8E8M0FNU (MX) scales, not 'f32'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale_rounding = ceil>>)

// -----

// expected-error @+1 {{an f8E8M0FNU (MX) scale needs a block of exactly 32 elements along one dimension (OCP MX v1.0), but the block is [16]}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f4E2M1FN : f32, block = [16], scale = f8E8M0FNU>>)

// -----

// expected-error @+1 {{an f8E8M0FNU (MX) scale needs a block of exactly 32 elements along one dimension (OCP MX v1.0), but the block is [32, 32]}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f8E4M3FN : f32, block = [32, 32], scale = f8E8M0FNU>>)

// -----

// expected-error @+1 {{an f8E8M0FNU (MX) scale needs a block of exactly 32 elements along one dimension (OCP MX v1.0), but the block is []}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<mxfp4, block = []>>)

// -----

// expected-error @+1 {{MX integer storage must be signed (MXINT8), not 'ui8'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui8 : f32, block = [32], scale = f8E8M0FNU>>)

// -----

// expected-error @+1 {{an outer min ('f16') needs zero points (mins) to scale}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8], min = f16>>>)

// -----

// expected-error @+1 {{outer scale type 'f8E4M3FN' is not supported; expected f32, f16 or bf16}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f4E2M1FN : f32, block = [16], scale = f8E4M3FN, outer = <f8E4M3FN>>>)

// -----

// expected-error @+1 {{outer min type 'i8' is not supported; expected f32, f16 or bf16}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, min = i8>>>)

// -----

// expected-error @+1 {{outer block size -3 at position 0 must be positive or '*'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [-3]>>>)

// -----

// expected-error @+1 {{unknown scheme field 'blocks'; expected block, scale, zero_point, range, rounding, saturate, scale_rounding, outer or row_tile}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, blocks = [32]>>)

// -----

// expected-error @+1 {{scheme field 'scale' given twice}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, scale = f16, scale = f32>>)

// -----

// expected-error @+1 {{unknown rounding 'nearest'; expected half_to_even, half_away_from_zero or toward_zero}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, rounding = nearest>>)

// -----

// expected-error @+1 {{unknown scale_rounding 'up'; expected floor, ceil or half_to_even}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<mxfp4, scale_rounding = up>>)

// -----

// expected-error @+1 {{expected 'true' or 'false'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<f8E4M3FN : f32, saturate = yes>>)

// -----

// expected-error @+1 {{unknown outer scale field 'mins'; expected 'block' or 'min'}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, mins = f16>>>)

// -----

// expected-error @+1 {{expected a storage type or one of the named schemes: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4, mxint8, nvfp4}}
func.func private @f(!quant_block.tensor<4x64, #quant_block.scheme<mxfp5>>)

// -----

//===----------------------------------------------------------------------===//
// !quant_block.tensor
//===----------------------------------------------------------------------===//

// expected-error @+1 {{the scheme's block shape has 3 entries but the tensor only 2 dimensions}}
func.func private @f(!quant_block.tensor<64x64, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>>)

// -----

// expected-error @+1 {{the outer block shape has 3 entries but the tensor only 2 dimensions}}
func.func private @f(!quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [1, 1, 8]>>>)

// -----

//===----------------------------------------------------------------------===//
// quantize / dequantize
//===----------------------------------------------------------------------===//

#s = #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>
func.func @quantize_input_type(%x: tensor<64x128xf16>, %s: tensor<64x4xf16>, %zp: tensor<64x4xi4>) {
  // expected-error @+1 {{'quant_block.quantize' op input element type 'f16' does not match the scheme's expressed type 'f32'}}
  %q = quant_block.quantize %x scales(%s : tensor<64x4xf16>) zero_points(%zp : tensor<64x4xi4>) : tensor<64x128xf16> -> !quant_block.tensor<64x128, #s>
  return
}

// -----

#s = #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>
func.func @quantize_input_shape(%x: tensor<64x96xf32>, %s: tensor<64x4xf16>, %zp: tensor<64x4xi4>) {
  // expected-error @+1 {{'quant_block.quantize' op input shape 'tensor<64x96xf32>' does not match the quantized tensor shape 'tensor<64x128xf32>'}}
  %q = quant_block.quantize %x scales(%s : tensor<64x4xf16>) zero_points(%zp : tensor<64x4xi4>) : tensor<64x96xf32> -> !quant_block.tensor<64x128, #s>
  return
}

// -----

#s = #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>
func.func @scales_element_type(%x: tensor<64x128xf32>, %s: tensor<64x4xf32>, %zp: tensor<64x4xi4>) {
  // expected-error @+1 {{'quant_block.quantize' op scales element type 'f32' does not match the scheme's 'f16'}}
  %q = quant_block.quantize %x scales(%s : tensor<64x4xf32>) zero_points(%zp : tensor<64x4xi4>) : tensor<64x128xf32> -> !quant_block.tensor<64x128, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [32]>
func.func @scales_rank(%x: tensor<64x128xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'quant_block.quantize' op scales has rank 1 but must have the rank 2 of the quantized tensor (scales and zero points are never broadcast implicitly)}}
  %q = quant_block.quantize %x scales(%s : tensor<4xf32>) : tensor<64x128xf32> -> !quant_block.tensor<64x128, #s>
  return
}

// -----

// The WebNN/ONNX block rule: scale dimension = ceil(dimension / block).
#s = #quant_block.scheme<i8 : f32, block = [1, 4]>
func.func @scales_shape(%x: tensor<3x12xf32>, %s: tensor<3x5xf32>) {
  // expected-error @+1 {{'quant_block.quantize' op scales dimension 1 (size 5) does not match ceil(dimension 1 (size 12) / block 4) = 3}}
  %q = quant_block.quantize %x scales(%s : tensor<3x5xf32>) : tensor<3x12xf32> -> !quant_block.tensor<3x12, #s>
  return
}

// -----

#s = #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>
func.func @zero_points_missing(%x: tensor<64x128xf32>, %s: tensor<64x4xf32>) {
  // expected-error @+1 {{'quant_block.quantize' op needs zero_points of type 'tensor<64x4xi4>' because the scheme #quant_block.scheme<i4 : f32, block = [32], zero_point = i4> has them}}
  %q = quant_block.quantize %x scales(%s : tensor<64x4xf32>) : tensor<64x128xf32> -> !quant_block.tensor<64x128, #s>
  return
}

// -----

#s = #quant_block.scheme<i4 : f32, block = [32]>
func.func @zero_points_unexpected(%x: tensor<64x128xf32>, %s: tensor<64x4xf32>, %zp: tensor<64x4xi4>) {
  // expected-error @+1 {{'quant_block.quantize' op has zero_points but the scheme has no zero point}}
  %q = quant_block.quantize %x scales(%s : tensor<64x4xf32>) zero_points(%zp : tensor<64x4xi4>) : tensor<64x128xf32> -> !quant_block.tensor<64x128, #s>
  return
}

// -----

#s = #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>
func.func @zero_points_shape(%x: tensor<64x128xf32>, %s: tensor<64x4xf32>, %zp: tensor<64x2xi4>) {
  // expected-error @+1 {{'quant_block.quantize' op zero_points dimension 1 (size 2) does not match ceil(dimension 1 (size 128) / block 32) = 4}}
  %q = quant_block.quantize %x scales(%s : tensor<64x4xf32>) zero_points(%zp : tensor<64x2xi4>) : tensor<64x128xf32> -> !quant_block.tensor<64x128, #s>
  return
}

// -----

// WebNN: the zero point's type must be the scheme's (the input's) type.
#s = #quant_block.scheme<i8 : f32, block = [1, 1, 5], zero_point = i8>
func.func @zero_points_type(%x: tensor<3x2x5xf32>, %s: tensor<3x2x1xf32>, %zp: tensor<3x2x1xui8>) {
  // expected-error @+1 {{'quant_block.quantize' op zero_points element type 'ui8' does not match the scheme's 'i8'}}
  %q = quant_block.quantize %x scales(%s : tensor<3x2x1xf32>) zero_points(%zp : tensor<3x2x1xui8>) : tensor<3x2x5xf32> -> !quant_block.tensor<3x2x5, #s>
  return
}

// -----

func.func @outer_scales_missing(%x: tensor<4x32xf32>, %s: tensor<4x2xf8E4M3FN>) {
  // expected-error @+1 {{'quant_block.quantize' op needs outer_scales of type 'tensor<1x1xf32>' because the scheme #quant_block.scheme<nvfp4> has them}}
  %q = quant_block.quantize %x scales(%s : tensor<4x2xf8E4M3FN>) : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<nvfp4>>
  return
}

// -----

func.func @outer_scales_unexpected(%x: tensor<4x32xf32>, %s: tensor<4x1xf8E8M0FNU>, %g: tensor<1x1xf32>) {
  // expected-error @+1 {{'quant_block.quantize' op has outer_scales but the scheme has no outer scale}}
  %q = quant_block.quantize %x scales(%s : tensor<4x1xf8E8M0FNU>) outer_scales(%g : tensor<1x1xf32>) : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<mxfp4>>
  return
}

// -----

#k = #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>
func.func @outer_scales_shape(%d: tensor<4x256xui4>, %s: tensor<4x8xui6>, %m: tensor<4x8xui6>, %os: tensor<4x2xf16>, %om: tensor<4x1xf16>) {
  // expected-error @+1 {{'quant_block.pack' op outer_scales dimension 1 (size 2) does not match the outer scale shape, which must be 1}}
  %q = quant_block.pack %d scales(%s : tensor<4x8xui6>) zero_points(%m : tensor<4x8xui6>) outer_scales(%os : tensor<4x2xf16>) outer_mins(%om : tensor<4x1xf16>) : tensor<4x256xui4> -> !quant_block.tensor<4x256, #k>
  return
}

// -----

#s = #quant_block.scheme<f4E2M1FN : f32, block = [16], scale = f8E4M3FN, outer = <f32>>
func.func @outer_mins_unexpected(%d: tensor<4x32xf4E2M1FN>, %s: tensor<4x2xf8E4M3FN>, %g: tensor<1x1xf32>, %m: tensor<1x1xf32>) {
  // expected-error @+1 {{'quant_block.pack' op has outer_mins but the scheme's outer scale has no min}}
  %q = quant_block.pack %d scales(%s : tensor<4x2xf8E4M3FN>) outer_scales(%g : tensor<1x1xf32>) outer_mins(%m : tensor<1x1xf32>) : tensor<4x32xf4E2M1FN> -> !quant_block.tensor<4x32, #s>
  return
}

// -----

func.func @dequantize_result_type(%q: !quant_block.tensor<2x32, #quant_block.scheme<mxfp4 : bf16>>) {
  // expected-error @+1 {{'quant_block.dequantize' op result element type 'f32' does not match the scheme's expressed type 'bf16'}}
  %x = quant_block.dequantize %q : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4 : bf16>> -> tensor<2x32xf32>
  return
}

// -----

func.func @dequantize_result_shape(%q: !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>) {
  // expected-error @+1 {{'quant_block.dequantize' op result shape 'tensor<32x2xf32>' does not match the quantized tensor shape 'tensor<2x32xf32>'}}
  %x = quant_block.dequantize %q : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>> -> tensor<32x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// quantize_dynamic
//===----------------------------------------------------------------------===//

func.func @dynamic_mx_needs_mx(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'quant_block.quantize_dynamic' op method 'absmax' cannot derive f8E8M0FNU (MX) scales; use 'mx'}}
  %q = quant_block.quantize_dynamic absmax %x : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<mxfp4>>
  return
}

// -----

func.func @dynamic_mx_method(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'quant_block.quantize_dynamic' op method 'mx' needs f8E8M0FNU (MX) scales}}
  %q = quant_block.quantize_dynamic mx %x : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<i8 : f32, block = [32]>>
  return
}

// -----

func.func @dynamic_minmax(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'quant_block.quantize_dynamic' op method 'minmax' needs a scheme with zero points (asymmetric)}}
  %q = quant_block.quantize_dynamic minmax %x : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<i8 : f32, block = [32]>>
  return
}

// -----

func.func @dynamic_absmax(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'quant_block.quantize_dynamic' op method 'absmax' is symmetric and cannot derive zero points; use 'minmax'}}
  %q = quant_block.quantize_dynamic absmax %x : tensor<4x32xf32> -> !quant_block.tensor<4x32, #quant_block.scheme<ui8 : f32, block = [32], zero_point = ui8>>
  return
}

// -----

func.func @dynamic_integer_scales(%x: tensor<4x256xf32>) {
  // expected-error @+1 {{'quant_block.quantize_dynamic' op cannot derive integer (two-level) block scales 'ui6'}}
  %q = quant_block.quantize_dynamic absmax %x : tensor<4x256xf32> -> !quant_block.tensor<4x256, #quant_block.scheme<i4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>>
  return
}

// -----

func.func @dynamic_blocked_outer(%x: tensor<4x256xf32>) {
  // expected-error @+1 {{'quant_block.quantize_dynamic' op can derive a per-tensor outer scale only, but the scheme's outer scale is blocked}}
  %q = quant_block.quantize_dynamic absmax %x : tensor<4x256xf32> -> !quant_block.tensor<4x256, #quant_block.scheme<f4E2M1FN : f32, block = [16], scale = f8E4M3FN, outer = <f32, block = [4]>>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// pack / unpack
//===----------------------------------------------------------------------===//

func.func @pack_data_type(%d: tensor<2x32xi4>, %s: tensor<2x1xf8E8M0FNU>) {
  // expected-error @+1 {{'quant_block.pack' op data element type 'i4' does not match the scheme's 'f4E2M1FN'}}
  %q = quant_block.pack %d scales(%s : tensor<2x1xf8E8M0FNU>) : tensor<2x32xi4> -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
  return
}

// -----

func.func @pack_data_shape(%d: tensor<2x64xf4E2M1FN>, %s: tensor<2x1xf8E8M0FNU>) {
  // expected-error @+1 {{'quant_block.pack' op data dimension 1 (size 64) does not match dimension 1 (size 32) of the quantized tensor}}
  %q = quant_block.pack %d scales(%s : tensor<2x1xf8E8M0FNU>) : tensor<2x64xf4E2M1FN> -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
  return
}

// -----

func.func @unpack_count(%q: !quant_block.tensor<2x32, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>) {
  // expected-error @+1 {{'quant_block.unpack' op returns 2 parts but the scheme #quant_block.scheme<i8 : f32, block = [32], zero_point = i8> has 3}}
  %p:2 = quant_block.unpack %q : !quant_block.tensor<2x32, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>> -> tensor<2x32xi8>, tensor<2x1xf32>
  return
}

// -----

func.func @unpack_part_type(%q: !quant_block.tensor<2x32, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>) {
  // expected-error @+1 {{'quant_block.unpack' op zero_points element type 'i4' does not match the scheme's 'i8'}}
  %p:3 = quant_block.unpack %q : !quant_block.tensor<2x32, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>> -> tensor<2x32xi8>, tensor<2x1xf32>, tensor<2x1xi4>
  return
}

// -----

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_lhs_rank(%x: tensor<128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op lhs must have rank >= 2, but has rank 1}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<128xf32>, !quant_block.tensor<256x128, #w> -> tensor<256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_rhs_rank(%x: tensor<2x4x8x128xf32>, %w: !quant_block.tensor<2x256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op rhs must have rank 2 or the rank 4 of lhs, but has rank 3}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<2x4x8x128xf32>, !quant_block.tensor<2x256x128, #w> -> tensor<2x4x8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_expressed(%x: tensor<8x128xf16>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op lhs expresses 'f16' but rhs expresses 'f32'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<8x128xf16>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

// The fast-math flags are arith's, spelled as arith spells them.
#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_fastmath_unknown_flag(%x: tensor<1x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+2 {{expected ::mlir::arith::FastMathFlags to be one of: none, reassoc, nnan, ninf, nsz, arcp, contract, afn, fast}}
  // expected-error @+1 {{failed to parse Arith_FastMathAttr parameter 'value'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<bogus> : tensor<1x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<1x256xf32>
  return
}

// -----

// The flags come after the other keywords.
#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_fastmath_position(%x: tensor<1x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{expected 'accumulate'}}
  %y = quant_block.matmul %x, %w transpose_rhs fastmath<fast> accumulate(f32) inhibit : tensor<1x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<1x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_k(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op contraction sizes differ: lhs dimension 1 is 128 but rhs dimension 0 is 256}}
  %y = quant_block.matmul %x, %w accumulate(f32) inhibit : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<8x128xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_batch(%x: tensor<2x8x128xf32>, %w: !quant_block.tensor<3x128x64, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op batch dimension 0 differs: lhs 2, rhs 3}}
  %y = quant_block.matmul %x, %w accumulate(f32) inhibit : tensor<2x8x128xf32>, !quant_block.tensor<3x128x64, #w> -> tensor<2x8x64xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_result_shape(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op result shape [8, 128] does not match the expected [8, 256]}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<8x128xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_inhibit(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op with 'inhibit' returns a float tensor of the expressed type 'f32', not '!quant_block.tensor<8x256, #quant_block.scheme<i8 : f32, block = [1, *]>>'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> !quant_block.tensor<8x256, #quant_block.scheme<i8 : f32, block = [1, *]>>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_propagate(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op with 'propagate' returns a quantized tensor, not 'tensor<8x256xf32>'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_propagate_expressed(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op result scheme expresses 'bf16' but the operands express 'f32'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> !quant_block.tensor<8x256, #quant_block.scheme<i8 : bf16, block = [1, *]>>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_propagate_outer(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op cannot requantize its result to a scheme with a blocked outer scale}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> !quant_block.tensor<8x256, #quant_block.scheme<f4E2M1FN : f32, block = [16], scale = f8E4M3FN, outer = <f32, block = [2]>>>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_propagate_int_scales(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op cannot requantize its result to integer (two-level) block scales}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> !quant_block.tensor<8x256, #quant_block.scheme<i4 : f32, block = [32], scale = ui6, outer = <f16>>>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
#a = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @matmul_acc_i16(%x: !quant_block.tensor<8x128, #a>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op integer accumulation must be i32, not 'i16'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i16) inhibit : !quant_block.tensor<8x128, #a>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_i32_float_lhs(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op i32 accumulation needs a quantized lhs (dynamic activation quantization)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<f8E4M3FN : f32, block = [32]>
#a = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @matmul_i32_float_storage(%x: !quant_block.tensor<8x128, #a>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op i32 accumulation needs integer storage of at most 8 bits (or FP4 E2M1 codes in rhs), but rhs stores 'f8E4M3FN'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !quant_block.tensor<8x128, #a>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<mxfp4>
#a = #quant_block.scheme<f4E2M1FN : f32, block = [1, 32], scale = f8E8M0FNU>
func.func @matmul_i32_e2m1_lhs(%x: !quant_block.tensor<8x128, #a>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op i32 accumulation takes FP4 E2M1 codes only in rhs (the weight), but lhs stores 'f4E2M1FN'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !quant_block.tensor<8x128, #a>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<ui4 : f32, block = [32], zero_point = f16>
#a = #quant_block.scheme<ui8 : f32, block = [1, 32], zero_point = f16>
func.func @matmul_i32_float_zero_point(%x: !quant_block.tensor<8x128, #a>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op i32 accumulation cannot apply the float zero points of lhs (only the weight, rhs, may have mins)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !quant_block.tensor<8x128, #a>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#a = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @matmul_i32_mx(%x: !quant_block.tensor<8x128, #a>, %w: !quant_block.tensor<256x128, #quant_block.scheme<mxint8>>) {
  // expected-error @+1 {{'quant_block.matmul' op i32 accumulation of MX integers is not defined; rhs uses f8E8M0FNU scales}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !quant_block.tensor<8x128, #a>, !quant_block.tensor<256x128, #quant_block.scheme<mxint8>> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
#a = #quant_block.scheme<i8 : f32, block = [1, 64]>
func.func @matmul_i32_blocks(%x: !quant_block.tensor<8x128, #a>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op i32 accumulation needs the same block size along K on both sides, but lhs has 64 and rhs has 32}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !quant_block.tensor<8x128, #a>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_acc_f64(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op accumulator type 'f64' is not supported; expected f32, f16, bf16 or i32}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f64) inhibit : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_acc_narrow(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op accumulator type 'f16' is narrower than or incompatible with the expressed type 'f32'}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f16) inhibit : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

#w = #quant_block.scheme<i4 : f32, block = [32], scale = f16>
func.func @matmul_acc_index(%x: tensor<8x128xf32>, %w: !quant_block.tensor<256x128, #w>) {
  // expected-error @+1 {{'quant_block.matmul' op accumulator type 'index' is not supported; expected f32, f16, bf16 or i32}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(index) inhibit : tensor<8x128xf32>, !quant_block.tensor<256x128, #w> -> tensor<8x256xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

#s = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @transpose_perm_size(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.transpose' op permutation has 3 entries but the input has rank 2}}
  %t = quant_block.transpose %q permutation = [1, 0, 2] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<128x64, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @transpose_not_perm(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.transpose' op permutation is not a permutation of [0, 2)}}
  %t = quant_block.transpose %q permutation = [1, 1] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<128x64, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [32]>
func.func @transpose_rank(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.transpose' op result rank 3 differs from input rank 2}}
  %t = quant_block.transpose %q permutation = [1, 0] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<1x128x64, #s>
  return
}

// -----

func.func @transpose_scheme(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>) {
  // expected-error @+1 {{'quant_block.transpose' op may only change the block shape of the scheme, but the input scheme is #quant_block.scheme<i8 : f32, block = [1, 32]> and the result scheme is #quant_block.scheme<i8 : f32, block = [32, 1], scale = f16>}}
  %t = quant_block.transpose %q permutation = [1, 0] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [32, 1], scale = f16>>
  return
}

// -----

func.func @transpose_shape(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>) {
  // expected-error @+1 {{'quant_block.transpose' op result dimension 0 (size 64) must be input dimension 1 (size 128)}}
  %t = quant_block.transpose %q permutation = [1, 0] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32, 1]>>
  return
}

// -----

func.func @transpose_block(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>) {
  // expected-error @+1 {{'quant_block.transpose' op result block 1 along dimension 0 must be the input block 32 along dimension 1 (a transpose permutes the block shape)}}
  %t = quant_block.transpose %q permutation = [1, 0] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
  return
}

// -----

func.func @transpose_outer_block(%k: !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>>) {
  // expected-error @+1 {{'quant_block.transpose' op result outer block 1 along dimension 0 must be the input outer block 8 along dimension 1}}
  %u = quant_block.transpose %k permutation = [1, 0] : !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>> -> !quant_block.tensor<256x4, #quant_block.scheme<ui4 : f32, block = [32, 1], scale = ui6, outer = <f16, block = [8]>>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

func.func @reshape_dynamic(%q: !quant_block.tensor<?x128, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.reshape' op needs static shapes}}
  %r = quant_block.reshape %q : !quant_block.tensor<?x128, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<?x4x32, #quant_block.scheme<i8 : f32, block = [32]>>
  return
}

// -----

func.func @reshape_scheme(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.reshape' op may only change the block shape of the scheme}}
  %r = quant_block.reshape %q : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<8192, #quant_block.scheme<i8 : bf16, block = [32]>>
  return
}

// -----

#k = #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>
func.func @reshape_outer(%q: !quant_block.tensor<4x256, #k>) {
  // expected-error @+1 {{'quant_block.reshape' op cannot reshape a scheme with a blocked outer scale}}
  %r = quant_block.reshape %q : !quant_block.tensor<4x256, #k> -> !quant_block.tensor<1024, #k>
  return
}

// -----

func.func @reshape_count(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.reshape' op input has 8192 elements but the result 4096}}
  %r = quant_block.reshape %q : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<4096, #quant_block.scheme<i8 : f32, block = [32]>>
  return
}

// -----

// Splitting a 32-block into 16 + 16 would need each half to have its own scale.
func.func @reshape_split_block(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.reshape' op would split or regroup blocks: input dimensions [1, 2) and result dimensions [1, 3) do not hold the same blocks}}
  %r = quant_block.reshape %q : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<64x8x16, #quant_block.scheme<i8 : f32, block = [16]>>
  return
}

// -----

func.func @reshape_ragged(%q: !quant_block.tensor<4x10, #quant_block.scheme<i8 : f32, block = [4]>>) {
  // expected-error @+1 {{'quant_block.reshape' op would split or regroup blocks: input dimension 1 (size 10) has a ragged last block (block 4) and takes part in the reshape}}
  %r = quant_block.reshape %q : !quant_block.tensor<4x10, #quant_block.scheme<i8 : f32, block = [4]>> -> !quant_block.tensor<40, #quant_block.scheme<i8 : f32, block = [4]>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// extract_slice
//===----------------------------------------------------------------------===//

#s = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @slice_counts(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.extract_slice' op needs one offset and one size per dimension (2), but has 1 offsets and 2 sizes}}
  %s = quant_block.extract_slice %q offsets = [0] sizes = [8, 32] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<8x32, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [32]>
func.func @slice_rank(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.extract_slice' op result rank 1 differs from input rank 2}}
  %s = quant_block.extract_slice %q offsets = [0, 0] sizes = [1, 32] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<32, #s>
  return
}

// -----

func.func @slice_scheme(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.extract_slice' op may only change the block shape of the scheme}}
  %s = quant_block.extract_slice %q offsets = [0, 0] sizes = [8, 32] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<8x32, #quant_block.scheme<i8 : f32, block = [32], range = [-127, 127]>>
  return
}

// -----

#k = #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>
func.func @slice_outer(%q: !quant_block.tensor<4x256, #k>) {
  // expected-error @+1 {{'quant_block.extract_slice' op cannot slice a scheme with a blocked outer scale}}
  %s = quant_block.extract_slice %q offsets = [0, 0] sizes = [2, 256] : !quant_block.tensor<4x256, #k> -> !quant_block.tensor<2x256, #k>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @slice_bounds(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.extract_slice' op slice [96, 160) is out of bounds of dimension 1 (size 128)}}
  %s = quant_block.extract_slice %q offsets = [0, 96] sizes = [8, 64] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<8x64, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @slice_result_shape(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.extract_slice' op result dimension 1 (size 32) must be the slice size 64}}
  %s = quant_block.extract_slice %q offsets = [0, 0] sizes = [8, 64] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<8x32, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [1, 32]>
func.func @slice_misaligned(%q: !quant_block.tensor<64x128, #s>) {
  // expected-error @+1 {{'quant_block.extract_slice' op offset 16 along dimension 1 is not a multiple of the block size 32 (a slice must start at a block boundary)}}
  %s = quant_block.extract_slice %q offsets = [0, 16] sizes = [8, 32] : !quant_block.tensor<64x128, #s> -> !quant_block.tensor<8x32, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [1, *]>
func.func @slice_dynamic_whole(%q: !quant_block.tensor<4x?, #s>) {
  // expected-error @+1 {{'quant_block.extract_slice' op offset 8 along dimension 1 cuts the whole-dimension block of a dynamic dimension}}
  %s = quant_block.extract_slice %q offsets = [0, 8] sizes = [4, 8] : !quant_block.tensor<4x?, #s> -> !quant_block.tensor<4x8, #s>
  return
}

// -----

func.func @slice_result_block(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>) {
  // expected-error @+1 {{'quant_block.extract_slice' op result block 16 along dimension 1 must be the input block 32}}
  %s = quant_block.extract_slice %q offsets = [0, 0] sizes = [8, 64] : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<8x64, #quant_block.scheme<i8 : f32, block = [1, 16]>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

#s = #quant_block.scheme<i8 : f32, block = [32]>
func.func @broadcast_rank(%q: !quant_block.tensor<128, #s>) {
  // expected-error @+1 {{'quant_block.broadcast' op input rank 1 plus 2 new dimensions must equal the result rank 2}}
  %b = quant_block.broadcast %q dimensions = [0, 1] : !quant_block.tensor<128, #s> -> !quant_block.tensor<4x128, #s>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [32]>
func.func @broadcast_dims(%q: !quant_block.tensor<128, #s>) {
  // expected-error @+1 {{'quant_block.broadcast' op dimensions must be sorted, unique and in [0, 3)}}
  %b = quant_block.broadcast %q dimensions = [1, 0] : !quant_block.tensor<128, #s> -> !quant_block.tensor<4x4x128, #s>
  return
}

// -----

func.func @broadcast_scheme(%q: !quant_block.tensor<128, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.broadcast' op may only change the block shape of the scheme}}
  %b = quant_block.broadcast %q dimensions = [0] : !quant_block.tensor<128, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<4x128, #quant_block.scheme<i8 : f32, block = [32], scale = f16>>
  return
}

// -----

#k = #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [8]>>
func.func @broadcast_outer(%q: !quant_block.tensor<256, #k>) {
  // expected-error @+1 {{'quant_block.broadcast' op cannot broadcast a scheme with a blocked outer scale}}
  %b = quant_block.broadcast %q dimensions = [0] : !quant_block.tensor<256, #k> -> !quant_block.tensor<2x256, #k>
  return
}

// -----

#s = #quant_block.scheme<i8 : f32, block = [32]>
func.func @broadcast_shape(%q: !quant_block.tensor<128, #s>) {
  // expected-error @+1 {{'quant_block.broadcast' op result dimension 1 (size 64) must be input dimension 0 (size 128)}}
  %b = quant_block.broadcast %q dimensions = [0] : !quant_block.tensor<128, #s> -> !quant_block.tensor<4x64, #s>
  return
}

// -----

func.func @broadcast_block(%q: !quant_block.tensor<128, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.broadcast' op result block 16 along kept dimension 1 must be the input block 32}}
  %b = quant_block.broadcast %q dimensions = [0] : !quant_block.tensor<128, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<4x128, #quant_block.scheme<i8 : f32, block = [16]>>
  return
}

//===----------------------------------------------------------------------===//
// The row-tiled layout (row_tile) and quant_block.repack
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{row_tile = 1 is not a tile: expected 2 or more rows}}
func.func private @f(!quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], row_tile = 1>>)

// -----

// expected-error @+1 {{row_tile needs 4-, 6- or 8-bit storage, not 'i16'}}
func.func private @f(!quant_block.tensor<32x64, #quant_block.scheme<i16 : f32, block = [1, 32], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile needs blocks along the last dimension only ([1, B] or [B])}}
func.func private @f(!quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [2, 32], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile needs blocks along the last dimension only ([1, B] or [B])}}
func.func private @f(!quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, row_tile = 16>>)

// -----

// A whole-dimension block along the rows.
// expected-error @+1 {{row_tile needs blocks along the last dimension only ([1, B] or [B])}}
func.func private @f(!quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [*, 32], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile allows a per-tensor outer scale or outer blocks along the last dimension only ([1, B] or [B]), but the outer scale's blocks are [2, 8]}}
func.func private @f(!quant_block.tensor<32x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, outer = <f16, block = [2, 8]>, row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile = 16 needs a rank-2 [N, K] tensor, not rank 3}}
func.func private @f(!quant_block.tensor<2x32x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile = 16 needs a static shape, but the shape is dynamic}}
func.func private @f(!quant_block.tensor<?x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile = 16 needs a non-empty K, but K = 0}}
func.func private @f(!quant_block.tensor<16x0, #quant_block.scheme<i4 : f32, block = [*], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile = 16 does not divide the 24 rows}}
func.func private @f(!quant_block.tensor<24x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile needs whole blocks, but the block of 32 does not divide K = 48}}
func.func private @f(!quant_block.tensor<16x48, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>)

// -----

// expected-error @+1 {{row_tile needs blocks of whole 32-bit words, but a block of 4 x 4-bit codes is 16 bits}}
func.func private @f(!quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [4], row_tile = 16>>)

// -----

!t = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>
func.func @dequantize_tiled(%t: !t) {
  // expected-error @+1 {{'quant_block.dequantize' op does not take the row-tiled layout, but its input is '!quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>'; only quant_block.matmul (as its transpose_rhs weight), pack, unpack and repack do: convert it with quant_block.repack}}
  %x = quant_block.dequantize %t : !t -> tensor<16x64xf32>
  return
}

// -----

!t = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>
func.func @quantize_tiled(%x: tensor<16x64xf32>, %s: tensor<16x2xf32>) {
  // expected-error @+1 {{'quant_block.quantize' op does not take the row-tiled layout, but its result is}}
  %q = quant_block.quantize %x scales(%s : tensor<16x2xf32>) : tensor<16x64xf32> -> !t
  return
}

// -----

!t = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>
func.func @quantize_dynamic_tiled(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{'quant_block.quantize_dynamic' op does not take the row-tiled layout, but its result is}}
  %q = quant_block.quantize_dynamic absmax %x : tensor<16x64xf32> -> !t
  return
}

// -----

!t = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], row_tile = 16>>
func.func @transpose_tiled(%t: !t) {
  // expected-error @+1 {{'quant_block.transpose' op does not take the row-tiled layout, but its input is}}
  %r = quant_block.transpose %t permutation = [1, 0] : !t -> !quant_block.tensor<64x16, #quant_block.scheme<i4 : f32, block = [32, 1]>>
  return
}

// -----

!w = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @reshape_to_tiled(%w: !quant_block.tensor<1x16x64, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>>) {
  // expected-error @+1 {{'quant_block.reshape' op does not take the row-tiled layout, but its result is}}
  %r = quant_block.reshape %w : !quant_block.tensor<1x16x64, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>> -> !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32], row_tile = 16>>
  return
}

// -----

!t = !quant_block.tensor<32x64, #quant_block.scheme<i8 : f32, block = [1, 32], row_tile = 16>>
func.func @slice_tiled(%t: !t) {
  // expected-error @+1 {{'quant_block.extract_slice' op does not take the row-tiled layout, but its input is}}
  %s = quant_block.extract_slice %t offsets = [0, 0] sizes = [16, 64] : !t -> !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32], row_tile = 16>>
  return
}

// -----

func.func @broadcast_to_tiled(%q: !quant_block.tensor<64, #quant_block.scheme<i8 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.broadcast' op does not take the row-tiled layout, but its result is}}
  %b = quant_block.broadcast %q dimensions = [0] : !quant_block.tensor<64, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32], row_tile = 16>>
  return
}

// -----

!t = !quant_block.tensor<64x16, #quant_block.scheme<i8 : f32, block = [1, 16], row_tile = 16>>
func.func @matmul_tiled_not_transposed(%x: tensor<2x64xf32>, %t: !t) {
  // expected-error @+1 {{'quant_block.matmul' op takes a row-tiled rhs only as a transposed ([N, K]) weight, but transpose_rhs is not set}}
  %y = quant_block.matmul %x, %t accumulate(f32) inhibit : tensor<2x64xf32>, !t -> tensor<2x16xf32>
  return
}

// -----

!a = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32], row_tile = 16>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @matmul_tiled_lhs(%a: !a, %w: !w) {
  // expected-error @+1 {{'quant_block.matmul' op does not take the row-tiled layout, but its lhs is}}
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x16xf32>
  return
}

// -----

!w = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!r = !quant_block.tensor<16x16, #quant_block.scheme<i8 : f32, block = [1, 16], row_tile = 16>>
func.func @matmul_tiled_result(%x: tensor<16x64xf32>, %w: !w) {
  // expected-error @+1 {{'quant_block.matmul' op does not take the row-tiled layout, but its result is}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<16x64xf32>, !w -> !r
  return
}

// -----

func.func @repack_shape(%w: !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.repack' op may not change the shape}}
  %t = quant_block.repack %w : !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [32]>> -> !quant_block.tensor<16x128, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>
  return
}

// -----

func.func @repack_scheme(%w: !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [32]>>) {
  // expected-error @+1 {{'quant_block.repack' op may only change row_tile, but the input scheme is #quant_block.scheme<i4 : f32, block = [32]> and the result scheme is #quant_block.scheme<i4 : f32, block = [64], row_tile = 16>}}
  %t = quant_block.repack %w : !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [32]>> -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [64], row_tile = 16>>
  return
}

//===----------------------------------------------------------------------===//
// quant_block.never_subnormal_operand
//===----------------------------------------------------------------------===//

// -----

func.func @never_subnormal_operand_not_unit(%x: vector<16xf32>) -> vector<16xbf16> {
  // expected-error @+1 {{'arith.truncf' op 'quant_block.never_subnormal_operand' must be a unit attribute}}
  %r = arith.truncf %x {quant_block.never_subnormal_operand = true} : vector<16xf32> to vector<16xbf16>
  return %r : vector<16xbf16>
}

// -----

func.func @never_subnormal_operand_to_f16(%x: vector<16xf32>) -> vector<16xf16> {
  // expected-error @+1 {{'arith.truncf' op 'quant_block.never_subnormal_operand' is only valid on an arith.truncf from f32 to bf16}}
  %r = arith.truncf %x {quant_block.never_subnormal_operand} : vector<16xf32> to vector<16xf16>
  return %r : vector<16xf16>
}

// -----

func.func @never_subnormal_operand_not_on_truncf(%x: vector<16xf32>) -> vector<16xf32> {
  // expected-error @+1 {{'arith.mulf' op 'quant_block.never_subnormal_operand' is only valid on an arith.truncf from f32 to bf16}}
  %r = arith.mulf %x, %x {quant_block.never_subnormal_operand} : vector<16xf32>
  return %r : vector<16xf32>
}

//===----------------------------------------------------------------------===//
// quant_block.cpu_kernel and #quant_block.cpu_matmul_kernel
//===----------------------------------------------------------------------===//

// -----

!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @cpu_kernel_not_on_matmul(%w: !w) -> tensor<16x64xf32> {
  // expected-error @+1 {{'quant_block.dequantize' op 'quant_block.cpu_kernel' is only valid on quant_block.matmul (the CPU kernel of a matrix product)}}
  %d = quant_block.dequantize %w {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 2>} : !w -> tensor<16x64xf32>
  return %d : tensor<16x64xf32>
}

// -----

!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @cpu_kernel_not_an_attribute_of_its_kind(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x16xf32> {
  // expected-error @+1 {{'quant_block.matmul' op 'quant_block.cpu_kernel' must be a #quant_block.cpu_matmul_kernel attribute}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = "amx"} : tensor<1x64xf32>, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @unknown_operation_attribute(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x16xf32> {
  // expected-error @+1 {{'quant_block.matmul' op unknown attribute 'quant_block.kernel' of the quant_block dialect (known on operations: 'quant_block.cpu_kernel', 'quant_block.never_subnormal_operand')}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.kernel = 1 : i64} : tensor<1x64xf32>, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @cpu_kernel_tile_not_positive(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x16xf32> {
  // expected-error @+1 {{the tile [0, 4] and blocks_per_step 2 must be positive}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [0, 4], blocks_per_step = 2>} : tensor<1x64xf32>, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
