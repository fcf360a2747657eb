// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-gpu-data-movement | FileCheck %s

// A host argument the kernel only reads is copied in and not out, a host
// result it writes is copied out, and a buffer only kernels use is a device
// allocation with no copies. The launches, copies, allocations and frees of
// the block form one chain of async tokens that the host waits for once,
// where it settles the copies (here at the return).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @produce(%in: memref<16xf32>, %tmp: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<16xf32>
      memref.store %v, %tmp[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @consume(%tmp: memref<16xf32>, %out: memref<4x4xf32>) kernel {
      %i = gpu.thread_id x
      %flat = memref.collapse_shape %out [[0, 1]] : memref<4x4xf32> into memref<16xf32>
      %v = memref.load %tmp[%i] : memref<16xf32>
      memref.store %v, %flat[%i] : memref<16xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @copy
  // CHECK-SAME: (%[[IN:.*]]: memref<16xf32>)
  func.func @copy(%in: memref<16xf32>) -> memref<4x4xf32> {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    // CHECK: %[[W0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[TMP:.*]], %[[T0:.*]] = gpu.alloc async [%[[W0]]] () : memref<16xf32>
    // CHECK-NOT: gpu.wait
    %tmp = memref.alloc() : memref<16xf32>
    // CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x4xf32>
    %out = memref.alloc() : memref<4x4xf32>
    // CHECK-NEXT: %[[DIN:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<16xf32>
    // CHECK-NEXT: %[[T2:.*]] = gpu.memcpy async [%[[T1]]] %[[DIN]], %[[IN]]
    // CHECK-NEXT: %[[T3:.*]] = gpu.launch_func async [%[[T2]]] @kernels::@produce {{.*}} args(%[[DIN]] : memref<16xf32>, %[[TMP]] : memref<16xf32>)
    gpu.launch_func @kernels::@produce blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%in : memref<16xf32>, %tmp : memref<16xf32>)
    // The output is only written, and a fresh allocation that nothing
    // accessed before: copied out, not in (a written buffer that may hold
    // data is copied both ways, as the kernel could write a slice of it:
    // @written_before below). The device copies live on across the
    // consecutive launches and are settled where host code may touch them
    // (here at the return; the device-only buffer's free touches no host
    // buffer and joins the chain): written ones copied out, all freed.
    // CHECK-NEXT: %[[DOUT:.*]], %[[T5:.*]] = gpu.alloc async [%[[T3]]] () : memref<4x4xf32>
    // CHECK-NEXT: %[[T6:.*]] = gpu.launch_func async [%[[T5]]] @kernels::@consume {{.*}} args(%[[TMP]] : memref<16xf32>, %[[DOUT]] : memref<4x4xf32>)
    gpu.launch_func @kernels::@consume blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%tmp : memref<16xf32>, %out : memref<4x4xf32>)
    // CHECK-NEXT: %[[T10:.*]] = gpu.dealloc async [%[[T6]]] %[[TMP]]
    memref.dealloc %tmp : memref<16xf32>
    // CHECK-NEXT: %[[T7:.*]] = gpu.memcpy async [%[[T10]]] %[[OUT]], %[[DOUT]]
    // CHECK-NEXT: %[[T8:.*]] = gpu.dealloc async [%[[T7]]] %[[DIN]]
    // CHECK-NEXT: %[[T9:.*]] = gpu.dealloc async [%[[T8]]] %[[DOUT]]
    // CHECK-NEXT: gpu.wait [%[[T9]]]
    // CHECK-NEXT: return
    return %out : memref<4x4xf32>
  }
}

// -----

// A buffer the kernel reads and writes is copied both ways; a dynamic shape
// sizes the device buffer at run time; the same buffer passed twice gets one
// device copy.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a: memref<?xf32>, %b: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %b[%i] : memref<?xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @in_place
  // CHECK-SAME: (%[[A:.*]]: memref<?xf32>)
  func.func @in_place(%a: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[N:.*]] = memref.dim %[[A]], %c0
    // CHECK: %[[D:.*]], %[[T0:.*]] = gpu.alloc async [%{{.*}}] (%[[N]]) : memref<?xf32>
    // CHECK-NOT: gpu.alloc
    // CHECK: %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[D]], %[[A]]
    // CHECK: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@scale {{.*}} args(%[[D]] : memref<?xf32>, %[[D]] : memref<?xf32>)
    // CHECK-NEXT: %[[T3:.*]] = gpu.memcpy async [%[[T2]]] %[[A]], %[[D]]
    // CHECK-NEXT: %[[T4:.*]] = gpu.dealloc async [%[[T3]]] %[[D]]
    // CHECK-NEXT: gpu.wait [%[[T4]]]
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>, %a : memref<?xf32>)
    return
  }
}

