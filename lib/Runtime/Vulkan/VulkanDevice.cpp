//===- VulkanDevice.cpp - The Vulkan device of the runtime ----------------===//
//
// Instance and device creation. Device features are queried and enabled as
// far as the driver offers them; a kernel that needs a missing one fails in
// the driver's pipeline creation, which reports it.
//
//===----------------------------------------------------------------------===//

#include "VulkanDevice.h"

#include "RuntimeError.h"

#include <cstring>
#include <vector>

namespace mlir::quant_block::vulkan {

static int defaultDeviceIndex = 0;
static bool deviceCreated = false;

std::recursive_mutex &VulkanDevice::mutex() {
  // Never destroyed: compiled code may call the entry points from static
  // destructors (the module unload of gpu.binary runs in one).
  static auto *m = new std::recursive_mutex();
  return *m;
}

void VulkanDevice::setDefaultDeviceIndex(int index) {
  std::lock_guard<std::recursive_mutex> lock(mutex());
  if (!deviceCreated)
    defaultDeviceIndex = index;
}

VulkanDevice &VulkanDevice::get() {
  std::lock_guard<std::recursive_mutex> lock(mutex());
  // Never destroyed, like the mutex: buffers and modules may be released by
  // compiled code's static destructors after ours would have run.
  static VulkanDevice *device = new VulkanDevice();
  deviceCreated = true;
  return *device;
}

static const char *const noDeviceHint =
    "install a Vulkan driver (on Debian, mesa-vulkan-drivers provides "
    "lavapipe, a CPU implementation) and check `vulkaninfo --summary`";

static bool hasExtension(const std::vector<VkExtensionProperties> &extensions,
                         const char *name) {
  for (const VkExtensionProperties &extension : extensions)
    if (std::strcmp(extension.extensionName, name) == 0)
      return true;
  return false;
}

VulkanDevice::VulkanDevice() {
  // Vulkan 1.1 is the floor (16-bit storage is core there); ask for what the
  // loader offers up to 1.3 so that 1.2's core features need no extension.
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS)
    loaderVersion = VK_API_VERSION_1_0;
  if (loaderVersion < VK_API_VERSION_1_1)
    fatal("the Vulkan loader supports only Vulkan %u.%u; 1.1 is needed",
          VK_API_VERSION_MAJOR(loaderVersion),
          VK_API_VERSION_MINOR(loaderVersion));
  uint32_t apiVersion =
      loaderVersion < VK_API_VERSION_1_3 ? loaderVersion : VK_API_VERSION_1_3;

