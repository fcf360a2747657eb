// RUN: quant-opt %s --split-input-file --quant-block-cpu-x86-six-bit-spreads | FileCheck %s

// The spread of four 6-bit codes to a byte each, as the matmul kernels emit
// it for a group of Q6_K's codes from bit 0 of a word: one vpmultishiftqb
// from offsets 0, 6, 12, 18 (32 more for each qword's upper lane), then
// the upper 2 bits of each byte cleared.
// CHECK-LABEL: func.func @from_bit_0(
// CHECK-SAME: %[[W:.*]]: vector<16xi32>
// CHECK: %[[OFFSETS:.*]] = arith.constant dense<[0, 6, 12, 18, 32, 38, 44, 50, 0, 6, 12, 18, 32, 38, 44, 50, {{.*}}]> : vector<64xi8>
// CHECK: %[[BYTES:.*]] = vector.bitcast %[[W]] : vector<16xi32> to vector<64xi8>
// CHECK: %[[PICKED:.*]] = llvm.call_intrinsic "llvm.x86.avx512.pmultishift.qb.512"(%[[OFFSETS]], %[[BYTES]]) : (vector<64xi8>, vector<64xi8>) -> vector<64xi8>
// CHECK: %[[LANES:.*]] = vector.bitcast %[[PICKED]] : vector<64xi8> to vector<16xi32>
// CHECK: %[[SPREAD:.*]] = arith.andi %[[LANES]], %{{.*}} : vector<16xi32>
// CHECK: return %[[SPREAD]]
func.func @from_bit_0(%w: vector<16xi32>) -> vector<16xi32> {
  %c63 = arith.constant dense<63> : vector<16xi32>
  %c2 = arith.constant dense<2> : vector<16xi32>
  %c4 = arith.constant dense<4> : vector<16xi32>
  %c6 = arith.constant dense<6> : vector<16xi32>
  %m1 = arith.constant dense<16128> : vector<16xi32>
  %m2 = arith.constant dense<4128768> : vector<16xi32>
  %m3 = arith.constant dense<1056964608> : vector<16xi32>
  %f0 = arith.andi %w, %c63 : vector<16xi32>
  %s1 = arith.shli %w, %c2 : vector<16xi32>
  %f1 = arith.andi %s1, %m1 : vector<16xi32>
  %o1 = arith.ori %f0, %f1 : vector<16xi32>
  %s2 = arith.shli %w, %c4 : vector<16xi32>
  %f2 = arith.andi %s2, %m2 : vector<16xi32>
  %o2 = arith.ori %o1, %f2 : vector<16xi32>
  %s3 = arith.shli %w, %c6 : vector<16xi32>
  %f3 = arith.andi %s3, %m3 : vector<16xi32>
  %o3 = arith.ori %o2, %f3 : vector<16xi32>
  return %o3 : vector<16xi32>
}

// -----

// From bit 8 of a word (groups 3 and 7 of a chunk): the shift becomes the
// offsets, the operands of the ors and ands in either order.
// CHECK-LABEL: func.func @from_bit_8(
// CHECK-SAME: %[[W:.*]]: vector<16xi32>
// CHECK: arith.constant dense<[8, 14, 20, 26, 40, 46, 52, 58, 8, 14, {{.*}}]> : vector<64xi8>
// CHECK: vector.bitcast %[[W]] : vector<16xi32> to vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.pmultishift.qb.512"
func.func @from_bit_8(%w: vector<16xi32>) -> vector<16xi32> {
  %c8 = arith.constant dense<8> : vector<16xi32>
  %c63 = arith.constant dense<63> : vector<16xi32>
  %c2 = arith.constant dense<2> : vector<16xi32>
  %c4 = arith.constant dense<4> : vector<16xi32>
  %c6 = arith.constant dense<6> : vector<16xi32>
  %m1 = arith.constant dense<16128> : vector<16xi32>
  %m2 = arith.constant dense<4128768> : vector<16xi32>
  %m3 = arith.constant dense<1056964608> : vector<16xi32>
  %d = arith.shrui %w, %c8 : vector<16xi32>
  %f0 = arith.andi %c63, %d : vector<16xi32>
  %s1 = arith.shli %d, %c2 : vector<16xi32>
  %f1 = arith.andi %m1, %s1 : vector<16xi32>
  %o1 = arith.ori %f1, %f0 : vector<16xi32>
  %s2 = arith.shli %d, %c4 : vector<16xi32>
  %f2 = arith.andi %s2, %m2 : vector<16xi32>
  %o2 = arith.ori %f2, %o1 : vector<16xi32>
  %s3 = arith.shli %d, %c6 : vector<16xi32>
  %f3 = arith.andi %s3, %m3 : vector<16xi32>
  %o3 = arith.ori %o2, %f3 : vector<16xi32>
  return %o3 : vector<16xi32>
}

