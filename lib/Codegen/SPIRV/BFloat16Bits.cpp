//===- BFloat16Bits.cpp - kernels' bf16 values carried as i16 bits --------===//
//
// --quant-block-gpu-bf16-bits: see Passes.td. Vulkan's SPIR-V has no bf16
// type, but after the GPU middle a kernel computes nothing in bf16: its
// arithmetic is in f32 (arith-emulate-unsupported-floats) and its
// conversions are integer arithmetic on the bits
// (--quant-block-expand-float-conversions). What is left of bf16 only moves
// bit patterns around (loads, stores, vector shuffles, bitcasts), which
// i16 does as well.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/Passes.h"

#include "LaunchOperandCasts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUBFLOAT16BITS
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// The type that carries the bits of `type` (a bf16 scalar, vector or
/// memref) as i16; null for other types.
static Type getBitsType(Type type) {
  Type i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  if (auto vector = dyn_cast<VectorType>(type);
      vector && vector.getElementType().isBF16())
    return vector.clone(i16);
  if (auto memref = dyn_cast<MemRefType>(type);
      memref && memref.getElementType().isBF16())
    return MemRefType::get(memref.getShape(), i16, memref.getLayout(),
                           memref.getMemorySpace());
  return {};
}

static bool hasBitsType(Type type) {
  return static_cast<bool>(getBitsType(type));
}

/// Whether `op` only moves its values' bits, whatever their type: it means
/// the same on i16 as on bf16.
static bool onlyMovesBits(Operation *op) {
  return isa<arith::BitcastOp, arith::ConstantOp, arith::SelectOp,
             memref::LoadOp, memref::StoreOp, memref::AllocOp, memref::AllocaOp,
             memref::DeallocOp, vector::FromElementsOp, vector::ExtractOp,
             vector::InsertOp, vector::ShuffleOp, vector::BitCastOp,
             vector::BroadcastOp, vector::LoadOp, vector::StoreOp,
             vector::ExtractStridedSliceOp, vector::InsertStridedSliceOp,
             scf::ForOp, scf::YieldOp, scf::IfOp, cf::BranchOp,
             cf::CondBranchOp>(op);
}

/// Whether `op` has a bf16 operand, result or region argument.
static bool touchesBFloat16(Operation *op) {
  auto anyBits = [](TypeRange types) {
    return llvm::any_of(types, hasBitsType);
  };
  if (anyBits(op->getOperandTypes()) || anyBits(op->getResultTypes()))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (anyBits(block.getArgumentTypes()))
        return true;
  return false;
}

/// Gives every bf16 value of `kernel` its i16 type; fails (with an error
/// at the op) where an op computes on bf16.
static LogicalResult retypeKernel(gpu::GPUFuncOp kernel) {
  WalkResult checked = kernel.getBody().walk([](Operation *op) {
    if (!touchesBFloat16(op) || onlyMovesBits(op))
      return WalkResult::advance();
    op->emitOpError()
        << "computes on bf16, which has no SPIR-V type for Vulkan: only "
           "loads, stores, constants, selects and vector moves of bf16 "
           "values are carried as their i16 bits";
    return WalkResult::interrupt();
  });
  if (checked.wasInterrupted())
    return failure();

  kernel.getBody().walk([](Block *block) {
    for (BlockArgument arg : block->getArguments())
      if (Type bits = getBitsType(arg.getType()))
        arg.setType(bits);
  });
  SmallVector<Operation *> identities;
  kernel.getBody().walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      if (Type bits = getBitsType(result.getType()))
        result.setType(bits);
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      Attribute value = constant.getValue();
      if (auto scalar = dyn_cast<FloatAttr>(value);
          scalar && scalar.getType().isBF16())
        constant.setValueAttr(IntegerAttr::get(
            constant.getType(), scalar.getValue().bitcastToAPInt()));
      else if (auto elements = dyn_cast<DenseElementsAttr>(value);
               elements && elements.getElementType().isBF16())
        constant.setValueAttr(elements.bitcast(
            cast<ShapedType>(constant.getType()).getElementType()));
    }
    // A bitcast between bf16 and i16 is now one from i16 to i16.
    if (isa<arith::BitcastOp, vector::BitCastOp>(op) &&
        op->getOperand(0).getType() == op->getResult(0).getType())
      identities.push_back(op);
  });
  for (Operation *op : identities) {
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
  SmallVector<Type> inputs;
  for (unsigned i = 0, e = kernel.getFunctionType().getNumInputs(); i < e; ++i)
    inputs.push_back(kernel.getArgument(i).getType());
  kernel.setType(FunctionType::get(kernel.getContext(), inputs, {}));
  return success();
}

namespace {
struct GPUBFloat16BitsPass
    : public quant_block::impl::GPUBFloat16BitsBase<GPUBFloat16BitsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseSet<Operation *> retyped;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        // bf16 in its arguments or only inside (a rounding to bf16 and back).
        bool usesBFloat16 = kernel
                                .walk([](Operation *op) {
                                  return touchesBFloat16(op)
                                             ? WalkResult::interrupt()
                                             : WalkResult::advance();
                                })
                                .wasInterrupted();
        if (!kernel.isKernel() || kernel.isExternal() || !usesBFloat16)
          continue;
        if (failed(retypeKernel(kernel)))
          return signalPassFailure();
        retyped.insert(kernel);
      }
    // The host passes the same buffers and scalars, cast to the bits' type
    // (both lower to the same pointer or 16-bit value).
    quant_block::castLaunchOperands(module, retyped);
  }
};
} // namespace
