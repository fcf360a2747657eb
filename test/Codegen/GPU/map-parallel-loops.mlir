// RUN: quant-opt %s --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-parallel-loops{workgroup-size=32 max-workgroups=8}))" | FileCheck %s

// A 3x80 loop nest becomes one loop over 240 elements (row-major: the
// innermost index varies fastest across threads), tiled by the workgroup
// size with a bounds guard: 8 workgroups, within max-workgroups.
// CHECK-LABEL: func.func @collapse
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c80
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %c32
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[N]]) step (%[[STEP]])
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[STEP]])
// CHECK: %[[I:.*]] = arith.addi %[[T]], %[[B]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK: scf.if
// CHECK: %[[COL:.*]] = arith.remsi %[[I]], %c80
// CHECK: %[[ROW:.*]] = arith.divsi %[[I]], %c80
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @collapse(%a: memref<3x80xf32>, %b: memref<3x80xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c80 = arith.constant 80 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c80) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<3x80xf32>
    memref.store %v, %b[%i, %j] : memref<3x80xf32>
    scf.reduce
  }
  return
}

// 1000 elements in workgroups of 32 would be 32 workgroups, more than 8:
// each thread handles 4 elements, one workgroup-wide chunk after the other.
// CHECK-LABEL: func.func @many
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1000) step (%[[CHUNK:.*]])
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: memref.store
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: {mapping = [#gpu.loop_dim_map<processor = sequential
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @many(%a: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c1000) step (%c1) {
    memref.store %cst, %a[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}

// The cap holds for a loop nest too: 10 x 100 = 1000 elements would be 32
// workgroups of 32 after the collapse (whose bound is an arith.muli, not a
// constant), more than 8: each thread handles 4 elements, so the tile loop
// steps by 128 (8 workgroups) and the chunk loop by 32 within a tile.
// CHECK-LABEL: func.func @many_2d
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c100
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %c128
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[N]]) step (%[[STEP]])
// CHECK: %[[CHUNK:.*]] = arith.muli %{{.*}}, %c32
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[STEP]]) step (%[[CHUNK]])
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[CHUNK]])
// CHECK: memref.store
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: {mapping = [#gpu.loop_dim_map<processor = sequential
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @many_2d(%a: memref<10x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c100) step (%c1, %c1) {
    memref.store %cst, %a[%i, %j] : memref<10x100xf32>
    scf.reduce
  }
  return
}

// Sub-byte buffers stay on the host: the loop is not mapped.
// CHECK-LABEL: func.func @sub_byte
// CHECK: scf.parallel
// CHECK-NOT: mapping
// CHECK: return
func.func @sub_byte(%a: memref<8xi4>, %b: memref<8xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %a[%i] : memref<8xi4>
    %w = arith.extsi %v : i4 to i8
    memref.store %w, %b[%i] : memref<8xi8>
    scf.reduce
  }
  return
}

// The lanes of packed bytes (dequantize's [rows, bytes, 2] iteration space
// of 4-bit codes): the innermost dimension (2 codes) becomes a loop in each
// thread, and the byte load and the scale, which do not depend on it, are
// hoisted before that loop: 4 x 16 = 64 threads, one byte load each.
// CHECK-LABEL: func.func @packed_lanes
// CHECK: scf.parallel (%[[G:.*]]) = {{.*}} {
// CHECK: scf.parallel (%[[T:.*]]) = {{.*}} {
// CHECK: scf.if
// CHECK: %[[BYTE:.*]] = memref.load %{{.*}} : memref<4x16xi8>
// CHECK-NEXT: %[[SCALE:.*]] = memref.load %{{.*}} : memref<4xf32>
// CHECK-NEXT: scf.for %[[L:.*]] = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} {
// CHECK-NOT: memref.load
// CHECK: arith.shrui %[[BYTE]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %[[L]]] : memref<4x16x2xf32>
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @packed_lanes(%bytes: memref<4x16xi8>, %scales: memref<4xf32>) -> memref<4x16x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c4_i8 = arith.constant 4 : i8
  %out = memref.alloc() : memref<4x16x2xf32>
  scf.parallel (%n, %j, %l) = (%c0, %c0, %c0) to (%c4, %c16, %c2) step (%c1, %c1, %c1) {
    %byte = memref.load %bytes[%n, %j] : memref<4x16xi8>
    %s = memref.load %scales[%n] : memref<4xf32>
    %lane = arith.index_castui %l : index to i8
    %shift = arith.muli %lane, %c4_i8 : i8
    %code = arith.shrui %byte, %shift : i8
    %q = arith.sitofp %code : i8 to f32
    %w = arith.mulf %q, %s : f32
    memref.store %w, %out[%n, %j, %l] : memref<4x16x2xf32>
    scf.reduce
  }
  return %out : memref<4x16x2xf32>
}

// Not split: the byte is read at an address that depends on the innermost
// index (no packed byte shared by the lanes), or the body writes a buffer
// that is no allocation of its own (it could alias what it reads).
// CHECK-LABEL: func.func @lanes_not_shared
// CHECK-NOT: scf.for
// CHECK: return
func.func @lanes_not_shared(%bytes: memref<4x32xi8>, %out: memref<4x16x2xf32>, %other: memref<4x16xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%n, %j, %l) = (%c0, %c0, %c0) to (%c4, %c16, %c2) step (%c1, %c1, %c1) {
    %k = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%j, %l)
    %byte = memref.load %bytes[%n, %k] : memref<4x32xi8>
    %q = arith.sitofp %byte : i8 to f32
    memref.store %q, %out[%n, %j, %l] : memref<4x16x2xf32>
    scf.reduce
  }
  scf.parallel (%n, %j, %l) = (%c0, %c0, %c0) to (%c4, %c16, %c2) step (%c1, %c1, %c1) {
    %byte = memref.load %other[%n, %j] : memref<4x16xi8>
    %q = arith.sitofp %byte : i8 to f32
    memref.store %q, %out[%n, %j, %l] : memref<4x16x2xf32>
    scf.reduce
  }
  return
}

// A parallel loop inside an scf.for within the mapped loop (from a linalg
// op whose reduction dimension is not innermost: the attention-weighted sum
// of V) becomes a nest of scf.for loops, run in sequence in each thread:
// convert-parallel-loops-to-gpu would leave the whole nest on the host.
// CHECK-LABEL: func.func @parallel_in_for
// CHECK: scf.parallel
// CHECK: scf.for %[[K:.*]] = %c0{{.*}} to %c16
// CHECK-NEXT: scf.for %[[D:.*]] = %c0{{.*}} to %c64
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %[[K]]]
// CHECK-NEXT: memref.load %{{.*}}[%[[K]], %[[D]]]
// CHECK-NOT: scf.parallel
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x
func.func @parallel_in_for(%p: memref<4x16xf32>, %v: memref<16x64xf32>, %o: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%h) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c16 step %c1 {
      scf.parallel (%d) = (%c0) to (%c64) step (%c1) {
        %a = memref.load %p[%h, %k] : memref<4x16xf32>
        %b = memref.load %v[%k, %d] : memref<16x64xf32>
        %c = memref.load %o[%h, %d] : memref<4x64xf32>
        %m = arith.mulf %a, %b : f32
        %s = arith.addf %c, %m : f32
        memref.store %s, %o[%h, %d] : memref<4x64xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
