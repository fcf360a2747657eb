// 3-, 5-, 6- and 7-bit storage, whose elements straddle bytes: G elements
// fill B whole bytes (6-bit: 4 in 3; 3-, 5-, 7-bit: 8 in w), each innermost
// row of K elements is ceil(K * w / 8) bytes (docs/Packing.md).
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg | FileCheck %s

// MXFP6 dequantize in the expanded space [M, K/32, 8, 4] (block, group,
// lane): the [M, K/32, 8, 3] byte view is read as three byte planes through
// the same projected permutation; the three bytes form a 24-bit word from
// which lane j shifts out bits [6j, 6j + 6).
// CHECK-DAG: #[[PLANE:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[PARAM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[ELEM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @dequantize_mxfp6
// CHECK-SAME: (%[[DATA:.*]]: tensor<4x48xi8>, %[[S:.*]]: tensor<4x2xf8E8M0FNU>) -> tensor<4x64xf32>
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[DATA]] {{\[\[}}0], [1, 2, 3]] output_shape [4, 2, 8, 3] : tensor<4x48xi8> into tensor<4x2x8x3xi8>
// CHECK: %[[B0:.*]] = tensor.extract_slice %[[VIEW]][0, 0, 0, 0] [4, 2, 8, 1] [1, 1, 1, 1] : tensor<4x2x8x3xi8> to tensor<4x2x8xi8>
// CHECK: %[[B1:.*]] = tensor.extract_slice %[[VIEW]][0, 0, 0, 1] [4, 2, 8, 1]
// CHECK: %[[B2:.*]] = tensor.extract_slice %[[VIEW]][0, 0, 0, 2] [4, 2, 8, 1]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[PLANE]], #[[PLANE]], #[[PLANE]], #[[PARAM]], #[[ELEM]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[B0]], %[[B1]], %[[B2]], %[[S]] : tensor<4x2x8xi8>, tensor<4x2x8xi8>, tensor<4x2x8xi8>, tensor<4x2xf8E8M0FNU>)
// CHECK-NEXT: ^bb0(%[[I0:.*]]: i8, %[[I1:.*]]: i8, %[[I2:.*]]: i8, %{{.*}}: f8E8M0FNU, %{{.*}}: f32):
// CHECK: %[[W0:.*]] = arith.extui %[[I0]] : i8 to i32
// CHECK: %[[W1:.*]] = arith.extui %[[I1]] : i8 to i32
// CHECK: %[[S1:.*]] = arith.shli %[[W1]], %{{.*}} : i32
// CHECK: %[[O1:.*]] = arith.ori %[[W0]], %[[S1]] : i32
// CHECK: %[[W2:.*]] = arith.extui %[[I2]] : i8 to i32
// CHECK: %[[S2:.*]] = arith.shli %[[W2]], %{{.*}} : i32
// CHECK: %[[WORD:.*]] = arith.ori %[[O1]], %[[S2]] : i32
// CHECK: %[[LANE:.*]] = linalg.index 3 : index
// CHECK: %[[LANE32:.*]] = arith.index_castui %[[LANE]] : index to i32
// CHECK: %[[SHIFT:.*]] = arith.muli %[[LANE32]], %{{.*}} : i32
// CHECK: %[[CODE:.*]] = arith.shrui %[[WORD]], %[[SHIFT]] : i32
// CHECK: arith.trunci %[[CODE]] : i32 to i8
// CHECK: arith.mulf
// CHECK: tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2, 3]] : tensor<4x2x8x4xf32> into tensor<4x64xf32>
func.func @dequantize_mxfp6(%q: !quant_block.tensor<4x64, #quant_block.scheme<mxfp6_e2m3>>) -> tensor<4x64xf32> {
  %x = quant_block.dequantize %q : !quant_block.tensor<4x64, #quant_block.scheme<mxfp6_e2m3>> -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

// -----

// MXFP6 quantize: the codes are computed once per element, then packed by a
// generic over (block, group, byte, lane) that reduces over the lanes, each
// contributing ((code & 63) << 6 * lane) >> 8 * byte.
// CHECK-DAG: #[[ELEM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CODES:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[BYTES:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @quantize_mxfp6
// CHECK-SAME: -> (tensor<4x48xi8>, tensor<4x2xf8E8M0FNU>)
// CHECK: %[[CODES_T:.*]] = linalg.generic {indexing_maps = [#[[ELEM]], #{{.*}}, #[[ELEM]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK: arith.divf
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: } -> tensor<4x2x8x4xi8>
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<4x2x8x3xi8>)
// CHECK: %[[PACKED:.*]] = linalg.generic {indexing_maps = [#[[CODES]], #[[BYTES]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[CODES_T]] : tensor<4x2x8x4xi8>) outs(%[[ZEROS]] : tensor<4x2x8x3xi8>)
// CHECK: %[[LANE:.*]] = linalg.index 4 : index
// CHECK: %[[BYTE:.*]] = linalg.index 3 : index
// CHECK: arith.andi %{{.*}}, %{{.*}} : i8
// CHECK: arith.shli %{{.*}} : i32
// CHECK: arith.shrui %{{.*}} : i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.ori
// CHECK: tensor.collapse_shape %[[PACKED]] {{\[\[}}0], [1, 2, 3]] : tensor<4x2x8x3xi8> into tensor<4x48xi8>
func.func @quantize_mxfp6(%x: tensor<4x64xf32>, %s: tensor<4x2xf8E8M0FNU>) -> !quant_block.tensor<4x64, #quant_block.scheme<mxfp6_e3m2>> {
  %q = quant_block.quantize %x scales(%s : tensor<4x2xf8E8M0FNU>) : tensor<4x64xf32> -> !quant_block.tensor<4x64, #quant_block.scheme<mxfp6_e3m2>>
  return %q : !quant_block.tensor<4x64, #quant_block.scheme<mxfp6_e3m2>>
}

