//===- VulkanRuntimeWrappers.cpp - mgpu* entry points over Vulkan ---------===//
//
// The C entry points that MLIR 22's gpu-to-llvm and the gpu.binary LLVM
// translation call (the signatures of upstream's CudaRuntimeWrappers.cpp,
// with the size arguments MLIR 22 adds to mgpuModuleLoad and
// mgpuLaunchKernel), served by the Vulkan device of this library:
//   modules   mgpuModuleLoad / Unload / GetFunction: SPIR-V binaries
//   launches  mgpuLaunchKernel: bare pointers with interspersed byte sizes
//   memory    mgpuMemAlloc / Free / cpy / set32 / set16: mapped buffers
//   streams and events: no-ops, every launch and copy is synchronous
// and the quantBlockGpu* entry points of quant-block-c/GpuRuntime.h (device
// buffers the caller keeps across calls, copy counts).
// Every entry point holds the device mutex, so host threads may share them.
//
//===----------------------------------------------------------------------===//

#include "BufferAllocator.h"
#include "KernelLaunch.h"
#include "KernelModule.h"
#include "RuntimeError.h"
#include "VulkanDevice.h"

#include "../Common/CopyStats.h"

#include <cstdint>
#include <cstring>
#include <mutex>

using namespace mlir::quant_block::vulkan;

#define QB_VULKAN_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
using Lock = std::lock_guard<std::recursive_mutex>;

/// What streams and events point to: nothing is asynchronous, but compiled
/// code compares the handles with null.
char streamToken;
char eventToken;
} // namespace

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

QB_VULKAN_EXPORT void *mgpuModuleLoad(const void *data, size_t size) {
  Lock lock(VulkanDevice::mutex());
  return new KernelModule(data, size);
}

QB_VULKAN_EXPORT void *mgpuModuleLoadJIT(void * /*data*/, int /*optLevel*/,
                                         size_t /*size*/) {
  fatal("mgpuModuleLoadJIT: the Vulkan runtime runs SPIR-V binaries only, "
        "not modules to be JIT-compiled (PTX); build the module with the "
        "SPIR-V pipeline");
}

QB_VULKAN_EXPORT void mgpuModuleUnload(void *module) {
  Lock lock(VulkanDevice::mutex());
  delete static_cast<KernelModule *>(module);
}

QB_VULKAN_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  Lock lock(VulkanDevice::mutex());
  if (!module)
    fatal("mgpuModuleGetFunction('%s'): no module (mgpuModuleLoad failed?)",
          name);
  return &static_cast<KernelModule *>(module)->getKernel(name);
}

QB_VULKAN_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                       intptr_t gridY, intptr_t gridZ,
                                       intptr_t blockX, intptr_t blockY,
                                       intptr_t blockZ, int32_t smem,
                                       void * /*stream*/, void **params,
                                       void ** /*extra*/, size_t paramsCount) {
  Lock lock(VulkanDevice::mutex());
  auto *kernel = static_cast<Kernel *>(function);
  if (smem != 0)
    fatal("kernel '%s' asks for %d bytes of dynamic shared memory, which "
          "Vulkan compute has no launch parameter for",
          kernel->getName().c_str(), smem);
  const int64_t grid[3] = {gridX, gridY, gridZ};
  const int64_t block[3] = {blockX, blockY, blockZ};
  launchKernel(*kernel, grid, block, params, paramsCount);
  ::quant_block::gpu_runtime::LaunchCounters::get().countLaunch();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

QB_VULKAN_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                                    bool /*isHostShared*/) {
  // Every buffer is host-visible, so host-shared needs nothing more.
  Lock lock(VulkanDevice::mutex());
  return BufferAllocator::get().allocate(sizeBytes);
}

QB_VULKAN_EXPORT void mgpuMemFree(void *pointer, void * /*stream*/) {
  if (!pointer)
    return;
  Lock lock(VulkanDevice::mutex());
  BufferAllocator::get().free(pointer);
}

/// Counts a copy between host memory and gpu.alloc buffers (host-to-host
/// copies, which no GPU work makes, are not counted).
static void countCopy(const void *dst, const void *src, uint64_t sizeBytes) {
  const BufferAllocator &allocator = BufferAllocator::get();
  uint64_t offset = 0;
  bool dstIsDevice = allocator.lookup(dst, sizeBytes, offset) != nullptr;
  bool srcIsDevice = allocator.lookup(src, sizeBytes, offset) != nullptr;
  if (dstIsDevice || srcIsDevice)
    ::quant_block::gpu_runtime::CopyCounters::get().count(
        ::quant_block::gpu_runtime::classifyCopy(dstIsDevice, srcIsDevice),
        sizeBytes);
}

QB_VULKAN_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                 void * /*stream*/) {
  // No work is pending (launches wait for completion) and every buffer is
  // mapped host-coherent memory: a host copy serves all four directions.
  if (sizeBytes == 0)
    return;
  Lock lock(VulkanDevice::mutex());
  std::memmove(dst, src, sizeBytes);
  countCopy(dst, src, sizeBytes);
}

