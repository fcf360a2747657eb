//===- KernelModule.cpp - SPIR-V modules and their kernels ----------------===//
//
// The binary is scanned for OpEntryPoint, OpExecutionMode LocalSize and the
// specialization constant of the subgroup size only: enough to reject a
// kernel name the module does not define and a launch whose block size is
// not the workgroup size baked into the SPIR-V, both of which Vulkan itself
// would not diagnose, and to create the pipelines of kernels with subgroup
// operations for the subgroup size they were compiled for.
//
//===----------------------------------------------------------------------===//

#include "KernelModule.h"

#include "RuntimeError.h"
#include "VulkanDevice.h"

#include "quant-block/Codegen/SPIRV/SubgroupSize.h"

#include <cstring>
#include <string>

namespace mlir::quant_block::vulkan {

namespace {
// From the SPIR-V specification, section 3.
constexpr uint32_t spirvMagic = 0x07230203;
constexpr uint32_t opEntryPoint = 15;
constexpr uint32_t opExecutionMode = 16;
constexpr uint32_t opSpecConstant = 50;
constexpr uint32_t opDecorate = 71;
constexpr uint32_t decorationSpecId = 1;
constexpr uint32_t executionModelGLCompute = 5;
constexpr uint32_t executionModeLocalSize = 17;
constexpr size_t headerWords = 5;
} // namespace

/// Decodes the nul-terminated literal string at `words[0..]`.
static std::string decodeString(const uint32_t *words, size_t available) {
  std::string result;
  for (size_t i = 0; i < available; ++i) {
    for (int byte = 0; byte < 4; ++byte) {
      char c = static_cast<char>((words[i] >> (8 * byte)) & 0xff);
      if (c == '\0')
        return result;
      result.push_back(c);
    }
  }
  return result;
}

KernelModule::KernelModule(const void *data, size_t size) {
  if (!data || size < headerWords * 4 || size % 4 != 0)
    fatal("mgpuModuleLoad: %zu bytes are not a SPIR-V binary (expected a "
          "whole number of 32-bit words, at least the 5-word header)",
          size);
  words.resize(size / 4);
  std::memcpy(words.data(), data, size);
  if (words[0] != spirvMagic)
    fatal("mgpuModuleLoad: not a SPIR-V binary (magic number 0x%08x, "
          "expected 0x%08x); the Vulkan runtime runs gpu.binary objects of a "
          "#spirv.target_env target",
          words[0], spirvMagic);

  // First the entry points, then their execution modes (which refer to them
  // by result id and follow them in the binary's logical layout).
  std::map<uint32_t, Kernel *> byId;
  // The result id decorated with the subgroup size's SpecId (annotations
  // precede the constants in the logical layout).
  uint32_t subgroupSizeId = 0;
  for (size_t at = headerWords; at < words.size();) {
    uint32_t wordCount = words[at] >> 16;
    uint32_t opcode = words[at] & 0xffff;
    if (wordCount == 0 || at + wordCount > words.size())
      fatal("mgpuModuleLoad: malformed SPIR-V instruction at word %zu", at);
    if (opcode == opEntryPoint && wordCount >= 4 &&
        words[at + 1] == executionModelGLCompute) {
      std::string name = decodeString(&words[at + 3], wordCount - 3);
      auto &kernel = kernels[name];
      kernel = std::make_unique<Kernel>(*this, name);
      byId[words[at + 2]] = kernel.get();
    } else if (opcode == opDecorate && wordCount == 4 &&
               words[at + 2] == decorationSpecId &&
               words[at + 3] == kSubgroupSizeSpecId) {
      subgroupSizeId = words[at + 1];
    } else if (opcode == opSpecConstant && wordCount == 4 &&
               subgroupSizeId != 0 && words[at + 2] == subgroupSizeId) {
      requiredSubgroupSize = words[at + 3];
    } else if (opcode == opExecutionMode && wordCount >= 6 &&
               words[at + 2] == executionModeLocalSize) {
      auto it = byId.find(words[at + 1]);
      if (it != byId.end()) {
        it->second->hasWorkgroupSize = true;
        for (int i = 0; i < 3; ++i)
          it->second->workgroupSize[i] = words[at + 3 + i];
      }
    }
    at += wordCount;
  }
}

KernelModule::~KernelModule() {
  if (shaderModule == VK_NULL_HANDLE)
    return; // Never launched: no Vulkan object was created.
  VulkanDevice &device = VulkanDevice::get();
  for (auto &entry : kernels)
    entry.second->release();
  vkDestroyShaderModule(device.device(), shaderModule, nullptr);
}

Kernel &KernelModule::getKernel(const char *name) {
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    std::string known;
    for (auto &entry : kernels)
      known += (known.empty() ? "'" : ", '") + entry.first + "'";
    fatal("mgpuModuleGetFunction: the SPIR-V module has no compute entry "
          "point '%s' (it has: %s)",
          name, known.empty() ? "none" : known.c_str());
  }
  return *it->second;
}

