// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-fuse-parallel-loops))" | FileCheck %s

// A fill and the reduction over its buffer into a new buffer: the new
// buffer's allocation moves before the fill, then the loops are one (the
// fill's store first, then the reduction reading it at the same element).
// CHECK-LABEL: func.func @fill_then_reduce
// CHECK: %[[SUMS:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: memref.store %{{.*}}, %[[SUMS]][%[[I]]]
// CHECK-NEXT: %[[INIT:.*]] = memref.load %[[SUMS]][%[[I]]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[I]]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @fill_then_reduce(%x: memref<4x8xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sums = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %sums[%i] : memref<4xf32>
    scf.reduce
  }
  %out = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %init = memref.load %sums[%i] : memref<4xf32>
    %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %sum, %out[%i] : memref<4xf32>
    scf.reduce
  }
  return %out : memref<4xf32>
}

// -----

// The second loop reads another iteration's element of what the first
// writes (a reversed read): two loops.
// CHECK-LABEL: func.func @other_elements
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT: scf.parallel
func.func @other_elements(%x: memref<8xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %t[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %j = arith.subi %c7, %i : index
    %v = memref.load %t[%j] : memref<8xf32>
    memref.store %v, %y[%i] : memref<8xf32>
    scf.reduce
  }
  memref.dealloc %t : memref<8xf32>
  return
}

// -----

// The second loop writes another iteration's element of what the first
// writes and neither reads it (upstream's scf-parallel-loop-fusion, which
// checks only reads, would fuse them and let the first loop's write land
// last): two loops.
// CHECK-LABEL: func.func @write_after_write
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT: scf.parallel
func.func @write_after_write(%x: memref<8xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %t[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %j = arith.subi %c7, %i : index
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %t[%j] : memref<8xf32>
    scf.reduce
  }
  return %t : memref<8xf32>
}

// -----

// Two arguments may alias: the second loop's read of %b may be the first
// loop's write of %a at another element. Different bounds, an op with
// memory effects between the loops, and an allocation sized by a value
// computed after the loop before it (it stays, and keeps that loop apart
// from the fill after it) also keep loops apart. Of seven loops only the
// fill of %t and the copy of %t to %b become one (a new buffer aliases no
// argument); the copy of %t to %c stays apart (%c may alias %b).
// CHECK-LABEL: func.func @kept_apart
// CHECK-COUNT-4: scf.parallel
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: scf.parallel
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
func.func @kept_apart(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %a[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %b[%i] : memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %one, %b[%i] : memref<8xf32>
    scf.reduce
  }
  memref.store %one, %a[%c0] : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %one, %b[%i] : memref<8xf32>
    scf.reduce
  }
  %n = memref.dim %c, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %one, %t[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %t[%i] : memref<?xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %t[%i] : memref<?xf32>
    memref.store %v, %c[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A chain of three loops over the same elements, each writing a new
// buffer: both later allocations move before the first loop, one loop.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-3: memref.alloc()
// CHECK-NEXT: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @chain(%x: memref<8xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %t[%i] : memref<8xf32>
    scf.reduce
  }
  %u = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %t[%i] : memref<8xf32>
    %m = arith.mulf %v, %v : f32
    memref.store %m, %u[%i] : memref<8xf32>
    scf.reduce
  }
  %w = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %u[%i] : memref<8xf32>
    memref.store %v, %w[%i] : memref<8xf32>
    scf.reduce
  }
  return %w : memref<8xf32>
}
