// RUN: quant-opt %s --split-input-file --quant-block-cpu-x86-dot-products | FileCheck %s

// Zero-extended by sign-extended bytes, four per lane of a vector<16xi32>:
// vpdpbusd, on the bytes before their extension.
// CHECK-LABEL: func.func @dot(
// CHECK-SAME: %[[ACC:.*]]: vector<16xi32>, %[[U:.*]]: vector<64xi8>, %[[S:.*]]: vector<64xi8>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[U]], %[[S]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: return %[[R]]
#id = affine_map<(i, j) -> (i, j)>
#lane = affine_map<(i, j) -> (i)>
func.func @dot(%acc: vector<16xi32>, %u: vector<64xi8>, %s: vector<64xi8>) -> vector<16xi32> {
  %ug = vector.shape_cast %u : vector<64xi8> to vector<16x4xi8>
  %sg = vector.shape_cast %s : vector<64xi8> to vector<16x4xi8>
  %uw = arith.extui %ug : vector<16x4xi8> to vector<16x4xi32>
  %sw = arith.extsi %sg : vector<16x4xi8> to vector<16x4xi32>
  %r = vector.contract {indexing_maps = [#id, #id, #lane], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %uw, %sw, %acc : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// Signed by signed bytes are not vpdpbusd's operands: left as it is.
// CHECK-LABEL: func.func @signed_by_signed(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.contract
#id = affine_map<(i, j) -> (i, j)>
#lane = affine_map<(i, j) -> (i)>
func.func @signed_by_signed(%acc: vector<16xi32>, %u: vector<16x4xi8>, %s: vector<16x4xi8>) -> vector<16xi32> {
  %uw = arith.extsi %u : vector<16x4xi8> to vector<16x4xi32>
  %sw = arith.extsi %s : vector<16x4xi8> to vector<16x4xi32>
  %r = vector.contract {indexing_maps = [#id, #id, #lane], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %uw, %sw, %acc : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// Groups of 8 per lane are not vpdpbusd's: left as it is.
// CHECK-LABEL: func.func @groups_of_eight(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.contract
#id = affine_map<(i, j) -> (i, j)>
#lane = affine_map<(i, j) -> (i)>
func.func @groups_of_eight(%acc: vector<8xi32>, %u: vector<8x8xi8>, %s: vector<8x8xi8>) -> vector<8xi32> {
  %uw = arith.extui %u : vector<8x8xi8> to vector<8x8xi32>
  %sw = arith.extsi %s : vector<8x8xi8> to vector<8x8xi32>
  %r = vector.contract {indexing_maps = [#id, #id, #lane], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %uw, %sw, %acc : vector<8x8xi32>, vector<8x8xi32> into vector<8xi32>
  return %r : vector<8xi32>
}

// -----

// Canonicalization makes an extension of broadcast bytes (the kernels'
// activation codes, one group of 4 for every lane) a broadcast of the
// extended bytes: still vpdpbusd, on the bytes broadcast.
// CHECK-LABEL: func.func @broadcast_bytes(
// CHECK-SAME: %[[ACC:.*]]: vector<16xi32>, %[[U:.*]]: vector<64xi8>, %[[S:.*]]: vector<4xi8>
// CHECK: %[[B:.*]] = vector.broadcast %[[S]] : vector<4xi8> to vector<16x4xi8>
// CHECK: %[[F:.*]] = vector.shape_cast %[[B]] : vector<16x4xi8> to vector<64xi8>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[U]], %[[F]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: return %[[R]]
#id = affine_map<(i, j) -> (i, j)>
#lane = affine_map<(i, j) -> (i)>
func.func @broadcast_bytes(%acc: vector<16xi32>, %u: vector<64xi8>, %s: vector<4xi8>) -> vector<16xi32> {
  %ug = vector.shape_cast %u : vector<64xi8> to vector<16x4xi8>
  %uw = arith.extui %ug : vector<16x4xi8> to vector<16x4xi32>
  %sw = arith.extsi %s : vector<4xi8> to vector<4xi32>
  %sb = vector.broadcast %sw : vector<4xi32> to vector<16x4xi32>
  %r = vector.contract {indexing_maps = [#id, #id, #lane], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %uw, %sb, %acc : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// A broadcast of zero-extended activation bytes is not vpdpbusd's signed
// operand: left as it is.
// CHECK-LABEL: func.func @broadcast_unsigned(
// CHECK-NOT: llvm.call_intrinsic
// CHECK: vector.contract
#id = affine_map<(i, j) -> (i, j)>
#lane = affine_map<(i, j) -> (i)>
func.func @broadcast_unsigned(%acc: vector<16xi32>, %u: vector<64xi8>, %s: vector<4xi8>) -> vector<16xi32> {
  %ug = vector.shape_cast %u : vector<64xi8> to vector<16x4xi8>
  %uw = arith.extui %ug : vector<16x4xi8> to vector<16x4xi32>
  %sw = arith.extui %s : vector<4xi8> to vector<4xi32>
  %sb = vector.broadcast %sw : vector<4xi32> to vector<16x4xi32>
  %r = vector.contract {indexing_maps = [#id, #id, #lane], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %uw, %sb, %acc : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
  return %r : vector<16xi32>
}
