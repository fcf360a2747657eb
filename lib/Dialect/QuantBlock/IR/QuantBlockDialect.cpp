//===- QuantBlockDialect.cpp - quant_block dialect ------------------------===//
//
// Registers the quant_block attributes, types and operations, and verifies
// the dialect's function argument attributes.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::quant_block;

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOpsDialect.cpp.inc"

void QuantBlockDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.cpp.inc"
      >();
}

LogicalResult
QuantBlockDialect::verifyRegionArgAttribute(Operation *op, unsigned regionIndex,
                                            unsigned argIndex,
                                            NamedAttribute attribute) {
  StringAttr name = attribute.getName();
  // Region argument attributes exist on function-like ops only (their
  // verifier is what calls this), where they describe the arguments.
  auto function = dyn_cast<FunctionOpInterface>(op);
  Type type = function && regionIndex == 0
                  ? function.getArgumentTypes()[argIndex]
                  : Type();
  if (name == getDeviceResidentAttrName()) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitOpError() << "'" << name.getValue() << "' of argument #"
                               << argIndex << " must be a unit attribute";
    // Builtin types only: lowered to the LLVM dialect, a memref argument
    // becomes a pointer (the C interface wrapper keeps the attribute).
    if (type && isa<BuiltinDialect>(type.getDialect()) &&
        !isa<RankedTensorType, MemRefType>(type))
      return op->emitOpError()
             << "argument #" << argIndex << " of type " << type
             << " cannot be device-resident ('" << name.getValue()
             << "'): only ranked tensors, memrefs and quantized tensors are "
                "buffers";
    return success();
  }
  if (name == getGGUFTensorAttrName()) {
    if (!isa<StringAttr>(attribute.getValue()))
      return op->emitOpError()
             << "'" << name.getValue() << "' of argument #" << argIndex
             << " must be a string (the GGUF tensor's name)";
    return success();
  }
  return op->emitOpError() << "unknown argument attribute '" << name.getValue()
                           << "' of the quant_block "
                           << "dialect (known: '" << getDeviceResidentAttrName()
                           << "', '" << getGGUFTensorAttrName() << "')";
}

LogicalResult
QuantBlockDialect::verifyOperationAttribute(Operation *op,
                                            NamedAttribute attribute) {
  StringAttr name = attribute.getName();
  if (name == getCPUKernelAttrName()) {
    if (!isa<CPUMatmulKernelAttr>(attribute.getValue()))
      return op->emitOpError()
             << "'" << name.getValue()
             << "' must be a #quant_block.cpu_matmul_kernel attribute";
    // Only the kernels pass reads it, and only on matrix products: anywhere
    // else it would be ignored silently.
    if (!isa<MatmulOp>(op))
      return op->emitOpError()
             << "'" << name.getValue()
             << "' is only valid on quant_block.matmul (the CPU kernel of a "
                "matrix product)";
    return success();
  }
  if (name == getNeverSubnormalOperandAttrName()) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitOpError()
             << "'" << name.getValue() << "' must be a unit attribute";
    // Only the float conversion expansion reads it, and only on f32 -> bf16
    // truncations: anywhere else it would be ignored silently.
    auto truncation = dyn_cast<arith::TruncFOp>(op);
    if (!truncation ||
        !getElementTypeOrSelf(truncation.getIn().getType()).isF32() ||
        !getElementTypeOrSelf(truncation.getType()).isBF16())
      return op->emitOpError()
             << "'" << name.getValue()
             << "' is only valid on an arith.truncf from f32 to bf16";
    return success();
  }
  return op->emitOpError() << "unknown attribute '" << name.getValue()
                           << "' of the quant_block dialect (known on "
                              "operations: '"
                           << getCPUKernelAttrName() << "', '"
                           << getNeverSubnormalOperandAttrName() << "')";
}
