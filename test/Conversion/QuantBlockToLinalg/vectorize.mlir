// The generics that --convert-quant-block-to-linalg emits in the expanded
// block iteration space are accepted by the upstream MLIR 22 vectorizer: no
// linalg.generic is left, the scales are read contracted (one vector element
// per block, then broadcast) and nothing is gathered.
// RUN: quant-opt %s --convert-quant-block-to-linalg --transform-interpreter --canonicalize | FileCheck %s
// The same over the whole module, not only between the matches below:
// RUN: quant-opt %s --convert-quant-block-to-linalg --transform-interpreter --canonicalize | FileCheck %s --check-prefix=NONE
// NONE-NOT: linalg.generic
// NONE-NOT: vector.gather

!q = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>>

// CHECK-LABEL: func.func @dequantize_int4_groups
// CHECK-SAME: (%[[DATA:.*]]: tensor<4x32xi8>, %[[S:.*]]: tensor<4x2xf16>, %[[ZP:.*]]: tensor<4x2xi4>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: vector.gather
// CHECK-DAG: vector.transfer_read %{{.*}} : tensor<4x2x16xi8>, vector<4x2x16xi8>
// CHECK-DAG: vector.transfer_read %[[S]]{{.*}} : tensor<4x2xf16>, vector<4x2xf16>
// CHECK-DAG: vector.transfer_read %[[ZP]]{{.*}} : tensor<4x2xi4>, vector<4x2xi4>
// CHECK: arith.shrui %{{.*}} : vector<4x2x16x2xi8>
// CHECK: arith.mulf %{{.*}} : vector<4x2x16x2xf32>
// CHECK: vector.transfer_write
func.func @dequantize_int4_groups(%q: !q) -> tensor<4x64xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

// CHECK-LABEL: func.func @quantize_int4_groups
// CHECK-NOT: linalg.generic
// CHECK-NOT: vector.gather
// CHECK: arith.divf %{{.*}} : vector<4x2x16x2xf32>
// CHECK: math.roundeven %{{.*}} : vector<4x2x16x2xf32>
// CHECK: vector.multi_reduction <or>
// CHECK: vector.transfer_write %{{.*}} : vector<4x2x16xi8>, tensor<4x2x16xi8>
func.func @quantize_int4_groups(%x: tensor<4x64xf32>, %s: tensor<4x2xf16>, %zp: tensor<4x2xi4>) -> !q {
  %q = quant_block.quantize %x scales(%s : tensor<4x2xf16>) zero_points(%zp : tensor<4x2xi4>) : tensor<4x64xf32> -> !q
  return %q : !q
}

!fp6 = !quant_block.tensor<4x64, #quant_block.scheme<mxfp6_e2m3>>

// MXFP6 (four codes in three bytes): each byte of a group is its own input
// (a strided byte plane), read as one vector through a projected permutation;
// the bytes are assembled into 24-bit words and every lane shifts its code
// out of them, so codes that straddle bytes need no gather either.
// CHECK-LABEL: func.func @dequantize_mxfp6
// CHECK-SAME: (%[[DATA:.*]]: tensor<4x48xi8>, %[[S:.*]]: tensor<4x2xf8E8M0FNU>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: vector.gather
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[DATA]] {{.*}} into tensor<4x2x8x3xi8>
// CHECK-COUNT-3: vector.transfer_read %[[VIEW]]{{.*}} : tensor<4x2x8x3xi8>, vector<4x2x8xi8>
// CHECK: vector.transfer_read %[[S]]{{.*}} : tensor<4x2xf8E8M0FNU>, vector<4x2xf8E8M0FNU>
// CHECK: arith.ori %{{.*}} : vector<4x2x8xi32>
// CHECK: arith.shrui %{{.*}} : vector<4x2x8x4xi32>
// CHECK: arith.mulf %{{.*}} : vector<4x2x8x4xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<4x2x8x4xf32>, tensor<4x2x8x4xf32>
func.func @dequantize_mxfp6(%q: !fp6) -> tensor<4x64xf32> {
  %x = quant_block.dequantize %q : !fp6 -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}

// Quantizing to MXFP6 computes the codes, then ORs each lane's share of every
// byte of its group: after vectorization the codes stay in registers.
// CHECK-LABEL: func.func @quantize_mxfp6
// CHECK-NOT: linalg.generic
// CHECK-NOT: vector.gather
// CHECK: arith.divf %{{.*}} : vector<4x2x8x4xf32>
// CHECK: math.roundeven %{{.*}} : vector<4x2x8x4xf32>
// CHECK: vector.multi_reduction <or>, %{{.*}} [4] : vector<4x2x8x3x4xi8> to vector<4x2x8x3xi8>
// CHECK: vector.transfer_write %{{.*}} : vector<4x2x8x3xi8>, tensor<4x2x8x3xi8>
func.func @quantize_mxfp6(%x: tensor<4x64xf32>, %s: tensor<4x2xf8E8M0FNU>) -> !fp6 {
  %q = quant_block.quantize %x scales(%s : tensor<4x2xf8E8M0FNU>) : tensor<4x64xf32> -> !fp6
  return %q : !fp6
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize_children_and_apply_patterns %funcs : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
