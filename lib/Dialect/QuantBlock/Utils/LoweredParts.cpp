//===- LoweredParts.cpp - the tensors a quantized tensor lowers to --------===//
//
// A quantized tensor lowers to one plain tensor per part. The data part is
// what the memory holds: 8-, 16- and 32-bit storage as is (signless), 2- to
// 7-bit storage packed along the innermost dimension into i8 as the
// little-endian bit stream of docs/Packing.md. Each innermost row starts on
// a byte boundary, so that a row (and every whole packing group in it) can
// be addressed as bytes without bit offsets that depend on the row index.
//
// Also what the CPU and GPU matmul kernels, which rewrite quant_block.matmul
// before --convert-quant-block-to-linalg, share with the lowering: the
// lowered parts of a quantized operand as values, which activations the
// integer kernels take, and the activations cast to the weight's K.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/Utils/LoweredParts.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <numeric>

using namespace mlir;
using namespace mlir::quant_block;

std::optional<PackingGroup>
mlir::quant_block::getPackingGroup(SchemeAttr scheme) {
  unsigned width = scheme.getStorageBitWidth();
  if (width == 8 || width == 16 || width == 32)
    return PackingGroup{1, 1};
  if (width < 2 || width > 8)
    return std::nullopt;
  // The shortest run of w-bit elements that ends on a byte boundary.
  unsigned common = std::gcd(width, 8u);
  return PackingGroup{8 / common, width / common};
}

/// Unsigned integer element types become signless (arith works on signless
/// integers; the scheme keeps the signedness).
static Type getSignless(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    if (!intType.isSignless())
      return IntegerType::get(type.getContext(), intType.getWidth());
  return type;
}

static RankedTensorType makeSignless(RankedTensorType type) {
  if (!type)
    return type;
  return RankedTensorType::get(type.getShape(),
                               getSignless(type.getElementType()));
}

RankedTensorType
mlir::quant_block::getLoweredDataType(QuantizedTensorType type) {
  SchemeAttr scheme = type.getScheme();
  std::optional<PackingGroup> group = getPackingGroup(scheme);
  if (!group || type.getRank() == 0)
    return {};
  if (!group->isPacked())
    return makeSignless(type.getDataType());
  SmallVector<int64_t> shape(type.getShape());
  if (!ShapedType::isDynamic(shape.back()))
    shape.back() = (shape.back() * scheme.getStorageBitWidth() + 7) / 8;
  return RankedTensorType::get(shape, IntegerType::get(type.getContext(), 8));
}

LogicalResult
mlir::quant_block::getLoweredPartTypes(QuantizedTensorType type,
                                       SmallVectorImpl<Type> &parts) {
  RankedTensorType data = getLoweredDataType(type);
  if (!data)
    return failure();
  SmallVector<Type> rowMajor = {data, makeSignless(type.getScalesType())};
  for (RankedTensorType part :
       {type.getZeroPointsType(), type.getOuterScalesType(),
        type.getOuterMinsType()})
    if (part)
      rowMajor.push_back(makeSignless(part));
  for (auto [index, part] : llvm::enumerate(rowMajor))
    parts.push_back(getRowTiledPartType(type, index, part));
  return success();
}

FailureOr<SmallVector<Value>>
mlir::quant_block::materializeLoweredParts(OpBuilder &b, Location loc,
                                           Value quantized) {
  auto type = dyn_cast<QuantizedTensorType>(quantized.getType());
  SmallVector<Type> partTypes;
  if (!type || failed(getLoweredPartTypes(type, partTypes)))
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
