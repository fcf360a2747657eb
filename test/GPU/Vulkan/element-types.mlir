// Six buffers of four element types (i8, f16, f32, i32) in gpu.alloc memory,
// filled and read back with gpu.memcpy. Each output element mixes one element
// of every input at distinct scales, so a swapped binding, a wrong element
// size or a wrong buffer size changes the printed values.
// REQUIRES: vulkan
// RUN: %lower_to_vulkan %s | %run_vulkan | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mix(%a: memref<16xi8>, %h: memref<16xf16>, %f: memref<16xf32>,
                  %w: memref<16xi32>, %of: memref<16xf32>,
                  %oi: memref<16xi32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [4, 1, 1]>} {
      %c4 = arith.constant 4 : index
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %c4 : index
      %i = arith.addi %base, %tid : index
      %x = memref.load %a[%i] : memref<16xi8>
      %y = memref.load %h[%i] : memref<16xf16>
      %z = memref.load %f[%i] : memref<16xf32>
      %v = memref.load %w[%i] : memref<16xi32>
      %xf = arith.sitofp %x : i8 to f32
      %yf = arith.extf %y : f16 to f32
      %s0 = arith.addf %z, %yf : f32
      %s1 = arith.addf %s0, %xf : f32
      memref.store %s1, %of[%i] : memref<16xf32>
      %c3 = arith.constant 3 : i32
      %xi = arith.extsi %x : i8 to i32
      %v3 = arith.muli %v, %c3 : i32
      %r = arith.addi %v3, %xi : i32
      memref.store %r, %oi[%i] : memref<16xi32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %a = memref.alloc() : memref<16xi8>
    %h = memref.alloc() : memref<16xf16>
    %f = memref.alloc() : memref<16xf32>
    %w = memref.alloc() : memref<16xi32>
    // a[i] = 7i - 50, h[i] = i / 4, f[i] = 1000 i, w[i] = i * i.
    scf.for %i = %c0 to %c16 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %c7 = arith.constant 7 : i32
      %c50 = arith.constant 50 : i32
      %a7 = arith.muli %ii, %c7 : i32
      %av = arith.subi %a7, %c50 : i32
      %a8 = arith.trunci %av : i32 to i8
      memref.store %a8, %a[%i] : memref<16xi8>
      %fi = arith.sitofp %ii : i32 to f32
      %quarter = arith.constant 0.25 : f32
      %hq = arith.mulf %fi, %quarter : f32
      %hv = arith.truncf %hq : f32 to f16
      memref.store %hv, %h[%i] : memref<16xf16>
      %thousand = arith.constant 1000.0 : f32
      %fv = arith.mulf %fi, %thousand : f32
      memref.store %fv, %f[%i] : memref<16xf32>
      %wv = arith.muli %ii, %ii : i32
      memref.store %wv, %w[%i] : memref<16xi32>
    }
    %da = gpu.alloc () : memref<16xi8>
    %dh = gpu.alloc () : memref<16xf16>
    %df = gpu.alloc () : memref<16xf32>
    %dw = gpu.alloc () : memref<16xi32>
    %dof = gpu.alloc () : memref<16xf32>
    %doi = gpu.alloc () : memref<16xi32>
    gpu.memcpy %da, %a : memref<16xi8>, memref<16xi8>
    gpu.memcpy %dh, %h : memref<16xf16>, memref<16xf16>
    gpu.memcpy %df, %f : memref<16xf32>, memref<16xf32>
    gpu.memcpy %dw, %w : memref<16xi32>, memref<16xi32>
    gpu.launch_func @kernels::@mix blocks in (%c4, %c1, %c1)
        threads in (%c4, %c1, %c1)
        args(%da : memref<16xi8>, %dh : memref<16xf16>, %df : memref<16xf32>,
             %dw : memref<16xi32>, %dof : memref<16xf32>,
             %doi : memref<16xi32>)
    %of = memref.alloc() : memref<16xf32>
    %oi = memref.alloc() : memref<16xi32>
    gpu.memcpy %of, %dof : memref<16xf32>, memref<16xf32>
    gpu.memcpy %oi, %doi : memref<16xi32>, memref<16xi32>

    // Device to device and back: the i8 and f16 inputs come back unchanged.
    %da2 = gpu.alloc () : memref<16xi8>
    %dh2 = gpu.alloc () : memref<16xf16>
    gpu.memcpy %da2, %da : memref<16xi8>, memref<16xi8>
    gpu.memcpy %dh2, %dh : memref<16xf16>, memref<16xf16>
    %a2 = memref.alloc() : memref<16xi8>
    %h2 = memref.alloc() : memref<16xf16>
    gpu.memcpy %a2, %da2 : memref<16xi8>, memref<16xi8>
    gpu.memcpy %h2, %dh2 : memref<16xf16>, memref<16xf16>
    gpu.dealloc %da : memref<16xi8>
    gpu.dealloc %dh : memref<16xf16>
    gpu.dealloc %df : memref<16xf32>
    gpu.dealloc %dw : memref<16xi32>
    gpu.dealloc %dof : memref<16xf32>
    gpu.dealloc %doi : memref<16xi32>
    gpu.dealloc %da2 : memref<16xi8>
    gpu.dealloc %dh2 : memref<16xf16>

    %a32 = memref.alloc() : memref<16xi32>
    %h32 = memref.alloc() : memref<16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      %x = memref.load %a2[%i] : memref<16xi8>
      %xi = arith.extsi %x : i8 to i32
      memref.store %xi, %a32[%i] : memref<16xi32>
      %y = memref.load %h2[%i] : memref<16xf16>
      %yf = arith.extf %y : f16 to f32
      memref.store %yf, %h32[%i] : memref<16xf32>
    }

    // CHECK: [-50,  957.25,  1964.5,  2971.75,  3979,  4986.25,  5993.5,  7000.75,  8008,  9015.25,  10022.5,  11029.8,  12037,  13044.2,  14051.5,  15058.8]
    // CHECK: [-50,  -40,  -24,  -2,  26,  60,  100,  146,  198,  256,  320,  390,  466,  548,  636,  730]
    // CHECK: [-50,  -43,  -36,  -29,  -22,  -15,  -8,  -1,  6,  13,  20,  27,  34,  41,  48,  55]
    // CHECK: [0,  0.25,  0.5,  0.75,  1,  1.25,  1.5,  1.75,  2,  2.25,  2.5,  2.75,  3,  3.25,  3.5,  3.75]
    %uof = memref.cast %of : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%uof) : (memref<*xf32>) -> ()
    %uoi = memref.cast %oi : memref<16xi32> to memref<*xi32>
    call @printMemrefI32(%uoi) : (memref<*xi32>) -> ()
    %ua = memref.cast %a32 : memref<16xi32> to memref<*xi32>
    call @printMemrefI32(%ua) : (memref<*xi32>) -> ()
    %uh = memref.cast %h32 : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%uh) : (memref<*xf32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printMemrefI32(memref<*xi32>)
}
