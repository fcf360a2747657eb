//===- KernelModule.h - SPIR-V modules and their kernels --------*- C++ -*-===//
//
// What mgpuModuleLoad and mgpuModuleGetFunction return: a copy of the SPIR-V
// binary of one gpu.binary, the entry points found in it with their
// workgroup sizes, and per kernel the compute pipelines built for it. The
// Vulkan objects are created at the first launch, so loading a module (which
// compiled code does in a global constructor) needs no device.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_VULKAN_KERNELMODULE_H
#define QUANT_BLOCK_LIB_RUNTIME_VULKAN_KERNELMODULE_H

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir::quant_block::vulkan {

class KernelModule;

/// The pipeline of a kernel for one number of bindings: descriptor set 0
/// with bindings 0 .. n-1, all storage buffers.
struct KernelPipeline {
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

/// One OpEntryPoint of a module (GLCompute).
class Kernel {
public:
  Kernel(KernelModule &module, std::string name)
      : module(module), name(std::move(name)) {}

  KernelModule &getModule() const { return module; }
  const std::string &getName() const { return name; }

  /// The OpExecutionMode LocalSize of the entry point, if it has one.
  bool hasWorkgroupSize = false;
  uint32_t workgroupSize[3] = {1, 1, 1};

  /// The pipeline for `numBindings` storage buffers, built on first use.
  const KernelPipeline &getPipeline(uint32_t numBindings);

  /// Destroys the pipelines (the device must exist).
  void release();

private:
  KernelModule &module;
  std::string name;
  std::map<uint32_t, KernelPipeline> pipelines;
};

class KernelModule {
public:
  /// Copies and parses `size` bytes of SPIR-V; aborts on a malformed binary.
  KernelModule(const void *data, size_t size);
  ~KernelModule();

  /// The kernel named `name`; aborts when the module has no GLCompute entry
  /// point of that name. Returns the same object for the same name.
  Kernel &getKernel(const char *name);

  /// The VkShaderModule, created on first use.
  VkShaderModule getShaderModule();

  /// The subgroup size the module's subgroup operations were compiled for
  /// (--quant-block-spirv-record-subgroup-size), 0 without any.
  uint32_t getRequiredSubgroupSize() const { return requiredSubgroupSize; }

private:
  std::vector<uint32_t> words;
  uint32_t requiredSubgroupSize = 0;
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
  VkShaderModule shaderModule = VK_NULL_HANDLE;
};

} // namespace mlir::quant_block::vulkan

#endif // QUANT_BLOCK_LIB_RUNTIME_VULKAN_KERNELMODULE_H
