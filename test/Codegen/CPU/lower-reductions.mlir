// Float sums and products keep their order (whole vectors of outputs are
// combined one reduction index after the other); every other reduction
// kind gives the same bits in any order and becomes a vector.reduction,
// a tree inside the registers.
// RUN: quant-opt %s --split-input-file --quant-block-cpu-lower-reductions | FileCheck %s

// CHECK-LABEL: func.func @ordered_sum(
// CHECK-SAME: %[[V:.+]]: vector<8x4xf32>, %[[ACC:.+]]: vector<8xf32>)
// CHECK-NOT: vector.reduction
// CHECK: %[[T:.+]] = vector.transpose %[[V]], [1, 0] : vector<8x4xf32> to vector<4x8xf32>
// CHECK: %[[R0:.+]] = vector.extract %[[T]][0] : vector<8xf32> from vector<4x8xf32>
// CHECK: %[[S0:.+]] = arith.addf %[[R0]], %[[ACC]] : vector<8xf32>
// CHECK: %[[R1:.+]] = vector.extract %[[T]][1] : vector<8xf32> from vector<4x8xf32>
// CHECK: %[[S1:.+]] = arith.addf %[[R1]], %[[S0]] : vector<8xf32>
// CHECK: %[[R2:.+]] = vector.extract %[[T]][2] : vector<8xf32> from vector<4x8xf32>
// CHECK: %[[S2:.+]] = arith.addf %[[R2]], %[[S1]] : vector<8xf32>
// CHECK: %[[R3:.+]] = vector.extract %[[T]][3] : vector<8xf32> from vector<4x8xf32>
// CHECK: %[[S3:.+]] = arith.addf %[[R3]], %[[S2]] : vector<8xf32>
// CHECK: return %[[S3]]
func.func @ordered_sum(%v: vector<8x4xf32>, %acc: vector<8xf32>) -> vector<8xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<8x4xf32> to vector<8xf32>
  return %r : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @max_tree(
// CHECK-SAME: %[[V:.+]]: vector<1x64xf32>, %[[ACC:.+]]: vector<1xf32>)
// CHECK: %[[ROW:.+]] = vector.extract %[[V]][0] : vector<64xf32> from vector<1x64xf32>
// CHECK: %[[A:.+]] = vector.extract %[[ACC]][0] : f32 from vector<1xf32>
// CHECK: vector.reduction <maximumf>, %[[ROW]], %[[A]] : vector<64xf32> into f32
// CHECK-NOT: arith.maximumf
func.func @max_tree(%v: vector<1x64xf32>, %acc: vector<1xf32>) -> vector<1xf32> {
  %r = vector.multi_reduction <maximumf>, %v, %acc [1] : vector<1x64xf32> to vector<1xf32>
  return %r : vector<1xf32>
}

// -----

// Integer sums are exact in any order.
// CHECK-LABEL: func.func @integer_sum(
// CHECK: vector.reduction <add>, %{{.+}}, %{{.+}} : vector<32xi32> into i32
func.func @integer_sum(%v: vector<1x32xi32>, %acc: vector<1xi32>) -> vector<1xi32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<1x32xi32> to vector<1xi32>
  return %r : vector<1xi32>
}
