//===- RaiseParameters.cpp - scales, zero points and schemes --------------===//
//
// Implements the parameter helpers of --quant-block-raise declared in
// RaiseParameters.h. The exactness rules they encode (which float types hold
// which integers, when a float zero point is an integer one) are what lets
// a raised op compute exactly what the decomposition did under
// docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "RaiseParameters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// Scales and zero points: where they expand from, with every cast on the
/// way (the tensor chain's and the expression's) in `casts`.
std::optional<BlockExpansion>
mlir::quant_block::detail::matchParam(const EwValue &input,
                                      ArrayRef<int64_t> shape) {
  EwValue value = input;
  SmallVector<Operation *> casts;
  while (std::optional<EwOp> op = classify(value)) {
    if (!isElementwiseCast(op->op))
      break;
    casts.push_back(op->op);
    value = op->operands.front();
  }
  value = normalize(value);
  // A scalar captured from outside the body (a frontend's converted
  // constant): its casts are outside the body too.
  while (value.scalar) {
    Operation *def = value.value.getDefiningOp();
    if (!def || !isElementwiseCast(def) ||
        isa<ShapedType>(def->getOperand(0).getType()))
      break;
    casts.push_back(def);
    value.value = def->getOperand(0);
  }
  std::optional<BlockExpansion> expansion;
  if (value.scalar) {
    TypedAttr attr;
    if (!matchPattern(value.value, m_Constant(&attr)) ||
        !isa<IntegerAttr, FloatAttr>(attr))
      return std::nullopt;
    expansion = getSplatExpansion(attr, shape);
  } else {
    expansion = matchBlockwiseExpansion(value.value, value.map, shape);
  }
  if (!expansion)
    return std::nullopt;
  llvm::append_range(expansion->casts, llvm::reverse(casts));
  return expansion;
}

bool mlir::quant_block::detail::isScaleType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Splits the casts of a scale into those applied to the contracted scales
/// and a trailing run of widening casts that the quant_block op does itself
/// (so the scheme keeps the narrower scale type). Returns the scale type.
std::optional<Type>
mlir::quant_block::detail::prepareScale(BlockExpansion &scale) {
  Type type = scale.constant ? scale.constant.getElementType()
                             : getElementTypeOrSelf(scale.source.getType());
  for (Operation *cast : scale.casts)
    type = elementTypeOf(cast);
  while (!scale.casts.empty() && isExactWidening(scale.casts.back()) &&
         isScaleType(operandElementTypeOf(scale.casts.back()))) {
    type = operandElementTypeOf(scale.casts.back());
    scale.casts.pop_back();
  }
  if (!isScaleType(type))
    return std::nullopt;
  return type;
}

/// The integer `value` holds, if it holds one.
std::optional<int64_t>
mlir::quant_block::detail::getExactInteger(const APFloat &value) {
  APSInt integer(64, /*isUnsigned=*/false);
  bool exact = false;
  if (!value.isFinite() ||
      value.convertToInteger(integer, APFloat::rmTowardZero, &exact) !=
          APFloat::opOK ||
      !exact)
    return std::nullopt;
  return integer.getExtValue();
}

static uint64_t magnitude(int64_t v) {
  return v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
}

/// True when `type` (a float type) holds every integer in [min, max].
bool mlir::quant_block::detail::holdsIntegers(Type type, int64_t min,
                                              int64_t max) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType)
    return false;
  unsigned precision =
      APFloat::semanticsPrecision(floatType.getFloatSemantics());
  uint64_t largest = std::max(magnitude(min), magnitude(max));
  return precision >= 63 || largest <= (uint64_t(1) << precision);
}

std::pair<int64_t, int64_t>
mlir::quant_block::detail::rangeOf(IntegerType type) {
  return getIntegerStorageRange(type);
}

IntegerType mlir::quant_block::detail::storageIntegerType(MLIRContext *context,
                                                          unsigned width,
                                                          bool isSigned) {
  return isSigned ? IntegerType::get(context, width)
                  : IntegerType::get(context, width, IntegerType::Unsigned);
}

