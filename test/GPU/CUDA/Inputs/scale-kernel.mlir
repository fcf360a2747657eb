// A host main that moves 16 floats to the device, runs a kernel that doubles
// them, fills a second device buffer with gpu.memset, joins two async chains
// and copies both buffers back to print them. Shared by the mock-driver and
// the real-GPU tests.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @twice(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %seven = arith.constant 7.0 : f32
    %h = memref.alloc() : memref<16xf32>
    %h2 = memref.alloc() : memref<16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %h[%i] : memref<16xf32>
    }
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<16xf32>, memref<16xf32>
    %t3 = gpu.launch_func async [%t2] @kernels::@twice
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%d : memref<16xf32>)
    %t4 = gpu.memcpy async [%t3] %h, %d : memref<16xf32>, memref<16xf32>
    %u0 = gpu.wait async
    %d2, %u1 = gpu.alloc async [%u0] () : memref<16xf32>
    %u2 = gpu.memset async [%u1] %d2, %seven : memref<16xf32>, f32
    %u3 = gpu.memcpy async [%u2] %h2, %d2 : memref<16xf32>, memref<16xf32>
    %j = gpu.wait async [%t4, %u3]
    %t5 = gpu.dealloc async [%j] %d : memref<16xf32>
    %t6 = gpu.dealloc async [%t5] %d2 : memref<16xf32>
    gpu.wait [%t6]
    %p = memref.cast %h : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%p) : (memref<*xf32>) -> ()
    %p2 = memref.cast %h2 : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%p2) : (memref<*xf32>) -> ()
    memref.dealloc %h : memref<16xf32>
    memref.dealloc %h2 : memref<16xf32>
    return
  }
}
