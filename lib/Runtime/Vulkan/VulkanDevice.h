//===- VulkanDevice.h - The Vulkan device of the runtime --------*- C++ -*-===//
//
// One Vulkan instance, physical device, logical device and compute queue per
// process, created at the first mgpu* call that needs them. The device is
// created with every 8/16-bit storage and arithmetic feature the driver
// offers, since the kernels the SPIR-V pipeline emits declare Int8, Int16,
// Float16 and the 8/16-bit storage capabilities.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_VULKAN_VULKANDEVICE_H
#define QUANT_BLOCK_LIB_RUNTIME_VULKAN_VULKANDEVICE_H

#include <vulkan/vulkan.h>

#include <cstdint>
#include <mutex>
#include <string>

namespace mlir::quant_block::vulkan {

class VulkanDevice {
public:
  /// The process's device, created on first use. Aborts with a message
  /// (fatal()) when there is no Vulkan driver or no device with a compute
  /// queue.
  static VulkanDevice &get();

  /// Selects the device by its index among the devices with a compute queue
  /// (mgpuSetDefaultDevice); takes effect only before the first get().
  static void setDefaultDeviceIndex(int index);

  /// Serializes every use of the device, the allocator and the modules: the
  /// mgpu* entry points may be called from several host threads.
  static std::recursive_mutex &mutex();

  VkDevice device() const { return logicalDevice; }
  VkQueue queue() const { return computeQueue; }
  uint32_t queueFamily() const { return computeQueueFamily; }
  VkCommandPool commandPool() const { return pool; }
  const VkPhysicalDeviceProperties &properties() const { return props; }
  const std::string &name() const { return deviceName; }

  /// The index of a memory type allowed by `typeBits` that has all of
  /// `required`, preferring one that also has `preferred`; aborts if none.
  uint32_t findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                          VkMemoryPropertyFlags preferred) const;

  /// Aborts with a message (fatal()) unless kernel `kernel`, whose
  /// workgroups have `workgroupSizeX` threads (one dimension), can run in
  /// whole subgroups of exactly `size` threads with subgroup shuffles:
  /// subgroup size control (Vulkan 1.3 or VK_EXT_subgroup_size_control)
  /// with `size` among the device's sizes for compute, full subgroups,
  /// and the shuffle operations.
  void checkSubgroupSize(uint32_t size, const char *kernel,
                         uint32_t workgroupSizeX) const;

  /// Submits `commandBuffer` and blocks until it completed: execution is
  /// synchronous, so the host may read results right after a launch.
  void submitAndWait(VkCommandBuffer commandBuffer);

private:
  VulkanDevice();
  ~VulkanDevice() = delete; // Lives until the process ends, see get().

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice logicalDevice = VK_NULL_HANDLE;
  VkQueue computeQueue = VK_NULL_HANDLE;
  uint32_t computeQueueFamily = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties memoryProps{};
  std::string deviceName;
  /// Subgroups: the default size, the operations compute shaders have,
  /// and whether size control and full subgroups were enabled, with the
  /// sizes it allows.
  uint32_t subgroupSize = 0;
  VkSubgroupFeatureFlags subgroupOperations = 0;
  bool subgroupSizeControl = false;
  uint32_t minSubgroupSize = 0, maxSubgroupSize = 0;
};

} // namespace mlir::quant_block::vulkan

#endif // QUANT_BLOCK_LIB_RUNTIME_VULKAN_VULKANDEVICE_H
