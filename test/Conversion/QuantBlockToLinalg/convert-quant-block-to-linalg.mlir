// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg | FileCheck %s

// Group-wise int4 dequantize: the packed data is viewed as [M, K/32, 16]
// bytes, the iteration space is [M, K/32, 16, 2] (block, byte, lane), the
// scales and zero points are indexed by (m, block) only.
// CHECK-DAG: #[[PACKED:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[PARAM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[ELEM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @dequantize_int4
// CHECK-SAME: (%[[DATA:.*]]: tensor<4x32xi8>, %[[S:.*]]: tensor<4x2xf16>, %[[ZP:.*]]: tensor<4x2xi4>) -> tensor<4x64xf32>
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[DATA]] {{\[\[}}0], [1, 2]] output_shape [4, 2, 16] : tensor<4x32xi8> into tensor<4x2x16xi8>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[PACKED]], #[[PARAM]], #[[PARAM]], #[[ELEM]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[VIEW]], %[[S]], %[[ZP]] : tensor<4x2x16xi8>, tensor<4x2xf16>, tensor<4x2xi4>)
// CHECK: %[[LANE:.*]] = linalg.index 3
// CHECK: arith.shrui
// CHECK: arith.shrsi
// CHECK: arith.subi
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2, 3]] : tensor<4x2x16x2xf32> into tensor<4x64xf32>
func.func @dequantize_int4(%q: !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>>) -> tensor<4x64xf32> {
  %x = quant_block.dequantize %q : !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>> -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

// -----

// Float zero points are one FMA; bf16 results are computed in f32 and
// rounded once.
// CHECK-LABEL: func.func @dequantize_float_zero_point
// CHECK-SAME: (%{{.*}}: tensor<2x64xi8>, %{{.*}}: tensor<2x2xbf16>, %{{.*}}: tensor<2x2xbf16>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: %[[F:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK: %[[FMA:.*]] = math.fma %[[F]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %[[FMA]] : f32 to bf16
func.func @dequantize_float_zero_point(%q: !quant_block.tensor<2x64, #quant_block.scheme<ui8 : bf16, block = [32], scale = bf16, zero_point = bf16>>) -> tensor<2x64xbf16> {
  %x = quant_block.dequantize %q : !quant_block.tensor<2x64, #quant_block.scheme<ui8 : bf16, block = [32], scale = bf16, zero_point = bf16>> -> tensor<2x64xbf16>
  return %x : tensor<2x64xbf16>
}

// -----

// Quantize to packed int4: the lane dimension is a reduction that ORs codes
// into bytes; the division is a true division.
// CHECK-LABEL: func.func @quantize_int4
// CHECK-SAME: -> (tensor<4x32xi8>, tensor<4x2xf32>)
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.cmpf uno
// CHECK: arith.fptosi
// CHECK: arith.shli
// CHECK: arith.ori
func.func @quantize_int4(%x: tensor<4x64xf32>, %s: tensor<4x2xf32>) -> !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32]>> {
  %q = quant_block.quantize %x scales(%s : tensor<4x2xf32>) : tensor<4x64xf32> -> !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32]>>
  return %q : !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32]>>
}

// -----

// 32-bit storage divides in f64 so quotients beyond 2^24 keep their integer
// part; the rounding mode is the scheme's.
// CHECK-LABEL: func.func @quantize_int32_half_away
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.divf %{{.*}} : f64
// CHECK: math.round %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @quantize_int32_half_away(%x: tensor<8xf32>, %s: tensor<1xf32>) -> !quant_block.tensor<8, #quant_block.scheme<i32 : f32, rounding = half_away_from_zero>> {
  %q = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<8xf32> -> !quant_block.tensor<8, #quant_block.scheme<i32 : f32, rounding = half_away_from_zero>>
  return %q : !quant_block.tensor<8, #quant_block.scheme<i32 : f32, rounding = half_away_from_zero>>
}

// -----

// A ragged last block (ceil(10 / 4) = 3 scales per row) takes the general
// form: parameters are gathered at index / block.
// CHECK-LABEL: func.func @dequantize_ragged
// CHECK: linalg.generic
// CHECK: %[[K:.*]] = linalg.index 1 : index
// CHECK: %[[B:.*]] = arith.divui %[[K]], %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[B]]] : tensor<3x3xf32>
func.func @dequantize_ragged(%q: !quant_block.tensor<3x10, #quant_block.scheme<i8 : f32, block = [1, 4]>>) -> tensor<3x10xf32> {
  %x = quant_block.dequantize %q : !quant_block.tensor<3x10, #quant_block.scheme<i8 : f32, block = [1, 4]>> -> tensor<3x10xf32>
  return %x : tensor<3x10xf32>
}

// -----

