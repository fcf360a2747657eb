//===- MemoryEntryPoints.cpp - Device memory and copies -------------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// gpu.alloc / gpu.dealloc / gpu.memcpy / gpu.memset and host registration,
// and the device buffers and copy counts of quant-block-c/GpuRuntime.h.
// Copies go through cuMemcpyAsync, which, with unified virtual addressing,
// infers the direction (host or device, either side) from the pointers; the
// counts classify them by the allocations this library made.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "../Common/CopyStats.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

using namespace quant_block::cuda_runtime;
using namespace quant_block::gpu_runtime;

namespace {
/// The live allocations of mgpuMemAlloc (start -> size and whether it came
/// from the stream-ordered allocator), to tell device pointers from host
/// ones when counting copies and to free each the way it was allocated.
class DeviceAllocations {
public:
  struct Allocation {
    uint64_t size;
    bool streamOrdered;
  };
  static DeviceAllocations &get() {
    static DeviceAllocations allocations;
    return allocations;
  }
  void add(const void *pointer, Allocation allocation) {
    std::lock_guard<std::mutex> lock(mutex);
    ranges[reinterpret_cast<uintptr_t>(pointer)] = allocation;
  }
  /// Forgets `pointer` and returns whether it was stream-ordered.
  bool remove(const void *pointer) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = ranges.find(reinterpret_cast<uintptr_t>(pointer));
    if (it == ranges.end())
      return false;
    bool streamOrdered = it->second.streamOrdered;
    ranges.erase(it);
    return streamOrdered;
  }
  bool contains(const void *pointer) {
    auto address = reinterpret_cast<uintptr_t>(pointer);
    std::lock_guard<std::mutex> lock(mutex);
    auto it = ranges.upper_bound(address);
    if (it == ranges.begin())
      return false;
    --it;
    return address - it->first < it->second.size;
  }

private:
  std::mutex mutex;
  std::map<uintptr_t, Allocation> ranges;
};
} // namespace

/// Counts a copy of `sizeBytes` from `src` to `dst` (host-to-host copies,
/// which no GPU work makes, are not counted).
static void countCopy(const void *dst, const void *src, uint64_t sizeBytes) {
  DeviceAllocations &device = DeviceAllocations::get();
  bool dstIsDevice = device.contains(dst), srcIsDevice = device.contains(src);
  if (dstIsDevice || srcIsDevice)
    CopyCounters::get().count(classifyCopy(dstIsDevice, srcIsDevice),
                              sizeBytes);
}

static CUdeviceptr toDevicePointer(void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

/// Lets the default memory pool of `context`'s device keep the memory that
/// cuMemFreeAsync returns (its release threshold is 0 by default, which
/// hands memory back to the device at every synchronization), once per
/// context. Without the pool functions, the pool keeps its default.
static void keepPoolMemory(const ScopedContext &context,
                           const char *entryPoint) {
  static std::mutex mutex;
  static std::map<CUcontext, bool> configured;
  std::lock_guard<std::mutex> lock(mutex);
  if (configured[context.context()])
    return;
  configured[context.context()] = true;
  const CudaDriver &cuda = context.driver();
  if (!cuda.cuCtxGetDevice || !cuda.cuDeviceGetDefaultMemPool ||
      !cuda.cuMemPoolSetAttribute)
    return;
  CUdevice device;
  CUmemoryPool pool;
  check(cuda.cuCtxGetDevice(&device), "cuCtxGetDevice", entryPoint);
  check(cuda.cuDeviceGetDefaultMemPool(&pool, device),
        "cuDeviceGetDefaultMemPool", entryPoint);
  cuuint64_t keepAll = UINT64_MAX;
  check(cuda.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                   &keepAll),
        "cuMemPoolSetAttribute", entryPoint);
}

/// `isHostShared` (gpu.alloc host_shared) asks for memory that the host can
/// access too: managed memory. A zero-byte allocation is a null pointer, as
/// the driver rejects a zero size. Other allocations are stream-ordered on
/// `stream` where the driver has that allocator and caching is on (see
/// isCaching).
QB_CUDA_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                                  bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  ScopedContext context(__func__);
  const CudaDriver &cuda = context.driver();
  CUdeviceptr pointer = 0;
  bool streamOrdered = !isHostShared && isCaching() && cuda.cuMemAllocAsync &&
                       cuda.cuMemFreeAsync;
  if (isHostShared) {
    check(cuda.cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged", __func__);
  } else if (streamOrdered) {
    keepPoolMemory(context, __func__);
    check(cuda.cuMemAllocAsync(&pointer, sizeBytes, stream), "cuMemAllocAsync",
          __func__);
  } else {
    check(cuda.cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc", __func__);
  }
  void *result = reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
  DeviceAllocations::get().add(result, {sizeBytes, streamOrdered});
  return result;
}

/// Frees at once, not in stream order: gpu-to-llvm only emits the free after
/// the work that used the buffer was waited for or is ordered before it on
/// the same stream, and cuMemFree waits for pending work on the memory. A
/// stream-ordered allocation is freed in `stream`'s order.
QB_CUDA_EXPORT void mgpuMemFree(void *pointer, CUstream stream) {
  if (!pointer)
    return;
  ScopedContext context(__func__);
  if (DeviceAllocations::get().remove(pointer))
    check(context.driver().cuMemFreeAsync(toDevicePointer(pointer), stream),
          "cuMemFreeAsync", __func__);
  else
    check(context.driver().cuMemFree(toDevicePointer(pointer)), "cuMemFree",
          __func__);
}

QB_CUDA_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                               CUstream stream) {
  if (sizeBytes == 0)
    return;
  ScopedContext context(__func__);
  check(context.driver().cuMemcpyAsync(toDevicePointer(dst),
                                       toDevicePointer(src), sizeBytes, stream),
        "cuMemcpyAsync", __func__);
  countCopy(dst, src, sizeBytes);
}