QB_VULKAN_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                   void * /*stream*/) {
  auto *words = static_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
}

QB_VULKAN_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                   size_t count, void * /*stream*/) {
  auto *halves = static_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    halves[i] = value;
}

// Host registration (gpu.host_register) needs nothing: a launch stages any
// pointer that is not gpu.alloc memory.
QB_VULKAN_EXPORT void mgpuMemHostRegister(void * /*ptr*/,
                                          uint64_t /*sizeBytes*/) {}
QB_VULKAN_EXPORT void mgpuMemHostUnregister(void * /*ptr*/) {}
QB_VULKAN_EXPORT void mgpuMemHostRegisterMemRef(int64_t /*rank*/,
                                                void * /*descriptor*/,
                                                int64_t /*elementSizeBytes*/) {}
QB_VULKAN_EXPORT void
mgpuMemHostUnregisterMemRef(int64_t /*rank*/, void * /*descriptor*/,
                            int64_t /*elementSizeBytes*/) {}

//===----------------------------------------------------------------------===//
// Streams, events, devices
//===----------------------------------------------------------------------===//

QB_VULKAN_EXPORT void *mgpuStreamCreate() { return &streamToken; }
QB_VULKAN_EXPORT void mgpuStreamDestroy(void * /*stream*/) {}
// Launches complete before they return: waits only count (the compiled
// code's synchronizations, as on CUDA).
QB_VULKAN_EXPORT void mgpuStreamSynchronize(void * /*stream*/) {
  ::quant_block::gpu_runtime::LaunchCounters::get().countSynchronization();
}
QB_VULKAN_EXPORT void mgpuStreamWaitEvent(void * /*stream*/, void * /*event*/) {
}
QB_VULKAN_EXPORT void *mgpuEventCreate() { return &eventToken; }
QB_VULKAN_EXPORT void mgpuEventDestroy(void * /*event*/) {}
QB_VULKAN_EXPORT void mgpuEventSynchronize(void * /*event*/) {
  ::quant_block::gpu_runtime::LaunchCounters::get().countSynchronization();
}
QB_VULKAN_EXPORT void mgpuEventRecord(void * /*event*/, void * /*stream*/) {}

QB_VULKAN_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  VulkanDevice::setDefaultDeviceIndex(device);
}

//===----------------------------------------------------------------------===//
// quant-block-c/GpuRuntime.h
//===----------------------------------------------------------------------===//

QB_VULKAN_EXPORT void *quantBlockGpuAlloc(uint64_t sizeBytes) {
  if (sizeBytes == 0)
    return nullptr;
  return mgpuMemAlloc(sizeBytes, nullptr, false);
}

QB_VULKAN_EXPORT void quantBlockGpuFree(void *buffer) {
  mgpuMemFree(buffer, nullptr);
}

/// A synchronous copy between host memory and `device`, which must be in a
/// buffer of quantBlockGpuAlloc (or mgpuMemAlloc): a host pointer there
/// would be a caller's mistake that the CUDA runtime could not survive, so
/// it is refused on Vulkan too.
static void copyToOrFromDevice(void *dst, const void *src, const void *device,
                               uint64_t sizeBytes, const char *entryPoint) {
  if (sizeBytes == 0)
    return;
  Lock lock(VulkanDevice::mutex());
  uint64_t offset = 0;
  if (!BufferAllocator::get().lookup(device, sizeBytes, offset))
    fatal("%s: %p is not in a buffer of quantBlockGpuAlloc", entryPoint,
          device);
  std::memcpy(dst, src, sizeBytes);
  countCopy(dst, src, sizeBytes);
}

QB_VULKAN_EXPORT void quantBlockGpuUpload(void *device, const void *host,
                                          uint64_t sizeBytes) {
  copyToOrFromDevice(device, host, device, sizeBytes, __func__);
}

QB_VULKAN_EXPORT void quantBlockGpuDownload(void *host, const void *device,
                                            uint64_t sizeBytes) {
  copyToOrFromDevice(host, device, device, sizeBytes, __func__);
}

QB_VULKAN_EXPORT void quantBlockGpuGetCopyStats(QuantBlockGpuCopyStats *stats) {
  ::quant_block::gpu_runtime::CopyCounters::get().read(*stats);
}

QB_VULKAN_EXPORT void quantBlockGpuResetCopyStats() {
  ::quant_block::gpu_runtime::CopyCounters::get().reset();
}

QB_VULKAN_EXPORT void
quantBlockGpuGetLaunchStats(QuantBlockGpuLaunchStats *stats) {
  ::quant_block::gpu_runtime::LaunchCounters::get().read(*stats);
}

QB_VULKAN_EXPORT void quantBlockGpuResetLaunchStats() {
  ::quant_block::gpu_runtime::LaunchCounters::get().reset();
}