  VkApplicationInfo appInfo{};
  appInfo.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  appInfo.pApplicationName = "quant-block";
  appInfo.pEngineName = "quant-block vulkan runtime";
  appInfo.apiVersion = apiVersion;
  VkInstanceCreateInfo instanceInfo{};
  instanceInfo.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instanceInfo.pApplicationInfo = &appInfo;
  VkResult result = vkCreateInstance(&instanceInfo, nullptr, &instance);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    fatal("no Vulkan device: the Vulkan loader found no driver "
          "(vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); %s",
          noDeviceHint);
  check(result, "vkCreateInstance");

  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance, &count, nullptr),
        "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  check(vkEnumeratePhysicalDevices(instance, &count, devices.data()),
        "vkEnumeratePhysicalDevices");
  if (count == 0)
    fatal("no Vulkan device: the Vulkan drivers report no physical device; "
          "%s",
          noDeviceHint);

  // The devices with a compute queue, in the loader's order.
  int seen = 0;
  for (VkPhysicalDevice candidate : devices) {
    uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &familyCount,
                                             families.data());
    for (uint32_t i = 0; i < familyCount; ++i) {
      if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
        continue;
      if (seen++ == defaultDeviceIndex) {
        physicalDevice = candidate;
        computeQueueFamily = i;
      }
      break;
    }
    if (physicalDevice)
      break;
  }
  if (!physicalDevice)
    fatal("no Vulkan device: %d of %u devices have a compute queue, device "
          "index %d was asked for (mgpuSetDefaultDevice); %s",
          seen, count, defaultDeviceIndex, noDeviceHint);

  vkGetPhysicalDeviceProperties(physicalDevice, &props);
  vkGetPhysicalDeviceMemoryProperties(physicalDevice, &memoryProps);
  deviceName = props.deviceName;
  if (props.apiVersion < VK_API_VERSION_1_1)
    fatal("Vulkan device '%s' supports only Vulkan %u.%u; 1.1 is needed",
          props.deviceName, VK_API_VERSION_MAJOR(props.apiVersion),
          VK_API_VERSION_MINOR(props.apiVersion));
  bool core12 = props.apiVersion >= VK_API_VERSION_1_2 &&
                apiVersion >= VK_API_VERSION_1_2;
  bool core13 = props.apiVersion >= VK_API_VERSION_1_3 &&
                apiVersion >= VK_API_VERSION_1_3;

  uint32_t extensionCount = 0;
  check(vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr,
                                             &extensionCount, nullptr),
        "vkEnumerateDeviceExtensionProperties");
  std::vector<VkExtensionProperties> available(extensionCount);
  check(vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr,
                                             &extensionCount, available.data()),
        "vkEnumerateDeviceExtensionProperties");

  // 8-bit storage and float16/int8 arithmetic are core in 1.2 and
  // extensions before; 16-bit storage is core in 1.1.
  std::vector<const char *> extensions;
  bool have8BitStorage = core12;
  bool haveFloat16Int8 = core12;
  for (const char *name : {VK_KHR_8BIT_STORAGE_EXTENSION_NAME,
                           VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME}) {
    if (core12 || !hasExtension(available, name))
      continue;
    extensions.push_back(name);
    if (std::strcmp(name, VK_KHR_8BIT_STORAGE_EXTENSION_NAME) == 0)
      have8BitStorage = true;
    else
      haveFloat16Int8 = true;
  }
  // 4-way byte dot products (SPIR-V SDot / SUDot, the integer matmul
  // kernel's with --quant-block-spirv-pipeline=int8-dot-products=true): core
  // in 1.3, an extension before.
  bool haveIntegerDotProduct = core13;
  if (!core13 &&
      hasExtension(available,
                   VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
    haveIntegerDotProduct = true;
  }

  // Subgroup size control (kernels with subgroup shuffles require the
  // size they were compiled for): core in 1.3, an extension before.
  bool haveSizeControl = core13;
  if (!core13 &&
      hasExtension(available, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME)) {
    extensions.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    haveSizeControl = true;
  }
  VkPhysicalDeviceSubgroupSizeControlProperties sizeControlProps{};
  sizeControlProps.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
  VkPhysicalDeviceSubgroupProperties subgroupProps{};
  subgroupProps.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  subgroupProps.pNext = haveSizeControl ? &sizeControlProps : nullptr;
  VkPhysicalDeviceProperties2 props2{};
  props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props2.pNext = &subgroupProps;
  vkGetPhysicalDeviceProperties2(physicalDevice, &props2);
  subgroupSize = subgroupProps.subgroupSize;
  if (subgroupProps.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
    subgroupOperations = subgroupProps.supportedOperations;
  if (haveSizeControl && (sizeControlProps.requiredSubgroupSizeStages &
                          VK_SHADER_STAGE_COMPUTE_BIT)) {
    minSubgroupSize = sizeControlProps.minSubgroupSize;
    maxSubgroupSize = sizeControlProps.maxSubgroupSize;
  }

  VkPhysicalDevice8BitStorageFeatures storage8{};
  storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
  VkPhysicalDeviceShaderFloat16Int8Features float16Int8{};
  float16Int8.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDeviceShaderIntegerDotProductFeatures integerDotProduct{};
  integerDotProduct.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES;
  VkPhysicalDeviceSubgroupSizeControlFeatures sizeControl{};
  sizeControl.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES;
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  void **next = &features.pNext;
  *next = &storage16;
  next = &storage16.pNext;
  if (have8BitStorage) {
    *next = &storage8;
    next = &storage8.pNext;
  }
  if (haveFloat16Int8) {
    *next = &float16Int8;
    next = &float16Int8.pNext;
  }
  if (haveIntegerDotProduct) {
    *next = &integerDotProduct;
    next = &integerDotProduct.pNext;
  }
  if (haveSizeControl) {
    *next = &sizeControl;
    next = &sizeControl.pNext;
  }
  // Query, then enable exactly what was reported as supported.
  vkGetPhysicalDeviceFeatures2(physicalDevice, &features);
  subgroupSizeControl = haveSizeControl && sizeControl.subgroupSizeControl &&
                        sizeControl.computeFullSubgroups && minSubgroupSize;
  // Graphics-only features cost nothing to leave off; keep the compute ones.
  VkPhysicalDeviceFeatures supported = features.features;
  features.features = VkPhysicalDeviceFeatures{};
  features.features.shaderInt16 = supported.shaderInt16;
  features.features.shaderInt64 = supported.shaderInt64;
  features.features.shaderFloat64 = supported.shaderFloat64;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{};
  queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueInfo.queueFamilyIndex = computeQueueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{};
  deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceInfo.pNext = &features;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  deviceInfo.ppEnabledExtensionNames = extensions.data();
  check(vkCreateDevice(physicalDevice, &deviceInfo, nullptr, &logicalDevice),
        "vkCreateDevice");
  vkGetDeviceQueue(logicalDevice, computeQueueFamily, 0, &computeQueue);

  VkCommandPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = computeQueueFamily;
  check(vkCreateCommandPool(logicalDevice, &poolInfo, nullptr, &pool),
        "vkCreateCommandPool");
  VkFenceCreateInfo fenceInfo{};
  fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(vkCreateFence(logicalDevice, &fenceInfo, nullptr, &fence),
        "vkCreateFence");
}

uint32_t VulkanDevice::findMemoryType(uint32_t typeBits,
                                      VkMemoryPropertyFlags required,
                                      VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (uint32_t i = 0; i < memoryProps.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i)))
      continue;
    VkMemoryPropertyFlags flags = memoryProps.memoryTypes[i].propertyFlags;
    if ((flags & required) != required)
      continue;
    if ((flags & preferred) == preferred)
      return i;
    if (fallback < 0)
      fallback = static_cast<int>(i);
  }
  if (fallback < 0)
    fatal("Vulkan device '%s' has no host-visible, host-coherent memory type "
          "for storage buffers",
          deviceName.c_str());
  return static_cast<uint32_t>(fallback);
}

