//===- SPIRVBufferSizes.cpp - byte sizes beside SPIR-V kernel buffers -----===//
//
// --quant-block-gpu-spirv-buffer-sizes: see Passes.td. Upstream gpu-to-llvm
// can intersperse the byte sizes of kernel buffers itself, but only for
// statically shaped ones; this pass computes them for any identity-layout
// buffer, so that dynamically shaped buffers reach the Vulkan runtime with
// their size.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUSPIRVBUFFERSIZES
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// The byte size of `buffer`, an identity-layout memref of int or float
/// elements, as an i64.
static Value createByteSize(OpBuilder &builder, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  int64_t staticBytes = elementBytes;
  Value dynamicElements;
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      staticBytes *= size;
      continue;
    }
    Value value = memref::DimOp::create(builder, loc, buffer, dim);
    dynamicElements =
        dynamicElements
            ? arith::MulIOp::create(builder, loc, dynamicElements, value)
            : value;
  }
  Value bytes = arith::ConstantIndexOp::create(builder, loc, staticBytes);
  if (dynamicElements)
    bytes = arith::MulIOp::create(builder, loc, bytes, dynamicElements);
  return arith::IndexCastUIOp::create(builder, loc, builder.getI64Type(),
                                      bytes);
}

namespace {
struct GPUSPIRVBufferSizesPass
    : public quant_block::impl::GPUSPIRVBufferSizesBase<
          GPUSPIRVBufferSizesPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](gpu::LaunchFuncOp launch) {
      OpBuilder builder(launch);
      SmallVector<Value> operands;
      for (auto [index, operand] :
           llvm::enumerate(launch.getKernelOperands())) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        if (!type || !type.getLayout().isIdentity() ||
            !type.getElementType().isIntOrFloat()) {
          launch.emitError("kernel operand #")
              << index << " has type " << operand.getType()
              << "; the Vulkan runtime takes identity-layout memrefs of "
                 "integers or floats only (a pointer and a byte size each)";
          return WalkResult::interrupt();
        }
        operands.push_back(operand);
        operands.push_back(createByteSize(builder, launch.getLoc(), operand));
      }
      launch.getKernelOperandsMutable().assign(operands);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
