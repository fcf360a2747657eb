//===- WorkgroupExchanges.h - exchanges in workgroup memory --- -*- C++ -*-===//
//
// What the emulations of warp operations through workgroup memory
// (--quant-block-gpu-emulate-shuffles, ...-emulate-warp-matrix-products)
// share: barriers need every thread of the workgroup, so the operation must
// be in workgroup-uniform control flow; the buffer is made as the target
// wants it (the passes' `workgroup-memory` option, which
// --quant-block-gpu-map-reductions checks the same way).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_GPU_WORKGROUPEXCHANGES_H
#define QUANT_BLOCK_LIB_CODEGEN_GPU_WORKGROUPEXCHANGES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <optional>
#include <string>

namespace mlir::quant_block {

/// Checks a pass's `workgroup-memory` option (`attribution` or `alloc`),
/// with an error at `op` otherwise.
inline LogicalResult verifyWorkgroupMemoryOption(Operation *op,
                                                 StringRef workgroupMemory) {
  if (workgroupMemory == "attribution" || workgroupMemory == "alloc")
    return success();
  return op->emitError() << "workgroup-memory must be 'attribution' or "
                            "'alloc', not '"
                         << workgroupMemory << "'";
}

/// The number of threads of `launch`'s one-dimensional workgroups of
/// constant size (std::nullopt for others).
inline std::optional<int64_t> getLinearWorkgroupSize(gpu::LaunchOp launch) {
  gpu::KernelDim3 sizes = launch.getBlockSizeOperandValues();
  std::optional<int64_t> x = getConstantIntValue(sizes.x);
  if (!x || getConstantIntValue(sizes.y) != 1 ||
      getConstantIntValue(sizes.z) != 1)
    return std::nullopt;
  return x;
}

/// Whether `value` is the same for every thread of a workgroup of `launch`:
/// defined outside it, a constant, or a workgroup id or size.
inline bool isWorkgroupUniform(Value value, gpu::LaunchOp launch) {
  if (!launch.getBody().isAncestor(value.getParentRegion()))
    return true;
  if (matchPattern(value, m_Constant()))
    return true;
  gpu::KernelDim3 ids = launch.getBlockIds();
  gpu::KernelDim3 grid = launch.getGridSize();
  gpu::KernelDim3 block = launch.getBlockSize();
  return llvm::is_contained(
      {ids.x, ids.y, ids.z, grid.x, grid.y, grid.z, block.x, block.y, block.z},
      value);
}

/// Why every thread of a workgroup of `launch` need not reach `op`
/// (std::nullopt when they all do): only scf.for loops with
/// workgroup-uniform bounds may enclose it.
inline std::optional<std::string>
whyNotReachedByWholeWorkgroup(Operation *op, gpu::LaunchOp launch) {
  for (Operation *parent = op->getParentOp(); parent != launch;
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (!loop || !isWorkgroupUniform(loop.getLowerBound(), launch) ||
        !isWorkgroupUniform(loop.getUpperBound(), launch) ||
        !isWorkgroupUniform(loop.getStep(), launch))
      return std::string("it is not in workgroup-uniform control flow (only "
                         "scf.for loops with workgroup-uniform bounds), "
                         "where barriers would not be reached by every "
                         "thread");
  }
  return std::nullopt;
}

/// A buffer of `size` i32 in workgroup memory at the start of `launch`'s
/// body: a workgroup attribution (`attribution`, convert-gpu-to-nvvm) or a
/// memref.alloc in memory space 3 (convert-gpu-to-spirv maps only these).
inline Value createWorkgroupBuffer(gpu::LaunchOp launch, int64_t size,
                                   bool attribution) {
  MLIRContext *ctx = launch.getContext();
  Location loc = launch.getLoc();
  Attribute memorySpace =
      attribution ? Attribute(gpu::AddressSpaceAttr::get(
                        ctx, gpu::AddressSpace::Workgroup))
                  : Attribute(IntegerAttr::get(IntegerType::get(ctx, 64), 3));
  auto type = MemRefType::get({size}, IntegerType::get(ctx, 32),
                              MemRefLayoutAttrInterface(), memorySpace);
  if (attribution)
    return launch.addWorkgroupAttribution(type, loc);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  return memref::AllocOp::create(b, loc, type);
}

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_LIB_CODEGEN_GPU_WORKGROUPEXCHANGES_H
