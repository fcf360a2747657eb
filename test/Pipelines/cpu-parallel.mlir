// The threads of --quant-block-cpu-pipeline (parallel=true, the default):
// the output rows of a large int4 GEMV become an scf.forall around the
// sequential tile loops, lowered to omp.parallel + omp.wsloop; the sum over k
// stays inside one thread. Small ops, and parallel=false, have no OpenMP.
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline=parallel=false | FileCheck %s --check-prefix=OFF
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg --quant-block-cpu-vectorize=parallel=true | FileCheck %s --check-prefix=TILE

!w = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>

// CHECK-LABEL: llvm.func @gemv(
// CHECK: omp.parallel {
// CHECK: omp.wsloop {
// CHECK-NEXT: omp.loop_nest
// CHECK: omp.yield
// CHECK: omp.terminator
// OFF-LABEL: llvm.func @gemv(
// OFF-NOT: omp.
// OFF: llvm.return

// One forall over the 4096 rows (N), by the tiles of the sequential nest; the
// reduction over the K blocks is an scf.for inside it.
// TILE-LABEL: func.func @gemv(
// TILE: scf.forall (%[[N:.*]]) = (0) to (4096) step (8)
// TILE: scf.for {{.*}} = %c0 to %c128 step %c1
// TILE: scf.forall.in_parallel
// TILE-NEXT: tensor.parallel_insert_slice {{.*}}[0, %[[N]]] [1, 8] [1, 1]
func.func @gemv(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x4096xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<1x4096xf32>, !w -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}

// -----

// 64 x 64: 4096 iterations, below parallel-min-iterations; no threads.
!w = !quant_block.tensor<64x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>

// CHECK-LABEL: llvm.func @small(
// CHECK-NOT: omp.
// CHECK: llvm.return
// TILE-LABEL: func.func @small(
// TILE-NOT: scf.forall
// TILE: return
func.func @small(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x64xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<1x64xf32>, !w -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}