// -----

// A view operand is rebuilt on the device copy of the whole buffer.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @strided(%a: memref<4xf32, strided<[2], offset: 1>>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<4xf32, strided<[2], offset: 1>>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @strided
  // CHECK-SAME: (%[[A:.*]]: memref<8xf32>)
  func.func @strided(%a: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[D:.*]], %[[T0:.*]] = gpu.alloc async [%{{.*}}] () : memref<8xf32>
    // CHECK: %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[D]], %[[A]]
    // CHECK: %[[V:.*]] = memref.subview %[[D]][1] [4] [2]
    // CHECK: gpu.launch_func async [%[[T1]]] @kernels::@strided {{.*}} args(%[[V]] : memref<4xf32, strided<[2], offset: 1>>)
    // CHECK-NOT: gpu.memcpy
    // CHECK: gpu.dealloc
    %v = memref.subview %a[1] [4] [2] : memref<8xf32> to memref<4xf32, strided<[2], offset: 1>>
    gpu.launch_func @kernels::@strided blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%v : memref<4xf32, strided<[2], offset: 1>>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32, strided<[2]>>) kernel {
      gpu.return
    }
  }
  func.func @strided_root(%a: memref<4xf32, strided<[2]>>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel operand #0 is a view of a host buffer of type 'memref<4xf32, strided<[2]>>'; only host buffers with an identity layout are copied to the device}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32, strided<[2]>>)
    return
  }
}

// -----

// A host allocation written on the host before the launch holds data the
// kernel may keep (it could write a slice): copied in and out.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @write_one(%out: memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 2.0 : f32
      memref.store %v, %out[%c0] : memref<16xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @written_before
  func.func @written_before() -> memref<16xf32> {
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %one = arith.constant 1.0 : f32
    // CHECK: %[[OUT:.*]] = memref.alloc
    %out = memref.alloc() : memref<16xf32>
    memref.store %one, %out[%c5] : memref<16xf32>
    // CHECK: %[[DOUT:.*]], %[[T0:.*]] = gpu.alloc async
    // CHECK-NEXT: %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[DOUT]], %[[OUT]]
    // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@write_one
    // CHECK-NEXT: gpu.memcpy async [%[[T2]]] %[[OUT]], %[[DOUT]]
    gpu.launch_func @kernels::@write_one blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<16xf32>)
    return %out : memref<16xf32>
  }
}

// -----

// Consecutive launches share one device copy of a host buffer (copied in
// once, out once); host code that reads it settles the copies first, and
// the next launch copies it in anew.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @inc(%a: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<4xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @shared
  // CHECK-SAME: (%[[A:.*]]: memref<4xf32>)
  func.func @shared(%a: memref<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // CHECK: %[[D1:.*]], %{{.*}} = gpu.alloc async
    // CHECK-NEXT: gpu.memcpy async [%{{.*}}] %[[D1]], %[[A]]
    // CHECK-NEXT: %[[L1:.*]] = gpu.launch_func async {{.*}} @kernels::@inc {{.*}} args(%[[D1]] : memref<4xf32>)
    // CHECK-NEXT: %[[L2:.*]] = gpu.launch_func async [%[[L1]]] @kernels::@inc {{.*}} args(%[[D1]] : memref<4xf32>)
    // CHECK-NEXT: %[[T:.*]] = gpu.memcpy async [%[[L2]]] %[[A]], %[[D1]]
    // CHECK-NEXT: gpu.dealloc async [%[[T]]] %[[D1]]
    // CHECK-NEXT: gpu.wait
    // CHECK-NEXT: memref.load %[[A]]
    // CHECK-NEXT: gpu.wait async
    // CHECK-NEXT: %[[D2:.*]], %{{.*}} = gpu.alloc async
    // CHECK-NEXT: gpu.memcpy async [%{{.*}}] %[[D2]], %[[A]]
    // CHECK-NEXT: gpu.launch_func async {{.*}} @kernels::@inc {{.*}} args(%[[D2]] : memref<4xf32>)
    // CHECK: gpu.memcpy async [%{{.*}}] %[[A]], %[[D2]]
    // CHECK: return
    gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    %v = memref.load %a[%c0] : memref<4xf32>
    gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    return %v : f32
  }
}

