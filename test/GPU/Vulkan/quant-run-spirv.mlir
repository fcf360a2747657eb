// quant-run runs a module lowered for the GPU: the kernels are SPIR-V already
// (lowered by hand, see Inputs/lower_to_vulkan.py --kernels-only), quant-run's
// --pipeline lowers the host side and serializes the kernels, and
// --shared-libs loads the Vulkan runtime into the JIT. The entry takes and
// returns host memrefs (.npy arrays) and moves them to gpu.alloc buffers
// itself; numpy checks every bit of the result.
// REQUIRES: vulkan
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/axpy_arrays.py gen %t
// RUN: %lower_to_vulkan --kernels-only %s > %t/kernels.mlir
// RUN: quant-run %t/kernels.mlir -e axpy -i %t/x.npy -i %t/q.npy -o %t/y.npy \
// RUN:   --pipeline='%vulkan_host_pipeline' --shared-libs=%vulkan_runtime
// RUN: %python %S/Inputs/axpy_arrays.py check %t | FileCheck %s
// CHECK: axpy: ok

// Without the runtime library, the mgpu* calls cannot be linked.
// RUN: not quant-run %t/kernels.mlir -e axpy -i %t/x.npy -i %t/q.npy \
// RUN:   --pipeline='%vulkan_host_pipeline' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-RUNTIME
// NO-RUNTIME: Symbols not found: {{.*}}mgpuLaunchKernel
// NO-RUNTIME: quant-run: error: cannot link @axpy

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // y[i] = x[i] + q[i] / 8, 16 threads per block.
    gpu.func @axpy(%x: memref<64xf32>, %q: memref<64xi8>, %y: memref<64xf32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [16, 1, 1]>} {
      %c16 = arith.constant 16 : index
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %b16 = arith.muli %b, %c16 : index
      %i = arith.addi %b16, %t : index
      %xv = memref.load %x[%i] : memref<64xf32>
      %qv = memref.load %q[%i] : memref<64xi8>
      %qf = arith.sitofp %qv : i8 to f32
      %eighth = arith.constant 0.125 : f32
      %d = arith.mulf %qf, %eighth : f32
      %r = arith.addf %xv, %d : f32
      memref.store %r, %y[%i] : memref<64xf32>
      gpu.return
    }
  }

  func.func @axpy(%x: memref<64xf32>, %q: memref<64xi8>) -> memref<64xf32> {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %dx = gpu.alloc () : memref<64xf32>
    %dq = gpu.alloc () : memref<64xi8>
    %dy = gpu.alloc () : memref<64xf32>
    gpu.memcpy %dx, %x : memref<64xf32>, memref<64xf32>
    gpu.memcpy %dq, %q : memref<64xi8>, memref<64xi8>
    gpu.launch_func @kernels::@axpy blocks in (%c4, %c1, %c1)
        threads in (%c16, %c1, %c1)
        args(%dx : memref<64xf32>, %dq : memref<64xi8>, %dy : memref<64xf32>)
    %y = memref.alloc() : memref<64xf32>
    gpu.memcpy %y, %dy : memref<64xf32>, memref<64xf32>
    gpu.dealloc %dx : memref<64xf32>
    gpu.dealloc %dq : memref<64xi8>
    gpu.dealloc %dy : memref<64xf32>
    return %y : memref<64xf32>
  }
}
