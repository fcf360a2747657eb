// --quant-block-fold-constants: quantize and quantize_dynamic of constants
// become packs of constant codes and parameters; what is not folded stays.
// RUN: quant-opt %s --split-input-file --quant-block-fold-constants | FileCheck %s
// The folded constants equal what the compiled code computes, bit for bit:
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/fold-constants-semantics.mlir --pass='quant-block-fold-constants' --expect-change | FileCheck %s --check-prefix=SEMANTICS

// SEMANTICS-COUNT-10: ok: @
// SEMANTICS: PASS

!q = !quant_block.tensor<2x8, #quant_block.scheme<i4 : f32, block = [1, 4], zero_point = i4>>

// q = clamp(round_half_even(x / s) + zp, -8, 7), the parameters reused.
// CHECK-LABEL: func.func @quantize_int4
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [5.000000e-01, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<{{\[\[}}0, 1], [-1, 2]]> : tensor<2x2xi4>
// CHECK-DAG: %[[D:.*]] = arith.constant dense<{{\[\[}}0, 1, 2, -3, 3, 4, 4, 5], [-8, 1, 0, 6, 7, -8, 2, 2]]> : tensor<2x8xi4>
// CHECK: %[[P:.*]] = quant_block.pack %[[D]] scales(%[[S]] : tensor<2x2xf32>) zero_points(%[[Z]] : tensor<2x2xi4>)
// CHECK-NOT: quant_block.quantize
// CHECK-NOT: tensor<2x8xf32>
// CHECK: return %[[P]]
func.func @quantize_int4() -> !q {
  %x = arith.constant dense<[[0.0, 1.0, 2.5, -3.0, 4.0, 5.5, 6.0, 7.0], [-8.0, 1.25, 0.5, 3.5, 100.0, -100.0, 0.0, 1.0]]> : tensor<2x8xf32>
  %s = arith.constant dense<[[1.0, 2.0], [0.5, 4.0]]> : tensor<2x2xf32>
  %z = arith.constant dense<[[0, 1], [-1, 2]]> : tensor<2x2xi4>
  %q = quant_block.quantize %x scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi4>) : tensor<2x8xf32> -> !q
  return %q : !q
}

// -----

!q = !quant_block.tensor<8, #quant_block.scheme<f8E4M3FN : f32, saturate = false>>

// FP8 with saturate = false: overflow is NaN (0x7F, the sign kept), a NaN
// input is the positive NaN 0x7F.
// CHECK-LABEL: func.func @quantize_fp8
// CHECK: arith.constant dense<[0.000000e+00, -0.000000e+00, 4.480000e+02, 0x7F, 0xFF, 0x7F, -2.500000e-01, 5.859380e-03]> : tensor<8xf8E4M3FN>
func.func @quantize_fp8() -> !q {
  %x = arith.constant dense<[0.0, -0.0, 464.0, 480.0, -1.0e6, 0x7FC00000, -0.25, 0.0059]> : tensor<8xf32>
  %s = arith.constant dense<1.0> : tensor<1xf32>
  %q = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<8xf32> -> !q
  return %q : !q
}

// -----

!q = !quant_block.tensor<2x4, #quant_block.scheme<i8 : f32, block = [1, *], scale = f16>>

// absmax: s = max|x| / 127 per row, rounded to f16; a zero row gets s = 1.
// CHECK-LABEL: func.func @dynamic_absmax
// CHECK-DAG: %[[D:.*]] = arith.constant dense<{{\[\[}}127, -64, 32, 0], [0, 0, 0, 0]]> : tensor<2x4xi8>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}1.574710e-02], [1.000000e+00]]> : tensor<2x1xf16>
// CHECK: quant_block.pack %[[D]] scales(%[[S]] : tensor<2x1xf16>)
func.func @dynamic_absmax() -> !q {
  %x = arith.constant dense<[[2.0, -1.0, 0.5, 0.0], [0.0, 0.0, -0.0, 0.0]]> : tensor<2x4xf32>
  %q = quant_block.quantize_dynamic absmax %x : tensor<2x4xf32> -> !q
  return %q : !q
}

// -----

!q = !quant_block.tensor<1x8, #quant_block.scheme<ui4 : f32, block = [4], zero_point = ui4>>
!f = !quant_block.tensor<1x8, #quant_block.scheme<ui4 : f32, block = [4], zero_point = bf16>>