// -----

// A host temporary that only kernels use between two launches (its device
// allocation brings gpu.wait ops, which touch no host buffer) does not end
// the sharing: the input is copied in once (the dynamic quantization of
// activations before a product reads them in two kernels).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @read(%a: memref<4xf32>, %t: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      memref.store %v, %t[%i] : memref<4xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @shared_around_a_temporary
  // CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
  // CHECK: gpu.memcpy async [%{{.*}}] %[[D:.*]], %[[A]]
  // CHECK: gpu.launch_func async {{.*}} args(%[[D]] : memref<4xf32>
  // CHECK-NOT: gpu.memcpy async [%{{.*}}] %{{.*}}, %[[A]]
  // CHECK: gpu.launch_func async {{.*}} args(%[[D]] : memref<4xf32>
  // CHECK-NOT: gpu.memcpy async [%{{.*}}] %{{.*}}, %[[A]]
  // CHECK: gpu.dealloc async [%{{.*}}] %[[D]]
  // CHECK: return
  func.func @shared_around_a_temporary(%a: memref<4xf32>, %out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %t = memref.alloc() : memref<4xf32>
    gpu.launch_func @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>, %t : memref<4xf32>)
    %u = memref.alloc() : memref<4xf32>
    gpu.launch_func @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>, %u : memref<4xf32>)
    gpu.launch_func @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%u : memref<4xf32>, %out : memref<4xf32>)
    memref.dealloc %t : memref<4xf32>
    memref.dealloc %u : memref<4xf32>
    return
  }
}

// -----

// Host code between launches that touches none of their buffers leaves the
// chain running; a call (its kernels are another chain) and an allocation
// outside the block of the launches wait for their own work.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%t: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = arith.constant 1.0 : f32
      memref.store %v, %t[%i] : memref<4xf32>
      gpu.return
    }
  }
  func.func private @host_work(memref<4xf32>)
  // CHECK-LABEL: func.func @chain_across_host_code
  // CHECK-SAME: (%[[HOST:.*]]: memref<4xf32>, %[[N:.*]]: index)
  func.func @chain_across_host_code(%host: memref<4xf32>, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // The allocation outside the loop: its own chain, waited for.
    // CHECK: %[[W0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[T:.*]], %[[A0:.*]] = gpu.alloc async [%[[W0]]] () : memref<4xf32>
    // CHECK-NEXT: gpu.wait [%[[A0]]]
    %t = memref.alloc() : memref<4xf32>
    // CHECK: scf.for
    scf.for %i = %c0 to %n step %c1 {
      // CHECK: %[[W1:.*]] = gpu.wait async
      // CHECK-NEXT: %[[L1:.*]] = gpu.launch_func async [%[[W1]]] @kernels::@fill
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%t : memref<4xf32>)
      // CHECK-NEXT: memref.load %[[HOST]]
      // CHECK-NEXT: memref.store {{.*}}, %[[HOST]]
      %v = memref.load %host[%c0] : memref<4xf32>
      memref.store %v, %host[%c1] : memref<4xf32>
      // CHECK-NEXT: %[[L2:.*]] = gpu.launch_func async [%[[L1]]] @kernels::@fill
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%t : memref<4xf32>)
      // CHECK-NEXT: gpu.wait [%[[L2]]]
      // CHECK-NEXT: func.call @host_work
      func.call @host_work(%host) : (memref<4xf32>) -> ()
      // CHECK-NEXT: %[[W2:.*]] = gpu.wait async
      // CHECK-NEXT: %[[L3:.*]] = gpu.launch_func async [%[[W2]]] @kernels::@fill
      // CHECK-NEXT: gpu.wait [%[[L3]]]
      // CHECK-NEXT: }
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%t : memref<4xf32>)
    }
    // CHECK: %[[W3:.*]] = gpu.wait async
    // CHECK-NEXT: %[[F:.*]] = gpu.dealloc async [%[[W3]]] %[[T]]
    // CHECK-NEXT: gpu.wait [%[[F]]]
    memref.dealloc %t : memref<4xf32>
    %r = memref.load %host[%c0] : memref<4xf32>
    return %r : f32
  }
}
