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
