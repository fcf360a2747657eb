// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-gpu-spirv-buffer-sizes --canonicalize | FileCheck %s

// Each buffer is followed by its size in bytes: constant for static
// shapes (4 x 8 f16 = 64 bytes; 3 i4 codes take a byte each on the host),
// the element size times the dynamic sizes otherwise.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[STATIC:.*]]: memref<4x8xf16>, %[[DYN:.*]]: memref<?x?xf32>, %[[CODES:.*]]: memref<3xi4>)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[D0:.*]] = memref.dim %[[DYN]], %{{.*}} : memref<?x?xf32>
// CHECK: %[[D1:.*]] = memref.dim %[[DYN]], %{{.*}} : memref<?x?xf32>
// CHECK: %[[ELEMENTS:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[ELEMENTS]], %[[C4]] : index
// CHECK: %[[BYTES64:.*]] = arith.index_castui %[[BYTES]] : index to i64
// CHECK: gpu.launch_func @kernels::@k {{.*}} args(%[[STATIC]] : memref<4x8xf16>, %[[C64]] : i64, %[[DYN]] : memref<?x?xf32>, %[[BYTES64]] : i64, %[[CODES]] : memref<3xi4>, %[[C3]] : i64)
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>, "">]
  func.func @host(%static: memref<4x8xf16>, %dynamic: memref<?x?xf32>, %codes: memref<3xi4>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%static : memref<4x8xf16>, %dynamic : memref<?x?xf32>, %codes : memref<3xi4>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>, "">]
  func.func @host(%n: i32) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel operand #0 has type 'i32'; the Vulkan runtime takes identity-layout memrefs of integers or floats only (a pointer and a byte size each)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%n : i32)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>, "">]
  func.func @host(%view: memref<4xf32, strided<[2]>>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel operand #0 has type 'memref<4xf32, strided<[2]>>'; the Vulkan runtime takes identity-layout memrefs of integers or floats only}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%view : memref<4xf32, strided<[2]>>)
    return
  }
}
