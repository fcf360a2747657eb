//===- RuntimeError.cpp - Fatal errors of the Vulkan runtime --------------===//
//
// One format for every error of the library, so that tests and users can
// grep for it, and the VkResult names instead of bare numbers.
//
//===----------------------------------------------------------------------===//

#include "RuntimeError.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace mlir::quant_block::vulkan {

void fatal(const char *format, ...) {
  std::fflush(stdout);
  std::fputs("quant-block vulkan runtime: error: ", stderr);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

const char *resultName(VkResult result) {
  switch (result) {
#define QB_RESULT(name)                                                        \
  case name:                                                                   \
    return #name;
    QB_RESULT(VK_SUCCESS)
    QB_RESULT(VK_NOT_READY)
    QB_RESULT(VK_TIMEOUT)
    QB_RESULT(VK_INCOMPLETE)
    QB_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    QB_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    QB_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    QB_RESULT(VK_ERROR_DEVICE_LOST)
    QB_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    QB_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    QB_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    QB_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    QB_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    QB_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    QB_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    QB_RESULT(VK_ERROR_FRAGMENTED_POOL)
    QB_RESULT(VK_ERROR_UNKNOWN)
    QB_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    QB_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef QB_RESULT
  default:
    return "unknown VkResult";
  }
}

void check(VkResult result, const char *what) {
  if (result != VK_SUCCESS)
    fatal("%s failed: %s (%d)", what, resultName(result),
          static_cast<int>(result));
}

} // namespace mlir::quant_block::vulkan
