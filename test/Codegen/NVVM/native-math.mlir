// RUN: quant-opt %s --pass-pipeline="builtin.module(gpu.module(quant-block-gpu-native-math))" | FileCheck %s

// libdevice functions that one PTX instruction computes exactly become LLVM
// intrinsics (and their declarations go); others stay calls.
// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT: llvm.func @__nv_rintf
// CHECK-NOT: llvm.func @__nv_fabs(
// CHECK-NOT: llvm.func @__nv_sqrtf
// CHECK: llvm.func @__nv_expf(f32) -> f32
// CHECK-LABEL: llvm.func @k
// CHECK: %[[R:.*]] = llvm.intr.roundeven(%{{.*}}) : (f32) -> f32
// CHECK: %[[A:.*]] = llvm.intr.fabs(%{{.*}}) : (f64) -> f64
// CHECK: %[[F:.*]] = llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// CHECK: %[[S:.*]] = llvm.intr.sqrt(%[[F]]) : (f32) -> f32
// CHECK: llvm.call @__nv_expf(%[[S]])
gpu.module @kernels {
  llvm.func @__nv_rintf(f32) -> f32
  llvm.func @__nv_fabs(f64) -> f64
  llvm.func @__nv_fmaf(f32, f32, f32) -> f32
  llvm.func @__nv_sqrtf(f32) -> f32
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @k(%x: f32, %y: f64) -> f32 {
    %r = llvm.call @__nv_rintf(%x) : (f32) -> f32
    %a = llvm.call @__nv_fabs(%y) : (f64) -> f64
    %f = llvm.call @__nv_fmaf(%r, %r, %x) : (f32, f32, f32) -> f32
    %s = llvm.call @__nv_sqrtf(%f) : (f32) -> f32
    %e = llvm.call @__nv_expf(%s) : (f32) -> f32
    llvm.return %e : f32
  }
}
