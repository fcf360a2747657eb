// The workgroup size is baked into the SPIR-V (spirv.entry_point_abi); a
// launch whose block size differs would silently run another number of
// threads, so the runtime reports it.
// REQUIRES: vulkan
// RUN: %lower_to_vulkan %s | not --crash %run_vulkan 2>&1 | FileCheck %s
// CHECK: quant-block vulkan runtime: error: kernel 'fill' launched with block size (8, 1, 1) but its SPIR-V workgroup size is (4, 1, 1) (spirv.entry_point_abi)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%a: memref<8xi32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [4, 1, 1]>} {
      %i = gpu.thread_id x
      %c7 = arith.constant 7 : i32
      memref.store %c7, %a[%i] : memref<8xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %a = memref.alloc() : memref<8xi32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
        threads in (%c8, %c1, %c1) args(%a : memref<8xi32>)
    return
  }
}
