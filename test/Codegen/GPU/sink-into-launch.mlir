// RUN: quant-opt %s --pass-pipeline="builtin.module(func.func(quant-block-gpu-sink-into-launch))" | FileCheck %s

// A view of a function argument and the scalar arithmetic on it are
// recomputed in the kernel; a scalar loaded on the host goes through a
// one-element buffer, so that the kernel takes memrefs only.
// CHECK-LABEL: func.func @sink
// CHECK-SAME: (%[[A:.*]]: memref<2x8xf32>, %[[N:.*]]: memref<f32>)
// CHECK: %[[S:.*]] = memref.load %[[N]][]
// CHECK: %[[BUF:.*]] = memref.alloca() : memref<1xf32>
// CHECK: memref.store %[[S]], %[[BUF]][%{{.*}}] : memref<1xf32>
// CHECK: gpu.launch
// CHECK: %[[KS:.*]] = memref.load %[[BUF]][%{{.*}}] : memref<1xf32>
// CHECK: %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK: %[[T:.*]] = arith.mulf %[[KS]], %[[KS]]
// CHECK: memref.store %[[T]], %[[V]]
func.func @sink(%a: memref<2x8xf32>, %n: memref<f32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = memref.expand_shape %a [[0], [1, 2]] output_shape [2, 2, 4] : memref<2x8xf32> into memref<2x2x4xf32>
  %s = memref.load %n[] : memref<f32>
  %t = arith.mulf %s, %s : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%i = %c4, %j = %c1, %k = %c1) {
    %c0 = arith.constant 0 : index
    memref.store %t, %v[%c0, %c0, %tx] : memref<2x2x4xf32>
    gpu.terminator
  }
  return
}

// Index scalars travel as i32, i1 as i8. (A memref.dim would be sunk.)
// CHECK-LABEL: func.func @index_and_bool
// CHECK: %[[I32:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: memref.store %[[I32]], %{{.*}} : memref<1xi32>
// CHECK: %[[I8:.*]] = arith.extui %{{.*}} : i1 to i8
// CHECK: memref.store %[[I8]], %{{.*}} : memref<1xi8>
// CHECK: gpu.launch
// CHECK-DAG: arith.index_cast %{{.*}} : i32 to index
// CHECK-DAG: arith.trunci %{{.*}} : i8 to i1
func.func @index_and_bool(%a: memref<index>, %m: memref<i1>, %o: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = memref.load %a[] : memref<index>
  %b = memref.load %m[] : memref<i1>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%i = %c4, %j = %c1, %k = %c1) {
    %f = arith.index_cast %n : index to i32
    %g = arith.sitofp %f : i32 to f32
    %h = arith.select %b, %g, %g : f32
    memref.store %h, %o[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}