// minmax: the range widened to include 0, s = (max - min) / 15, an int zero
// point round(0 - min / s), or the float one m = min.
// CHECK-LABEL: func.func @dynamic_minmax
// CHECK-DAG: arith.constant dense<{{\[\[}}0, 15, 5, 10, 0, 10, 15, 10]]> : tensor<1x8xui4>
// CHECK-DAG: arith.constant dense<{{\[\[}}0.0666666701, 2.000000e-01]]> : tensor<1x2xf32>
// CHECK-DAG: arith.constant dense<{{\[\[}}5, 0]]> : tensor<1x2xui4>
// CHECK-DAG: arith.constant dense<{{\[\[}}-3.339840e-01, 0.000000e+00]]> : tensor<1x2xbf16>
// CHECK: quant_block.pack {{.*}} zero_points(%{{.*}} : tensor<1x2xbf16>)
// CHECK-NOT: quantize_dynamic
func.func @dynamic_minmax() -> (!q, !f) {
  %x = arith.constant dense<[[-0.333333343, 0.666666686, 0.0, 0.333333343, 0.0, 2.0, 3.0, 2.0]]> : tensor<1x8xf32>
  %q = quant_block.quantize_dynamic minmax %x : tensor<1x8xf32> -> !q
  %f = quant_block.quantize_dynamic minmax %x : tensor<1x8xf32> -> !f
  return %q, %f : !q, !f
}

// -----

!q = !quant_block.tensor<3x32, #quant_block.scheme<mxfp4>>

// MX: the shared exponent floor(log2(max|x|)) - 2 in E8M0, 0xFF for a block
// holding NaN; a uniform result is a splat.
// CHECK-LABEL: func.func @dynamic_mx
// CHECK-DAG: arith.constant dense<{{\[\[}}1.250000e-01], [2.560000e+02], [0xFF]]> : tensor<3x1xf8E8M0FNU>
// CHECK-DAG: arith.constant dense<{{.*}}> : tensor<3x32xf4E2M1FN>
// CHECK-LABEL: func.func @dynamic_mx_splat
// CHECK-DAG: arith.constant dense<6.000000e+00> : tensor<2x32xf4E2M1FN>
// CHECK-DAG: arith.constant dense<2.500000e-01> : tensor<2x1xf8E8M0FNU>
func.func @dynamic_mx() -> !q {
  %x = arith.constant dense<[[0.75, 0.5, 0.25, 0.125, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                             [1500.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0],
                             [0x7FC00000, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]> : tensor<3x32xf32>
  %q = quant_block.quantize_dynamic mx %x : tensor<3x32xf32> -> !q
  return %q : !q
}
func.func @dynamic_mx_splat() -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>> {
  %x = arith.constant dense<1.5> : tensor<2x32xf32>
  %q = quant_block.quantize_dynamic mx %x : tensor<2x32xf32> -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
  return %q : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
}

// -----

!q = !quant_block.tensor<32, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU, scale_rounding = ceil>>

// scale_rounding = ceil (from the numerics library: the compiled path has
// only floor): 2^ceil(log2(7 / 6)) = 2, no element saturates.
// CHECK-LABEL: func.func @dynamic_mx_ceil
// CHECK: arith.constant dense<2.000000e+00> : tensor<1xf8E8M0FNU>
func.func @dynamic_mx_ceil() -> !q {
  %x = arith.constant dense<7.0> : tensor<32xf32>
  %q = quant_block.quantize_dynamic mx %x : tensor<32xf32> -> !q
  return %q : !q
}

// -----

!q = !quant_block.tensor<1x32, #quant_block.scheme<nvfp4>>

// NVFP4: the per-tensor outer scale max|x| / (6 * 448), block scales in
// E4M3 relative to it.
// CHECK-LABEL: func.func @dynamic_nvfp4
// CHECK-DAG: %[[O:.*]] = arith.constant dense<0.00334821432> : tensor<1x1xf32>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}4.480000e+02, 2.240000e+02]]> : tensor<1x2xf8E4M3FN>
// CHECK: quant_block.pack %{{.*}} scales(%[[S]] : tensor<1x2xf8E4M3FN>) outer_scales(%[[O]] : tensor<1x1xf32>)
func.func @dynamic_nvfp4() -> !q {
  %x = arith.constant dense<[[9.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.5, 1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -4.5]]> : tensor<1x32xf32>
  %q = quant_block.quantize_dynamic absmax %x : tensor<1x32xf32> -> !q
  return %q : !q
}

// -----

!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32], scale = f16>>
!s = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32], scale = f16>>

// A dense_resource weight is read from its blob; whole-byte results are
// blobs again, sub-byte ones dense literals (the LLVM translation cannot
// materialize sub-byte blobs).
// CHECK-LABEL: func.func @resource
// CHECK-DAG: %[[D8:.*]] = arith.constant dense_resource<quant_block_folded{{.*}}> : tensor<4x64xi8>
// CHECK-DAG: %[[S8:.*]] = arith.constant dense_resource<quant_block_folded{{.*}}> : tensor<4x2xf16>
// CHECK-DAG: %[[D4:.*]] = arith.constant dense<{{.*}}> : tensor<4x64xi4>
// CHECK-DAG: quant_block.pack %[[D8]] scales(%[[S8]] : tensor<4x2xf16>)
// CHECK-DAG: quant_block.pack %[[D4]]
func.func @resource() -> (!q, !s) {
  %x = arith.constant dense_resource<weights> : tensor<4x64xf32>
  %q = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !q
  %s = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !s
  return %q, %s : !q, !s
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C4200008042000080BF000000C0000040C0000080C00000A0C00000C0C00000E0C0000000C1000010C1000020C1000030C1000040C1000050C1000060C1000070C1000080C1000088C1000090C1000098C10000A0C10000A8C10000B0C10000B8C10000C0C10000C8C10000D0C10000D8C10000E0C10000E8C10000F0C10000F8C1000000C2000004C2000008C200000CC2000010C2000014C2000018C200001CC2000020C2000024C2000028C200002CC2000030C2000034C2000038C200003CC2000040C2000044C2000048C200004CC2000050C2000054C2000058C200005CC2000060C2000064C2000068C200006CC2000070C2000074C2000078C200007CC2000080C20000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }
  }
