// Without a Vulkan driver (the loader pointed at a driver file that does not
// exist) the first launch ends the run with a message that says so and what
// to install, instead of a crash inside the loader.
// REQUIRES: vulkan
// RUN: %lower_to_vulkan %s > %t.mlir
// RUN: env VK_ICD_FILENAMES=%t.missing.json VK_DRIVER_FILES=%t.missing.json \
// RUN:   not --crash %run_vulkan %t.mlir 2>&1 | FileCheck %s
// CHECK: quant-block vulkan runtime: error: no Vulkan device: {{.*}}install a Vulkan driver

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%a: memref<8xi32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 1, 1]>} {
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
