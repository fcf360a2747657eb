//===- KernelLaunch.h - One kernel dispatch ---------------------*- C++ -*-===//
//
// mgpuLaunchKernel's work: bind the kernel's (pointer, size) arguments as the
// storage buffers of descriptor set 0, dispatch the grid and wait for it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_VULKAN_KERNELLAUNCH_H
#define QUANT_BLOCK_LIB_RUNTIME_VULKAN_KERNELLAUNCH_H

#include <cstddef>
#include <cstdint>

namespace mlir::quant_block::vulkan {

class Kernel;

/// Runs `kernel` on a grid x block launch. `params` holds what
/// --quant-block-gpu-spirv-buffer-sizes + gpu-to-llvm with bare pointers
/// (or upstream's intersperse-sizes-for-kernels, static shapes only) pass:
/// {&ptr0, &bytes0, &ptr1, &bytes1, ...}; argument i becomes binding i of
/// set 0. Returns after the kernel completed.
void launchKernel(Kernel &kernel, const int64_t grid[3], const int64_t block[3],
                  void **params, size_t paramsCount);

} // namespace mlir::quant_block::vulkan

#endif // QUANT_BLOCK_LIB_RUNTIME_VULKAN_KERNELLAUNCH_H
