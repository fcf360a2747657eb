//===- KernelSupport.cpp - helpers of the kernels that precede the lowering
//-===//
//
// What the CPU and GPU matmul kernels, which rewrite quant_block.matmul
// before --convert-quant-block-to-linalg, share (with the lowering): the
// lowered parts of a quantized operand, which activations the integer
// kernels take, and the activations cast to the weight's K.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;

FailureOr<SmallVector<Value>>
mlir::quant_block::materializeLoweredParts(OpBuilder &b, Location loc,
                                           Value quantized) {
  SmallVector<Type> partTypes;
  if (failed(QuantBlockTypeConverter().convertType(quantized.getType(),
                                                   partTypes)))
    return failure();
  auto cast = UnrealizedConversionCastOp::create(b, loc, partTypes, quantized);
  return SmallVector<Value>(cast.getResults());
}

Value mlir::quant_block::castToWeightDepth(OpBuilder &b, Location loc,
                                           MatmulOp op, Value lhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  ArrayRef<int64_t> rhsShape = op.getRhs().getType().getShape();
  int64_t depth =
      op.getTransposeRhs() ? rhsShape.back() : rhsShape[rhsShape.size() - 2];
  if (!lhsType.isDynamicDim(lhsType.getRank() - 1) ||
      ShapedType::isDynamic(depth))
    return lhs;
  SmallVector<int64_t> shape(lhsType.getShape());
  shape.back() = depth;
  return tensor::CastOp::create(b, loc, lhsType.clone(shape), lhs);
}

std::optional<std::string>
mlir::quant_block::getInt8ActivationsUnsupportedReason(Type lhs) {
  auto type = dyn_cast<QuantizedTensorType>(lhs);
  if (!type || type.getRank() != 2 || ShapedType::isDynamic(type.getShape()[1]))
    return std::string(
        "the lhs is not a rank-2 quantized tensor with a static K");
  SchemeAttr scheme = type.getScheme();
  if (!scheme.hasIntegerStorage() || scheme.getStorageBitWidth() != 8 ||
      !scheme.isSignedStorage() || scheme.getZeroPointType() ||
      scheme.hasMXScale() || scheme.getOuter())
    return std::string("the lhs is not i8 with plain scales");
  Type scale = scheme.getScaleType();
  if (!scale.isF32() && !scale.isF16() && !scale.isBF16())
    return std::string("the lhs scales are not f32, f16 or bf16");
  if (!scheme.getExpressedType().isF32())
    return std::string("the lhs expressed type is not f32");
  if (type.getEffectiveBlockShape()[0] != 1)
    return std::string("the lhs blocks are not [1, B]");
  return std::nullopt;
}
