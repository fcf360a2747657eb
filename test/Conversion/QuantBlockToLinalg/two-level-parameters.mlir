// Two-level block parameters (GGUF K-quant super-blocks): integer block
// scales, blocked outer scales and outer mins are folded into effective f32
// block parameters by one generic over the scale tensor (one value per
// block, never per element), then the element generic reads them like any
// single-level scheme's.
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg | FileCheck %s

// Q4_K's structure: blocks of 32, super-blocks of 8 blocks. The outer block
// divides the scale dimension, which is split (8 -> 1x8) so that the outer
// parameters are read through a projected permutation.
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUTER:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @q4_k(
// CHECK-SAME: %[[DATA:.+]]: tensor<2x128xi8>, %[[S:.+]]: tensor<2x8xi6>, %[[M:.+]]: tensor<2x8xi6>, %[[D:.+]]: tensor<2x1xf16>, %[[DMIN:.+]]: tensor<2x1xf16>)
// CHECK-DAG: %[[SX:.+]] = tensor.expand_shape %[[S]] {{\[}}[0], [1, 2]] output_shape [2, 1, 8]
// CHECK-DAG: %[[MX:.+]] = tensor.expand_shape %[[M]] {{\[}}[0], [1, 2]] output_shape [2, 1, 8]
// CHECK: %[[EFF:.+]]:2 = linalg.generic {indexing_maps = [#[[ID3]], #[[OUTER]], #[[ID3]], #[[OUTER]], #[[ID3]], #[[ID3]]]
// CHECK-SAME: ins(%[[SX]], %[[D]], %[[MX]], %[[DMIN]] :
// CHECK: ^bb0(%[[SC:.+]]: i6, %[[DS:.+]]: f16, %[[MN:.+]]: i6, %[[DM:.+]]: f16,
// CHECK: %[[DF:.+]] = arith.extf %[[DS]] : f16 to f32
// CHECK: %[[SW:.+]] = arith.extui %[[SC]] : i6 to i32
// CHECK: %[[SF:.+]] = arith.sitofp %[[SW]] : i32 to f32
// CHECK: %[[SEFF:.+]] = arith.mulf %[[SF]], %[[DF]] : f32
// CHECK: %[[DMF:.+]] = arith.extf %[[DM]] : f16 to f32
// CHECK: %[[MW:.+]] = arith.extui %[[MN]] : i6 to i32
// CHECK: %[[MF:.+]] = arith.sitofp %[[MW]] : i32 to f32
// CHECK: %[[MEFF:.+]] = arith.mulf %[[MF]], %[[DMF]] : f32
// CHECK: linalg.yield %[[SEFF]], %[[MEFF]] : f32, f32
// CHECK: %[[SFLAT:.+]] = tensor.collapse_shape %[[EFF]]#0 {{\[}}[0], [1, 2]] : tensor<2x1x8xf32> into tensor<2x8xf32>
// CHECK: %[[MFLAT:.+]] = tensor.collapse_shape %[[EFF]]#1 {{\[}}[0], [1, 2]] : tensor<2x1x8xf32> into tensor<2x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}}, %[[SFLAT]], %[[MFLAT]] : tensor<2x8x16xi8>, tensor<2x8xf32>, tensor<2x8xf32>)
// CHECK: math.fma %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
!q4_k = !quant_block.tensor<2x256, #quant_block.scheme<ui4 : f16, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>
func.func @q4_k(%q: !q4_k) -> tensor<2x256xf16> {
  %x = quant_block.dequantize %q : !q4_k -> tensor<2x256xf16>
  return %x : tensor<2x256xf16>
}

// -----

// An outer block that does not divide the scales (3 blocks, super-blocks of
// 2): the scales are padded to whole super-blocks, split like divisible
// ones (no floordiv map, which the vectorizer refuses and tiling slices
// wrongly) and the padding is sliced off; signless integer scales are
// signed.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @ragged_outer(
// CHECK-SAME: %{{.+}}: tensor<4x12xi8>, %[[S:.+]]: tensor<4x3xi6>, %[[O:.+]]: tensor<4x2xf32>)
// CHECK-NOT: floordiv
// CHECK: %[[P:.+]] = tensor.pad %[[S]] low[0, 0] high[0, 1]
// CHECK: } : tensor<4x3xi6> to tensor<4x4xi6>
// CHECK: %[[PX:.+]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2]] output_shape [4, 2, 2]
// CHECK: %[[EFF:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[OUT]], #[[ID]]]
// CHECK-SAME: ins(%[[PX]], %[[O]] : tensor<4x2x2xi6>, tensor<4x2xf32>)
// CHECK: arith.extsi %{{.+}} : i6 to i32
// CHECK-NOT: math.fma
// CHECK: arith.mulf
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[EFF]] {{\[}}[0], [1, 2]] : tensor<4x2x2xf32> into tensor<4x4xf32>
// CHECK: %[[SE:.+]] = tensor.extract_slice %[[FLAT]][0, 0] [4, 3] [1, 1] : tensor<4x4xf32> to tensor<4x3xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}}, %[[SE]] : tensor<4x3x4xi8>, tensor<4x3xf32>)
!ragged = !quant_block.tensor<4x12, #quant_block.scheme<i8 : f32, block = [4], scale = i6, outer = <f32, block = [2]>>>
func.func @ragged_outer(%q: !ragged) -> tensor<4x12xf32> {
  %x = quant_block.dequantize %q : !ragged -> tensor<4x12xf32>
  return %x : tensor<4x12xf32>
}

