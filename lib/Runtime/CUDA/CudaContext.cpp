//===- CudaContext.cpp - Device selection and primary contexts ------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// The wrappers run every driver call in the primary context of the default
// device, the same context the CUDA runtime API uses, so that memory and
// modules are shared with any other CUDA user in the process.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

using namespace quant_block::cuda_runtime;

// Per thread, as the host code of a thread selects its device for the calls
// that follow (mgpuSetDefaultDevice).
static thread_local int32_t defaultDevice = 0;

/// Retains the primary context of `ordinal` once per process; it is never
/// released, since kernels' modules and allocations may outlive any caller.
static CUcontext getPrimaryContext(const CudaDriver &cuda, int32_t ordinal,
                                   const char *entryPoint) {
  static std::mutex mutex;
  static std::map<int32_t, CUcontext> contexts;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = contexts.find(ordinal);
  if (it != contexts.end())
    return it->second;
  int count = 0;
  check(cuda.cuDeviceGetCount(&count), "cuDeviceGetCount", entryPoint);
  if (ordinal < 0 || ordinal >= count) {
    std::string message = "device " + std::to_string(ordinal) +
                          " does not exist (" + std::to_string(count) +
                          " CUDA device(s) present)";
    fatal(entryPoint, message.c_str());
  }
  CUdevice device;
  check(cuda.cuDeviceGet(&device, ordinal), "cuDeviceGet", entryPoint);
  CUcontext context = nullptr;
  check(cuda.cuDevicePrimaryCtxRetain(&context, device),
        "cuDevicePrimaryCtxRetain", entryPoint);
  contexts.emplace(ordinal, context);
  return context;
}

ScopedContext::ScopedContext(const char *entryPoint)
    : cuda(getDriver(entryPoint)), entryPoint(entryPoint) {
  // Every entry point runs this: each thread keeps the context of its last
  // device, so that a launch takes no lock.
  static thread_local int32_t cachedDevice = -1;
  static thread_local CUcontext cachedContext = nullptr;
  if (cachedDevice != defaultDevice || !cachedContext) {
    cachedContext = getPrimaryContext(cuda, defaultDevice, entryPoint);
    cachedDevice = defaultDevice;
  }
  check(cuda.cuCtxPushCurrent(cachedContext), "cuCtxPushCurrent", entryPoint);
  current = cachedContext;
}

bool quant_block::cuda_runtime::isCaching() {
  static const bool caching = [] {
    const char *value = std::getenv("QUANT_BLOCK_CUDA_CACHING");
    return !value || std::string(value) != "0";
  }();
  return caching;
}

ScopedContext::~ScopedContext() {
  check(cuda.cuCtxPopCurrent(nullptr), "cuCtxPopCurrent", entryPoint);
}

/// Selects the device that the following calls of this thread use. Only
/// records the ordinal: it is checked when the next call needs a context.
QB_CUDA_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}