/// `count` is the number of 32-bit elements, not bytes.
QB_CUDA_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                 CUstream stream) {
  if (count == 0)
    return;
  ScopedContext context(__func__);
  check(context.driver().cuMemsetD32Async(toDevicePointer(dst), value, count,
                                          stream),
        "cuMemsetD32Async", __func__);
}

/// `count` is the number of 16-bit elements, not bytes.
QB_CUDA_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                 CUstream stream) {
  if (count == 0)
    return;
  ScopedContext context(__func__);
  check(context.driver().cuMemsetD16Async(toDevicePointer(dst), value, count,
                                          stream),
        "cuMemsetD16Async", __func__);
}

/// Page-locks host memory so that kernels can access it (gpu.host_register).
QB_CUDA_EXPORT void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  ScopedContext context(__func__);
  check(context.driver().cuMemHostRegister(pointer, sizeBytes,
                                           CU_MEMHOSTREGISTER_PORTABLE),
        "cuMemHostRegister", __func__);
}

QB_CUDA_EXPORT void mgpuMemHostUnregister(void *pointer) {
  ScopedContext context(__func__);
  check(context.driver().cuMemHostUnregister(pointer), "cuMemHostUnregister",
        __func__);
}

namespace {
/// The leading fields of a ranked memref descriptor, which are followed by
/// `rank` sizes and `rank` strides.
struct MemRefDescriptorPrefix {
  char *allocated;
  char *aligned;
  int64_t offset;
};
} // namespace

/// The bytes a strided memref spans from its first element: registering
/// them covers every element, whatever the strides.
static uint64_t spannedBytes(int64_t rank,
                             const MemRefDescriptorPrefix *descriptor,
                             int64_t elementSizeBytes) {
  const auto *sizes = reinterpret_cast<const int64_t *>(descriptor + 1);
  const int64_t *strides = sizes + rank;
  int64_t lastElement = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] == 0)
      return 0;
    lastElement += (sizes[i] - 1) * strides[i];
  }
  return static_cast<uint64_t>(lastElement + 1) * elementSizeBytes;
}

QB_CUDA_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                              int64_t elementSizeBytes) {
  auto *memref = static_cast<const MemRefDescriptorPrefix *>(descriptor);
  uint64_t sizeBytes = spannedBytes(rank, memref, elementSizeBytes);
  if (sizeBytes == 0)
    return;
  mgpuMemHostRegister(memref->aligned + memref->offset * elementSizeBytes,
                      sizeBytes);
}

QB_CUDA_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                                int64_t elementSizeBytes) {
  auto *memref = static_cast<const MemRefDescriptorPrefix *>(descriptor);
  if (spannedBytes(rank, memref, elementSizeBytes) == 0)
    return;
  mgpuMemHostUnregister(memref->aligned + memref->offset * elementSizeBytes);
}

//===----------------------------------------------------------------------===//
// quant-block-c/GpuRuntime.h
//===----------------------------------------------------------------------===//

/// Long-lived buffers of the caller: plain cuMemAlloc, outside the pool.
QB_CUDA_EXPORT void *quantBlockGpuAlloc(uint64_t sizeBytes) {
  if (sizeBytes == 0)
    return nullptr;
  ScopedContext context(__func__);
  CUdeviceptr pointer = 0;
  check(context.driver().cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc",
        __func__);
  void *result = reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
  DeviceAllocations::get().add(result, {sizeBytes, /*streamOrdered=*/false});
  return result;
}

QB_CUDA_EXPORT void quantBlockGpuFree(void *buffer) {
  mgpuMemFree(buffer, /*stream=*/nullptr);
}

/// A copy on the legacy default stream, waited for: it is ordered after the
/// work of every blocking stream, and the host buffer may be reused when it
/// returns.
static void copySynchronously(void *dst, const void *src, uint64_t sizeBytes,
                              const char *entryPoint) {
  if (sizeBytes == 0)
    return;
  ScopedContext context(entryPoint);
  check(context.driver().cuMemcpyAsync(toDevicePointer(dst),
                                       toDevicePointer(const_cast<void *>(src)),
                                       sizeBytes, /*hStream=*/nullptr),
        "cuMemcpyAsync", entryPoint);
  check(context.driver().cuStreamSynchronize(nullptr), "cuStreamSynchronize",
        entryPoint);
  countCopy(dst, src, sizeBytes);
}

QB_CUDA_EXPORT void quantBlockGpuUpload(void *device, const void *host,
                                        uint64_t sizeBytes) {
  copySynchronously(device, host, sizeBytes, __func__);
}

QB_CUDA_EXPORT void quantBlockGpuDownload(void *host, const void *device,
                                          uint64_t sizeBytes) {
  copySynchronously(host, device, sizeBytes, __func__);
}

QB_CUDA_EXPORT void quantBlockGpuGetCopyStats(QuantBlockGpuCopyStats *stats) {
  CopyCounters::get().read(*stats);
}

QB_CUDA_EXPORT void quantBlockGpuResetCopyStats() {
  CopyCounters::get().reset();
}

QB_CUDA_EXPORT void
quantBlockGpuGetLaunchStats(QuantBlockGpuLaunchStats *stats) {
  quant_block::gpu_runtime::LaunchCounters::get().read(*stats);
}

QB_CUDA_EXPORT void quantBlockGpuResetLaunchStats() {
  quant_block::gpu_runtime::LaunchCounters::get().reset();
}
