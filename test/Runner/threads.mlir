// Threads (--quant-block-cpu-pipeline, parallel=true by default): the output
// rows of an int4 GEMV and of an int8 x int8 accumulate(i32) matmul are split
// across OpenMP threads, never the sum over k, so the bits of every result
// are the same for 1, 2 and 3 threads (3 does not divide the 64 row tiles)
// and equal to the strict order of docs/Numerics.md, computed in numpy.
// quant-run loads libomp by itself.
// REQUIRES: libomp
// RUN: quant-opt %s --quant-block-cpu-pipeline | FileCheck %s --check-prefix=IR
// IR-LABEL: llvm.func @gemv(
// IR: omp.parallel
// IR: omp.wsloop
// IR-LABEL: llvm.func @i8(
// IR: omp.parallel
// IR: omp.wsloop

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/threads.py gen %t
// RUN: env OMP_NUM_THREADS=1 quant-run %s -e gemv --quantized-as-parts -i %t/x.npy -i %t/data4.npy -i %t/scales4.npy -o %t/gemv_1.npy
// RUN: env OMP_NUM_THREADS=2 quant-run %s -e gemv --quantized-as-parts -i %t/x.npy -i %t/data4.npy -i %t/scales4.npy -o %t/gemv_2.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e gemv --quantized-as-parts -i %t/x.npy -i %t/data4.npy -i %t/scales4.npy -o %t/gemv_3.npy
// RUN: env OMP_NUM_THREADS=1 quant-run %s -e i8 --quantized-as-parts -i %t/xm.npy -i %t/data8.npy -i %t/scales8.npy -o %t/i8_1.npy
// RUN: env OMP_NUM_THREADS=2 quant-run %s -e i8 --quantized-as-parts -i %t/xm.npy -i %t/data8.npy -i %t/scales8.npy -o %t/i8_2.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e i8 --quantized-as-parts -i %t/xm.npy -i %t/data8.npy -i %t/scales8.npy -o %t/i8_3.npy
// RUN: %python %S/Inputs/threads.py check %t 1 2 3 | FileCheck %s
// CHECK: gemv: identical for 1 2 3 threads, strict
// CHECK: i8: identical for 1 2 3 threads, strict

// The other thread schedules hand the row tiles out as the threads ask for
// them (dynamic: nonmonotonic, in threes; guided): each output is still
// summed by one thread, the same bits.
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e gemv --pipeline="quant-block-cpu-pipeline{thread-schedule=dynamic thread-chunk=3}" --quantized-as-parts -i %t/x.npy -i %t/data4.npy -i %t/scales4.npy -o %t/gemv_3dynamic.npy
// RUN: env OMP_NUM_THREADS=2 quant-run %s -e gemv --pipeline="quant-block-cpu-pipeline{thread-schedule=guided}" --quantized-as-parts -i %t/x.npy -i %t/data4.npy -i %t/scales4.npy -o %t/gemv_2guided.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e i8 --pipeline="quant-block-cpu-pipeline{thread-schedule=dynamic thread-chunk=3}" --quantized-as-parts -i %t/xm.npy -i %t/data8.npy -i %t/scales8.npy -o %t/i8_3dynamic.npy
// RUN: env OMP_NUM_THREADS=2 quant-run %s -e i8 --pipeline="quant-block-cpu-pipeline{thread-schedule=guided}" --quantized-as-parts -i %t/xm.npy -i %t/data8.npy -i %t/scales8.npy -o %t/i8_2guided.npy
// RUN: %python %S/Inputs/threads.py check %t 1 3dynamic 2guided | FileCheck %s --check-prefix=SCHEDULES
// SCHEDULES: gemv: identical for 1 3dynamic 2guided threads, strict
// SCHEDULES: i8: identical for 1 3dynamic 2guided threads, strict

!w4 = !quant_block.tensor<512x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!w8 = !quant_block.tensor<512x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!a = !quant_block.tensor<4x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>

func.func @gemv(%x: tensor<1x256xf32>, %w: !w4) -> tensor<1x512xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<1x256xf32>, !w4 -> tensor<1x512xf32>
  return %y : tensor<1x512xf32>
}

func.func @i8(%x: tensor<4x256xf32>, %w: !w8) -> tensor<4x512xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x256xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w8 -> tensor<4x512xf32>
  return %y : tensor<4x512xf32>
}