// -----

// A shift by more than 8 stays: its upper codes would come from the next
// lane's bits, where the shift brought in zeros.
// CHECK-LABEL: func.func @from_bit_16(
// CHECK: %[[D:.*]] = arith.shrui
// CHECK: arith.constant dense<[0, 6, 12, 18, 32, 38, 44, 50, {{.*}}]> : vector<64xi8>
// CHECK: vector.bitcast %[[D]] : vector<16xi32> to vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.pmultishift.qb.512"
func.func @from_bit_16(%w: vector<16xi32>) -> vector<16xi32> {
  %c16 = arith.constant dense<16> : vector<16xi32>
  %c63 = arith.constant dense<63> : vector<16xi32>
  %c2 = arith.constant dense<2> : vector<16xi32>
  %c4 = arith.constant dense<4> : vector<16xi32>
  %c6 = arith.constant dense<6> : vector<16xi32>
  %m1 = arith.constant dense<16128> : vector<16xi32>
  %m2 = arith.constant dense<4128768> : vector<16xi32>
  %m3 = arith.constant dense<1056964608> : vector<16xi32>
  %d = arith.shrui %w, %c16 : vector<16xi32>
  %f0 = arith.andi %d, %c63 : vector<16xi32>
  %s1 = arith.shli %d, %c2 : vector<16xi32>
  %f1 = arith.andi %s1, %m1 : vector<16xi32>
  %o1 = arith.ori %f0, %f1 : vector<16xi32>
  %s2 = arith.shli %d, %c4 : vector<16xi32>
  %f2 = arith.andi %s2, %m2 : vector<16xi32>
  %o2 = arith.ori %o1, %f2 : vector<16xi32>
  %s3 = arith.shli %d, %c6 : vector<16xi32>
  %f3 = arith.andi %s3, %m3 : vector<16xi32>
  %o3 = arith.ori %o2, %f3 : vector<16xi32>
  return %o3 : vector<16xi32>
}

// -----

// Not a spread: the third field is shifted from another value, and a mask
// keeps 7 bits. Nothing changes.
// CHECK-LABEL: func.func @not_spreads(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: return
func.func @not_spreads(%w: vector<16xi32>, %v: vector<16xi32>) -> (vector<16xi32>, vector<16xi32>) {
  %c63 = arith.constant dense<63> : vector<16xi32>
  %c127 = arith.constant dense<127> : vector<16xi32>
  %c2 = arith.constant dense<2> : vector<16xi32>
  %c4 = arith.constant dense<4> : vector<16xi32>
  %c6 = arith.constant dense<6> : vector<16xi32>
  %m1 = arith.constant dense<16128> : vector<16xi32>
  %m2 = arith.constant dense<4128768> : vector<16xi32>
  %m3 = arith.constant dense<1056964608> : vector<16xi32>
  %f0 = arith.andi %w, %c63 : vector<16xi32>
  %s1 = arith.shli %w, %c2 : vector<16xi32>
  %f1 = arith.andi %s1, %m1 : vector<16xi32>
  %o1 = arith.ori %f0, %f1 : vector<16xi32>
  %s2 = arith.shli %v, %c4 : vector<16xi32>
  %f2 = arith.andi %s2, %m2 : vector<16xi32>
  %o2 = arith.ori %o1, %f2 : vector<16xi32>
  %s3 = arith.shli %w, %c6 : vector<16xi32>
  %f3 = arith.andi %s3, %m3 : vector<16xi32>
  %o3 = arith.ori %o2, %f3 : vector<16xi32>
  %g0 = arith.andi %w, %c127 : vector<16xi32>
  %p1 = arith.ori %g0, %f1 : vector<16xi32>
  %p2 = arith.ori %p1, %f2 : vector<16xi32>
  %p3 = arith.ori %p2, %f3 : vector<16xi32>
  return %o3, %p3 : vector<16xi32>, vector<16xi32>
}
