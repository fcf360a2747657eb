//===- StreamEntryPoints.cpp - Streams and events -------------------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// gpu-to-llvm turns async tokens into streams (one per gpu.wait async chain)
// and events (to join chains); gpu.wait on a token synchronizes its stream.
// Destroyed streams are pooled for reuse unless QUANT_BLOCK_CUDA_CACHING=0.
//
//===----------------------------------------------------------------------===//

#include "../Common/CopyStats.h"
#include "CudaDriver.h"
#include "Profiler.h"

#include <mutex>
#include <utility>
#include <vector>

using namespace quant_block::cuda_runtime;
using quant_block::gpu_runtime::LaunchCounters;

namespace {
/// Streams that generated code destroyed, kept for its next chains: every
/// launch of a lowered function makes and destroys one, and the two driver
/// calls cost more than a small kernel. A stream is handed out again only
/// in its own context. One given back with work still queued is safe to
/// reuse: the later work runs after it, in stream order.
class StreamPool {
public:
  static StreamPool &get() {
    static StreamPool pool;
    return pool;
  }
  CUstream take(CUcontext context) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = streams.size(); i-- > 0;) {
      if (streams[i].first != context)
        continue;
      CUstream stream = streams[i].second;
      streams.erase(streams.begin() + i);
      return stream;
    }
    return nullptr;
  }
  /// False when the pool is full (the caller destroys the stream).
  bool give(CUcontext context, CUstream stream) {
    std::lock_guard<std::mutex> lock(mutex);
    if (streams.size() >= kCapacity)
      return false;
    streams.emplace_back(context, stream);
    return true;
  }

private:
  static constexpr size_t kCapacity = 16;
  std::mutex mutex;
  std::vector<std::pair<CUcontext, CUstream>> streams;
};
} // namespace

/// Non-blocking: the stream does not synchronize with the legacy default
/// stream, so independent chains of async tokens may overlap.
QB_CUDA_EXPORT CUstream mgpuStreamCreate() {
  ScopedContext context(__func__);
  if (isCaching())
    if (CUstream stream = StreamPool::get().take(context.context()))
      return stream;
  CUstream stream = nullptr;
  check(context.driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate", __func__);
  return stream;
}

QB_CUDA_EXPORT void mgpuStreamDestroy(CUstream stream) {
  ScopedContext context(__func__);
  if (isCaching() && StreamPool::get().give(context.context(), stream))
    return;
  check(context.driver().cuStreamDestroy(stream), "cuStreamDestroy", __func__);
}

QB_CUDA_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  ScopedContext context(__func__);
  check(context.driver().cuStreamSynchronize(stream), "cuStreamSynchronize",
        __func__);
  LaunchCounters::get().countSynchronization();
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
  LaunchCounters::get().countSynchronization();
  collectTimings(context.driver(), __func__);
}

QB_CUDA_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  ScopedContext context(__func__);
  check(context.driver().cuEventRecord(event, stream), "cuEventRecord",
        __func__);
}
