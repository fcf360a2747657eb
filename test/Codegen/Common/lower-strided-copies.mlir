// Copies into or out of a view with gaps become linalg.copy (loops in the
// CPU pipeline) instead of a call of the runner library's memrefCopy;
// copies between contiguous views stay memref.copy (a memcpy).
// RUN: quant-opt %s --split-input-file --quant-block-lower-strided-copies | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// With contiguous=true (the GPU pipelines: a kernel, which may touch
// device-resident buffers) every copy becomes linalg.copy.
// RUN: quant-opt %s --split-input-file --quant-block-lower-strided-copies=contiguous=true | FileCheck %s --check-prefix=ALL

// Two heads of a head-major cache, 4096 floats apart.
// CHECK-LABEL: func.func @into_strided(
// CHECK-SAME: %[[FROM:.+]]: memref<2x1x64xf32>, %[[CACHE:.+]]: memref<2x64x64xf32>, %[[POS:.+]]: index)
// CHECK: %[[VIEW:.+]] = memref.subview %[[CACHE]][0, %[[POS]], 0] [2, 1, 64] [1, 1, 1]
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[FROM]] : memref<2x1x64xf32>) outs(%[[VIEW]] : memref<2x1x64xf32, strided<[4096, 64, 1], offset: ?>>)
// LLVM-LABEL: llvm.func @into_strided(
// LLVM-NOT: memrefCopy
// LLVM: llvm.return
func.func @into_strided(%from: memref<2x1x64xf32>, %cache: memref<2x64x64xf32>, %pos: index) {
  %view = memref.subview %cache[0, %pos, 0] [2, 1, 64] [1, 1, 1]
      : memref<2x64x64xf32> to memref<2x1x64xf32, strided<[4096, 64, 1], offset: ?>>
  memref.copy %from, %view : memref<2x1x64xf32> to memref<2x1x64xf32, strided<[4096, 64, 1], offset: ?>>
  return
}

// -----

// One row of the cache: contiguous, whatever its offset.
// CHECK-LABEL: func.func @into_one_row(
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
// LLVM-LABEL: llvm.func @into_one_row(
// LLVM: "llvm.intr.memcpy"
// ALL-LABEL: func.func @into_one_row(
// ALL-NOT: memref.copy
// ALL: linalg.copy ins(%{{.*}} : memref<1x1x64xf32>)
func.func @into_one_row(%from: memref<1x1x64xf32>, %cache: memref<2x64x64xf32>, %pos: index) {
  %view = memref.subview %cache[0, %pos, 0] [1, 1, 64] [1, 1, 1]
      : memref<2x64x64xf32> to memref<1x1x64xf32, strided<[4096, 64, 1], offset: ?>>
  memref.copy %from, %view : memref<1x1x64xf32> to memref<1x1x64xf32, strided<[4096, 64, 1], offset: ?>>
  return
}

// -----

// Out of a strided view into a plain buffer.
// CHECK-LABEL: func.func @from_strided(
// CHECK: linalg.copy ins(%{{.+}} : memref<4x8xf32, strided<[16, 1]>>) outs(%{{.+}} : memref<4x8xf32>)
func.func @from_strided(%a: memref<4x16xf32>, %b: memref<4x8xf32>) {
  %view = memref.subview %a[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  memref.copy %view, %b : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32>
  return
}
