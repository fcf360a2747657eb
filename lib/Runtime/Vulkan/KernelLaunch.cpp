//===- KernelLaunch.cpp - One kernel dispatch -----------------------------===//
//
// A pointer from mgpuMemAlloc is bound in place, at its offset in its buffer.
// Any other pointer (host memory, or an offset the device cannot bind) is
// staged: copied into a temporary buffer before the dispatch and back after
// it, so a kernel sees the same bytes either way. Each launch builds its own
// descriptor pool and command buffer and waits on a fence: launches are
// synchronous, which is what lets the stream and event entry points be
// no-ops.
//
//===----------------------------------------------------------------------===//

#include "KernelLaunch.h"

#include "../Common/CopyStats.h"

#include "BufferAllocator.h"
#include "KernelModule.h"
#include "RuntimeError.h"
#include "VulkanDevice.h"

#include <cinttypes>
#include <cstring>
#include <vector>

namespace mlir::quant_block::vulkan {

namespace {
/// Where argument i is bound.
struct Binding {
  VkBuffer buffer;
  uint64_t offset;
  uint64_t size;
};

/// A host range copied into a temporary buffer for one launch.
struct StagedRange {
  char *host;
  uint64_t size;
  MappedBuffer buffer;
};
} // namespace

/// The staged copy of [host, host + size), made once per distinct range:
/// a range passed twice is bound twice to the same copy, so that the copy
/// back cannot undo a kernel's writes with the stale second copy.
static const MappedBuffer &stage(VulkanDevice &device,
                                 std::vector<StagedRange> &staged, char *host,
                                 uint64_t size, const std::string &kernel,
                                 size_t argument) {
  for (StagedRange &range : staged) {
    if (range.host == host && range.size == size)
      return range.buffer;
    if (host < range.host + range.size && range.host < host + size)
      fatal("kernel '%s': argument %zu (%" PRIu64 " bytes at %p) partly "
            "overlaps another argument that is not in gpu.alloc memory; "
            "such arguments cannot be staged consistently",
            kernel.c_str(), argument, size, static_cast<void *>(host));
  }
  StagedRange range{host, size, createMappedBuffer(device, size)};
  if (size != 0) {
    std::memcpy(range.buffer.mapped, host, size);
    ::quant_block::gpu_runtime::CopyCounters::get().count(
        ::quant_block::gpu_runtime::CopyDirection::HostToDevice, size);
  }
  staged.push_back(range);
  return staged.back().buffer;
}

void launchKernel(Kernel &kernel, const int64_t grid[3], const int64_t block[3],
                  void **params, size_t paramsCount) {
  const std::string &name = kernel.getName();
  if (paramsCount % 2 != 0)
    fatal("kernel '%s' got %zu launch parameters; the Vulkan runtime expects "
          "(pointer, size) pairs: lower the host code with "
          "--quant-block-gpu-spirv-buffer-sizes and then gpu-to-llvm"
          "{use-bare-pointers-for-kernels=true} (or, for statically shaped "
          "buffers only, gpu-to-llvm{use-bare-pointers-for-kernels=true "
          "intersperse-sizes-for-kernels=true})",
          name.c_str(), paramsCount);
  if (kernel.hasWorkgroupSize) {
    for (int i = 0; i < 3; ++i) {
      if (block[i] == static_cast<int64_t>(kernel.workgroupSize[i]))
        continue;
      fatal("kernel '%s' launched with block size (%" PRId64 ", %" PRId64
            ", %" PRId64 ") but its SPIR-V workgroup size is (%u, %u, %u) "
            "(spirv.entry_point_abi)",
            name.c_str(), block[0], block[1], block[2], kernel.workgroupSize[0],
            kernel.workgroupSize[1], kernel.workgroupSize[2]);
    }
  }
  VulkanDevice &device = VulkanDevice::get();
  const VkPhysicalDeviceLimits &limits = device.properties().limits;
  for (int i = 0; i < 3; ++i) {
    if (grid[i] < 0 || grid[i] > limits.maxComputeWorkGroupCount[i])
      fatal("kernel '%s': grid size %" PRId64 " in dimension %d is outside "
            "[0, %u], the limit of Vulkan device '%s'",
            name.c_str(), grid[i], i, limits.maxComputeWorkGroupCount[i],
            device.name().c_str());
  }

  uint32_t numBindings = static_cast<uint32_t>(paramsCount / 2);
  std::vector<Binding> bindings;
  std::vector<StagedRange> staged;
  staged.reserve(numBindings); // stage() returns references into it.
  const BufferAllocator &allocator = BufferAllocator::get();
  for (uint32_t i = 0; i < numBindings; ++i) {
    char *pointer = *static_cast<char **>(params[2 * i]);
    uint64_t size = *static_cast<uint64_t *>(params[2 * i + 1]);
    if (size > limits.maxStorageBufferRange)
      fatal("kernel '%s': argument %u has %" PRIu64 " bytes, more than the "
            "storage buffer range of Vulkan device '%s' (%u bytes)",
            name.c_str(), i, size, device.name().c_str(),
            limits.maxStorageBufferRange);
    uint64_t offset = 0;
    const MappedBuffer *buffer = allocator.lookup(pointer, size, offset);
    // Vulkan binds storage buffers only at aligned offsets and with a
    // nonzero range: stage what does not fit that.
    if (buffer && size != 0 &&
        offset % limits.minStorageBufferOffsetAlignment == 0) {
      bindings.push_back({buffer->buffer, offset, size});
      continue;
    }
    const MappedBuffer &copy = stage(device, staged, pointer, size, name, i);
    bindings.push_back({copy.buffer, 0, size == 0 ? VK_WHOLE_SIZE : size});
  }

  const KernelPipeline &pipeline = kernel.getPipeline(numBindings);
  VkDevice vkDevice = device.device();

  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (numBindings != 0) {
    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  numBindings};
    VkDescriptorPoolCreateInfo poolInfo{};
    poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    poolInfo.maxSets = 1;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &poolSize;
    check(vkCreateDescriptorPool(vkDevice, &poolInfo, nullptr, &pool),
          "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo setInfo{};
    setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    setInfo.descriptorPool = pool;
    setInfo.descriptorSetCount = 1;
    setInfo.pSetLayouts = &pipeline.setLayout;
    check(vkAllocateDescriptorSets(vkDevice, &setInfo, &set),
          "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos(numBindings);
    std::vector<VkWriteDescriptorSet> writes(numBindings);
    for (uint32_t i = 0; i < numBindings; ++i) {
      infos[i] = {bindings[i].buffer, bindings[i].offset, bindings[i].size};
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(vkDevice, numBindings, writes.data(), 0, nullptr);
  }

  VkCommandBufferAllocateInfo commandInfo{};
  commandInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  commandInfo.commandPool = device.commandPool();
  commandInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  commandInfo.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(vkDevice, &commandInfo, &commands),
        "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo beginInfo{};
  beginInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(commands, &beginInfo), "vkBeginCommandBuffer");
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                    pipeline.pipeline);
  if (set != VK_NULL_HANDLE)
    vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                            pipeline.layout, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(commands, static_cast<uint32_t>(grid[0]),
                static_cast<uint32_t>(grid[1]), static_cast<uint32_t>(grid[2]));
  // Host-coherent memory still needs the kernel's writes made visible to
  // host reads; the fence wait alone does not do that.
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr,
                       0, nullptr);
  check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
  device.submitAndWait(commands);

  vkFreeCommandBuffers(vkDevice, device.commandPool(), 1, &commands);
  if (pool != VK_NULL_HANDLE)
    vkDestroyDescriptorPool(vkDevice, pool, nullptr);
  for (StagedRange &range : staged) {
    if (range.size != 0) {
      std::memcpy(range.host, range.buffer.mapped, range.size);
      ::quant_block::gpu_runtime::CopyCounters::get().count(
          ::quant_block::gpu_runtime::CopyDirection::DeviceToHost, range.size);
    }
    destroyMappedBuffer(device, range.buffer);
  }
}

} // namespace mlir::quant_block::vulkan
