// A kernel argument that runs past the end of its gpu.alloc buffer (a 32-byte
// view of a 16-byte allocation) is reported, never bound: the driver would
// read and write past the buffer.
// REQUIRES: vulkan
// RUN: %lower_to_vulkan %s | not --crash %run_vulkan 2>&1 | FileCheck %s
// CHECK: quant-block vulkan runtime: error: a kernel argument of 32 bytes at 0x{{[0-9a-f]+}} runs past the end of its gpu.alloc buffer (16 bytes at 0x{{[0-9a-f]+}}, argument at offset 0)
// CHECK-NOT: [

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
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %dev = gpu.alloc () : memref<16xi8>
    %view = memref.view %dev[%c0][] : memref<16xi8> to memref<8xi32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
        threads in (%c8, %c1, %c1) args(%view : memref<8xi32>)
    %out = memref.alloc() : memref<8xi32>
    gpu.memcpy %out, %view : memref<8xi32>, memref<8xi32>
    %u = memref.cast %out : memref<8xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefI32(memref<*xi32>)
}