/// Reads the casts of a zero point: an optional integer extension, one
/// integer-to-float conversion, then float casts; or only float casts of a
/// constant.
/// Folds the integer casts of an integer constant up to and including its
/// conversion to float (`casts` ends with it) into a float constant of the
/// same values.
static DenseElementsAttr foldIntegerConstant(DenseElementsAttr constant,
                                             ArrayRef<Operation *> casts) {
  auto floatType = dyn_cast<FloatType>(elementTypeOf(casts.back()));
  if (!floatType)
    return {};
  SmallVector<APFloat> values;
  for (APInt value : constant.getValues<APInt>()) {
    for (Operation *cast : casts.drop_back()) {
      auto to = dyn_cast<IntegerType>(elementTypeOf(cast));
      if (!to)
        return {};
      if (isa<arith::ExtSIOp>(cast))
        value = value.sext(to.getWidth());
      else if (isa<arith::ExtUIOp>(cast))
        value = value.zext(to.getWidth());
      else if (isa<arith::TruncIOp>(cast))
        value = value.trunc(to.getWidth());
      else
        return {};
    }
    APFloat converted(floatType.getFloatSemantics());
    converted.convertFromAPInt(value, !isa<arith::UIToFPOp>(casts.back()),
                               APFloat::rmNearestTiesToEven);
    values.push_back(converted);
  }
  return DenseElementsAttr::get(
      RankedTensorType::get(constant.getType().getShape(), floatType), values);
}

std::optional<ZeroPoint>
mlir::quant_block::detail::prepareZeroPoint(BlockExpansion expansion) {
  ZeroPoint zp;
  auto *conversion = llvm::find_if(expansion.casts, isIntToFloat);
  // Integer constants too wide for a zero point type (torch-mlir's i64
  // scalars) are judged by their values, as float constants are.
  if (auto intType =
          expansion.constant
              ? dyn_cast<IntegerType>(expansion.constant.getElementType())
              : IntegerType();
      conversion != expansion.casts.end() && intType &&
      intType.getWidth() > 32) {
    size_t end = conversion - expansion.casts.begin() + 1;
    DenseElementsAttr folded = foldIntegerConstant(
        expansion.constant, ArrayRef(expansion.casts).take_front(end));
    if (!folded)
      return std::nullopt;
    expansion.constant = folded;
    expansion.casts.erase(expansion.casts.begin(),
                          expansion.casts.begin() + end);
    conversion = expansion.casts.end();
  }
  if (conversion == expansion.casts.end()) {
    // Float zero points qualify only as constants holding integers.
    if (!expansion.constant ||
        !isa<FloatType>(expansion.constant.getElementType()))
      return std::nullopt;
    zp.floatTypes.push_back(expansion.constant.getElementType());
    for (Operation *cast : expansion.casts) {
      if (!isFloatToFloat(cast))
        return std::nullopt;
      zp.floatTypes.push_back(elementTypeOf(cast));
    }
    bool first = true;
    for (const APFloat &v : expansion.constant.getValues<APFloat>()) {
      std::optional<int64_t> i = getExactInteger(v);
      if (!i)
        return std::nullopt;
      zp.min = first ? *i : std::min(zp.min, *i);
      zp.max = first ? *i : std::max(zp.max, *i);
      first = false;
    }
    expansion.casts.clear();
    zp.expansion = std::move(expansion);
    return zp;
  }
  // Casts before the conversion are applied to the contracted zero points,
  // except a last integer extension: the zero point keeps the narrow type
  // (the extension only says how to read its sign).
  size_t index = conversion - expansion.casts.begin();
  bool isSigned = !isa<arith::UIToFPOp>(*conversion);
  size_t kept = index;
  if (index > 0 &&
      isa<arith::ExtSIOp, arith::ExtUIOp>(expansion.casts[index - 1])) {
    Operation *ext = expansion.casts[index - 1];
    // uitofp(extsi(zp)) reads negative zero points as huge ones.
    if (!isSigned && isa<arith::ExtSIOp>(ext))
      return std::nullopt;
    isSigned = isa<arith::ExtSIOp>(ext);
    kept = index - 1;
  }
  Type sourceType = kept == index
                        ? operandElementTypeOf(*conversion)
                        : operandElementTypeOf(expansion.casts[index - 1]);
  auto intType = dyn_cast<IntegerType>(sourceType);
  if (!intType || intType.getWidth() < 2 || intType.getWidth() > 32)
    return std::nullopt;
  zp.type =
      storageIntegerType(intType.getContext(), intType.getWidth(), isSigned);
  std::tie(zp.min, zp.max) = rangeOf(zp.type);
  zp.floatTypes.push_back(elementTypeOf(*conversion));
  for (Operation *cast : ArrayRef(expansion.casts).drop_front(index + 1)) {
    if (!isFloatToFloat(cast))
      return std::nullopt;
    zp.floatTypes.push_back(elementTypeOf(cast));
  }
  expansion.casts.resize(kept);
  zp.expansion = std::move(expansion);
  return zp;
}

