// RUN: quant-opt %s --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-shuffles{native-width=8 workgroup-memory=alloc}))" | FileCheck %s
// RUN: quant-opt %s --pass-pipeline="builtin.module(func.func(quant-block-gpu-emulate-shuffles{native-width=64 workgroup-memory=alloc}))" | FileCheck %s --check-prefix=SUB64

// A warp's butterfly on a device with subgroups of 8 threads
// (native-width=8, the SPIR-V pipeline's subgroup-size=8): the offsets 16
// and 8 reach into other subgroups and go through workgroup memory; 4, 2
// and 1 stay within a subgroup and stay shuffles, of width 8 (the width
// convert-gpu-to-spirv lowers for such a target).
// CHECK-LABEL: func.func @warp_butterfly
// CHECK-DAG: %[[O16:.*]] = arith.constant 16 : i32
// CHECK-DAG: %[[O8:.*]] = arith.constant 8 : i32
// CHECK: memref.alloc() : memref<64xi32, 3>
// CHECK: gpu.barrier
// CHECK: arith.index_cast %[[O16]] : i32 to index
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: arith.index_cast %[[O8]] : i32 to index
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[W1:.*]] = arith.constant 8 : i32
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %{{.*}}, %[[W1]] : f32
// CHECK: %[[W2:.*]] = arith.constant 8 : i32
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %{{.*}}, %[[W2]] : f32
// CHECK: %[[W3:.*]] = arith.constant 8 : i32
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %{{.*}}, %[[W3]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// Subgroups of 64 threads hold whole warps: every step stays a shuffle,
// each of width 64, and nothing goes through workgroup memory.
// SUB64-LABEL: func.func @warp_butterfly
// SUB64-NOT: memref.alloc
// SUB64-NOT: gpu.barrier
// SUB64-COUNT-5: gpu.shuffle xor %{{.*}}, %{{.*}}, %c64_i32
// SUB64-NOT: gpu.barrier
func.func @warp_butterfly(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w32 = arith.constant 32 : i32
  %o16 = arith.constant 16 : i32
  %o8 = arith.constant 8 : i32
  %o4 = arith.constant 4 : i32
  %o2 = arith.constant 2 : i32
  %o1 = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %v = arith.sitofp %t : i32 to f32
    %s16, %k16 = gpu.shuffle xor %v, %o16, %w32 : f32
    %a16 = arith.addf %v, %s16 : f32
    %s8, %k8 = gpu.shuffle xor %a16, %o8, %w32 : f32
    %a8 = arith.addf %a16, %s8 : f32
    %s4, %k4 = gpu.shuffle xor %a8, %o4, %w32 : f32
    %a4 = arith.addf %a8, %s4 : f32
    %s2, %k2 = gpu.shuffle xor %a4, %o2, %w32 : f32
    %a2 = arith.addf %a4, %s2 : f32
    %s1, %k1 = gpu.shuffle xor %a2, %o1, %w32 : f32
    %a1 = arith.addf %a2, %s1 : f32
    memref.store %a1, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