// -----

// i3 in blocks of 16: two groups of eight codes (three bytes) per block.
// CHECK-LABEL: func.func @dequantize_i3_groups
// CHECK-SAME: (%[[DATA:.*]]: tensor<2x12xi8>, %{{.*}}: tensor<2x2xf32>) -> tensor<2x32xf32>
// CHECK: tensor.expand_shape %[[DATA]] {{\[\[}}0], [1, 2, 3]] output_shape [2, 2, 2, 3] : tensor<2x12xi8> into tensor<2x2x2x3xi8>
// CHECK-COUNT-3: tensor.extract_slice
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x2x2xi8>, tensor<2x2x2xi8>, tensor<2x2x2xi8>, tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2x2x8xf32>)
// CHECK: %[[LANE:.*]] = linalg.index 3 : index
// CHECK: %[[LANE32:.*]] = arith.index_castui %[[LANE]] : index to i32
// CHECK: %[[C3:.*]] = arith.constant 3 : i32
// CHECK: arith.muli %[[LANE32]], %[[C3]] : i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// The code is sign-extended from 3 bits.
// CHECK: %[[UP:.*]] = arith.constant 5 : i8
// CHECK: %[[TOP:.*]] = arith.shli %{{.*}}, %[[UP]] : i8
// CHECK: arith.shrsi %[[TOP]], %[[UP]] : i8
func.func @dequantize_i3_groups(%q: !quant_block.tensor<2x32, #quant_block.scheme<i3 : f32, block = [16]>>) -> tensor<2x32xf32> {
  %x = quant_block.dequantize %q : !quant_block.tensor<2x32, #quant_block.scheme<i3 : f32, block = [16]>> -> tensor<2x32xf32>
  return %x : tensor<2x32xf32>
}

// -----

