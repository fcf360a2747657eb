//===- MemoryEntryPoints.cpp - Device memory and copies -------------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// gpu.alloc / gpu.dealloc / gpu.memcpy / gpu.memset and host registration.
// Copies go through cuMemcpyAsync, which, with unified virtual addressing,
// infers the direction (host or device, either side) from the pointers.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cstddef>
#include <cstdint>

using namespace quant_block::cuda_runtime;

static CUdeviceptr toDevicePointer(void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

/// `isHostShared` (gpu.alloc host_shared) asks for memory that the host can
/// access too: managed memory. A zero-byte allocation is a null pointer, as
/// the driver rejects a zero size.
QB_CUDA_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                                  bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  ScopedContext context(__func__);
  CUdeviceptr pointer = 0;
  if (isHostShared)
    check(context.driver().cuMemAllocManaged(&pointer, sizeBytes,
                                             CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged", __func__);
  else
    check(context.driver().cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc",
          __func__);
  return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
}

/// Frees at once, not in stream order: gpu-to-llvm only emits the free after
/// the work that used the buffer was waited for or is ordered before it on
/// the same stream, and cuMemFree waits for pending work on the memory.
QB_CUDA_EXPORT void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  if (!pointer)
    return;
  ScopedContext context(__func__);
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
