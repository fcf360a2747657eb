//===- BufferAllocator.cpp - Host-visible Vulkan buffers ------------------===//
//
// A buffer per allocation keeps the lookup exact and the code short; the
// kernels this runtime serves allocate a handful of buffers per launch.
//
//===----------------------------------------------------------------------===//

#include "BufferAllocator.h"

#include "RuntimeError.h"
#include "VulkanDevice.h"

#include <cinttypes>

namespace mlir::quant_block::vulkan {

MappedBuffer createMappedBuffer(VulkanDevice &device, uint64_t size) {
  const VkPhysicalDeviceLimits &limits = device.properties().limits;
  if (size > limits.maxStorageBufferRange)
    fatal("a buffer of %" PRIu64 " bytes exceeds the storage buffer range of "
          "Vulkan device '%s' (maxStorageBufferRange = %u bytes)",
          size, device.name().c_str(), limits.maxStorageBufferRange);
  MappedBuffer result;
  result.size = size;
  VkBufferCreateInfo bufferInfo{};
  bufferInfo.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  // Rounded up to whole 32-bit words: i8/i16 data may be read by a kernel
  // through 32-bit loads of the last word.
  bufferInfo.size = size == 0 ? 4 : (size + 3) & ~uint64_t(3);
  bufferInfo.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                     VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(device.device(), &bufferInfo, nullptr, &result.buffer),
        "vkCreateBuffer");

  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device.device(), result.buffer, &requirements);
  VkMemoryAllocateInfo allocInfo{};
  allocInfo.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocInfo.allocationSize = requirements.size;
  // Host reads of results are faster from cached memory where it exists.
  allocInfo.memoryTypeIndex =
      device.findMemoryType(requirements.memoryTypeBits,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                            VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  VkResult allocated =
      vkAllocateMemory(device.device(), &allocInfo, nullptr, &result.memory);
  if (allocated != VK_SUCCESS)
    fatal("mgpuMemAlloc: cannot allocate %" PRIu64 " bytes on Vulkan device "
          "'%s': %s",
          size, device.name().c_str(), resultName(allocated));
  check(vkBindBufferMemory(device.device(), result.buffer, result.memory, 0),
        "vkBindBufferMemory");
  void *mapped = nullptr;
  check(
      vkMapMemory(device.device(), result.memory, 0, VK_WHOLE_SIZE, 0, &mapped),
      "vkMapMemory");
  result.mapped = static_cast<char *>(mapped);
  return result;
}

void destroyMappedBuffer(VulkanDevice &device, MappedBuffer &buffer) {
  vkUnmapMemory(device.device(), buffer.memory);
  vkDestroyBuffer(device.device(), buffer.buffer, nullptr);
  vkFreeMemory(device.device(), buffer.memory, nullptr);
  buffer = MappedBuffer();
}

BufferAllocator &BufferAllocator::get() {
  // Never destroyed: compiled code may free buffers from static destructors.
  static auto *allocator = new BufferAllocator();
  return *allocator;
}

void *BufferAllocator::allocate(uint64_t size) {
  MappedBuffer buffer = createMappedBuffer(VulkanDevice::get(), size);
  buffers[reinterpret_cast<uintptr_t>(buffer.mapped)] = buffer;
  return buffer.mapped;
}

void BufferAllocator::free(void *pointer) {
  auto it = buffers.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == buffers.end())
    fatal("mgpuMemFree: %p was not returned by mgpuMemAlloc", pointer);
  destroyMappedBuffer(VulkanDevice::get(), it->second);
  buffers.erase(it);
}

const MappedBuffer *BufferAllocator::lookup(const void *pointer, uint64_t size,
                                            uint64_t &offset) const {
  auto address = reinterpret_cast<uintptr_t>(pointer);
  auto it = buffers.upper_bound(address);
  if (it == buffers.begin())
    return nullptr;
  --it;
  const MappedBuffer &buffer = it->second;
  // A size-0 allocation still owns its first byte, so its pointer is found.
  uint64_t extent = buffer.size == 0 ? 1 : buffer.size;
  offset = address - it->first;
  if (offset >= extent)
    return nullptr;
  if (size > buffer.size - offset)
    fatal("a kernel argument of %" PRIu64 " bytes at %p runs past the end of "
          "its gpu.alloc buffer (%" PRIu64 " bytes at %p, argument at offset "
          "%" PRIu64 "): the memref's size does not match its buffer",
          size, pointer, buffer.size, static_cast<const void *>(buffer.mapped),
          offset);
  return &buffer;
}

} // namespace mlir::quant_block::vulkan
