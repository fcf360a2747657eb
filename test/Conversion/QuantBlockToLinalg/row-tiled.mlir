// The row-tiled layout (`row_tile = R`, docs/Packing.md) in the lowering:
// the parts' types (data [N / R, W, R, 4], scales and zero points [N / R,
// K / B, R], a per-tensor outer scale unchanged), quant_block.repack as a
// reshape and a transpose of each part, pack / unpack through the
// row-major parts, and a matmul whose weight no kernel took: the same
// product of the weight repacked row-major.
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg | FileCheck %s

!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4>>
!t = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = i4, row_tile = 16>>
// CHECK-LABEL: func.func @repack_to_tiled
// CHECK-SAME: (%[[D:.*]]: tensor<32x32xi8>, %[[S:.*]]: tensor<32x2xf16>, %[[Z:.*]]: tensor<32x2xi4>) -> (tensor<2x8x16x4xi8>, tensor<2x2x16xf16>, tensor<2x2x16xi4>)
// CHECK: %[[DE:.*]] = tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2, 3]] output_shape [2, 16, 8, 4]
// CHECK: %[[DT:.*]] = linalg.transpose ins(%[[DE]] : tensor<2x16x8x4xi8>) outs(%{{.*}} : tensor<2x8x16x4xi8>) permutation = [0, 2, 1, 3]
// CHECK: %[[SE:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1], [2]] output_shape [2, 16, 2]
// CHECK: %[[ST:.*]] = linalg.transpose ins(%[[SE]] : tensor<2x16x2xf16>) outs(%{{.*}} : tensor<2x2x16xf16>) permutation = [0, 2, 1]
// CHECK: %[[ZT:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x16x2xi4>) outs(%{{.*}} : tensor<2x2x16xi4>) permutation = [0, 2, 1]
// CHECK: return %[[DT]], %[[ST]], %[[ZT]]
func.func @repack_to_tiled(%w: !w) -> !t {
  %t = quant_block.repack %w : !w -> !t
  return %t : !t
}

// CHECK-LABEL: func.func @repack_to_row_major
// CHECK-SAME: (%[[D:.*]]: tensor<2x8x16x4xi8>, %{{.*}}: tensor<2x2x16xf16>, %{{.*}}: tensor<2x2x16xi4>) -> (tensor<32x32xi8>, tensor<32x2xf16>, tensor<32x2xi4>)
// CHECK: %[[DT:.*]] = linalg.transpose ins(%[[D]] : tensor<2x8x16x4xi8>) outs(%{{.*}} : tensor<2x16x8x4xi8>) permutation = [0, 2, 1, 3]
// CHECK: %[[DC:.*]] = tensor.collapse_shape %[[DT]] {{\[\[}}0, 1], [2, 3]] : tensor<2x16x8x4xi8> into tensor<32x32xi8>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x16x2xf16> into tensor<32x2xf16>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x16x2xi4> into tensor<32x2xi4>
// CHECK: return %[[DC]]
func.func @repack_to_row_major(%t: !t) -> !w {
  %w = quant_block.repack %t : !t -> !w
  return %w : !w
}

// pack packs the logical codes row-major, then tiles; unpack untiles, then
// unpacks.
// CHECK-LABEL: func.func @pack_and_unpack
// CHECK: %[[BYTES:.*]] = linalg.generic
// CHECK: %[[E:.*]] = tensor.expand_shape %[[BYTES]] {{\[\[}}0, 1], [2, 3]] output_shape [2, 16, 8, 4]
// CHECK: linalg.transpose ins(%[[E]] : tensor<2x16x8x4xi8>)
// CHECK-LABEL: func.func @unpack_tiled
// CHECK-SAME: (%[[D:.*]]: tensor<2x8x16x4xi8>,
// CHECK: %[[DT:.*]] = linalg.transpose ins(%[[D]] : tensor<2x8x16x4xi8>)
// CHECK: %[[DC:.*]] = tensor.collapse_shape %[[DT]]
// CHECK: linalg.generic {{.*}} ins(%[[DC]] : tensor<32x32xi8>)
func.func @pack_and_unpack(%d: tensor<32x64xi4>, %s: tensor<32x2xf16>, %z: tensor<32x2xi4>) -> !t {
  %t = quant_block.pack %d scales(%s : tensor<32x2xf16>) zero_points(%z : tensor<32x2xi4>) : tensor<32x64xi4> -> !t
  return %t : !t
}
func.func @unpack_tiled(%t: !t) -> tensor<32x64xi4> {
  %p:3 = quant_block.unpack %t : !t -> tensor<32x64xi4>, tensor<32x2xf16>, tensor<32x2xi4>
  return %p#0 : tensor<32x64xi4>
}