/// Brings the scale and zero point expansions to the same blocks: equal, or
/// a constant refined to the other's (finer) blocks.
LogicalResult
mlir::quant_block::detail::unifyBlocks(BlockExpansion &scale,
                                       BlockExpansion &zeroPoint) {
  if (scale.blockShape == zeroPoint.blockShape)
    return success();
  SmallVector<int64_t> target;
  for (auto [s, z] : llvm::zip(scale.blockShape, zeroPoint.blockShape)) {
    if (scale.isRefinable() && zeroPoint.isRefinable())
      target.push_back(std::gcd(s, z));
    else if (scale.isRefinable())
      target.push_back(z);
    else if (zeroPoint.isRefinable())
      target.push_back(s);
    else
      return failure();
  }
  std::optional<BlockExpansion> refinedScale = refineBlocks(scale, target);
  std::optional<BlockExpansion> refinedZp = refineBlocks(zeroPoint, target);
  if (!refinedScale || !refinedZp)
    return failure();
  scale = std::move(*refinedScale);
  zeroPoint = std::move(*refinedZp);
  return success();
}

/// The scheme's block list for `blocks` over `shape`: `*` for whole
/// dimensions, leading 1s dropped (they are implied), empty for
/// per-tensor.
SmallVector<int64_t>
mlir::quant_block::detail::getBlockList(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> blocks) {
  if (llvm::all_of(llvm::zip(shape, blocks), [](auto pair) {
        return std::get<0>(pair) == std::get<1>(pair);
      }))
    return {};
  SmallVector<int64_t> list;
  for (auto [size, block] : llvm::zip(shape, blocks))
    list.push_back(block == size && (size > 1 || ShapedType::isDynamic(size))
                       ? SchemeAttr::kWholeDimension
                       : block);
  while (!list.empty() && list.front() == 1)
    list.erase(list.begin());
  return list;
}

bool mlir::quant_block::detail::isTrivial(ArrayRef<int64_t> shape,
                                          ArrayRef<int64_t> blocks) {
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  return elements > 1 && llvm::all_of(blocks, [](int64_t b) { return b == 1; });
}

/// Builds a scheme, or returns null (silently) when the verifier refuses it.
SchemeAttr mlir::quant_block::detail::getScheme(MLIRContext *context,
                                                Type storage, Type expressed,
                                                ArrayRef<int64_t> blockList,
                                                Type scale, Type zeroPoint,
                                                int64_t qmin, int64_t qmax,
                                                RoundingMode rounding) {
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });
  return SchemeAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context, storage,
      expressed, blockList, scale, zeroPoint, qmin, qmax, rounding,
      /*saturate=*/true, ScaleRoundingMode::Floor, OuterScaleAttr(),
      /*rowTile=*/int64_t(0));
}

/// `value` with its integer elements reinterpreted as `elementType` (only
/// the signedness differs).
Value mlir::quant_block::detail::bitcastElements(OpBuilder &builder,
                                                 Location loc, Value value,
                                                 Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return tensor::BitcastOp::create(
      builder, loc, RankedTensorType::get(type.getShape(), elementType), value);
}

/// The contracted scale tensor of `scale`.
Value mlir::quant_block::detail::buildScales(OpBuilder &builder, Location loc,
                                             const BlockExpansion &scale) {
  Value value = materializeContracted(builder, loc, scale);
  for (Operation *cast : scale.casts)
    value = applyElementwiseCast(builder, loc, cast, value);
  return value;
}

/// The contracted zero point tensor of `zp`, of `type` (its own integer
/// type, or the storage type for float constants).
Value mlir::quant_block::detail::buildZeroPoints(OpBuilder &builder,
                                                 Location loc,
                                                 const ZeroPoint &zp,
                                                 IntegerType type) {
  if (zp.type) {
    Value value = materializeContracted(builder, loc, zp.expansion);
    for (Operation *cast : zp.expansion.casts)
      value = applyElementwiseCast(builder, loc, cast, value);
    return bitcastElements(builder, loc, value, type);
  }
  // Float constants holding integers: convert them.
  auto signless = IntegerType::get(type.getContext(), type.getWidth());
  SmallVector<APInt> values;
  for (const APFloat &v : zp.expansion.constant.getValues<APFloat>())
    values.push_back(APInt(type.getWidth(), *getExactInteger(v),
                           /*isSigned=*/true, /*implicitTrunc=*/true));
  auto attr = DenseElementsAttr::get(
      RankedTensorType::get(zp.expansion.contractedShape, signless), values);
  Value value = arith::ConstantOp::create(builder, loc, attr);
  return bitcastElements(builder, loc, value, type);
}
