//===- SubgroupSize.h - the subgroup size a SPIR-V binary needs -*- C++ -*-===//
//
// Shared by --quant-block-spirv-record-subgroup-size, which writes it, and
// the Vulkan runtime, which reads it (plain C++: the runtime links no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_SPIRV_SUBGROUPSIZE_H
#define QUANT_BLOCK_CODEGEN_SPIRV_SUBGROUPSIZE_H

#include <cstdint>

namespace mlir::quant_block {

/// The SpecId of the specialization constant whose value is the subgroup
/// size a SPIR-V module's subgroup operations were compiled for ("QB").
constexpr uint32_t kSubgroupSizeSpecId = 0x5142;

/// Its symbol in the spirv.module.
constexpr const char *kSubgroupSizeConstantName = "quant_block_subgroup_size";

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_SPIRV_SUBGROUPSIZE_H
