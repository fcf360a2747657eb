// RUN: quant-opt %s --split-input-file --quant-block-gpu-data-movement | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-gpu-data-movement="ordered-queue=false" | FileCheck %s --check-prefix=OFF

// A private function's kernels on device-resident buffers are left queued
// at its return, and the caller's chain goes on past the call: the decode
// step of a model waits once, at the public function's return, for every
// function's work. Without ordered-queue each chain is waited for.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%a: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func private @layer
  // CHECK: %[[T0:.*]] = gpu.wait async
  // CHECK-NEXT: gpu.launch_func async [%[[T0]]] @kernels::@fill
  // CHECK-NOT: gpu.wait
  // CHECK: return
  // OFF-LABEL: func.func private @layer
  // OFF: gpu.launch_func async
  // OFF-NEXT: gpu.wait [
  // OFF-NEXT: return
  func.func private @layer(%x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }
  // CHECK-LABEL: func.func @forward
  // CHECK: %[[X:.*]], %[[T1:.*]] = gpu.alloc async
  // CHECK: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@fill
  // CHECK-NOT: gpu.wait
  // CHECK: call @layer(%[[X]])
  // CHECK-NOT: gpu.wait
  // CHECK: call @layer(%[[X]])
  // CHECK-NEXT: %[[T3:.*]] = gpu.launch_func async [%[[T2]]] @kernels::@fill
  // CHECK-NEXT: %[[T4:.*]] = gpu.dealloc async [%[[T3]]] %[[X]]
  // CHECK-NEXT: gpu.wait [%[[T4]]]
  // CHECK-NEXT: return
  // OFF-LABEL: func.func @forward
  // OFF: gpu.launch_func async
  // OFF-NEXT: gpu.wait [
  // OFF-NEXT: call @layer
  // OFF-NEXT: call @layer
  func.func @forward() {
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    call @layer(%x) : (memref<16xf32>) -> ()
    call @layer(%x) : (memref<16xf32>) -> ()
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    memref.dealloc %x : memref<16xf32>
    return
  }
}

// -----

// A function with no kernels of its own that calls one leaving work queued
// starts a chain after the call, to wait for at its return. A public
// callee (the host may call it too) waits before it returns.
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
  // CHECK-LABEL: func.func @public_layer
  // CHECK: gpu.launch_func async
  // CHECK-NEXT: gpu.wait [
  // CHECK-NEXT: return
  func.func @public_layer(%x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }
  // CHECK-LABEL: func.func @only_calls
  // CHECK-SAME: (%[[X:.*]]: memref<16xf32> {quant_block.device_resident})
  // CHECK-NEXT: call @layer(%[[X]])
  // CHECK-NEXT: %[[T:.*]] = gpu.wait async
  // CHECK-NEXT: call @public_layer(%[[X]])
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: return
  // OFF-LABEL: func.func @only_calls
  // OFF-NEXT: call @layer
  // OFF-NEXT: call @public_layer
  // OFF-NEXT: return
  func.func @only_calls(%x: memref<16xf32> {quant_block.device_resident}) {
    call @layer(%x) : (memref<16xf32>) -> ()
    call @public_layer(%x) : (memref<16xf32>) -> ()
    return
  }
}

// -----

// Host buffers at a call: a device copy that a kernel wrote goes back to
// the host, waited for, before the call (the callee may read it there); a
// copy the kernels only read is freed in the chain, with no wait.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%a: memref<16xf32>) kernel {
      gpu.return
    }
    gpu.func @read(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @write(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = arith.constant 1.0 : f32
      memref.store %v, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func private @layer(%x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }
  // CHECK-LABEL: func.func @read_only_copy
  // CHECK-SAME: (%[[H:.*]]: memref<16xf32>, %[[X:.*]]: memref<16xf32> {quant_block.device_resident})
  // CHECK: %[[D:.*]], %{{.*}} = gpu.alloc async
  // CHECK: gpu.memcpy async [%{{.*}}] %[[D]], %[[H]]
  // CHECK: %[[T0:.*]] = gpu.launch_func async {{.*}} @kernels::@read
  // CHECK-NEXT: %[[T1:.*]] = gpu.dealloc async [%[[T0]]] %[[D]]
  // CHECK-NEXT: call @layer(%[[X]])
  // CHECK-NEXT: gpu.wait [%[[T1]]]
  // CHECK-NEXT: return
  func.func @read_only_copy(%host: memref<16xf32>, %x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%host : memref<16xf32>)
    call @layer(%x) : (memref<16xf32>) -> ()
    return
  }
  // CHECK-LABEL: func.func @written_copy
  // CHECK-SAME: (%[[H:.*]]: memref<16xf32>, %[[X:.*]]: memref<16xf32> {quant_block.device_resident})
  // CHECK: gpu.launch_func async {{.*}} @kernels::@write
  // CHECK-NEXT: %[[T0:.*]] = gpu.memcpy async [%{{.*}}] %[[H]], %{{.*}}
  // CHECK-NEXT: %[[T1:.*]] = gpu.dealloc async [%[[T0]]]
  // CHECK-NEXT: gpu.wait [%[[T1]]]
  // CHECK-NEXT: call @layer(%[[X]])
  // CHECK-NEXT: %[[T2:.*]] = gpu.wait async
  // CHECK-NEXT: gpu.wait [%[[T2]]]
  // CHECK-NEXT: return
  func.func @written_copy(%host: memref<16xf32>, %x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%host : memref<16xf32>)
    call @layer(%x) : (memref<16xf32>) -> ()
    return
  }
}

// -----

// A private function that something other than a call refers to may be
// called from anywhere: it waits at its return. So does one that writes a
// host buffer its caller passed.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @write(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = arith.constant 1.0 : f32
      memref.store %v, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func private @referenced
  // CHECK: gpu.launch_func async
  // CHECK-NEXT: gpu.wait [
  // CHECK-NEXT: return
  func.func private @referenced(%x: memref<16xf32> {quant_block.device_resident}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }
  // CHECK-LABEL: func.func private @writes_host
  // CHECK: gpu.launch_func async
  // CHECK-NEXT: gpu.memcpy async
  // CHECK-NEXT: gpu.dealloc async
  // CHECK-NEXT: gpu.wait [
  // CHECK-NEXT: return
  func.func private @writes_host(%host: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%host : memref<16xf32>)
    return
  }
  func.func @caller(%host: memref<16xf32>) -> ((memref<16xf32>) -> ()) {
    call @writes_host(%host) : (memref<16xf32>) -> ()
    %f = func.constant @referenced : (memref<16xf32>) -> ()
    return %f : (memref<16xf32>) -> ()
  }
}
