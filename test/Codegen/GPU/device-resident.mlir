// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-gpu-data-movement | FileCheck %s

// A device-resident argument (quant_block.device_resident) reaches the kernel
// as it is, directly and through a view: no device allocation, no copy in,
// no copy out, no free. The host argument beside it is copied as usual.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%w: memref<4x16xf32>, %x: memref<16xf32>, %y: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %a = memref.load %w[%c0, %i] : memref<4x16xf32>
      %b = memref.load %x[%i] : memref<16xf32>
      %p = arith.mulf %a, %b : f32
      memref.store %p, %y[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @flat(%w: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %w[%i] : memref<64xf32>
      %s = arith.addf %v, %v : f32
      memref.store %s, %w[%i] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @resident
  // CHECK-SAME: (%[[W:.*]]: memref<4x16xf32> {quant_block.device_resident}, %[[X:.*]]: memref<16xf32>)
  func.func @resident(%w: memref<4x16xf32> {quant_block.device_resident}, %x: memref<16xf32>) -> memref<16xf32> {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %y = memref.alloc() : memref<16xf32>
    %d = memref.dim %w, %c1 : memref<4x16xf32>
    // CHECK: %[[XD:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<16xf32>
    // CHECK-NEXT: gpu.memcpy async {{.*}} %[[XD]], %[[X]]
    // (%y is a fresh allocation: copied out, not in.)
    // CHECK-NEXT: %[[YD:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<16xf32>
    // CHECK-NEXT: %[[L1:.*]] = gpu.launch_func async {{.*}} @kernels::@scale {{.*}} args(%[[W]] : memref<4x16xf32>, %[[XD]] : memref<16xf32>, %[[YD]] : memref<16xf32>)
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%d, %c1, %c1)
        args(%w : memref<4x16xf32>, %x : memref<16xf32>, %y : memref<16xf32>)
    // A view of it, written by the kernel: still no copy. The device
    // copies of %x and %y live on until the return.
    // CHECK-NEXT: %[[FLAT:.*]] = memref.collapse_shape %[[W]]
    // CHECK-NEXT: %[[L:.*]] = gpu.launch_func async [%[[L1]]] @kernels::@flat {{.*}} args(%[[FLAT]] : memref<64xf32>)
    // CHECK-NEXT: gpu.memcpy async [%[[L]]] %{{.*}}, %[[YD]]
    // CHECK-NEXT: gpu.dealloc async {{.*}} %[[XD]]
    // CHECK-NEXT: gpu.dealloc async {{.*}} %[[YD]]
    // CHECK-NEXT: gpu.wait
    // CHECK-NEXT: return
    %flat = memref.collapse_shape %w [[0, 1]] : memref<4x16xf32> into memref<64xf32>
    gpu.launch_func @kernels::@flat blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%flat : memref<64xf32>)
    return %y : memref<16xf32>
  }
}

// -----

// Host code must not read a device-resident argument's elements.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%w: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // expected-note @below {{the argument is declared here}}
  func.func @host_load(%w: memref<16xf32> {quant_block.device_resident}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%w : memref<16xf32>)
    // expected-error @below {{'memref.load' op accesses device-resident argument #0 of @host_load on the host ('quant_block.device_resident': its elements live on the device only, so only kernels may read or write them)}}
    %v = memref.load %w[%c0] : memref<16xf32>
    return %v : f32
  }
}

// -----

// Nor copy it on the host, even through a view.
module attributes {gpu.container_module} {
  // expected-note @below {{the argument is declared here}}
  func.func @host_copy(%w: memref<4x4xf32> {quant_block.device_resident}, %out: memref<16xf32>) {
    %flat = memref.collapse_shape %w [[0, 1]] : memref<4x4xf32> into memref<16xf32>
    // expected-error @below {{'memref.copy' op accesses device-resident argument #0 of @host_copy on the host}}
    memref.copy %flat, %out : memref<16xf32> to memref<16xf32>
    return
  }
}

// -----

// It must be a buffer once bufferized.
module attributes {gpu.container_module} {
  // expected-error @below {{'func.func' op device-resident argument #0 has type 'tensor<16xf32>' after bufferization; only memrefs can live on the device}}
  func.func @tensor(%w: tensor<16xf32> {quant_block.device_resident}) {
    return
  }
}

// -----

// A function whose arguments are device-resident (a model's layer function)
// takes a view of the caller's device-resident argument, and a buffer that
// only kernels and such calls use, which lives on the device only: no
// copies around the call.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%a: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func private @layer(%w: memref<4xf32, strided<[1], offset: 4>> {quant_block.device_resident},
                           %x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }
  // CHECK-LABEL: func.func @forward
  // CHECK-SAME: (%[[W:.*]]: memref<16xf32> {quant_block.device_resident})
  // CHECK: %[[X:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<16xf32>
  // CHECK: %[[VIEW:.*]] = memref.subview %[[W]]
  // CHECK: call @layer(%[[VIEW]], %[[X]])
  // CHECK-NOT: gpu.memcpy
  // CHECK: gpu.dealloc async [%{{.*}}] %[[X]]
  // CHECK-NOT: gpu.memcpy
  // CHECK: return
  func.func @forward(%w: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    %view = memref.subview %w[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
    call @layer(%view, %x) : (memref<4xf32, strided<[1], offset: 4>>, memref<16xf32>) -> ()
    memref.dealloc %x : memref<16xf32>
    return
  }
}

// -----

// A host buffer must not reach a device-resident argument of a callee.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%a: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func private @layer(%x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }
  func.func @forward(%host: memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 1.0 : f32
    memref.store %cst, %host[%c0] : memref<16xf32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%host : memref<16xf32>)
    // expected-error @below {{'func.call' op passes a host buffer as device-resident argument #0 of @layer (a device-resident argument of the caller or a buffer that only kernels and such arguments use is needed)}}
    call @layer(%host) : (memref<16xf32>) -> ()
    return
  }
}
