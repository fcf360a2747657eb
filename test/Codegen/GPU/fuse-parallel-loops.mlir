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

// A layer's K and V cache stores: copies of %x and %y into views of two
// arguments marked llvm.noalias (distinct buffers of the caller) at the
// same elements become one loop. One mark is enough (LLVM's noalias: no
// other argument reaches the marked one's memory): the store to %k1 joins
// too, though %x and %y are not marked. The store to %v1 (unmarked) stays
// apart, as %v1 may be %x or %y, which the fused loop reads; so do the
// stores to %k2 and %v2 (unmarked: they may be one buffer).
// CHECK-LABEL: func.func @noalias_arguments
// CHECK: scf.parallel
// CHECK-COUNT-3: memref.store
// CHECK-NEXT: scf.reduce
// CHECK-COUNT-3: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @noalias_arguments(%k: memref<2x16x8xf32> {llvm.noalias},
                             %v: memref<2x16x8xf32> {llvm.noalias},
                             %k1: memref<16x8xf32> {llvm.noalias},
                             %v1: memref<16x8xf32>,
                             %k2: memref<16x8xf32>, %v2: memref<16x8xf32>,
                             %x: memref<8xf32>, %y: memref<8xf32>,
                             %pos: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %kview = memref.subview %k[1, %pos, 0] [1, 1, 8] [1, 1, 1]
      : memref<2x16x8xf32> to memref<8xf32, strided<[1], offset: ?>>
  %vview = memref.subview %v[1, %pos, 0] [1, 1, 8] [1, 1, 1]
      : memref<2x16x8xf32> to memref<8xf32, strided<[1], offset: ?>>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %x[%i] : memref<8xf32>
    memref.store %a, %kview[%i] : memref<8xf32, strided<[1], offset: ?>>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %y[%i] : memref<8xf32>
    memref.store %a, %vview[%i] : memref<8xf32, strided<[1], offset: ?>>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %x[%i] : memref<8xf32>
    memref.store %a, %k1[%pos, %i] : memref<16x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %y[%i] : memref<8xf32>
    memref.store %a, %v1[%pos, %i] : memref<16x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %x[%i] : memref<8xf32>
    memref.store %a, %k2[%pos, %i] : memref<16x8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %y[%i] : memref<8xf32>
    memref.store %a, %v2[%pos, %i] : memref<16x8xf32>
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

// -----

// A quantization's block statistics and scales, then its codes: the codes'
// loop has one more dimension (the elements of a block), which runs in
// sequence after the scale in each block's iteration (each already reduces
// its block's 32 elements in sequence). The codes' loop reads the scale at
// its own block, and the codes go to a new buffer (a second argument might
// alias %x): one loop, the codes' constants built inside it.
// CHECK-LABEL: func.func @statistics_then_codes
// CHECK: scf.parallel (%[[B:.*]]) =
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[SCALES:.*]][%[[B]]]
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %[[C32]]
// CHECK-NEXT: memref.load %{{.*}}[%[[B]], %[[E]]]
// CHECK-NEXT: memref.load %[[SCALES]][%[[B]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[B]], %[[E]]] : memref<8x32xi8>
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @statistics_then_codes(%x: memref<8x32xf32>) -> memref<8x32xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %qmax = arith.constant 127.0 : f32
  %scales = memref.alloc() : memref<8xf32>
  %codes = memref.alloc() : memref<8x32xi8>
  scf.parallel (%b) = (%c0) to (%c8) step (%c1) {
    %max = scf.for %e = %c0 to %c32 step %c1 iter_args(%m = %zero) -> (f32) {
      %v = memref.load %x[%b, %e] : memref<8x32xf32>
      %a = math.absf %v : f32
      %n = arith.maximumf %m, %a : f32
      scf.yield %n : f32
    }
    %s = arith.divf %max, %qmax : f32
    memref.store %s, %scales[%b] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%b, %e) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    %v = memref.load %x[%b, %e] : memref<8x32xf32>
    %s = memref.load %scales[%b] : memref<8xf32>
    %q = arith.divf %v, %s : f32
    %i = arith.fptosi %q : f32 to i8
    memref.store %i, %codes[%b, %e] : memref<8x32xi8>
    scf.reduce
  }
  memref.dealloc %scales : memref<8xf32>
  return %codes : memref<8x32xi8>
}

// -----

