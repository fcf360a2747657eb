/*===- mock-libcuda.c - A CUDA driver stand-in for the wrapper tests ------===*
 *
 * Part of the quant-block project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Implements, over host memory, every driver function that
 * libQuantBlockCudaRuntime.so resolves, and logs the calls on stdout, so that
 * the host code that gpu-to-llvm emits can be run through the wrappers on a
 * machine without a GPU (QUANT_BLOCK_LIBCUDA=mock.so). Kernels are not
 * executed: a launch only logs its kernel name and dimensions.
 * MOCK_CUDA_FAIL=<symbol> makes that function return
 * CUDA_ERROR_OUT_OF_MEMORY, to test the wrappers' error reports.
 *
 *===----------------------------------------------------------------------===*/

#include <cuda.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int shouldFail(const char *symbol) {
  const char *fail = getenv("MOCK_CUDA_FAIL");
  return fail && strcmp(fail, symbol) == 0;
}

#define MOCK_FAIL_IF_ASKED(symbol)                                             \
  do {                                                                         \
    if (shouldFail(symbol))                                                    \
      return CUDA_ERROR_OUT_OF_MEMORY;                                         \
  } while (0)

static int contextDepth = 0;

CUresult cuInit(unsigned int flags) {
  (void)flags;
  MOCK_FAIL_IF_ASKED("cuInit");
  printf("mock: cuInit\n");
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY"
                                            : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : "unknown";
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}

/* An sm_80 device without other attributes. */
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice device) {
  (void)device;
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *value = 8;
  else
    *value = 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  static int primary;
  (void)device;
  printf("mock: cuDevicePrimaryCtxRetain\n");
  *context = (CUcontext)&primary;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext context) {
  (void)context;
  ++contextDepth;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *context) {
  if (context)
    *context = NULL;
  if (contextDepth-- <= 0) {
    printf("mock: ERROR: cuCtxPopCurrent without a pushed context\n");
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  return CUDA_SUCCESS;
}

/* Every call but the context ones must run with a context pushed. */
static CUresult requireContext(const char *symbol) {
  if (contextDepth > 0)
    return CUDA_SUCCESS;
  printf("mock: ERROR: %s without a current context\n", symbol);
  return CUDA_ERROR_INVALID_CONTEXT;
}

static const char *imageKind(const void *image) {
  const unsigned char *bytes = (const unsigned char *)image;
  if (bytes[0] == 0x50 && bytes[1] == 0xed && bytes[2] == 0x55 &&
      bytes[3] == 0xba)
    return "fatbin";
  if (memcmp(bytes, "\177ELF", 4) == 0)
    return "cubin";
  if (strstr((const char *)image, ".version") &&
      strstr((const char *)image, ".target"))
    return "ptx";
  return "unknown";
}

/* Each load gets a handle of its own (from a ring of them), as the driver
 * gives, so that the runtime can tell modules apart. */
static int moduleHandles[64];
static int loadedModules;
static CUmodule nextModule(void) {
  return (CUmodule)&moduleHandles[loadedModules++ % 64];
}
static int isModule(CUmodule module) {
  return (int *)module >= moduleHandles && (int *)module < moduleHandles + 64;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  MOCK_FAIL_IF_ASKED("cuModuleLoadData");
  printf("mock: cuModuleLoadData %s\n", imageKind(image));
  *module = nextModule();
  return requireContext("cuModuleLoadData");
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned int numOptions, CUjit_option *options,
                            void **values) {
  (void)options;
  (void)values;
  MOCK_FAIL_IF_ASKED("cuModuleLoadDataEx");
  printf("mock: cuModuleLoadDataEx %s with %u options\n", imageKind(image),
         numOptions);
  *module = nextModule();
  return requireContext("cuModuleLoadDataEx");
}

CUresult cuModuleUnload(CUmodule module) {
  printf("mock: cuModuleUnload%s\n",
         isModule(module) ? "" : " of an unknown module");
  return CUDA_SUCCESS;
}

/* A function handle is the kernel's name, so that launches can log it. */
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  (void)module;
  MOCK_FAIL_IF_ASKED("cuModuleGetFunction");
  printf("mock: cuModuleGetFunction %s\n", name);
  *function = (CUfunction)strdup(name);
  return requireContext("cuModuleGetFunction");
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                            int value) {
  (void)function;
  printf("mock: cuFuncSetAttribute %d = %d\n", (int)attribute, value);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction function, unsigned int gridX,
                        unsigned int gridY, unsigned int gridZ,
                        unsigned int blockX, unsigned int blockY,
                        unsigned int blockZ, unsigned int smem, CUstream stream,
                        void **params, void **extra) {
  (void)stream;
  (void)extra;
  MOCK_FAIL_IF_ASKED("cuLaunchKernel");
  printf("mock: cuLaunchKernel %s grid (%u, %u, %u) block (%u, %u, %u) smem "
         "%u params %s\n",
         (const char *)function, gridX, gridY, gridZ, blockX, blockY, blockZ,
         smem, params ? "set" : "null");
  return requireContext("cuLaunchKernel");
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction function,
                          void **params, void **extra) {
  (void)extra;
  printf("mock: cuLaunchKernelEx %s grid (%u, %u, %u) block (%u, %u, %u) "
         "smem %u params %s",
         (const char *)function, config->gridDimX, config->gridDimY,
         config->gridDimZ, config->blockDimX, config->blockDimY,
         config->blockDimZ, config->sharedMemBytes, params ? "set" : "null");
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      printf(" cluster (%u, %u, %u)", config->attrs[i].value.clusterDim.x,
             config->attrs[i].value.clusterDim.y,
             config->attrs[i].value.clusterDim.z);
  printf("\n");
  return requireContext("cuLaunchKernelEx");
}

