// --quant-block-cpu-flatten-vectors: n-D broadcasts and transposes become one
// 1-D shuffle, contiguous transfers become 1-D and elementwise ops are
// linearized, so that LLVM sees whole-register vectors.
// RUN: quant-opt %s --split-input-file --quant-block-cpu-flatten-vectors --canonicalize | FileCheck %s

// Broadcasting two scales over 4 elements each, then interleaving: the
// masks are the row-major source positions of each result element.
// CHECK-LABEL: func.func @broadcast_and_transpose
// CHECK-SAME: (%[[S:.*]]: vector<2xf32>, %[[B:.*]]: vector<2x3xi8>)
// CHECK: %[[SB:.*]] = vector.shuffle %[[S]], %[[S]] [0, 1, 0, 1, 0, 1, 0, 1] : vector<2xf32>, vector<2xf32>
// CHECK: %[[R1:.*]] = vector.shape_cast %[[SB]] : vector<8xf32> to vector<4x2xf32>
// CHECK: %[[F:.*]] = vector.shape_cast %[[B]] : vector<2x3xi8> to vector<6xi8>
// CHECK: %[[T:.*]] = vector.shuffle %[[F]], %[[F]] [0, 3, 1, 4, 2, 5] : vector<6xi8>, vector<6xi8>
// CHECK: %[[R2:.*]] = vector.shape_cast %[[T]] : vector<6xi8> to vector<3x2xi8>
// CHECK: return %[[R1]], %[[R2]]
func.func @broadcast_and_transpose(%s: vector<2xf32>, %b: vector<2x3xi8>) -> (vector<4x2xf32>, vector<3x2xi8>) {
  %sb = vector.broadcast %s : vector<2xf32> to vector<4x2xf32>
  %t = vector.transpose %b, [1, 0] : vector<2x3xi8> to vector<3x2xi8>
  return %sb, %t : vector<4x2xf32>, vector<3x2xi8>
}

// -----

// A tile of the int4 dequantization after bufferization: the 3-D read of
// packed bytes and the 4-D write of results are contiguous, so they become
// 1-D, and the arithmetic between them is on vector<64x...>.
// CHECK-LABEL: func.func @dequantize_tile
// CHECK-DAG: vector.transfer_read %{{.*}} : memref<4096x2048xi8>, vector<32xi8>
// CHECK-DAG: vector.transfer_read %{{.*}} : memref<4096x128xf16>, vector<2xf16>
// CHECK-DAG: arith.shrui %{{.*}} : vector<64xi8>
// CHECK-DAG: arith.mulf %{{.*}} : vector<64xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<64xf32>, memref<4096x4096xf32>
// CHECK-NOT: vector<1x
func.func @dequantize_tile(%data: memref<4096x128x16xi8>, %scales: memref<4096x128xf16>, %out: memref<4096x128x16x2xf32>, %row: index, %group: index) {
  %c0 = arith.constant 0 : index
  %pad8 = ub.poison : i8
  %pad16 = ub.poison : f16
  %shift = arith.constant dense<[0, 4]> : vector<2xi8>
  %bytes = vector.transfer_read %data[%row, %group, %c0], %pad8 {in_bounds = [true, true, true]} : memref<4096x128x16xi8>, vector<1x2x16xi8>
  %wide = vector.broadcast %bytes : vector<1x2x16xi8> to vector<2x1x2x16xi8>
  %pairs = vector.transpose %wide, [1, 2, 3, 0] : vector<2x1x2x16xi8> to vector<1x2x16x2xi8>
  %shifts = vector.broadcast %shift : vector<2xi8> to vector<1x2x16x2xi8>
  %nibbles = arith.shrui %pairs, %shifts : vector<1x2x16x2xi8>
  %codes = arith.sitofp %nibbles : vector<1x2x16x2xi8> to vector<1x2x16x2xf32>
  %s16 = vector.transfer_read %scales[%row, %group], %pad16 {in_bounds = [true, true]} : memref<4096x128xf16>, vector<1x2xf16>
  %s = arith.extf %s16 : vector<1x2xf16> to vector<1x2xf32>
  %sb = vector.broadcast %s : vector<1x2xf32> to vector<16x2x1x2xf32>
  %st = vector.transpose %sb, [2, 3, 0, 1] : vector<16x2x1x2xf32> to vector<1x2x16x2xf32>
  %x = arith.mulf %codes, %st : vector<1x2x16x2xf32>
  vector.transfer_write %x, %out[%row, %group, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x2x16x2xf32>, memref<4096x128x16x2xf32>
  return
}

// -----

// A broadcast whose source ends in a unit dimension, then a transpose that
// only moves unit dimensions: element (.., i, j) of the result is src[j].
// (Upstream unit-dimension patterns, applied first, re-aligned the
// broadcast to src[i].)
// CHECK-LABEL: func.func @broadcast_then_transpose(
// CHECK: %[[FLAT:.+]] = vector.shape_cast %{{.+}} : vector<2x1xf32> to vector<2xf32>
// CHECK: vector.shuffle %[[FLAT]], %[[FLAT]] [0, 1, 0, 1, 0, 1, 0, 1,
func.func @broadcast_then_transpose(%src: vector<2x1xf32>) -> vector<1x1x16x2x2xf32> {
  %b = vector.broadcast %src : vector<2x1xf32> to vector<1x16x2x2x1xf32>
  %t = vector.transpose %b, [0, 4, 1, 2, 3] : vector<1x16x2x2x1xf32> to vector<1x1x16x2x2xf32>
  return %t : vector<1x1x16x2x2xf32>
}
