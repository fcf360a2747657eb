//===- CudaDriver.h - CUDA driver API loaded at run time --------*- C++ -*-===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// libQuantBlockCudaRuntime.so links no CUDA library: the driver (libcuda.so.1)
// is opened with dlopen at the first call of an mgpu* entry point, so that the
// library builds and loads on machines without an NVIDIA driver, and a missing
// driver is a clear message rather than a loader error. This header holds the
// table of resolved driver functions, the error checks and the context scope
// shared by the entry points.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_CUDA_CUDADRIVER_H
#define QUANT_BLOCK_LIB_RUNTIME_CUDA_CUDADRIVER_H

#include <cuda.h>

#define QB_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

namespace quant_block::cuda_runtime {

// The driver functions the entry points call. Each name goes through cuda.h's
// macros (cuMemAlloc -> cuMemAlloc_v2, ...), so the table holds, and dlsym
// looks up, exactly the versioned symbol that the header's prototype
// describes.
#define QB_CUDA_REQUIRED_FUNCTIONS(X)                                          \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemcpyAsync)                                                             \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)

// Functions that only some entry points, or the kernel profiler, need: a null
// entry is reported when such an entry point is called. cuEventElapsedTime is
// cuEventElapsedTime_v2 in CUDA 12.8+ headers; older drivers only have the
// unversioned symbol, with the same prototype, which is tried next.
#define QB_CUDA_OPTIONAL_FUNCTIONS_COMMON(X)                                   \
  X(cuEventQuery)                                                              \
  X(cuEventElapsedTime)                                                        \
  X(cuCtxGetDevice)                                                            \
  X(cuDeviceGetDefaultMemPool)                                                 \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)
#if CUDA_VERSION >= 12000
#define QB_CUDA_OPTIONAL_FUNCTIONS(X)                                          \
  QB_CUDA_OPTIONAL_FUNCTIONS_COMMON(X)                                         \
  X(cuLaunchKernelEx)
#else
#define QB_CUDA_OPTIONAL_FUNCTIONS(X) QB_CUDA_OPTIONAL_FUNCTIONS_COMMON(X)
#endif

struct CudaDriver {
#define QB_CUDA_DECLARE_FUNCTION(name) decltype(&::name) name = nullptr;
  QB_CUDA_REQUIRED_FUNCTIONS(QB_CUDA_DECLARE_FUNCTION)
  QB_CUDA_OPTIONAL_FUNCTIONS(QB_CUDA_DECLARE_FUNCTION)
#undef QB_CUDA_DECLARE_FUNCTION
};

/// Returns the driver, loading libcuda.so.1 (or $QUANT_BLOCK_LIBCUDA) and
/// calling cuInit on the first call. `entryPoint` names the mgpu* function in
/// the messages. A missing library, a missing symbol or a failing cuInit is
/// fatal: the message goes to stderr and the process exits with status 1.
const CudaDriver &getDriver(const char *entryPoint);

/// Reports a failed driver call and exits with status 1; does nothing for
/// CUDA_SUCCESS. Every failure is fatal because the host code that
/// gpu-to-llvm emits cannot check results: carrying on after, say, a failed
/// allocation would only move the failure to a wild pointer later.
void check(CUresult result, const char *call, const char *entryPoint);

/// Prints `message` with the library's prefix and exits with status 1 (after
/// flushing stdout, so that the output printed so far is kept).
[[noreturn]] void fatal(const char *entryPoint, const char *message);

/// Makes the primary context of the current default device (see
/// mgpuSetDefaultDevice) current for the lifetime of the object, and restores
/// the previous current context on destruction, so that the wrappers never
/// leave a context current behind the caller's back.
class ScopedContext {
public:
  explicit ScopedContext(const char *entryPoint);
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

  const CudaDriver &driver() const { return cuda; }
  /// The context made current (the default device's primary context).
  CUcontext context() const { return current; }

private:
  const CudaDriver &cuda;
  const char *entryPoint;
  CUcontext current = nullptr;
};

/// Whether device memory of generated code is recycled (default;
/// QUANT_BLOCK_CUDA_CACHING=0 turns it off): gpu.alloc / gpu.dealloc use the
/// driver's stream-ordered allocator (cuMemAllocAsync / cuMemFreeAsync on
/// the default memory pool, which keeps freed memory for reuse) where the
/// driver has it, instead of cuMemAlloc / cuMemFree, whose every call
/// costs tens of microseconds and cuMemFree a device synchronization.
bool isCaching();

} // namespace quant_block::cuda_runtime

#endif // QUANT_BLOCK_LIB_RUNTIME_CUDA_CUDADRIVER_H
