//===- RuntimeError.h - Fatal errors of the Vulkan runtime ------*- C++ -*-===//
//
// The mgpu* entry points return no status, so every failure ends the process
// with a message on stderr that names the call and the cause: compiled code
// that went on after a failed launch would print results that were never
// computed.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_RUNTIME_VULKAN_RUNTIMEERROR_H
#define QUANT_BLOCK_LIB_RUNTIME_VULKAN_RUNTIMEERROR_H

#include <vulkan/vulkan.h>

namespace mlir::quant_block::vulkan {

/// Prints "quant-block vulkan runtime: error: <message>" and aborts.
[[noreturn]] void fatal(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// The name of a VkResult code, e.g. "VK_ERROR_OUT_OF_DEVICE_MEMORY".
const char *resultName(VkResult result);

/// Aborts through fatal() unless `result` is VK_SUCCESS; `what` names the
/// Vulkan call.
void check(VkResult result, const char *what);

} // namespace mlir::quant_block::vulkan

#endif // QUANT_BLOCK_LIB_RUNTIME_VULKAN_RUNTIMEERROR_H
