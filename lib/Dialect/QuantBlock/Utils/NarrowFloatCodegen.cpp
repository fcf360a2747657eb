//===- NarrowFloatCodegen.cpp - decoding of narrow floats as IR -----------===//
//
// The public face of the decoders in ScalarCodegen.h for other passes.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/Utils/NarrowFloatCodegen.h"

#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

bool mlir::quant_block::isNarrowFloatType(Type type) {
  Type element = getElementTypeOrSelf(type);
  return isOCPFloatStorageType(element) || isa<Float8E8M0FNUType>(element);
}

Value mlir::quant_block::emitNarrowFloatToF32(OpBuilder &b, Location loc,
                                              Value value) {
  // emitScaleToF32 decodes E8M0 by bit placement and the OCP formats with
  // emitDecodeOCPFloat; both are exact.
  return detail::emitScaleToF32(b, loc, value);
}
