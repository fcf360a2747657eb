//===- DeviceBuffers.cpp - device-resident arguments of a call ------------===//
//
// The GPU runtime's entry points are looked up in the library the JIT loaded
// for the compiled code's mgpu* calls: it is loaded once per process, so the
// buffers made here are the ones its launches know.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/DeviceBuffers.h"

#include "llvm/Support/DynamicLibrary.h"

using namespace mlir::quant_block::runner;

template <typename Function>
static bool resolve(llvm::sys::DynamicLibrary &library, Function &function,
                    const char *name) {
  function = reinterpret_cast<Function>(library.getAddressOfSymbol(name));
  return function != nullptr;
}

std::optional<GpuRuntime>
GpuRuntime::findIn(llvm::ArrayRef<std::string> libraries) {
  for (const std::string &path : libraries) {
    // The JIT loaded it already: this returns the same handle.
    std::string error;
    llvm::sys::DynamicLibrary library =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
    if (!library.isValid())
      continue;
    GpuRuntime runtime;
    if (resolve(library, runtime.alloc, "quantBlockGpuAlloc") &&
        resolve(library, runtime.free, "quantBlockGpuFree") &&
        resolve(library, runtime.upload, "quantBlockGpuUpload") &&
        resolve(library, runtime.download, "quantBlockGpuDownload") &&
        resolve(library, runtime.getCopyStats, "quantBlockGpuGetCopyStats") &&
        resolve(library, runtime.resetCopyStats,
                "quantBlockGpuResetCopyStats") &&
        resolve(library, runtime.getLaunchStats,
                "quantBlockGpuGetLaunchStats") &&
        resolve(library, runtime.resetLaunchStats,
                "quantBlockGpuResetLaunchStats"))
      return runtime;
  }
  return std::nullopt;
}

llvm::Expected<GpuRuntime>
GpuRuntime::find(llvm::ArrayRef<std::string> libraries, llvm::StringRef what) {
  if (std::optional<GpuRuntime> runtime = findIn(libraries))
    return *runtime;
  return llvm::createStringError(
      what + " is device-resident (quant_block.device_resident), but no "
             "library given has the GPU runtime's quantBlockGpu* entry "
             "points: give libQuantBlockCudaRuntime.so or "
             "libQuantBlockVulkanRuntime.so (--shared-libs) with the "
             "module's GPU pipeline");
}

DeviceBuffers::~DeviceBuffers() {
  for (void *buffer : buffers)
    runtime.free(buffer);
}

void *DeviceBuffers::upload(const void *host, uint64_t size) {
  void *device = runtime.alloc(size);
  runtime.upload(device, host, size);
  buffers.push_back(device);
  bytes += size;
  return device;
}
