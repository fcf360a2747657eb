//===- StreamEntryPoints.cpp - Streams and events -------------------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// gpu-to-llvm turns async tokens into streams (one per gpu.wait async chain)
// and events (to join chains); gpu.wait on a token synchronizes its stream.
// Every chain of one host thread gets the same stream, the thread's queue in
// its context: see mgpuStreamCreate.
//
//===----------------------------------------------------------------------===//

#include "../Common/CopyStats.h"
#include "CudaDriver.h"
#include "Profiler.h"

#include <utility>
#include <vector>

using namespace quant_block::cuda_runtime;
using quant_block::gpu_runtime::LaunchCounters;

namespace {
/// The queues of the calling host thread, one per context, made at its first
/// chain there and kept for the thread's life (never destroyed: a thread
/// exit may come after the driver is unloaded).
std::vector<std::pair<CUcontext, CUstream>> &threadQueues() {
  thread_local std::vector<std::pair<CUcontext, CUstream>> queues;
  return queues;
}
} // namespace

/// The calling thread's queue in the current context. Compiled code relies
/// on it being one in-order stream for every chain: a private function of
/// the module returns, and a call of a function of the module starts,
/// without waiting for device work no host buffer depends on
/// (--quant-block-gpu-data-movement's `ordered-queue`); the caller's later
/// chains, and its wait at a public function's return, come after that work
/// in this queue. Non-blocking: it does not synchronize with the legacy
/// default stream, which the runtime's own copies use (they wait).
QB_CUDA_EXPORT CUstream mgpuStreamCreate() {
  ScopedContext context(__func__);
  for (const auto &[owner, stream] : threadQueues())
    if (owner == context.context())
      return stream;
  CUstream stream = nullptr;
  check(context.driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate", __func__);
  threadQueues().emplace_back(context.context(), stream);
  return stream;
}

/// The thread's queue outlives every chain that ends here; a stream the
/// runtime did not make (none today) would be destroyed.
QB_CUDA_EXPORT void mgpuStreamDestroy(CUstream stream) {
  for (const auto &queue : threadQueues())
    if (queue.second == stream)
      return;
  ScopedContext context(__func__);
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
