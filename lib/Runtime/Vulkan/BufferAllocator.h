//===- BufferAllocator.h - Host-visible Vulkan buffers ----------*- C++ -*-===//
//
// gpu.alloc memory: one VkBuffer per allocation in host-visible, host-coherent
// memory that stays mapped for its whole life, so the pointer mgpuMemAlloc
// returns is the mapping itself. mgpuMemcpy is then a plain memcpy, and a
// launch finds the buffer (and the offset into it) of every pointer it is
// given by an address lookup.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_VULKAN_BUFFERALLOCATOR_H
#define QUANT_BLOCK_LIB_RUNTIME_VULKAN_BUFFERALLOCATOR_H

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>

namespace mlir::quant_block::vulkan {

class VulkanDevice;

/// A storage buffer with its memory, mapped at `mapped`.
struct MappedBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  char *mapped = nullptr;
  /// The size asked for; the VkBuffer may be larger.
  uint64_t size = 0;
};

/// Creates a mapped, host-visible, host-coherent storage buffer of at least
/// `size` bytes (one byte for size 0: Vulkan has no empty buffers).
MappedBuffer createMappedBuffer(VulkanDevice &device, uint64_t size);
void destroyMappedBuffer(VulkanDevice &device, MappedBuffer &buffer);

/// The buffers handed out by mgpuMemAlloc, by address.
class BufferAllocator {
public:
  static BufferAllocator &get();

  void *allocate(uint64_t size);
  /// Aborts for a pointer that allocate() did not return.
  void free(void *pointer);

  /// The buffer that holds `pointer`, with the offset of `pointer` in it, or
  /// nullptr when `pointer` is in no buffer of this allocator. Aborts when
  /// [pointer, pointer + size) starts inside a buffer and runs past its end:
  /// the host code and the buffer disagree about the memref's size.
  const MappedBuffer *lookup(const void *pointer, uint64_t size,
                             uint64_t &offset) const;

private:
  BufferAllocator() = default;
  std::map<uintptr_t, MappedBuffer> buffers;
};

} // namespace mlir::quant_block::vulkan

#endif // QUANT_BLOCK_LIB_RUNTIME_VULKAN_BUFFERALLOCATOR_H