static int streamHandle, eventHandle;

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  printf("mock: cuStreamCreate flags %u\n", flags);
  *stream = (CUstream)&streamHandle;
  return requireContext("cuStreamCreate");
}

CUresult cuStreamDestroy(CUstream stream) {
  (void)stream;
  printf("mock: cuStreamDestroy\n");
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  (void)stream;
  printf("mock: cuStreamSynchronize\n");
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  (void)stream;
  (void)event;
  (void)flags;
  printf("mock: cuStreamWaitEvent\n");
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  printf("mock: cuEventCreate flags %u\n", flags);
  *event = (CUevent)&eventHandle;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  (void)event;
  printf("mock: cuEventDestroy\n");
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  (void)event;
  (void)stream;
  printf("mock: cuEventRecord\n");
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  (void)event;
  printf("mock: cuEventSynchronize\n");
  return CUDA_SUCCESS;
}

/* Every timed launch takes a quarter of a millisecond. */
CUresult cuEventQuery(CUevent event) {
  (void)event;
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent stop) {
  (void)start;
  (void)stop;
  *milliseconds = 0.25f;
  return CUDA_SUCCESS;
}

/* "Device" memory is zeroed host memory, so copies are plain memcpy's and
 * what no kernel wrote reads as zeros. */
CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  MOCK_FAIL_IF_ASKED("cuMemAlloc");
  printf("mock: cuMemAlloc %zu\n", bytes);
  *pointer = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return requireContext("cuMemAlloc");
}

CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes,
                           unsigned int flags) {
  printf("mock: cuMemAllocManaged %zu flags %u\n", bytes, flags);
  *pointer = (CUdeviceptr)(uintptr_t)malloc(bytes);
  return requireContext("cuMemAllocManaged");
}

CUresult cuMemFree(CUdeviceptr pointer) {
  printf("mock: cuMemFree\n");
  free((void *)(uintptr_t)pointer);
  return requireContext("cuMemFree");
}

#ifdef MOCK_STREAM_ORDERED_ALLOCATOR
/* Built with -DMOCK_STREAM_ORDERED_ALLOCATOR, the mock has the driver's
 * stream-ordered allocator and memory pools too (a driver of CUDA 11.2 or
 * later); without it, the runtime falls back to cuMemAlloc / cuMemFree. */
static int poolHandle;

CUresult cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return requireContext("cuCtxGetDevice");
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice device) {
  (void)device;
  *pool = (CUmemoryPool)&poolHandle;
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                               void *value) {
  (void)pool;
  printf("mock: cuMemPoolSetAttribute %d %llu\n", (int)attribute,
         *(unsigned long long *)value);
  return CUDA_SUCCESS;
}

CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes, CUstream stream) {
  (void)stream;
  printf("mock: cuMemAllocAsync %zu\n", bytes);
  *pointer = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return requireContext("cuMemAllocAsync");
}

CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream) {
  (void)stream;
  printf("mock: cuMemFreeAsync\n");
  free((void *)(uintptr_t)pointer);
  return requireContext("cuMemFreeAsync");
}
#endif

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream stream) {
  (void)stream;
  printf("mock: cuMemcpyAsync %zu\n", bytes);
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return requireContext("cuMemcpyAsync");
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                          CUstream stream) {
  (void)stream;
  printf("mock: cuMemsetD32Async %zu\n", count);
  uint32_t *words = (uint32_t *)(uintptr_t)dst;
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
  return requireContext("cuMemsetD32Async");
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          CUstream stream) {
  (void)stream;
  printf("mock: cuMemsetD16Async %zu\n", count);
  uint16_t *halves = (uint16_t *)(uintptr_t)dst;
  for (size_t i = 0; i < count; ++i)
    halves[i] = value;
  return requireContext("cuMemsetD16Async");
}

CUresult cuMemHostRegister(void *pointer, size_t bytes, unsigned int flags) {
  (void)pointer;
  printf("mock: cuMemHostRegister %zu flags %u\n", bytes, flags);
  return requireContext("cuMemHostRegister");
}

CUresult cuMemHostUnregister(void *pointer) {
  (void)pointer;
  printf("mock: cuMemHostUnregister\n");
  return requireContext("cuMemHostUnregister");
}
