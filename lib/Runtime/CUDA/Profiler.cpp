//===- Profiler.cpp - Kernel timing with CUDA events ----------------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//

#include "Profiler.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

using namespace quant_block::cuda_runtime;

namespace {
struct PendingLaunch {
  CUfunction function;
  CUevent start;
  CUevent stop;
};

/// Host-side data only, so that the exit-time report needs no driver call
/// (the driver may already be shutting down then).
struct ProfileState {
  std::mutex mutex;
  std::map<CUfunction, std::string> names;
  // The report's name of each (module, kernel name), and how many modules
  // have a kernel of each name.
  std::map<std::pair<CUmodule, std::string>, std::string> reportNames;
  std::map<std::string, unsigned> modulesWithName;
  std::vector<PendingLaunch> pending;
  // Kernel name -> GPU milliseconds of each completed launch, in order.
  std::map<std::string, std::vector<float>> times;
};
} // namespace

static ProfileState &state() {
  // Never destroyed: the report runs from atexit, after static destructors
  // may have started.
  static ProfileState *profile = new ProfileState();
  return *profile;
}

static void report() {
  ProfileState &profile = state();
  std::lock_guard<std::mutex> lock(profile.mutex);
  for (const auto &[name, times] : profile.times) {
    std::fprintf(stderr,
                 "quant-block-cuda-profile: kernel=%s launches=%zu "
                 "times_ms=",
                 name.c_str(), times.size());
    for (size_t i = 0; i < times.size(); ++i)
      std::fprintf(stderr, "%s%.6f", i ? "," : "", times[i]);
    std::fprintf(stderr, "\n");
  }
  if (!profile.pending.empty())
    std::fprintf(stderr,
                 "quant-block-cuda-profile: %zu launch(es) never synchronized, "
                 "not timed\n",
                 profile.pending.size());
}

bool quant_block::cuda_runtime::isProfiling(const CudaDriver &cuda) {
  static const bool enabled = [&] {
    const char *value = std::getenv("QUANT_BLOCK_CUDA_PROFILE");
    if (!value || !*value || std::strcmp(value, "0") == 0)
      return false;
    if (!cuda.cuEventElapsedTime || !cuda.cuEventQuery) {
      std::fprintf(stderr, "quant-block-cuda-profile: the CUDA driver cannot "
                           "time events; profiling is off\n");
      return false;
    }
    std::atexit(report);
    return true;
  }();
  return enabled;
}

void quant_block::cuda_runtime::nameFunction(CUfunction function,
                                             CUmodule module,
                                             const char *name) {
  ProfileState &profile = state();
  std::lock_guard<std::mutex> lock(profile.mutex);
  std::string base = name ? name : "<null>";
  // Kernels of different modules may share a name: gpu-kernel-outlining
  // calls every kernel outlined from @f `f_kernel`, each in a module of its
  // own. The second module's is reported as `f_kernel#2`, and so on, in the
  // order of their first lookup (the order of the first launches).
  auto [it, inserted] =
      profile.reportNames.try_emplace(std::make_pair(module, base));
  if (inserted) {
    unsigned count = ++profile.modulesWithName[base];
    it->second = count == 1 ? base : base + "#" + std::to_string(count);
  }
  profile.names[function] = it->second;
}

CUevent quant_block::cuda_runtime::beginLaunch(const CudaDriver &cuda,
                                               CUstream stream,
                                               const char *entryPoint) {
  CUevent start = nullptr;
  check(cuda.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate",
        entryPoint);
  check(cuda.cuEventRecord(start, stream), "cuEventRecord", entryPoint);
  return start;
}

void quant_block::cuda_runtime::endLaunch(const CudaDriver &cuda,
                                          CUfunction function, CUstream stream,
                                          CUevent start,
                                          const char *entryPoint) {
  CUevent stop = nullptr;
  check(cuda.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate",
        entryPoint);
  check(cuda.cuEventRecord(stop, stream), "cuEventRecord", entryPoint);
  ProfileState &profile = state();
  std::lock_guard<std::mutex> lock(profile.mutex);
  profile.pending.push_back({function, start, stop});
}

void quant_block::cuda_runtime::collectTimings(const CudaDriver &cuda,
                                               const char *entryPoint) {
  if (!isProfiling(cuda))
    return;
  ProfileState &profile = state();
  std::lock_guard<std::mutex> lock(profile.mutex);
  std::vector<PendingLaunch> stillPending;
  for (const PendingLaunch &launch : profile.pending) {
    // Another stream's launch may still run: keep it for a later sync.
    if (cuda.cuEventQuery(launch.stop) != CUDA_SUCCESS) {
      stillPending.push_back(launch);
      continue;
    }
    float milliseconds = 0;
    check(cuda.cuEventElapsedTime(&milliseconds, launch.start, launch.stop),
          "cuEventElapsedTime", entryPoint);
    auto name = profile.names.find(launch.function);
    profile
        .times[name != profile.names.end() ? name->second : "<unknown kernel>"]
        .push_back(milliseconds);
    check(cuda.cuEventDestroy(launch.start), "cuEventDestroy", entryPoint);
    check(cuda.cuEventDestroy(launch.stop), "cuEventDestroy", entryPoint);
  }
  profile.pending.swap(stillPending);
}
