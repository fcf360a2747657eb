// Host operations that reach the mgpu* entry points the scale kernel does
// not: device selection, host registration, 16-bit memset, cluster launches
// and a blocking wait on several tokens.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @touch(%a: memref<64xf16>) kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %dev = arith.constant 0 : i32
    %one = arith.constant 1.0 : f16
    gpu.set_default_device %dev
    %h = memref.alloc() : memref<64xf16>
    %hu = memref.cast %h : memref<64xf16> to memref<*xf16>
    gpu.host_register %hu : memref<*xf16>
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<64xf16>
    %t2 = gpu.memset async [%t1] %d, %one : memref<64xf16>, f16
    %t3 = gpu.launch_func async [%t2] @kernels::@touch
        clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%d : memref<64xf16>)
    %u0 = gpu.wait async
    %u1 = gpu.memset async [%u0] %d, %one : memref<64xf16>, f16
    gpu.wait [%t3, %u1]
    %t4 = gpu.wait async
    %t5 = gpu.dealloc async [%t4] %d : memref<64xf16>
    gpu.wait [%t5]
    gpu.host_unregister %hu : memref<*xf16>
    memref.dealloc %h : memref<64xf16>
    return
  }
}