VkShaderModule KernelModule::getShaderModule() {
  if (shaderModule != VK_NULL_HANDLE)
    return shaderModule;
  VkShaderModuleCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  info.codeSize = words.size() * 4;
  info.pCode = words.data();
  check(vkCreateShaderModule(VulkanDevice::get().device(), &info, nullptr,
                             &shaderModule),
        "vkCreateShaderModule");
  return shaderModule;
}

const KernelPipeline &Kernel::getPipeline(uint32_t numBindings) {
  auto it = pipelines.find(numBindings);
  if (it != pipelines.end())
    return it->second;

  VkDevice device = VulkanDevice::get().device();
  KernelPipeline result;
  std::vector<VkDescriptorSetLayoutBinding> bindings(numBindings);
  for (uint32_t i = 0; i < numBindings; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{};
  setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setInfo.bindingCount = numBindings;
  setInfo.pBindings = bindings.data();
  check(
      vkCreateDescriptorSetLayout(device, &setInfo, nullptr, &result.setLayout),
      "vkCreateDescriptorSetLayout");

  VkPipelineLayoutCreateInfo layoutInfo{};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &result.setLayout;
  check(vkCreatePipelineLayout(device, &layoutInfo, nullptr, &result.layout),
        "vkCreatePipelineLayout");

  VkComputePipelineCreateInfo pipelineInfo{};
  pipelineInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipelineInfo.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = module.getShaderModule();
  pipelineInfo.stage.pName = name.c_str();
  // Subgroup operations written for subgroups of `size` consecutive threads:
  // that size, and only whole subgroups.
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroupSize{};
  if (uint32_t size = module.getRequiredSubgroupSize()) {
    VulkanDevice::get().checkSubgroupSize(size, name.c_str(), workgroupSize[0]);
    subgroupSize.sType =
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO;
    subgroupSize.requiredSubgroupSize = size;
    pipelineInfo.stage.pNext = &subgroupSize;
    pipelineInfo.stage.flags =
        VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  }
  pipelineInfo.layout = result.layout;
  VkResult created = vkCreateComputePipelines(
      device, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &result.pipeline);
  if (created != VK_SUCCESS)
    fatal("cannot create the compute pipeline of kernel '%s' (%u bindings): "
          "%s",
          name.c_str(), numBindings, resultName(created));
  return pipelines[numBindings] = result;
}

void Kernel::release() {
  VkDevice device = VulkanDevice::get().device();
  for (auto &entry : pipelines) {
    vkDestroyPipeline(device, entry.second.pipeline, nullptr);
    vkDestroyPipelineLayout(device, entry.second.layout, nullptr);
    vkDestroyDescriptorSetLayout(device, entry.second.setLayout, nullptr);
  }
  pipelines.clear();
}

} // namespace mlir::quant_block::vulkan
