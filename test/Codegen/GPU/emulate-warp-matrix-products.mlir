// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-warp-matrix-products))" -verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-warp-matrix-products{workgroup-memory=alloc}))" -verify-diagnostics | FileCheck %s --check-prefix=ALLOC
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-warp-matrix-products{workgroup-memory=global}))" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: workgroup-memory must be 'attribution' or 'alloc', not 'global'

// Two int8 16x8x32 products in a loop with workgroup-uniform bounds, in
// workgroups of 64 threads (two warps): one buffer of 6 x 64 words for the
// launch; each product stores the thread's 4 + 2 registers at slots
// r * 64 + thread, waits, adds to each of its 4 accumulators the 8 words x
// 4 signed bytes of its row of A and column of B (thread 4 g + k % 4 of the
// warp, register i + 2 (k / 4); thread 4 (2 t + j) + k % 4, register 4 +
// k / 4), and waits again.
// CHECK-LABEL: func.func @two_products
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) workgroup(%[[BUF:.*]] : memref<384xi32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK: %[[A0:.*]] = vector.extract %{{.*}}[0] : vector<4xi8> from vector<4x4xi8>
// CHECK: %[[W0:.*]] = vector.bitcast %[[A0]] : vector<4xi8> to vector<1xi32>
// CHECK: %[[V0:.*]] = vector.extract %[[W0]][0] : i32 from vector<1xi32>
// CHECK: %[[S0:.*]] = arith.addi %[[T]], %c0{{.*}} : index
// CHECK: memref.store %[[V0]], %[[BUF]][%[[S0]]]
// CHECK-COUNT-5: memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32 : index
// CHECK: %[[WARP:.*]] = arith.subi %[[T]], %[[LANE]] : index
// CHECK: vector.extract %{{.*}}[0, 0] : i32 from vector<2x2xi32>
// CHECK-COUNT-64: memref.load %[[BUF]]
// CHECK: gpu.barrier
// CHECK: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xi32>
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK-NOT: nvgpu.mma.sync
// ALLOC-LABEL: func.func @two_products
// ALLOC: gpu.launch
// ALLOC-NEXT: %[[BUF:.*]] = memref.alloc() : memref<384xi32, 3>
// ALLOC: memref.store %{{.*}}, %[[BUF]]
// ALLOC-NOT: nvgpu.mma.sync
func.func @two_products(%out: memref<64x4xi32>, %a: vector<4x4xi8>, %b: vector<2x4xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %zero = arith.constant dense<0> : vector<2x2xi32>
    %sum = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> vector<2x2xi32> {
      %p = nvgpu.mma.sync (%a, %b, %acc) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
      %q = nvgpu.mma.sync (%a, %b, %p) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
      scf.yield %q : vector<2x2xi32>
    }
    %e = vector.extract %sum[1, 1] : i32 from vector<2x2xi32>
    memref.store %e, %out[%tx, %c0] : memref<64x4xi32>
    gpu.terminator
  }
  return
}

// -----

// An f16 product (mma.m16n8k16, f32 accumulators): the same registers'
// slots, each word two f16 values, extended, multiplied and added in f32.
// CHECK-LABEL: func.func @f16_product
// CHECK: workgroup(%[[BUF:.*]] : memref<192xi32, #gpu.address_space<workgroup>>)
// CHECK: vector.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: gpu.barrier
// CHECK: %[[A:.*]] = memref.load %[[BUF]]
// CHECK: %[[B:.*]] = memref.load %[[BUF]]
// CHECK: %[[AV:.*]] = vector.from_elements %[[A]] : vector<1xi32>
// CHECK: %[[AH:.*]] = vector.bitcast %[[AV]] : vector<1xi32> to vector<2xf16>
// CHECK: %[[A0:.*]] = vector.extract %[[AH]][0] : f16 from vector<2xf16>
// CHECK: %[[AF:.*]] = arith.extf %[[A0]] : f16 to f32
// CHECK: %[[BF:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK: arith.addf %{{.*}}, %[[P]] : f32
// CHECK-COUNT-15: arith.mulf
// CHECK: gpu.barrier
// CHECK: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
func.func @f16_product(%out: memref<32xf32>, %a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %p = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %e = vector.extract %p[0, 1] : f32 from vector<2x2xf32>
    memref.store %e, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// A bf16 product: the same, each word two bf16 values.
// CHECK-LABEL: func.func @bf16_product
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: gpu.barrier
// CHECK: %[[AH:.*]] = vector.bitcast %{{.*}} : vector<1xi32> to vector<2xbf16>
// CHECK: %[[A0:.*]] = vector.extract %[[AH]][0] : bf16 from vector<2xbf16>
// CHECK: %[[AF:.*]] = arith.extf %[[A0]] : bf16 to f32
// CHECK: %[[BF:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK: arith.addf %{{.*}}, %[[P]] : f32
// CHECK-COUNT-15: arith.mulf
// CHECK: gpu.barrier
// CHECK-NOT: nvgpu.mma.sync
func.func @bf16_product(%out: memref<32xf32>, %a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %p = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %e = vector.extract %p[1, 0] : f32 from vector<2x2xf32>
    memref.store %e, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @tf32_product(%a: vector<4x1xf32>, %b: vector<2x1xf32>, %c: vector<2x2xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'nvgpu.mma.sync' op cannot be emulated: only mmaShape [16, 8, 32] with vector<4x4xi8>, vector<2x4xi8> and vector<2x2xi32> operands (s8 inputs, s32 accumulators) and [16, 8, 16] with vector<4x2xf16>, vector<2x2xf16> (or bf16) and vector<2x2xf32> operands are}}
    %p = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @outside_launch(%a: vector<4x4xi8>, %b: vector<2x4xi8>, %c: vector<2x2xi32>) -> vector<2x2xi32> {
  // expected-error @below {{'nvgpu.mma.sync' op cannot be emulated outside a gpu.launch (its warps are the launch's threads)}}
  %p = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
  return %p : vector<2x2xi32>
}

// -----

func.func @partial_warp(%a: vector<4x4xi8>, %b: vector<2x4xi8>, %c: vector<2x2xi32>) {
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c48, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'nvgpu.mma.sync' op cannot be emulated: the workgroup size must be constant, one-dimensional and whole warps of 32}}
    %p = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
    gpu.terminator
  }
  return
}

// -----

func.func @divergent(%a: vector<4x4xi8>, %b: vector<2x4xi8>, %c: vector<2x2xi32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %first = arith.cmpi eq, %tx, %c1 : index
    scf.if %first {
      // expected-error @below {{'nvgpu.mma.sync' op cannot be emulated with workgroup memory: it is not in workgroup-uniform control flow (only scf.for loops with workgroup-uniform bounds), where barriers would not be reached by every thread}}
      %p = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
    }
    gpu.terminator
  }
  return
}