// A row of 10 i3 (30 bits) is 4 bytes; it is not whole groups, so the
// general form reads each code from the two bytes it may span: byte
// (3k) / 8 and the next one (clamped to the row), shifted right by
// (3k) % 8 in 16 bits.
// CHECK-LABEL: func.func @dequantize_i3_ragged
// CHECK-SAME: (%[[DATA:.*]]: tensor<2x4xi8>, %[[S:.*]]: tensor<2x2xf32>) -> tensor<2x10xf32>
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[K:.*]] = linalg.index 1 : index
// CHECK: %[[BIT:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.divui %[[BIT]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.constant 3 : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[LO]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.minui %[[NEXT]], %[[LAST]] : index
// CHECK: %[[LOB:.*]] = tensor.extract %[[DATA]][%[[ROW]], %[[LO]]] : tensor<2x4xi8>
// CHECK: %[[HIB:.*]] = tensor.extract %[[DATA]][%[[ROW]], %[[HI]]] : tensor<2x4xi8>
// CHECK: %[[HIW:.*]] = arith.extui %[[HIB]] : i8 to i16
// CHECK: %[[HIS:.*]] = arith.shli %[[HIW]], %{{.*}} : i16
// CHECK: %[[LOW:.*]] = arith.extui %[[LOB]] : i8 to i16
// CHECK: %[[WORD:.*]] = arith.ori %[[LOW]], %[[HIS]] : i16
// CHECK: %[[OFF:.*]] = arith.remui %[[BIT]], %{{.*}} : index
// CHECK: %[[OFF16:.*]] = arith.index_castui %[[OFF]] : index to i16
// CHECK: arith.shrui %[[WORD]], %[[OFF16]] : i16
// CHECK: tensor.extract %[[S]]
func.func @dequantize_i3_ragged(%q: !quant_block.tensor<2x10, #quant_block.scheme<i3 : f32, block = [1, 5]>>) -> tensor<2x10xf32> {
  %x = quant_block.dequantize %q : !quant_block.tensor<2x10, #quant_block.scheme<i3 : f32, block = [1, 5]>> -> tensor<2x10xf32>
  return %x : tensor<2x10xf32>
}

// -----

// Quantizing a ragged ui5 row (10 x 5 bits = 7 bytes) builds each byte m
// from the (up to three) elements from 8m / 5 on: element j adds
// ((code & 31) << (5j - 8m + 8)) >> 8; elements past the row add nothing.
// CHECK-LABEL: func.func @quantize_ui5_ragged
// CHECK-SAME: -> (tensor<2x7xi8>, tensor<2x2xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x7xi8>)
// CHECK: %[[M:.*]] = linalg.index 1 : index
// CHECK: %[[BIT:.*]] = arith.muli %[[M]], %{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.divui %[[BIT]], %{{.*}} : index
// CHECK: %[[J:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK: arith.divf
// CHECK: arith.shli %{{.*}} : i32
// CHECK: arith.shrui %{{.*}} : i32
// CHECK: %[[PART:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.select %[[IN]], %[[PART]], %{{.*}} : i8
// CHECK-COUNT-2: arith.divf
// CHECK-NOT: arith.divf
// CHECK: linalg.yield
func.func @quantize_ui5_ragged(%x: tensor<2x10xf32>, %s: tensor<2x2xf32>) -> !quant_block.tensor<2x10, #quant_block.scheme<ui5 : f32, block = [1, 5]>> {
  %q = quant_block.quantize %x scales(%s : tensor<2x2xf32>) : tensor<2x10xf32> -> !quant_block.tensor<2x10, #quant_block.scheme<ui5 : f32, block = [1, 5]>>
  return %q : !quant_block.tensor<2x10, #quant_block.scheme<ui5 : f32, block = [1, 5]>>
}

// -----

// pack of whole f6 groups: bitcast to i6 codes, view as [2, 2, 4], pack into
// [2, 2, 3] bytes.
// CHECK-LABEL: func.func @pack_f6
// CHECK-SAME: -> (tensor<2x6xi8>, tensor<2x1xf16>)
// CHECK: arith.bitcast %{{.*}} : f6E3M2FN to i6
// CHECK: %[[CODES:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [2, 2, 4] : tensor<2x8xi6> into tensor<2x2x4xi6>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[CODES]] : tensor<2x2x4xi6>) outs(%{{.*}} : tensor<2x2x3xi8>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<2x2x3xi8> into tensor<2x6xi8>
func.func @pack_f6(%d: tensor<2x8xf6E3M2FN>, %s: tensor<2x1xf16>) -> !quant_block.tensor<2x8, #quant_block.scheme<f6E3M2FN : f32, block = [8], scale = f16>> {
  %q = quant_block.pack %d scales(%s : tensor<2x1xf16>) : tensor<2x8xf6E3M2FN> -> !quant_block.tensor<2x8, #quant_block.scheme<f6E3M2FN : f32, block = [8], scale = f16>>
  return %q : !quant_block.tensor<2x8, #quant_block.scheme<f6E3M2FN : f32, block = [8], scale = f16>>
}

