//===- DeviceBuffers.h - device-resident arguments of a call ----*- C++ -*-===//
//
// Arguments marked `quant_block.device_resident` take device buffers of the
// GPU runtime library the compiled code calls (libQuantBlockCudaRuntime.so
// or libQuantBlockVulkanRuntime.so, loaded by the JIT from --shared-libs):
// this file finds that library's quantBlockGpu* entry points
// (quant-block-c/GpuRuntime.h) among the loaded libraries, and holds the
// buffers uploaded once for the calls of quant-run and the C API runner.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_DEVICEBUFFERS_H
#define QUANT_BLOCK_RUNNER_DEVICEBUFFERS_H

#include "quant-block-c/GpuRuntime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::quant_block::runner {

/// The quantBlockGpu* entry points of the loaded GPU runtime.
struct GpuRuntime {
  void *(*alloc)(uint64_t) = nullptr;
  void (*free)(void *) = nullptr;
  void (*upload)(void *, const void *, uint64_t) = nullptr;
  void (*download)(void *, const void *, uint64_t) = nullptr;
  void (*getCopyStats)(QuantBlockGpuCopyStats *) = nullptr;
  void (*resetCopyStats)() = nullptr;
  void (*getLaunchStats)(QuantBlockGpuLaunchStats *) = nullptr;
  void (*resetLaunchStats)() = nullptr;

  /// Looks the entry points up in `libraries` (--shared-libs, which the JIT
  /// has loaded into the process); an error that names `what` (the argument
  /// that needs them) when none of them is a GPU runtime.
  static llvm::Expected<GpuRuntime> find(llvm::ArrayRef<std::string> libraries,
                                         llvm::StringRef what);

  /// The entry points of the first of `libraries` (paths, loaded or not)
  /// that has them, if one does.
  static std::optional<GpuRuntime>
  findIn(llvm::ArrayRef<std::string> libraries);
};

/// Device buffers owned for the life of the object (freed on destruction).
class DeviceBuffers {
public:
  explicit DeviceBuffers(const GpuRuntime &runtime) : runtime(runtime) {}
  ~DeviceBuffers();
  DeviceBuffers(const DeviceBuffers &) = delete;
  DeviceBuffers &operator=(const DeviceBuffers &) = delete;

  /// A device buffer holding a copy of the `size` bytes at `host`.
  void *upload(const void *host, uint64_t size);

  uint64_t getNumBytes() const { return bytes; }
  size_t size() const { return buffers.size(); }

private:
  GpuRuntime runtime;
  llvm::SmallVector<void *> buffers;
  uint64_t bytes = 0;
};

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_DEVICEBUFFERS_H
