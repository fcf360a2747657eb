//===- ModuleEntryPoints.cpp - Module loading and kernel launches ---------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// The entry points that the gpu.binary translation (SelectObjectAttr) emits:
// the module constructor loads the embedded binary, each gpu.launch_func
// looks its kernel up and launches it.
//
//===----------------------------------------------------------------------===//

#include "../Common/CopyStats.h"
#include "CudaDriver.h"
#include "Profiler.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace quant_block::cuda_runtime;
using quant_block::gpu_runtime::LaunchCounters;

/// Loads a cubin or fatbin (`format=bin|fatbin`). The driver finds the size
/// in the binary's own header, so `size` is unused.
QB_CUDA_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  ScopedContext context(__func__);
  CUmodule module = nullptr;
  check(context.driver().cuModuleLoadData(&module, data), "cuModuleLoadData",
        __func__);
  return module;
}

/// Loads NUL-terminated PTX (`format=isa`), which the driver compiles at
/// `optLevel`. The compiler's log is part of the error message, as a PTX
/// error is otherwise only an error code.
QB_CUDA_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  ScopedContext context(__func__);
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUmodule module = nullptr;
  CUresult result = context.driver().cuModuleLoadDataEx(
      &module, data, sizeof(options) / sizeof(options[0]), options, values);
  if (result != CUDA_SUCCESS && log[0]) {
    std::string call = std::string("cuModuleLoadDataEx (PTX log: ") + log + ")";
    check(result, call.c_str(), __func__);
  }
  check(result, "cuModuleLoadDataEx", __func__);
  return module;
}

/// Called by the module destructor (global_dtors). No context is needed: the
/// module knows its own. Should the driver already have shut down, which can
/// happen when the destructors run from exit(), it has freed the module.
QB_CUDA_EXPORT void mgpuModuleUnload(CUmodule module) {
  CUresult result = getDriver(__func__).cuModuleUnload(module);
  if (result == CUDA_ERROR_DEINITIALIZED)
    return;
  check(result, "cuModuleUnload", __func__);
}

QB_CUDA_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                                const char *name) {
  ScopedContext context(__func__);
  CUfunction function = nullptr;
  CUresult result =
      context.driver().cuModuleGetFunction(&function, module, name);
  if (result != CUDA_SUCCESS) {
    std::string call =
        std::string("cuModuleGetFunction('") + (name ? name : "<null>") + "')";
    check(result, call.c_str(), __func__);
  }
  if (isProfiling(context.driver()))
    nameFunction(function, module, name);
  return function;
}

/// Dynamic shared memory above the default 48 KiB limit must be opted into
/// per kernel before the launch.
static void allowSharedMemory(const CudaDriver &cuda, CUfunction function,
                              int32_t smem, const char *entryPoint) {
  constexpr int32_t kDefaultLimit = 48 * 1024;
  if (smem <= kDefaultLimit)
    return;
  check(cuda.cuFuncSetAttribute(
            function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", entryPoint);
}

/// The dimensions are intptr_t to match MLIR's index type. `params` holds one
/// pointer per kernel argument (memref descriptors expanded by gpu-to-llvm),
/// passed to the driver unchanged; `paramsCount` is only needed by runtimes
/// that must know the argument count.
QB_CUDA_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                     intptr_t gridY, intptr_t gridZ,
                                     intptr_t blockX, intptr_t blockY,
                                     intptr_t blockZ, int32_t smem,
                                     CUstream stream, void **params,
                                     void **extra, size_t /*paramsCount*/) {
  ScopedContext context(__func__);
  const CudaDriver &cuda = context.driver();
  allowSharedMemory(cuda, function, smem, __func__);
  bool profiling = isProfiling(cuda);
  CUevent start = profiling ? beginLaunch(cuda, stream, __func__) : nullptr;
  check(cuda.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                            blockZ, smem, stream, params, extra),
        "cuLaunchKernel", __func__);
  LaunchCounters::get().countLaunch();
  if (profiling)
    endLaunch(cuda, function, stream, start, __func__);
}

/// gpu.launch_func with `clusters in (...)` (sm_90 thread block clusters).
/// Unlike mgpuLaunchKernel, MLIR 22's translation passes no parameter count.
QB_CUDA_EXPORT void
mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                        intptr_t clusterY, intptr_t clusterZ, intptr_t gridX,
                        intptr_t gridY, intptr_t gridZ, intptr_t blockX,
                        intptr_t blockY, intptr_t blockZ, int32_t smem,
                        CUstream stream, void **params, void **extra) {
  ScopedContext context(__func__);
  const CudaDriver &cuda = context.driver();
#if CUDA_VERSION >= 12000
  if (!cuda.cuLaunchKernelEx)
    fatal(__func__, "the CUDA driver has no cuLaunchKernelEx (cluster "
                    "launches need a CUDA 12 driver)");
  allowSharedMemory(cuda, function, smem, __func__);
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = clusterX;
  attribute.value.clusterDim.y = clusterY;
  attribute.value.clusterDim.z = clusterZ;
  CUlaunchConfig config = {};
  config.gridDimX = gridX;
  config.gridDimY = gridY;
  config.gridDimZ = gridZ;
  config.blockDimX = blockX;
  config.blockDimY = blockY;
  config.blockDimZ = blockZ;
  config.sharedMemBytes = smem;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  bool profiling = isProfiling(cuda);
  CUevent start = profiling ? beginLaunch(cuda, stream, __func__) : nullptr;
  check(cuda.cuLaunchKernelEx(&config, function, params, extra),
        "cuLaunchKernelEx", __func__);
  LaunchCounters::get().countLaunch();
  if (profiling)
    endLaunch(cuda, function, stream, start, __func__);
#else
  (void)cuda;
  fatal(__func__, "built with CUDA headers older than 12.0: no cluster "
                  "launches");
#endif
}
