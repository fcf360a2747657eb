// RUN: quant-opt %s --split-input-file --quant-block-cpu-x86-table-lookups | FileCheck %s

// A gather of 16 f32 lanes from a constant 16-entry global, at offset 0,
// all lanes on: vpermps on the table as a constant vector.
// CHECK-LABEL: func.func @lookup(
// CHECK-SAME: %[[IDX:.*]]: vector<16xi32>
// CHECK: %[[TABLE:.*]] = arith.constant dense<[0.000000e+00, 5.000000e-01, {{.*}}, -6.000000e+00]> : vector<16xf32>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.permvar.sf.512"(%[[TABLE]], %[[IDX]]) : (vector<16xf32>, vector<16xi32>) -> vector<16xf32>
// CHECK-NOT: vector.gather
// CHECK: return %[[R]]
memref.global "private" constant @e2m1 : memref<16xf32> = dense<[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]>
func.func @lookup(%idx: vector<16xi32>) -> vector<16xf32> {
  %table = memref.get_global @e2m1 : memref<16xf32>
  %c0 = arith.constant 0 : index
  %mask = arith.constant dense<true> : vector<16xi1>
  %pass = arith.constant dense<0.0> : vector<16xf32>
  %r = vector.gather %table[%c0] [%idx], %mask, %pass : memref<16xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// A table that is not constant may change: left as it is.
// CHECK-LABEL: func.func @mutable_table(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.gather
memref.global "private" @table : memref<16xf32> = dense<1.0>
func.func @mutable_table(%idx: vector<16xi32>) -> vector<16xf32> {
  %table = memref.get_global @table : memref<16xf32>
  %c0 = arith.constant 0 : index
  %mask = arith.constant dense<true> : vector<16xi1>
  %pass = arith.constant dense<0.0> : vector<16xf32>
  %r = vector.gather %table[%c0] [%idx], %mask, %pass : memref<16xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// A mask that may be off for some lanes takes the pass-through there, which
// vpermps does not: left as it is. So is a nonzero offset.
// CHECK-LABEL: func.func @masked(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.gather
// CHECK-LABEL: func.func @offset(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.gather
memref.global "private" constant @e2m1 : memref<16xf32> = dense<[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]>
func.func @masked(%idx: vector<16xi32>, %mask: vector<16xi1>) -> vector<16xf32> {
  %table = memref.get_global @e2m1 : memref<16xf32>
  %c0 = arith.constant 0 : index
  %pass = arith.constant dense<0.0> : vector<16xf32>
  %r = vector.gather %table[%c0] [%idx], %mask, %pass : memref<16xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
  return %r : vector<16xf32>
}
func.func @offset(%idx: vector<16xi32>) -> vector<16xf32> {
  %table = memref.get_global @e2m1 : memref<16xf32>
  %c1 = arith.constant 1 : index
  %mask = arith.constant dense<true> : vector<16xi1>
  %pass = arith.constant dense<0.0> : vector<16xf32>
  %r = vector.gather %table[%c1] [%idx], %mask, %pass : memref<16xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// Eight lanes are not a vpermps of 16: left as it is.
// CHECK-LABEL: func.func @eight_lanes(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.gather
memref.global "private" constant @e2m1 : memref<16xf32> = dense<[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]>
func.func @eight_lanes(%idx: vector<8xi32>) -> vector<8xf32> {
  %table = memref.get_global @e2m1 : memref<16xf32>
  %c0 = arith.constant 0 : index
  %mask = arith.constant dense<true> : vector<8xi1>
  %pass = arith.constant dense<0.0> : vector<8xf32>
  %r = vector.gather %table[%c0] [%idx], %mask, %pass : memref<16xf32>, vector<8xi32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  return %r : vector<8xf32>
}