// -----

// quantize computes with the effective parameters and returns the given
// ones: q = clamp(round((x - m_eff) / s_eff)), with a per-tensor outer min.
// CHECK-LABEL: func.func @quantize_per_tensor_min(
// CHECK-SAME: %[[X:.+]]: tensor<4x12xf32>, %[[S:.+]]: tensor<4x3xf32>, %[[Z:.+]]: tensor<4x3xui8>, %[[O:.+]]: tensor<1x1xf32>, %[[M:.+]]: tensor<1x1xbf16>)
// CHECK: %[[EFF:.+]]:2 = linalg.generic
// CHECK-SAME: ins(%{{.+}}, %[[O]], %{{.+}}, %[[M]] : tensor<1x4x1x3xf32>, tensor<1x1xf32>, tensor<1x4x1x3xi8>, tensor<1x1xbf16>)
// CHECK: %[[SE:.+]] = tensor.collapse_shape %[[EFF]]#0
// CHECK: %[[ME:.+]] = tensor.collapse_shape %[[EFF]]#1
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}}, %[[SE]], %[[ME]] : tensor<4x3x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK: arith.subf
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: return %{{.+}}, %[[S]], %{{.+}}, %[[O]], %[[M]] : tensor<4x12xi8>, tensor<4x3xf32>, tensor<4x3xi8>, tensor<1x1xf32>, tensor<1x1xbf16>
!min = !quant_block.tensor<4x12, #quant_block.scheme<ui8 : f32, block = [4], zero_point = ui8, outer = <f32, min = bf16>>>
func.func @quantize_per_tensor_min(%x: tensor<4x12xf32>, %s: tensor<4x3xf32>, %z: tensor<4x3xui8>, %o: tensor<1x1xf32>, %m: tensor<1x1xbf16>) -> !min {
  %q = quant_block.quantize %x scales(%s : tensor<4x3xf32>) zero_points(%z : tensor<4x3xui8>) outer_scales(%o : tensor<1x1xf32>) outer_mins(%m : tensor<1x1xbf16>) : tensor<4x12xf32> -> !min
  return %q : !min
}

// -----

// The fused matmul dequantizes a K-quant weight in its body from the
// effective parameters.
// CHECK-LABEL: func.func @q4_k_linear(
// CHECK: %[[EFF:.+]]:2 = linalg.generic
// CHECK: linalg.yield %{{.+}}, %{{.+}} : f32, f32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: math.fma
// CHECK: arith.mulf
// CHECK: arith.addf
!w = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>
func.func @q4_k_linear(%x: tensor<4x256xf32>, %w: !w) -> tensor<4x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<4x256xf32>, !w -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
