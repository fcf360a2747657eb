// A 2-D parallel loop of 317 x 331 = 104927 iterations in workgroups of one
// thread: more workgroups than Vulkan guarantees in x (65535), so
// --quant-block-gpu-map-parallel-loops must give each thread several
// elements. The loop's trip count is a product of two dimensions: the cap
// must hold after they are collapsed into one. Compiled with
// --quant-block-spirv-pipeline, the kernel validated by spirv-val, the grid
// of the launch checked, and, where there is a Vulkan device, executed:
// every element must hold the value its iteration wrote (the buffer starts
// at -1 everywhere; the host counts the elements that differ).

// RUN: quant-opt %s --quant-block-spirv-pipeline="workgroup-size=1 binary=false" | FileCheck %s --check-prefix=GRID
// RUN: quant-opt %s --quant-block-spirv-pipeline=workgroup-size=1 > %t.mlir
// RUN: %gpu_binary %t.mlir --dir %t.objects --suffix .spv --run "%spirv_val --target-env vulkan1.1 {}" | FileCheck %s --check-prefix=VALID
// RUN: %if vulkan %{ %run_vulkan %t.mlir | FileCheck %s %}

// 104927 workgroups of 1 would be too many: 2 elements per thread, so
// ceil(104927 / 2) = 52464 workgroups.
// GRID-LABEL: func.func @main
// GRID: gpu.launch_func {{.*}} blocks in (%c52464, %c1, %c1) threads in (%c1, %c1, %c1)
// GRID-NOT: gpu.launch_func
// VALID: validated 1 kernel objects

// Elements written right, elements wrong.
// CHECK: [104927,  0]
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 317 : index
  %cols = arith.constant 331 : index
  %n = arith.constant 104927 : index
  %minus1 = arith.constant -1 : i32
  %buf = memref.alloc() : memref<317x331xi32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      memref.store %minus1, %buf[%i, %j] : memref<317x331xi32>
    }
  }
  // buf[i][j] = i * 331 + j, on the GPU.
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    %r = arith.muli %i, %cols : index
    %v = arith.addi %r, %j : index
    %w = arith.index_cast %v : index to i32
    memref.store %w, %buf[%i, %j] : memref<317x331xi32>
    scf.reduce
  }
  // On the host: count the elements that hold their value.
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %good = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (i64) {
    %row = scf.for %j = %c0 to %cols step %c1 iter_args(%a = %acc) -> (i64) {
      %r = arith.muli %i, %cols : index
      %v = arith.addi %r, %j : index
      %w = arith.index_cast %v : index to i32
      %got = memref.load %buf[%i, %j] : memref<317x331xi32>
      %eq = arith.cmpi eq, %got, %w : i32
      %inc = arith.select %eq, %one, %zero : i64
      %s = arith.addi %a, %inc : i64
      scf.yield %s : i64
    }
    scf.yield %row : i64
  }
  %total = arith.index_cast %n : index to i64
  %bad = arith.subi %total, %good : i64
  %out = memref.alloc() : memref<2xi64>
  memref.store %good, %out[%c0] : memref<2xi64>
  memref.store %bad, %out[%c1] : memref<2xi64>
  %u = memref.cast %out : memref<2xi64> to memref<*xi64>
  call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  return
}
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
