//===- CopyStats.h - Copy counts of a GPU runtime library -------*- C++ -*-===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// The counters behind quantBlockGpuGetCopyStats and quantBlockGpuGetLaunchStats
// (quant-block-c/GpuRuntime.h),
// shared in source by the CUDA and Vulkan runtimes: each library that
// includes this header has its own counters, and reports them at exit when
// QUANT_BLOCK_GPU_COPY_STATS=1. Header-only so that neither library links
// anything new.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_COMMON_COPYSTATS_H
#define QUANT_BLOCK_LIB_RUNTIME_COMMON_COPYSTATS_H

#include "quant-block-c/GpuRuntime.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace quant_block::gpu_runtime {

enum class CopyDirection { HostToDevice, DeviceToHost, DeviceToDevice };

/// Whether the counters report at exit (QUANT_BLOCK_GPU_COPY_STATS=1); if
/// so, stdout is flushed first so that the report follows the program's
/// output.
inline bool beginExitReport() {
  const char *report = std::getenv("QUANT_BLOCK_GPU_COPY_STATS");
  if (!report || std::strcmp(report, "1") != 0)
    return false;
  std::fflush(stdout);
  return true;
}

/// The counts, updated from any thread.
class CopyCounters {
public:
  static CopyCounters &get() {
    static CopyCounters counters;
    return counters;
  }

  void count(CopyDirection direction, uint64_t bytes) {
    Counter &counter = counters[static_cast<int>(direction)];
    counter.copies.fetch_add(1, std::memory_order_relaxed);
    counter.bytes.fetch_add(bytes, std::memory_order_relaxed);
  }

  void read(QuantBlockGpuCopyStats &stats) const {
    stats.hostToDeviceCopies = load(CopyDirection::HostToDevice).copies;
    stats.hostToDeviceBytes = load(CopyDirection::HostToDevice).bytes;
    stats.deviceToHostCopies = load(CopyDirection::DeviceToHost).copies;
    stats.deviceToHostBytes = load(CopyDirection::DeviceToHost).bytes;
    stats.deviceToDeviceCopies = load(CopyDirection::DeviceToDevice).copies;
    stats.deviceToDeviceBytes = load(CopyDirection::DeviceToDevice).bytes;
  }

  void reset() {
    for (Counter &counter : counters) {
      counter.copies.store(0, std::memory_order_relaxed);
      counter.bytes.store(0, std::memory_order_relaxed);
    }
  }

  /// The report of QUANT_BLOCK_GPU_COPY_STATS=1, printed when the library
  /// is unloaded or the process exits.
  ~CopyCounters() {
    if (!beginExitReport())
      return;
    QuantBlockGpuCopyStats stats;
    read(stats);
    std::fprintf(stderr,
                 "quant-block-gpu-copies: host-to-device %" PRIu64 " (%" PRIu64
                 " bytes), device-to-host %" PRIu64 " (%" PRIu64
                 " bytes), device-to-device %" PRIu64 " (%" PRIu64 " bytes)\n",
                 stats.hostToDeviceCopies, stats.hostToDeviceBytes,
                 stats.deviceToHostCopies, stats.deviceToHostBytes,
                 stats.deviceToDeviceCopies, stats.deviceToDeviceBytes);
  }

private:
  struct Counter {
    std::atomic<uint64_t> copies{0};
    std::atomic<uint64_t> bytes{0};
  };
  struct Snapshot {
    uint64_t copies, bytes;
  };
  Snapshot load(CopyDirection direction) const {
    const Counter &counter = counters[static_cast<int>(direction)];
    return {counter.copies.load(std::memory_order_relaxed),
            counter.bytes.load(std::memory_order_relaxed)};
  }

  Counter counters[3];
};

/// The kernel launches and host waits (stream and event synchronizations)
/// the compiled code asked the runtime for, updated from any thread: what a
/// call costs beside its copies (a decode step of many small kernels is
/// bound by them).
class LaunchCounters {
public:
  static LaunchCounters &get() {
    static LaunchCounters counters;
    return counters;
  }

  void countLaunch() { launches.fetch_add(1, std::memory_order_relaxed); }
  void countSynchronization() {
    synchronizations.fetch_add(1, std::memory_order_relaxed);
  }

  void read(QuantBlockGpuLaunchStats &stats) const {
    stats.kernelLaunches = launches.load(std::memory_order_relaxed);
    stats.synchronizations = synchronizations.load(std::memory_order_relaxed);
  }

  void reset() {
    launches.store(0, std::memory_order_relaxed);
    synchronizations.store(0, std::memory_order_relaxed);
  }

  /// With QUANT_BLOCK_GPU_COPY_STATS=1, a line of their own beside the
  /// copies' (in either order: each counter reports when it is destroyed).
  ~LaunchCounters() {
    if (!beginExitReport())
      return;
    QuantBlockGpuLaunchStats stats;
    read(stats);
    std::fprintf(stderr,
                 "quant-block-gpu-launches: kernels %" PRIu64
                 ", synchronizations %" PRIu64 "\n",
                 stats.kernelLaunches, stats.synchronizations);
  }

private:
  std::atomic<uint64_t> launches{0};
  std::atomic<uint64_t> synchronizations{0};
};

/// The direction of a copy between memory the runtime allocated (device)
/// and any other (host).
inline CopyDirection classifyCopy(bool dstIsDevice, bool srcIsDevice) {
  if (dstIsDevice && srcIsDevice)
    return CopyDirection::DeviceToDevice;
  return dstIsDevice ? CopyDirection::HostToDevice
                     : CopyDirection::DeviceToHost;
}

} // namespace quant_block::gpu_runtime

#endif // QUANT_BLOCK_LIB_RUNTIME_COMMON_COPYSTATS_H
