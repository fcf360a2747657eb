// Two modules with a kernel of the same name (as gpu-kernel-outlining makes
// them: every kernel outlined from @f is `f_kernel`, in a module of its
// own), launched first, second, first.
module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @twice(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @twice(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
    %t2 = gpu.launch_func async [%t1] @first::@twice
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%d : memref<16xf32>)
    %t3 = gpu.launch_func async [%t2] @second::@twice
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%d : memref<16xf32>)
    %t4 = gpu.launch_func async [%t3] @first::@twice
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%d : memref<16xf32>)
    %t5 = gpu.dealloc async [%t4] %d : memref<16xf32>
    gpu.wait [%t5]
    return
  }
}