// pack and unpack only reinterpret 8-bit data and pass parameters through;
// unsigned parts become signless and back.
// CHECK-LABEL: func.func @pack_ui8
// CHECK-SAME: (%[[D:.*]]: tensor<2x8xui8>, %[[S:.*]]: tensor<2x1xf32>) -> (tensor<2x8xi8>, tensor<2x1xf32>)
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : ui8 to i8
// CHECK-LABEL: func.func @unpack_ui8
// CHECK-SAME: (%{{.*}}: tensor<2x8xi8>, %[[S2:.*]]: tensor<2x1xf32>) -> (tensor<2x8xui8>, tensor<2x1xf32>)
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : i8 to ui8
// CHECK: return %{{.*}}, %[[S2]]
func.func @pack_ui8(%d: tensor<2x8xui8>, %s: tensor<2x1xf32>) -> !quant_block.tensor<2x8, #quant_block.scheme<ui8 : f32, block = [1, *]>> {
  %q = quant_block.pack %d scales(%s : tensor<2x1xf32>) : tensor<2x8xui8> -> !quant_block.tensor<2x8, #quant_block.scheme<ui8 : f32, block = [1, *]>>
  return %q : !quant_block.tensor<2x8, #quant_block.scheme<ui8 : f32, block = [1, *]>>
}
func.func @unpack_ui8(%q: !quant_block.tensor<2x8, #quant_block.scheme<ui8 : f32, block = [1, *]>>) -> (tensor<2x8xui8>, tensor<2x1xf32>) {
  %p:2 = quant_block.unpack %q : !quant_block.tensor<2x8, #quant_block.scheme<ui8 : f32, block = [1, *]>> -> tensor<2x8xui8>, tensor<2x1xf32>
  return %p#0, %p#1 : tensor<2x8xui8>, tensor<2x1xf32>
}

// -----

// Calls and returns carry the parts.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%{{.*}}: tensor<8x16xi8>, %{{.*}}: tensor<8x1xf32>) -> (tensor<8x16xi8>, tensor<8x1xf32>)
// CHECK-LABEL: func.func @caller
// CHECK: %[[R:.*]]:2 = call @callee(%{{.*}}, %{{.*}}) : (tensor<8x16xi8>, tensor<8x1xf32>) -> (tensor<8x16xi8>, tensor<8x1xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @callee(%q: !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>>) -> !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>> {
  return %q : !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>>
}
func.func @caller(%q: !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>>) -> !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>> {
  %r = func.call @callee(%q) : (!quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>>) -> !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>>
  return %r : !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32]>>
}

// -----

// A float-accumulating matmul: one contraction dequantizes the weight in its
// body (the dequantized weight is never materialized). Its iteration space is
// (m, n, k-block, byte, lane); the lhs is viewed with k split the same way.
// Both sides are extended to the accumulator, and the sum is rounded once to
// the expressed type.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-DAG: #[[BYTES:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
// CHECK-DAG: #[[SCALES:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xbf16>, %[[DATA:.*]]: tensor<16x32xi8>, %[[S:.*]]: tensor<16x2xbf16>)
// CHECK: %[[XV:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2, 3]] {{.*}} into tensor<?x2x16x2xbf16>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x16xf32>)
// CHECK: %[[DV:.*]] = tensor.expand_shape %[[DATA]] {{.*}} into tensor<16x2x16xi8>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[BYTES]], #[[SCALES]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XV]], %[[DV]], %[[S]] : tensor<?x2x16x2xbf16>, tensor<16x2x16xi8>, tensor<16x2xbf16>) outs(%[[ACC]] : tensor<?x16xf32>)
// CHECK: %[[W:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %[[W]] : bf16 to f32
// CHECK: arith.truncf %[[P]] : tensor<?x16xf32> to tensor<?x16xbf16>
// CHECK-NOT: tensor<16x64xbf16>
func.func @matmul_bf16(%x: tensor<?x64xbf16>, %w: !quant_block.tensor<16x64, #quant_block.scheme<i4 : bf16, block = [32], scale = bf16>>) -> tensor<?x16xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<?x64xbf16>, !quant_block.tensor<16x64, #quant_block.scheme<i4 : bf16, block = [32], scale = bf16>> -> tensor<?x16xbf16>
  return %y : tensor<?x16xbf16>
}

// -----

// fastmath<reassoc>: the k positions within a block become parallel partial
// sums (each summed over the blocks in order), then a second generic adds
// them; both carry the flags. Without reassoc the sum stays one ordered chain.
// CHECK-LABEL: func.func @matmul_reassoc
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<1x8x16x2xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[PARTIAL]] : tensor<1x8x16x2xf32>) outs(%{{.*}} : tensor<1x8xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @matmul_reassoc(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// fastmath<contract> alone keeps the order (no partial sums).
// CHECK-LABEL: func.func @matmul_contract
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NOT: linalg.generic
// CHECK: return
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @matmul_contract(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<contract> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