void VulkanDevice::checkSubgroupSize(uint32_t size, const char *kernel,
                                     uint32_t workgroupSizeX) const {
  uint32_t shuffles =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  if ((subgroupOperations & shuffles) != shuffles)
    fatal("kernel '%s' uses subgroup shuffles, which Vulkan device '%s' does "
          "not support in compute shaders; compile without "
          "--quant-block-spirv-pipeline's subgroup-size",
          kernel, deviceName.c_str());
  if (!subgroupSizeControl)
    fatal("kernel '%s' was compiled for subgroups of %u threads, but Vulkan "
          "device '%s' cannot require a subgroup size for compute shaders "
          "(no subgroup size control with full subgroups; its subgroups have "
          "%u threads); compile without --quant-block-spirv-pipeline's "
          "subgroup-size",
          kernel, size, deviceName.c_str(), subgroupSize);
  if (size < minSubgroupSize || size > maxSubgroupSize)
    fatal("kernel '%s' was compiled for subgroups of %u threads, but Vulkan "
          "device '%s' has subgroups of %u to %u threads; compile with "
          "--quant-block-spirv-pipeline=subgroup-size=N for one of those",
          kernel, size, deviceName.c_str(), minSubgroupSize, maxSubgroupSize);
  if (workgroupSizeX % size != 0)
    fatal("kernel '%s' has workgroups of %u threads, not whole subgroups of "
          "%u",
          kernel, workgroupSizeX, size);
}

void VulkanDevice::submitAndWait(VkCommandBuffer commandBuffer) {
  VkSubmitInfo submitInfo{};
  submitInfo.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submitInfo.commandBufferCount = 1;
  submitInfo.pCommandBuffers = &commandBuffer;
  check(vkQueueSubmit(computeQueue, 1, &submitInfo, fence), "vkQueueSubmit");
  check(vkWaitForFences(logicalDevice, 1, &fence, VK_TRUE, UINT64_MAX),
        "vkWaitForFences");
  check(vkResetFences(logicalDevice, 1, &fence), "vkResetFences");
}

} // namespace mlir::quant_block::vulkan
