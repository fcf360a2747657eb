// The schedule of the threads' loops: static (the default) leaves them as
// convert-scf-to-openmp made them; dynamic hands out `chunk` iterations at
// a time (nonmonotonic: libomp may start each thread on its static share
// and steal); guided and runtime set the kind alone or with the chunk; a
// loop that has a schedule keeps it.
// RUN: quant-opt %s --split-input-file --quant-block-cpu-thread-schedule | FileCheck %s --check-prefix=STATIC
// RUN: quant-opt %s --split-input-file --quant-block-cpu-thread-schedule="schedule=dynamic chunk=4" | FileCheck %s --check-prefix=DYNAMIC
// RUN: quant-opt %s --split-input-file --quant-block-cpu-thread-schedule="schedule=guided chunk=2" | FileCheck %s --check-prefix=GUIDED
// RUN: quant-opt %s --split-input-file --quant-block-cpu-thread-schedule="schedule=runtime" | FileCheck %s --check-prefix=RUNTIME

// STATIC-LABEL: func.func @rows(
// STATIC: omp.wsloop {
// DYNAMIC-LABEL: func.func @rows(
// DYNAMIC: %[[CHUNK:.+]] = arith.constant 4 : i64
// DYNAMIC-NEXT: omp.wsloop schedule(dynamic = %[[CHUNK]] : i64, nonmonotonic) {
// GUIDED-LABEL: func.func @rows(
// GUIDED: %[[CHUNK:.+]] = arith.constant 2 : i64
// GUIDED-NEXT: omp.wsloop schedule(guided = %[[CHUNK]] : i64) {
// RUNTIME-LABEL: func.func @rows(
// RUNTIME-NOT: arith.constant {{.*}} : i64
// RUNTIME: omp.wsloop schedule(runtime) {
func.func @rows(%out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c1) {
        memref.store %zero, %out[%i] : memref<256xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A loop whose schedule was chosen keeps it.
// DYNAMIC-LABEL: func.func @chosen(
// DYNAMIC: omp.wsloop schedule(static) {
func.func @chosen(%out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop schedule(static) {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c1) {
        memref.store %zero, %out[%i] : memref<256xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
