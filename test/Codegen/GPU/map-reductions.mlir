// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-reductions{workgroup-size=64 max-workgroups=4}))" | FileCheck %s
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-reductions{workgroup-memory=alloc}))" | FileCheck %s --check-prefix=ALLOC
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-reductions{workgroup-memory=global}))" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-reductions{subgroup-size=8}))" | FileCheck %s --check-prefix=SUB8
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-reductions{subgroup-size=64}))" | FileCheck %s --check-prefix=SUB64
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-reductions{subgroup-size=12}))" 2>&1 | FileCheck %s --check-prefix=BADSUB

// BAD: error: workgroup-memory must be 'attribution' or 'alloc', not 'global'
// BADSUB: error: subgroup-size must be 0 or a power of two, not 12

// A GEMV whose k sum may be reassociated: 5 output elements, at most 4
// workgroups (each takes outputs b, b + 4, ...), 64 threads striding over k
// with stride 64, a tree of six steps in workgroup memory, thread 0 adding
// the total to the initial value (in the body's operand order: out + sum).
// CHECK-LABEL: func.func @reassoc
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[BUF:.*]] : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[N:.*]] = %[[B]] to %{{.*}} step %{{.*}} {
// CHECK: %[[NEUTRAL:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[PART:.*]] = scf.for %[[K:.*]] = %[[T]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[NEUTRAL]]) -> (f32) {
// CHECK: memref.load %{{.*}}[%[[K]]] : memref<256xf32>
// CHECK: memref.load %{{.*}}[%[[N]], %[[K]]] : memref<5x256xf32>
// CHECK: arith.mulf {{.*}} fastmath<reassoc,contract>
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %{{.*}} fastmath<reassoc,contract>
// CHECK: scf.yield %[[S]]
// CHECK: memref.store %[[PART]], %[[BUF]][%[[T]]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-6: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[%[[N]]] : memref<5xf32>
// CHECK: %[[TOTAL:.*]] = memref.load %[[BUF]][%c0{{.*}}]
// CHECK: %[[R:.*]] = arith.addf %[[INIT]], %[[TOTAL]] fastmath<reassoc,contract>
// CHECK: memref.store %[[R]], %{{.*}}[%[[N]]] : memref<5xf32>
// CHECK: gpu.barrier
// CHECK-NOT: linalg.generic
// With subgroups of 8 threads the tree's first three steps (32, 16 and 8
// sums left) stay in workgroup memory, the last three (4, 2, 1) are xor
// shuffles of width 8 that every thread runs, and thread 0 adds its
// register's total: no barrier after it (each thread read only its own
// slot after the tree's last barrier).
// SUB8-LABEL: func.func @reassoc
// SUB8: memref.store %{{.*}}, %[[BUF:.*]][%[[T:.*]]]
// SUB8-NEXT: gpu.barrier
// SUB8-COUNT-3: gpu.barrier
// SUB8-NEXT: %[[MINE:.*]] = memref.load %[[BUF]][%[[T]]]
// SUB8: %[[W:.*]] = arith.constant 8 : i32
// SUB8: %[[O4:.*]] = arith.constant 4 : i32
// SUB8: %[[S4:.*]], %{{.*}} = gpu.shuffle xor %[[MINE]], %[[O4]], %[[W]] : f32
// SUB8: %[[A4:.*]] = arith.addf %[[MINE]], %[[S4]] fastmath<reassoc,contract>
// SUB8: gpu.shuffle xor %[[A4]]
// SUB8: arith.addf
// SUB8: gpu.shuffle xor
// SUB8: %[[TOTAL:.*]] = arith.addf
// SUB8: scf.if
// SUB8: %[[INIT:.*]] = memref.load
// SUB8-NEXT: arith.addf %[[INIT]], %[[TOTAL]]
// SUB8-NOT: gpu.barrier
// SUB8: scf.yield
// One subgroup of 64 holds the whole workgroup: the tree is six shuffles.
// SUB64-LABEL: func.func @reassoc
// SUB64-NOT: gpu.barrier
// SUB64-COUNT-6: gpu.shuffle xor
// SUB64-NOT: gpu.barrier
// SUB64: return
// ALLOC-LABEL: func.func @reassoc
// ALLOC: gpu.launch
// ALLOC-NOT: workgroup(
// ALLOC: memref.alloc() : memref<64xf32, 3>
#k2 = affine_map<(n, k) -> (k)>
#nk = affine_map<(n, k) -> (n, k)>
#n = affine_map<(n, k) -> (n)>
func.func @reassoc(%x: memref<256xf32>, %w: memref<5x256xf32>, %y: memref<5xf32>) {
  linalg.generic {indexing_maps = [#k2, #nk, #n], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<256xf32>, memref<5x256xf32>) outs(%y : memref<5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b fastmath<reassoc,contract> : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Strict order (no reassoc on the addf): left to the sequential loop.
// CHECK-LABEL: func.func @strict
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
#k2 = affine_map<(n, k) -> (k)>
#nk = affine_map<(n, k) -> (n, k)>
#n = affine_map<(n, k) -> (n)>
func.func @strict(%x: memref<256xf32>, %w: memref<5x256xf32>, %y: memref<5xf32>) {
  linalg.generic {indexing_maps = [#k2, #nk, #n], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<256xf32>, memref<5x256xf32>) outs(%y : memref<5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 32 iterations, fewer than min-reduction-size: left alone.
// CHECK-LABEL: func.func @short
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
#k2 = affine_map<(n, k) -> (k)>
#nk = affine_map<(n, k) -> (n, k)>
#n = affine_map<(n, k) -> (n)>
func.func @short(%x: memref<32xf32>, %w: memref<5x32xf32>, %y: memref<5xf32>) {
  linalg.generic {indexing_maps = [#k2, #nk, #n], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<32xf32>, memref<5x32xf32>) outs(%y : memref<5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b fastmath<reassoc> : f32
    %s = arith.addf %p, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Integer sums are associative: two reduction dimensions (4 blocks of 32)
// collapse to one of 128, delinearized in each iteration; linalg.index
// reads the reconstructed index; 2 x 3 outputs collapse to 6 workgroups,
// capped at 4. The total is added in the body's operand order (sum + out).
// CHECK-LABEL: func.func @integer
// CHECK: gpu.launch {{.*}} workgroup(%[[BUF:.*]] : memref<64xi32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[O:.*]] = %{{.*}} to %c6{{.*}} step %c4
// CHECK: %[[MN:.*]]:2 = affine.delinearize_index %[[O]] into (2, 3)
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %c128{{.*}} step %c64{{.*}} iter_args(%[[ACC:.*]] = %c0_i32)
// CHECK: %[[KK:.*]]:2 = affine.delinearize_index %[[R]] into (4, 32)
// CHECK: memref.load %{{.*}}[%[[MN]]#0, %[[KK]]#0, %[[KK]]#1] : memref<2x4x32xi8>
// CHECK: memref.load %{{.*}}[%[[MN]]#1, %[[KK]]#0, %[[KK]]#1] : memref<3x4x32xi8>
// CHECK: arith.index_cast %[[KK]]#1
// CHECK: arith.addi %{{.*}}, %[[ACC]] : i32
// CHECK: scf.if
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[%[[MN]]#0, %[[MN]]#1] : memref<2x3xi32>
// CHECK: %[[TOTAL:.*]] = memref.load %[[BUF]]
// CHECK: arith.addi %[[TOTAL]], %[[INIT]] : i32
#blk = affine_map<(m, n, kb, kp) -> (m, kb, kp)>
#wblk = affine_map<(m, n, kb, kp) -> (n, kb, kp)>
#out = affine_map<(m, n, kb, kp) -> (m, n)>
func.func @integer(%x: memref<2x4x32xi8>, %w: memref<3x4x32xi8>, %y: memref<2x3xi32>) {
  linalg.generic {indexing_maps = [#blk, #wblk, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<2x4x32xi8>, memref<3x4x32xi8>) outs(%y : memref<2x3xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %ea = arith.extsi %a : i8 to i32
    %eb = arith.extsi %b : i8 to i32
    %p = arith.muli %ea, %eb : i32
    %kp = linalg.index 3 : index
    %ki = arith.index_cast %kp : index to i32
    %q = arith.addi %p, %ki : i32
    %s = arith.addi %q, %acc : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// The innermost loop is parallel (the front half's per-position partial
// sums): threads would not read consecutive elements; left alone.
// CHECK-LABEL: func.func @innermost_parallel
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
#pb = affine_map<(n, kb, kp) -> (kb, kp)>
#pw = affine_map<(n, kb, kp) -> (n, kb, kp)>
#po = affine_map<(n, kb, kp) -> (n, kp)>
func.func @innermost_parallel(%x: memref<128x32xf32>, %w: memref<5x128x32xf32>, %y: memref<5x32xf32>) {
  linalg.generic {indexing_maps = [#pb, #pw, #po], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<128x32xf32>, memref<5x128x32xf32>) outs(%y : memref<5x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b fastmath<reassoc> : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The output's running value used twice (not a plain sum): left alone.
// CHECK-LABEL: func.func @not_a_sum
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
#k2 = affine_map<(n, k) -> (k)>
#n = affine_map<(n, k) -> (n)>
func.func @not_a_sum(%x: memref<256xi32>, %y: memref<5xi32>) {
  linalg.generic {indexing_maps = [#k2, #n], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256xi32>) outs(%y : memref<5xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %p = arith.muli %a, %acc : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// No output element: nothing to launch.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
#k2 = affine_map<(n, k) -> (k)>
#n = affine_map<(n, k) -> (n)>
func.func @empty(%x: memref<256xi32>, %y: memref<0xi32>) {
  linalg.generic {indexing_maps = [#k2, #n], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256xi32>) outs(%y : memref<0xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %acc, %a : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Max and min are associative and commutative exactly: over rows of at
// least min-extremum-reduction-size (1024), a workgroup per output element
// and a tree like a sum's, each thread's partial result starting from the
// value every other beats (-inf for maximumf, whose NaN still wins).
// CHECK-LABEL: func.func @row_max
// CHECK: gpu.launch
// CHECK: %[[LOW:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[LOW]]) -> (f32)
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
#x = affine_map<(r, k) -> (r, k)>
#r = affine_map<(r, k) -> (r)>
func.func @row_max(%x: memref<4x1024xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x1024xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// maxnumf and minnumf return the other operand of a NaN: NaN is what every
// other value beats. The integer max and min start from the type's
// extremes.
// CHECK-LABEL: func.func @other_extremes
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[NAN]]) -> (f32)
// CHECK: arith.minnumf
// CHECK: %[[SMIN:.*]] = arith.constant -2147483648 : i32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[SMIN]]) -> (i32)
// CHECK: arith.maxsi
// CHECK: %[[UMAX:.*]] = arith.constant -1 : i32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[UMAX]]) -> (i32)
// CHECK: arith.minui
// CHECK-NOT: linalg.generic
#x = affine_map<(r, k) -> (r, k)>
#r = affine_map<(r, k) -> (r)>
func.func @other_extremes(%f: memref<4x1024xf32>, %lo: memref<4xf32>, %i: memref<4x1024xi32>, %smax: memref<4xi32>, %umin: memref<4xi32>) {
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%f : memref<4x1024xf32>) outs(%lo : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.minnumf %a, %acc : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%i : memref<4x1024xi32>) outs(%smax : memref<4xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %acc, %a : i32
    linalg.yield %m : i32
  }
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%i : memref<4x1024xi32>) outs(%umin : memref<4xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.minui %acc, %a : i32
    linalg.yield %m : i32
  }
  return
}

// -----

// A max over rows shorter than min-extremum-reduction-size (a quantization
// block's max |x|) stays a loop: left alone. With the option lowered, a tree.
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-map-reductions{min-extremum-reduction-size=256}))" | FileCheck %s --check-prefix=EXTREMUM256
// CHECK-LABEL: func.func @short_max
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// EXTREMUM256-LABEL: func.func @short_max
// EXTREMUM256: gpu.launch
// EXTREMUM256-NOT: linalg.generic
#x = affine_map<(r, k) -> (r, k)>
#r = affine_map<(r, k) -> (r)>
func.func @short_max(%x: memref<4x256xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  return
}