#-}

// -----

// Not folded: a run-time input, run-time scales, two-level (K-quant)
// integer scales, an outer scale with minmax, NaN under absmax, Inf under
// minmax with integer zero points.
!q = !quant_block.tensor<2x32, #quant_block.scheme<i8 : f32, block = [32]>>
!k = !quant_block.tensor<1x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>
!o = !quant_block.tensor<1x32, #quant_block.scheme<ui4 : f32, block = [32], zero_point = ui4, outer = <f32>>>
!z = !quant_block.tensor<1x32, #quant_block.scheme<ui4 : f32, block = [32], zero_point = ui4>>

// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-2: quant_block.quantize {{.*}} -> !quant_block.tensor<2x32
// CHECK: quant_block.quantize {{.*}} -> !quant_block.tensor<1x256
// CHECK: quant_block.quantize_dynamic minmax {{.*}} -> !quant_block.tensor<1x32, #quant_block.scheme<ui4 : f32, block = [32], zero_point = ui4, outer = <f32>>>
// CHECK: quant_block.quantize_dynamic absmax
// CHECK: quant_block.quantize_dynamic minmax
// CHECK-NOT: quant_block.pack
func.func @not_folded(%x: tensor<2x32xf32>, %s: tensor<2x1xf32>) -> (!q, !q, !k, !o, !q, !z) {
  %c = arith.constant dense<1.0> : tensor<2x32xf32>
  %cs = arith.constant dense<0.5> : tensor<2x1xf32>
  %a = quant_block.quantize %x scales(%cs : tensor<2x1xf32>) : tensor<2x32xf32> -> !q
  %b = quant_block.quantize %c scales(%s : tensor<2x1xf32>) : tensor<2x32xf32> -> !q
  %kx = arith.constant dense<1.0> : tensor<1x256xf32>
  %ks = arith.constant dense<3> : tensor<1x8xui6>
  %kz = arith.constant dense<1> : tensor<1x8xui6>
  %ko = arith.constant dense<0.5> : tensor<1x1xf16>
  %km = arith.constant dense<0.25> : tensor<1x1xf16>
  %k = quant_block.quantize %kx scales(%ks : tensor<1x8xui6>) zero_points(%kz : tensor<1x8xui6>) outer_scales(%ko : tensor<1x1xf16>) outer_mins(%km : tensor<1x1xf16>) : tensor<1x256xf32> -> !k
  %ox = arith.constant dense<1.0> : tensor<1x32xf32>
  %o = quant_block.quantize_dynamic minmax %ox : tensor<1x32xf32> -> !o
  %nan = arith.constant dense<0x7FC00000> : tensor<2x32xf32>
  %n = quant_block.quantize_dynamic absmax %nan : tensor<2x32xf32> -> !q
  %inf = arith.constant dense<0x7F800000> : tensor<1x32xf32>
  %i = quant_block.quantize_dynamic minmax %inf : tensor<1x32xf32> -> !z
  return %a, %b, %k, %o, %n, %i : !q, !q, !k, !o, !q, !z
}

// -----

// A constant weight repacked to the row-tiled layout is packed in it
// directly; a repack of parts that are not all constant is left alone.
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!t = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
// CHECK-LABEL: func.func @repack_constant
// CHECK-DAG: %[[D:.*]] = arith.constant dense<2> : tensor<16x64xi4>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<16x2xf16>
// CHECK: %[[T:.*]] = quant_block.pack %[[D]] scales(%[[S]] : tensor<16x2xf16>) : tensor<16x64xi4> -> !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
// CHECK: %[[P:.*]] = quant_block.pack %{{.*}} scales(%[[S]] : tensor<16x2xf16>) : tensor<16x64xi4> -> !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
// CHECK: %[[R:.*]] = quant_block.repack %[[P]]
// CHECK: return %[[T]], %[[R]]
func.func @repack_constant(%d: tensor<16x64xi4>) -> (!t, !t) {
  %x = arith.constant dense<1.0> : tensor<16x64xf32>
  %s = arith.constant dense<0.5> : tensor<16x2xf16>
  %q = quant_block.quantize %x scales(%s : tensor<16x2xf16>) : tensor<16x64xf32> -> !w
  %t = quant_block.repack %q : !w -> !t
  %p = quant_block.pack %d scales(%s : tensor<16x2xf16>) : tensor<16x64xi4> -> !w
  %r = quant_block.repack %p : !w -> !t
  return %t, %r : !t, !t
}
