//===- StreamEntryPoints.cpp - Streams and events -------------------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// gpu-to-llvm turns async tokens into streams (one per gpu.wait async chain)
// and events (to join chains); gpu.wait on a token synchronizes its stream.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Profiler.h"

using namespace quant_block::cuda_runtime;

/// Non-blocking: the stream does not synchronize with the legacy default
/// stream, so independent chains of async tokens may overlap.
QB_CUDA_EXPORT CUstream mgpuStreamCreate() {
  ScopedContext context(__func__);
  CUstream stream = nullptr;
  check(context.driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate", __func__);
  return stream;
}

QB_CUDA_EXPORT void mgpuStreamDestroy(CUstream stream) {
  ScopedContext context(__func__);
  check(context.driver().cuStreamDestroy(stream), "cuStreamDestroy", __func__);
}

QB_CUDA_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  ScopedContext context(__func__);
  check(context.driver().cuStreamSynchronize(stream), "cuStreamSynchronize",
        __func__);
  collectTimings(context.driver(), __func__);
}

QB_CUDA_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  ScopedContext context(__func__);
  check(context.driver().cuStreamWaitEvent(stream, event, /*Flags=*/0),
        "cuStreamWaitEvent", __func__);
}

/// Events only order streams; without timing they are cheaper to record.
QB_CUDA_EXPORT CUevent mgpuEventCreate() {
  ScopedContext context(__func__);
  CUevent event = nullptr;
  check(context.driver().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate", __func__);
  return event;
}

QB_CUDA_EXPORT void mgpuEventDestroy(CUevent event) {
  ScopedContext context(__func__);
  check(context.driver().cuEventDestroy(event), "cuEventDestroy", __func__);
}

QB_CUDA_EXPORT void mgpuEventSynchronize(CUevent event) {
  ScopedContext context(__func__);
  check(context.driver().cuEventSynchronize(event), "cuEventSynchronize",
        __func__);
  collectTimings(context.driver(), __func__);
}

QB_CUDA_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  ScopedContext context(__func__);
  check(context.driver().cuEventRecord(event, stream), "cuEventRecord",
        __func__);
}
