// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-shuffles))" -verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-shuffles{workgroup-memory=alloc}))" -verify-diagnostics | FileCheck %s --check-prefix=ALLOC
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-shuffles{workgroup-memory=global}))" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-shuffles{native-width=32}))" | FileCheck %s --check-prefix=NATIVE

// BAD: error: workgroup-memory must be 'attribution' or 'alloc', not 'global'

// Two xor shuffles (f32 and i32, offsets 16 and 1) in a loop with
// workgroup-uniform bounds, both of values there before the first: one
// exchange. Each value goes to its own slots of a workgroup buffer (2 x 64
// words), then one barrier; each shuffle loads thread (t xor offset)'s slot
// where it was, and a barrier follows the last load (the buffer is reused).
// CHECK-LABEL: func.func @butterfly
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in {{.*}} workgroup(%[[BUF:.*]] : memref<128xi32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: memref.store %[[BITS]], %[[BUF]][%[[T]]]
// CHECK: %[[SLOT:.*]] = arith.addi %[[T]], %c64
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[SLOT]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[OFF:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[P:.*]] = arith.xori %[[T]], %[[OFF]] : index
// CHECK-NEXT: %[[THEIRS:.*]] = memref.load %[[BUF]][%[[P]]]
// CHECK-NEXT: %[[F:.*]] = arith.bitcast %[[THEIRS]] : i32 to f32
// CHECK: arith.addf %{{.*}}, %[[F]] : f32
// CHECK: %[[OFF2:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[P2:.*]] = arith.xori %[[T]], %[[OFF2]] : index
// CHECK: %[[SLOT2:.*]] = arith.addi %[[P2]], %c64
// CHECK-NEXT: %[[I:.*]] = memref.load %[[BUF]][%[[SLOT2]]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store %[[I]], %{{.*}}[%[[T]]] : memref<64xi32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.shuffle
// ALLOC-LABEL: func.func @butterfly
// ALLOC: gpu.launch
// ALLOC-NEXT: %[[BUF:.*]] = memref.alloc() : memref<128xi32, 3>
// ALLOC: memref.store %{{.*}}, %[[BUF]]
// ALLOC-NOT: gpu.shuffle
func.func @butterfly(%out: memref<64xf32>, %iout: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 16 : i32
  %o2 = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    scf.for %i = %bx to %c4 step %gx {
      %t = arith.index_cast %tx : index to i32
      %v = arith.sitofp %t : i32 to f32
      %s, %valid = gpu.shuffle xor %v, %o, %w : f32
      %sum = arith.addf %v, %s : f32
      memref.store %sum, %out[%tx] : memref<64xf32>
      %is, %ivalid = gpu.shuffle xor %t, %o2, %w : i32
      memref.store %is, %iout[%tx] : memref<64xi32>
    }
    gpu.terminator
  }
  return
}

// -----

func.func @divergent(%out: memref<64xf32>, %flag: i1) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 16 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %v = arith.constant 1.0 : f32
      // expected-error @below {{'gpu.shuffle' op cannot be emulated with workgroup memory: it is not in workgroup-uniform control flow (only scf.for loops with workgroup-uniform bounds), where barriers would not be reached by every thread}}
      %s, %valid = gpu.shuffle xor %v, %o, %w : f32
      memref.store %s, %out[%tx] : memref<64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

