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