// -----

// unpack of whole ui7 groups: seven byte planes make a 56-bit word (i64).
// CHECK-LABEL: func.func @unpack_ui7
// CHECK-SAME: (%[[DATA:.*]]: tensor<2x14xi8>, %{{.*}}: tensor<2x1xf32>) -> tensor<2x16xui7>
// CHECK: tensor.expand_shape %[[DATA]] {{\[\[}}0], [1, 2]] output_shape [2, 2, 7] : tensor<2x14xi8> into tensor<2x2x7xi8>
// CHECK-COUNT-7: tensor.extract_slice
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x2x8xi7>)
// CHECK: arith.shli %{{.*}} : i64
// CHECK: arith.shrui %{{.*}} : i64
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: arith.trunci %{{.*}} : i8 to i7
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<2x2x8xi7> into tensor<2x16xi7>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : i7 to ui7
func.func @unpack_ui7(%q: !quant_block.tensor<2x16, #quant_block.scheme<ui7 : f32, block = [1, *]>>) -> tensor<2x16xui7> {
  %p:2 = quant_block.unpack %q : !quant_block.tensor<2x16, #quant_block.scheme<ui7 : f32, block = [1, *]>> -> tensor<2x16xui7>, tensor<2x1xf32>
  return %p#0 : tensor<2x16xui7>
}

// -----

// Layout ops unpack the codes, move them and repack: a 6-bit transpose turns
// 2 rows of 8 codes (6 bytes each) into 8 rows of 2 (2 bytes each).
// CHECK-LABEL: func.func @transpose_f6
// CHECK-SAME: (%{{.*}}: tensor<2x6xi8>, %{{.*}}: tensor<2x1xf16>) -> (tensor<8x2xi8>, tensor<1x2xf16>)
// CHECK: %[[CODES:.*]] = linalg.generic
// CHECK: } -> tensor<2x8xi6>
// CHECK: %[[MOVED:.*]] = linalg.transpose ins(%[[CODES]] : tensor<2x8xi6>) outs(%{{.*}} : tensor<8x2xi6>) permutation = [1, 0]
// CHECK: linalg.generic
// CHECK: tensor.extract %[[MOVED]]
// CHECK: } -> tensor<8x2xi8>
func.func @transpose_f6(%q: !quant_block.tensor<2x8, #quant_block.scheme<f6E2M3FN : f32, block = [1, 8], scale = f16>>) -> !quant_block.tensor<8x2, #quant_block.scheme<f6E2M3FN : f32, block = [8, 1], scale = f16>> {
  %t = quant_block.transpose %q permutation = [1, 0] : !quant_block.tensor<2x8, #quant_block.scheme<f6E2M3FN : f32, block = [1, 8], scale = f16>> -> !quant_block.tensor<8x2, #quant_block.scheme<f6E2M3FN : f32, block = [8, 1], scale = f16>>
  return %t : !quant_block.tensor<8x2, #quant_block.scheme<f6E2M3FN : f32, block = [8, 1], scale = f16>>
}

// -----

// quantize_dynamic needs the expanded space only for its block statistics,
// so blocks that are not whole packing groups (4 i3) are fine: the data is
// then written in the general form.
// CHECK-LABEL: func.func @quantize_dynamic_i3
// CHECK-SAME: -> (tensor<2x5xi8>, tensor<2x3xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: math.absf
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x5xi8>)
func.func @quantize_dynamic_i3(%x: tensor<2x12xf32>) -> !quant_block.tensor<2x12, #quant_block.scheme<i3 : f32, block = [1, 4]>> {
  %q = quant_block.quantize_dynamic absmax %x : tensor<2x12xf32> -> !quant_block.tensor<2x12, #quant_block.scheme<i3 : f32, block = [1, 4]>>
  return %q : !quant_block.tensor<2x12, #quant_block.scheme<i3 : f32, block = [1, 4]>>
}
