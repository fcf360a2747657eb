// Three kernel arguments carved out of one gpu.alloc buffer by memref.view:
// the runtime binds each at its offset in that buffer. The byte offsets 16
// and 48 are multiples of every device's minStorageBufferOffsetAlignment
// limit (at most 256 bytes by the Vulkan spec, 16 on lavapipe); the argument
// at byte offset 100 is not bound in place on a device whose alignment is
// above 4 and goes through the staging copy instead. Binding every argument
// at offset 0, or copying back the wrong range, changes the printed values.
// REQUIRES: vulkan
// RUN: %lower_to_vulkan %s | %run_vulkan | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // c[i] = a[i] * 10 + b[i]
    gpu.func @axpb(%a: memref<8xi32>, %b: memref<8xi32>, %c: memref<8xi32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 1, 1]>} {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<8xi32>
      %y = memref.load %b[%i] : memref<8xi32>
      %c10 = arith.constant 10 : i32
      %x10 = arith.muli %x, %c10 : i32
      %r = arith.addi %x10, %y : i32
      memref.store %r, %c[%i] : memref<8xi32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c40 = arith.constant 40 : index
    %c16 = arith.constant 16 : index
    %c48 = arith.constant 48 : index
    %c100 = arith.constant 100 : index
    // 40 i32 words = 160 bytes, word w holding w.
    %host = memref.alloc() : memref<40xi32>
    scf.for %w = %c0 to %c40 step %c1 {
      %wi = arith.index_cast %w : index to i32
      memref.store %wi, %host[%w] : memref<40xi32>
    }
    %dev = gpu.alloc () : memref<160xi8>
    %dev32 = memref.view %dev[%c0][] : memref<160xi8> to memref<40xi32>
    gpu.memcpy %dev32, %host : memref<40xi32>, memref<40xi32>
    // a = words 4..11, b = words 12..19, c = words 25..32.
    %a = memref.view %dev[%c16][] : memref<160xi8> to memref<8xi32>
    %b = memref.view %dev[%c48][] : memref<160xi8> to memref<8xi32>
    %c = memref.view %dev[%c100][] : memref<160xi8> to memref<8xi32>
    gpu.launch_func @kernels::@axpb blocks in (%c1, %c1, %c1)
        threads in (%c8, %c1, %c1)
        args(%a : memref<8xi32>, %b : memref<8xi32>, %c : memref<8xi32>)
    %out = memref.alloc() : memref<40xi32>
    gpu.memcpy %out, %dev32 : memref<40xi32>, memref<40xi32>
    gpu.dealloc %dev : memref<160xi8>
    // Words 0..24 and 33..39 untouched, 25..32 = 10 * (4 + i) + (12 + i).
    // CHECK: [0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11,  12,  13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  24,  52,  63,  74,  85,  96,  107,  118,  129,  33,  34,  35,  36,  37,  38,  39]
    %u = memref.cast %out : memref<40xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefI32(memref<*xi32>)
}
