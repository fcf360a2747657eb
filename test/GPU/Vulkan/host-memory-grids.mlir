// Kernels launched directly on host memrefs (memref.alloc, no gpu.alloc):
// the runtime stages each through a temporary buffer and copies it back.
// A 3-D grid of 2-D blocks writes every thread's coordinates; a second kernel
// of the same module, and a kernel of a second module, then read what the
// first wrote, so the launches must run in order and each must see the
// previous one's results.
// REQUIRES: vulkan
// RUN: %lower_to_vulkan %s | %run_vulkan | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @grid {
    // out[z][y][x] = bz * 10000 + (by * 2 + ty) * 100 + (bx * 4 + tx), with
    // blocks of 4 x 2 threads and x in [0, 8), y in [0, 6), z in [0, 2).
    gpu.func @coords(%out: memref<2x6x8xi32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [4, 2, 1]>} {
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %bz = gpu.block_id z
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %bx4 = arith.muli %bx, %c4 : index
      %x = arith.addi %bx4, %tx : index
      %by2 = arith.muli %by, %c2 : index
      %y = arith.addi %by2, %ty : index
      %xi = arith.index_cast %x : index to i32
      %yi = arith.index_cast %y : index to i32
      %zi = arith.index_cast %bz : index to i32
      %c100 = arith.constant 100 : i32
      %c10000 = arith.constant 10000 : i32
      %z1 = arith.muli %zi, %c10000 : i32
      %y1 = arith.muli %yi, %c100 : i32
      %s = arith.addi %z1, %y1 : i32
      %v = arith.addi %s, %xi : i32
      memref.store %v, %out[%bz, %y, %x] : memref<2x6x8xi32>
      gpu.return
    }
    // sums[z * 6 + y] = sum over x of out[z][y][x], one thread per row.
    gpu.func @row_sums(%out: memref<2x6x8xi32>, %sums: memref<12xi32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [6, 2, 1]>} {
      %y = gpu.thread_id x
      %z = gpu.thread_id y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c6 = arith.constant 6 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0 : i32
      %sum = scf.for %x = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (i32) {
        %e = memref.load %out[%z, %y, %x] : memref<2x6x8xi32>
        %n = arith.addi %acc, %e : i32
        scf.yield %n : i32
      }
      %z6 = arith.muli %z, %c6 : index
      %r = arith.addi %z6, %y : index
      memref.store %sum, %sums[%r] : memref<12xi32>
      gpu.return
    }
  }
  gpu.module @other {
    // sums[i] = sums[i] - 28 (the sum of x over a row) in place.
    gpu.func @minus_x(%sums: memref<12xi32>) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [1, 1, 1]>} {
      %i = gpu.block_id x
      %e = memref.load %sums[%i] : memref<12xi32>
      %c28 = arith.constant 28 : i32
      %r = arith.subi %e, %c28 : i32
      memref.store %r, %sums[%i] : memref<12xi32>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c12 = arith.constant 12 : index
    %out = memref.alloc() : memref<2x6x8xi32>
    %sums = memref.alloc() : memref<12xi32>
    gpu.launch_func @grid::@coords blocks in (%c2, %c3, %c2)
        threads in (%c4, %c2, %c1) args(%out : memref<2x6x8xi32>)
    gpu.launch_func @grid::@row_sums blocks in (%c1, %c1, %c1)
        threads in (%c6, %c2, %c1)
        args(%out : memref<2x6x8xi32>, %sums : memref<12xi32>)
    gpu.launch_func @other::@minus_x blocks in (%c12, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%sums : memref<12xi32>)
    // CHECK: rank = 3 offset = 0 sizes = [2, 6, 8]
    // CHECK:     {{\[}}[0,   1,   2,   3,   4,   5,   6,   7],
    // CHECK-NEXT:  [100,   101,   102,   103,   104,   105,   106,   107],
    // CHECK:       [500,   501,   502,   503,   504,   505,   506,   507]],
    // CHECK-NEXT: {{\[}}[10000,   10001,   10002,   10003,   10004,   10005,   10006,   10007],
    // CHECK:       [10500,   10501,   10502,   10503,   10504,   10505,   10506,   10507]]]
    %u = memref.cast %out : memref<2x6x8xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    // Row sums minus 28: 800 * y + 80000 * z.
    // CHECK: [0,  800,  1600,  2400,  3200,  4000,  80000,  80800,  81600,  82400,  83200,  84000]
    %us = memref.cast %sums : memref<12xi32> to memref<*xi32>
    call @printMemrefI32(%us) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefI32(memref<*xi32>)
}