// -----

// NVFP4's per-tensor outer scale is the same part in both layouts.
!n = !quant_block.tensor<16x64, #quant_block.scheme<nvfp4, row_tile = 16>>
// CHECK-LABEL: func.func @nvfp4
// CHECK-SAME: (%{{.*}}: tensor<1x8x16x4xi8>, %{{.*}}: tensor<1x4x16xf8E4M3FN>, %[[O:.*]]: tensor<1x1xf32>) -> (tensor<16x32xi8>, tensor<16x4xf8E4M3FN>, tensor<1x1xf32>)
// CHECK: return %{{.*}}, %{{.*}}, %[[O]]
func.func @nvfp4(%t: !n) -> !quant_block.tensor<16x64, #quant_block.scheme<nvfp4>> {
  %w = quant_block.repack %t : !n -> !quant_block.tensor<16x64, #quant_block.scheme<nvfp4>>
  return %w : !quant_block.tensor<16x64, #quant_block.scheme<nvfp4>>
}

// -----

// Q4_K's blocked outer scales and outer mins (one row of blocks per weight
// row) are tiled as the block scales and mins are: [N / R, K / (B O), R].
!k = !quant_block.tensor<32x512, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>, row_tile = 16>>
!kr = !quant_block.tensor<32x512, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
// CHECK-LABEL: func.func @q4_k
// CHECK-SAME: (%{{.*}}: tensor<32x256xi8>, %{{.*}}: tensor<32x16xi8>, %{{.*}}: tensor<32x16xi8>, %[[O:.*]]: tensor<32x2xf16>, %[[OM:.*]]: tensor<32x2xf16>) -> (tensor<2x64x16x4xi8>, tensor<2x16x16xi8>, tensor<2x16x16xi8>, tensor<2x2x16xf16>, tensor<2x2x16xf16>)
// CHECK: %[[OE:.*]] = tensor.expand_shape %[[O]] {{\[\[}}0, 1], [2]] output_shape [2, 16, 2]
// CHECK: %[[OT:.*]] = linalg.transpose ins(%[[OE]] : tensor<2x16x2xf16>) outs(%{{.*}} : tensor<2x2x16xf16>) permutation = [0, 2, 1]
// CHECK: %[[OME:.*]] = tensor.expand_shape %[[OM]] {{\[\[}}0, 1], [2]] output_shape [2, 16, 2]
// CHECK: %[[OMT:.*]] = linalg.transpose ins(%[[OME]] : tensor<2x16x2xf16>) outs(%{{.*}} : tensor<2x2x16xf16>) permutation = [0, 2, 1]
// CHECK: return {{.*}}, %[[OT]], %[[OMT]]
func.func @q4_k(%w: !kr) -> !k {
  %t = quant_block.repack %w : !kr -> !k
  return %t : !k
}

// -----

