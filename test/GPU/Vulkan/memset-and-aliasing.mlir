// gpu.memset of 32-bit and 16-bit buffers (mgpuMemset32 / mgpuMemset16), a
// zero-element gpu.alloc (SPIR-V has no zero-element arrays, so it is only
// allocated and freed), and one host buffer passed as two kernel arguments:
// the runtime stages it once, so the kernel's in-place update survives the
// copy back whichever argument it writes through.
// REQUIRES: vulkan
// RUN: %lower_to_vulkan %s | %run_vulkan | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[i] = (float)w[i] + (float)h[i] + i; x[i] = y[i] * 2 for x, y the
    // same buffer.
    gpu.func @combine(%w: memref<8xi32>, %h: memref<8xf16>,
                      %x: memref<8xf32>,
                      %y: memref<8xf32>, %out: memref<8xf32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 1, 1]>} {
      %i = gpu.thread_id x
      %a = memref.load %w[%i] : memref<8xi32>
      %b = memref.load %h[%i] : memref<8xf16>
      %af = arith.sitofp %a : i32 to f32
      %bf = arith.extf %b : f16 to f32
      %ii = arith.index_cast %i : index to i32
      %if = arith.sitofp %ii : i32 to f32
      %s0 = arith.addf %af, %bf : f32
      %s1 = arith.addf %s0, %if : f32
      memref.store %s1, %out[%i] : memref<8xf32>
      %v = memref.load %y[%i] : memref<8xf32>
      %v2 = arith.addf %v, %v : f32
      memref.store %v2, %x[%i] : memref<8xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %w = gpu.alloc () : memref<8xi32>
    %h = gpu.alloc () : memref<8xf16>
    %empty = gpu.alloc () : memref<0xf32>
    %out = gpu.alloc () : memref<8xf32>
    %seven = arith.constant -7 : i32
    %half = arith.constant 0.5 : f16
    gpu.memset %w, %seven : memref<8xi32>, i32
    gpu.memset %h, %half : memref<8xf16>, f16
    %inout = memref.alloc() : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %c3 = arith.constant 3.0 : f32
      %v = arith.addf %f, %c3 : f32
      memref.store %v, %inout[%i] : memref<8xf32>
    }
    gpu.launch_func @kernels::@combine blocks in (%c1, %c1, %c1)
        threads in (%c8, %c1, %c1)
        args(%w : memref<8xi32>, %h : memref<8xf16>,
             %inout : memref<8xf32>, %inout : memref<8xf32>,
             %out : memref<8xf32>)
    %host = memref.alloc() : memref<8xf32>
    gpu.memcpy %host, %out : memref<8xf32>, memref<8xf32>
    gpu.dealloc %w : memref<8xi32>
    gpu.dealloc %h : memref<8xf16>
    gpu.dealloc %empty : memref<0xf32>
    gpu.dealloc %out : memref<8xf32>
    // CHECK: [-6.5,  -5.5,  -4.5,  -3.5,  -2.5,  -1.5,  -0.5,  0.5]
    %u = memref.cast %host : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    // CHECK: [6,  8,  10,  12,  14,  16,  18,  20]
    %ui = memref.cast %inout : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%ui) : (memref<*xf32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
}
