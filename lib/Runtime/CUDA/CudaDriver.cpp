//===- CudaDriver.cpp - Load the CUDA driver at run time ------------------===//
//
// Part of the quant-block project.
//
//===----------------------------------------------------------------------===//
//
// Opens libcuda.so.1 with dlopen, resolves the driver functions by their
// versioned symbol names and initializes the driver, once per process.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace quant_block::cuda_runtime;

// Stringizes after macro expansion, so that QB_CUDA_SYMBOL(cuMemAlloc) is
// "cuMemAlloc_v2", the name cuda.h binds the prototype to.
#define QB_CUDA_SYMBOL_IMPL(name) #name
#define QB_CUDA_SYMBOL(name) QB_CUDA_SYMBOL_IMPL(name)

static constexpr const char *kPrefix = "libQuantBlockCudaRuntime";

void quant_block::cuda_runtime::fatal(const char *entryPoint,
                                      const char *message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s: %s\n", kPrefix, entryPoint, message);
  std::fflush(stderr);
  // _Exit, not exit: the JIT'ed module's destructors (global_dtors unloading
  // its GPU module) would call back into the failed driver.
  std::_Exit(EXIT_FAILURE);
}

namespace {
/// The loaded driver, or the message saying why it could not be loaded. Both
/// are decided once; every later entry point call reports the same result.
struct LoadedDriver {
  CudaDriver driver;
  std::string error;
};
} // namespace

/// Names for the results that a driver which failed to initialize returns;
/// such a driver (the toolkit's link stub in particular) may not name its
/// own errors.
static const char *fallbackName(CUresult result) {
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's link stub, not a "
           "driver)";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE (no CUDA-capable device)";
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (driver library and kernel "
           "module versions differ)";
  default:
    return nullptr;
  }
}

static std::string describe(const CudaDriver &cuda, CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuda.cuGetErrorName && cuda.cuGetErrorName(result, &name) != 0)
    name = nullptr;
  if (cuda.cuGetErrorString && cuda.cuGetErrorString(result, &text) != 0)
    text = nullptr;
  if (!name) {
    name = fallbackName(result);
    text = nullptr;
  }
  std::string description =
      name ? name : "CUDA error " + std::to_string(static_cast<int>(result));
  if (text)
    description += std::string(" (") + text + ")";
  return description;
}

static LoadedDriver load() {
  LoadedDriver loaded;
  // The override lets tests (and unusual installs) name another driver file.
  const char *path = std::getenv("QUANT_BLOCK_LIBCUDA");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    loaded.error = std::string("no NVIDIA driver: cannot load the CUDA driver "
                               "library '") +
                   path + "' (" + (reason ? reason : "unknown reason") + ")";
    return loaded;
  }
  CudaDriver &cuda = loaded.driver;
#define QB_CUDA_RESOLVE(name)                                                  \
  cuda.name = reinterpret_cast<decltype(cuda.name)>(                           \
      dlsym(handle, QB_CUDA_SYMBOL(name)));
  QB_CUDA_REQUIRED_FUNCTIONS(QB_CUDA_RESOLVE)
  QB_CUDA_OPTIONAL_FUNCTIONS(QB_CUDA_RESOLVE)
#undef QB_CUDA_RESOLVE
  if (!cuda.cuEventElapsedTime)
    cuda.cuEventElapsedTime =
        reinterpret_cast<decltype(cuda.cuEventElapsedTime)>(
            dlsym(handle, "cuEventElapsedTime"));
#define QB_CUDA_REQUIRE(name)                                                  \
  if (!cuda.name && loaded.error.empty())                                      \
    loaded.error = std::string("the CUDA driver library '") + path +           \
                   "' has no symbol '" QB_CUDA_SYMBOL(                         \
                       name) "' (driver too "                                  \
                             "old, or not an NVIDIA driver)";
  QB_CUDA_REQUIRED_FUNCTIONS(QB_CUDA_REQUIRE)
#undef QB_CUDA_REQUIRE
  if (!loaded.error.empty())
    return loaded;
  if (CUresult result = cuda.cuInit(/*Flags=*/0); result != CUDA_SUCCESS) {
    // CUDA_ERROR_STUB_LIBRARY (the toolkit's link stub found instead of a
    // driver) and CUDA_ERROR_NO_DEVICE land here.
    loaded.error = "no usable NVIDIA GPU: cuInit failed with " +
                   describe(cuda, result) + " (driver library '" + path + "')";
    return loaded;
  }
  return loaded;
}

const CudaDriver &quant_block::cuda_runtime::getDriver(const char *entryPoint) {
  // A function-local static: thread-safe one-time loading.
  static const LoadedDriver loaded = load();
  if (!loaded.error.empty())
    fatal(entryPoint, loaded.error.c_str());
  return loaded.driver;
}

void quant_block::cuda_runtime::check(CUresult result, const char *call,
                                      const char *entryPoint) {
  if (result == CUDA_SUCCESS)
    return;
  std::string message = std::string(call) + " failed with " +
                        describe(getDriver(entryPoint), result);
  fatal(entryPoint, message.c_str());
}