// No kernel took this product: the lowering repacks the weight row-major
// and contracts as for a row-major weight.
!t = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<1x64xf32>, %[[D:.*]]: tensor<2x8x16x4xi8>, %[[S:.*]]: tensor<2x2x16xf16>)
// CHECK: %[[DT:.*]] = linalg.transpose ins(%[[D]]
// CHECK: %[[DC:.*]] = tensor.collapse_shape %[[DT]] {{.*}} into tensor<32x32xi8>
// CHECK: %[[ST:.*]] = linalg.transpose ins(%[[S]]
// CHECK: %[[SC:.*]] = tensor.collapse_shape %[[ST]] {{.*}} into tensor<32x2xf16>
// CHECK: %[[DE:.*]] = tensor.expand_shape %[[DC]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[DE]], %[[SC]] : tensor<1x2x16x2xf32>, tensor<32x2x16xi8>, tensor<32x2xf16>)
// CHECK-NOT: quant_block
func.func @matmul(%x: tensor<1x64xf32>, %t: !t) -> tensor<1x32xf32> {
  %y = quant_block.matmul %x, %t transpose_rhs accumulate(f32) inhibit : tensor<1x64xf32>, !t -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// A constant weight is packed and tiled at compile time: the parts are
// constants in the tiled layout (word 0 of rows 0..15, then word 1), with no
// packing or transposing code left.
!w = !quant_block.tensor<16x8, #quant_block.scheme<i8 : f32, block = [1, 4]>>
!t = !quant_block.tensor<16x8, #quant_block.scheme<i8 : f32, block = [1, 4], row_tile = 16>>
// CHECK-LABEL: func.func @constant_tiled
// CHECK-DAG: %[[D:.*]] = arith.constant dense<"0x0001020308090A0B1011121318191A1B2021222328292A2B3031323338393A3B4041424348494A4B5051525358595A5B6061626368696A6B7071727378797A7B040506070C0D0E0F141516171C1D1E1F242526272C2D2E2F343536373C3D3E3F444546474C4D4E4F545556575C5D5E5F646566676C6D6E6F747576777C7D7E7F"> : tensor<1x2x16x4xi8>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<1x2x16xf32>
// CHECK-NOT: linalg
// CHECK: return %[[D]], %[[S]]
func.func @constant_tiled() -> !t {
  %d = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 19, 20, 21, 22, 23], [24, 25, 26, 27, 28, 29, 30, 31], [32, 33, 34, 35, 36, 37, 38, 39], [40, 41, 42, 43, 44, 45, 46, 47], [48, 49, 50, 51, 52, 53, 54, 55], [56, 57, 58, 59, 60, 61, 62, 63], [64, 65, 66, 67, 68, 69, 70, 71], [72, 73, 74, 75, 76, 77, 78, 79], [80, 81, 82, 83, 84, 85, 86, 87], [88, 89, 90, 91, 92, 93, 94, 95], [96, 97, 98, 99, 100, 101, 102, 103], [104, 105, 106, 107, 108, 109, 110, 111], [112, 113, 114, 115, 116, 117, 118, 119], [120, 121, 122, 123, 124, 125, 126, 127]]> : tensor<16x8xi8>
  %s = arith.constant dense<0.5> : tensor<16x2xf32>
  %w = quant_block.pack %d scales(%s : tensor<16x2xf32>) : tensor<16x8xi8> -> !w
  %t = quant_block.repack %w : !w -> !t
  return %t : !t
}

// -----

// Constant 4-bit codes are packed at compile time (first element in the low
// nibble), whatever the layout.
!w = !quant_block.tensor<2x8, #quant_block.scheme<i4 : f32, block = [1, 8]>>
// CHECK-LABEL: func.func @constant_int4
// CHECK: %[[D:.*]] = arith.constant dense<{{\[\[}}33, 67, 101, -121], [-17, -51, 0, 0]]> : tensor<2x4xi8>
// CHECK-NOT: linalg
// CHECK: return %[[D]]
func.func @constant_int4() -> !w {
  %d = arith.constant dense<[[1, 2, 3, 4, 5, 6, 7, -8], [-1, -2, -3, -4, 0, 0, 0, 0]]> : tensor<2x8xi4>
  %s = arith.constant dense<0.5> : tensor<2x1xf32>
  %w = quant_block.pack %d scales(%s : tensor<2x1xf32>) : tensor<2x8xi4> -> !w
  return %w : !w
}
