// The thread schedule's options are checked: an unknown kind or a chunk
// below one is an error at the module, not a silent default.
// RUN: not quant-opt %s --quant-block-cpu-thread-schedule="schedule=stealing" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not quant-opt %s --quant-block-cpu-thread-schedule="schedule=dynamic chunk=0" 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not quant-opt %s --quant-block-cpu-pipeline="thread-schedule=stealing" 2>&1 | FileCheck %s --check-prefix=KIND

// KIND: error: unknown thread schedule 'stealing': expected static, dynamic, guided or runtime
// CHUNK: error: the thread schedule's chunk must be at least 1, not 0
func.func @f() {
  return
}