func.func @per_thread_loop(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 16 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %tx step %c1 {
      %v = arith.constant 1.0 : f32
      // expected-error @below {{'gpu.shuffle' op cannot be emulated with workgroup memory: it is not in workgroup-uniform control flow}}
      %s, %valid = gpu.shuffle xor %v, %o, %w : f32
      memref.store %s, %out[%tx] : memref<64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

func.func @width_not_dividing(%out: memref<48xf32>) {
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 16 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c48, %sy = %c1, %sz = %c1) {
    %v = arith.constant 1.0 : f32
    // expected-error @below {{'gpu.shuffle' op cannot be emulated with workgroup memory: the width (32) must be a power of two dividing the workgroup size (48) and the offset (16) below it}}
    %s, %valid = gpu.shuffle xor %v, %o, %w : f32
    memref.store %s, %out[%tx] : memref<48xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @not_xor(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 16 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = arith.constant 1.0 : f32
    // expected-error @below {{'gpu.shuffle' op cannot be emulated with workgroup memory: only xor shuffles are emulated}}
    %s, %valid = gpu.shuffle down %v, %o, %w : f32
    memref.store %s, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @dynamic_offset(%out: memref<64xf32>, %o: i32) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = arith.constant 1.0 : f32
    // expected-error @below {{'gpu.shuffle' op cannot be emulated with workgroup memory: the offset and the width must be constants}}
    %s, %valid = gpu.shuffle xor %v, %o, %w : f32
    memref.store %s, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @wide_value(%out: memref<64xf64>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 16 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = arith.constant 1.0 : f64
    // expected-error @below {{'gpu.shuffle' op cannot be emulated with workgroup memory: only 32-bit scalars are emulated}}
    %s, %valid = gpu.shuffle xor %v, %o, %w : f64
    memref.store %s, %out[%tx] : memref<64xf64>
    gpu.terminator
  }
  return
}

// -----

func.func @two_dimensional(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 16 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c2, %sz = %c1) {
    %v = arith.constant 1.0 : f32
    // expected-error @below {{'gpu.shuffle' op cannot be emulated: the workgroup size must be constant and one-dimensional}}
    %s, %valid = gpu.shuffle xor %v, %o, %w : f32
    memref.store %s, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// One step of a butterfly over three sums (the same width, all values
// there before the first shuffle): one exchange, three slots of 128
// threads each, one pair of barriers. The next step (width 128, offset 32,
// whose values are the first step's sums) is an exchange of its own.
// CHECK-LABEL: func.func @batched
// CHECK: workgroup(%[[BUF:.*]] : memref<384xi32, #gpu.address_space<workgroup>>)
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[T:.*]]] :
// CHECK: %[[S1:.*]] = arith.addi %[[T]], %c128
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[S1]]]
// CHECK: %[[S2:.*]] = arith.addi %[[T]], %c256
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[S2]]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-2: memref.load %[[BUF]]
// CHECK: memref.load %[[BUF]]
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[BUF]]
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// With native-width=32 the width-32 step stays a warp shuffle and only the
// exchange between warps (width 128) goes through workgroup memory.
// NATIVE-LABEL: func.func @batched
// NATIVE: workgroup(%{{.*}} : memref<128xi32, #gpu.address_space<workgroup>>)
// NATIVE-COUNT-3: gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// NATIVE: gpu.barrier
// NATIVE: gpu.barrier
// NATIVE-NOT: gpu.shuffle
// NATIVE-NOT: gpu.barrier
func.func @batched(%out: memref<3x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %w32 = arith.constant 32 : i32
  %w128 = arith.constant 128 : i32
  %o16 = arith.constant 16 : i32
  %o32 = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %v = arith.sitofp %t : i32 to f32
    %v1 = arith.addf %v, %v : f32
    %v2 = arith.mulf %v, %v : f32
    %s0, %ok0 = gpu.shuffle xor %v, %o16, %w32 : f32
    %a0 = arith.addf %v, %s0 : f32
    %s1, %ok1 = gpu.shuffle xor %v1, %o16, %w32 : f32
    %a1 = arith.addf %v1, %s1 : f32
    %s2, %ok2 = gpu.shuffle xor %v2, %o16, %w32 : f32
    %a2 = arith.addf %v2, %s2 : f32
    memref.store %a2, %out[%c2, %tx] : memref<3x128xf32>
    %u, %oku = gpu.shuffle xor %a0, %o32, %w128 : f32
    %b0 = arith.addf %a0, %u : f32
    memref.store %b0, %out[%c0, %tx] : memref<3x128xf32>
    memref.store %a1, %out[%c1, %tx] : memref<3x128xf32>
    gpu.terminator
  }
  return
}

// -----

// Lane 0 gathering two terms of every lane in lane order (the integer
// matmul kernel's sum of block terms): shuffles by xor 1, 2, 3 of two values
// computed before the first, their results feeding a chain of FMAs. One
// exchange: two slots (one per value, whatever its offsets), one barrier
// after the stores, one after the last load; each load where its shuffle
// was, so the FMAs keep their order.
// CHECK-LABEL: func.func @gather
// CHECK: workgroup(%[[BUF:.*]] : memref<64xi32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-2: memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-2: memref.load %[[BUF]]
// CHECK: math.fma
// CHECK-COUNT-2: memref.load %[[BUF]]
// CHECK: math.fma
// CHECK: memref.load %[[BUF]]
// CHECK: memref.load %[[BUF]]
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: gpu.barrier
// CHECK: math.fma
// CHECK-NOT: gpu.barrier
// NATIVE-LABEL: func.func @gather
// NATIVE-COUNT-6: gpu.shuffle xor
// NATIVE-NOT: gpu.barrier
func.func @gather(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %w = arith.constant 32 : i32
  %o1 = arith.constant 1 : i32
  %o2 = arith.constant 2 : i32
  %o3 = arith.constant 3 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %sum = arith.sitofp %t : i32 to f32
    %scale = arith.mulf %sum, %sum : f32
    %s1, %ok1 = gpu.shuffle xor %sum, %o1, %w : f32
    %c1s, %okc1 = gpu.shuffle xor %scale, %o1, %w : f32
    %a1 = math.fma %s1, %c1s, %sum : f32
    %s2, %ok2 = gpu.shuffle xor %sum, %o2, %w : f32
    %c2s, %okc2 = gpu.shuffle xor %scale, %o2, %w : f32
    %a2 = math.fma %s2, %c2s, %a1 : f32
    %s3, %ok3 = gpu.shuffle xor %sum, %o3, %w : f32
    %c3s, %okc3 = gpu.shuffle xor %scale, %o3, %w : f32
    %a3 = math.fma %s3, %c3s, %a2 : f32
    memref.store %a3, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