// An elementwise loop, then the reduction of each row of its result (a
// softmax's steps): the elementwise loop's extra dimension runs in
// sequence at the start of each row's iteration; the fill before it then
// fuses with the fused loop (same elements). One loop.
// CHECK-LABEL: func.func @elementwise_then_row_max
// CHECK: scf.parallel (%[[R:.*]]) =
// CHECK-NEXT: memref.store %{{.*}}, %[[MAX:.*]][%[[R]]]
// CHECK: scf.for %[[E:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[R]], %[[E]]]
// CHECK: memref.store %{{.*}}, %[[T:.*]][%[[R]], %[[E]]]
// CHECK: scf.for %[[K:.*]] =
// CHECK-NEXT: memref.load %[[T]][%[[R]], %[[K]]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @elementwise_then_row_max(%x: memref<4x16xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %low = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<4xf32>
  %t = memref.alloc() : memref<4x16xf32>
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    memref.store %low, %max[%r] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%r, %e) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    %v = memref.load %x[%r, %e] : memref<4x16xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %t[%r, %e] : memref<4x16xf32>
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c16 step %c1 {
      %v = memref.load %t[%r, %k] : memref<4x16xf32>
      %m = memref.load %max[%r] : memref<4xf32>
      %n = arith.maximumf %m, %v : f32
      memref.store %n, %max[%r] : memref<4xf32>
    }
    scf.reduce
  }
  memref.dealloc %t : memref<4x16xf32>
  return %max : memref<4xf32>
}

// -----

// The second loop's 16 elements per row exceed what each row's iteration
// of the first runs in sequence (4): two loops.
// CHECK-LABEL: func.func @more_than_the_serial_work
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @more_than_the_serial_work(%x: memref<4x16xf32>) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4xf32>
  %y = memref.alloc() : memref<4x16xf32>
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    %m = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (f32) {
      %v = memref.load %x[%r, %k] : memref<4x16xf32>
      %b = arith.maximumf %a, %v : f32
      scf.yield %b : f32
    }
    memref.store %m, %s[%r] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%r, %e) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    %m = memref.load %s[%r] : memref<4xf32>
    memref.store %m, %y[%r, %e] : memref<4x16xf32>
    scf.reduce
  }
  memref.dealloc %s : memref<4xf32>
  return %y : memref<4x16xf32>
}

// -----

// The same with a limit of 8 iterations in sequence (the rows' reduction
// runs 16): two loops.
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-fuse-parallel-loops{max-serial-iterations=8}))" | FileCheck %s --check-prefix=LIMIT
// LIMIT-LABEL: func.func @over_the_limit
// LIMIT-COUNT-2: scf.parallel
// LIMIT-NOT: scf.parallel
// LIMIT: return
// CHECK-LABEL: func.func @over_the_limit
// CHECK-COUNT-1: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @over_the_limit(%x: memref<4x16xf32>) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4xf32>
  %y = memref.alloc() : memref<4x16xf32>
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    %m = scf.for %k = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (f32) {
      %v = memref.load %x[%r, %k] : memref<4x16xf32>
      %b = arith.maximumf %a, %v : f32
      scf.yield %b : f32
    }
    memref.store %m, %s[%r] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%r, %e) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    %m = memref.load %s[%r] : memref<4xf32>
    memref.store %m, %y[%r, %e] : memref<4x16xf32>
    scf.reduce
  }
  memref.dealloc %s : memref<4xf32>
  return %y : memref<4x16xf32>
}

// -----

// The second loop reads the first's result at another row than its own
// (the index is not the shared iteration variable): two loops.
// CHECK-LABEL: func.func @another_row
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @another_row(%x: memref<4x16xf32>) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4xf32>
  %y = memref.alloc() : memref<4x16xf32>
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    %m = scf.for %k = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (f32) {
      %v = memref.load %x[%r, %k] : memref<4x16xf32>
      %b = arith.maximumf %a, %v : f32
      scf.yield %b : f32
    }
    memref.store %m, %s[%r] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%r, %e) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    %other = arith.subi %c3, %r : index
    %m = memref.load %s[%other] : memref<4xf32>
    memref.store %m, %y[%r, %e] : memref<4x16xf32>
    scf.reduce
  }
  memref.dealloc %s : memref<4xf32>
  return %y : memref<4x16xf32>
}

// -----

// An extra dimension whose bound is not a constant: two loops.
// CHECK-LABEL: func.func @dynamic_extra_dimension
// CHECK-COUNT-2: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @dynamic_extra_dimension(%x: memref<4x16xf32>, %n: index) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4xf32>
  %y = memref.alloc() : memref<4x16xf32>
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    %m = scf.for %k = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (f32) {
      %v = memref.load %x[%r, %k] : memref<4x16xf32>
      %b = arith.maximumf %a, %v : f32
      scf.yield %b : f32
    }
    memref.store %m, %s[%r] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%r, %e) = (%c0, %c0) to (%c4, %n) step (%c1, %c1) {
    %m = memref.load %s[%r] : memref<4xf32>
    memref.store %m, %y[%r, %e] : memref<4x16xf32>
    scf.reduce
  }
  memref.dealloc %s : memref<4xf32>
  return %y : memref<4x16xf32>
}

// -----

// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-fuse-parallel-loops{max-serial-iterations=0}))" 2>&1 | FileCheck %s --check-prefix=BAD-LIMIT
// BAD-LIMIT: error: max-serial-iterations must be positive, not 0
func.func @bad_limit() {
  return
}
