//===- LaunchOperandCasts.cpp - host operands of retyped kernels ----------===//
//
// See LaunchOperandCasts.h.
//
//===----------------------------------------------------------------------===//

#include "LaunchOperandCasts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

void mlir::quant_block::castLaunchOperands(
    ModuleOp module, const llvm::DenseSet<Operation *> &retyped) {
  if (retyped.empty())
    return;
  SymbolTableCollection symbols;
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel || !retyped.contains(kernel))
      return;
    OpBuilder builder(launch);
    for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      OpOperand &operand = launch.getKernelOperandsMutable()[index];
      if (operand.get().getType() == type)
        continue;
      Value cast = isa<MemRefType>(type)
                       ? UnrealizedConversionCastOp::create(
                             builder, launch.getLoc(), type, operand.get())
                             .getResult(0)
                       : arith::BitcastOp::create(builder, launch.getLoc(),
                                                  type, operand.get())
                             .getResult();
      operand.set(cast);
    }
  });
}
