//===- Raise.cpp - --quant-block-raise ------------------------------------===//
//
// Folds the ways other frontends spell block-wise quantization into
// quant_block ops:
//
//  * dequantize `(cast(q) - expand(zp)) * expand(s)` and `cast(q) *
//    expand(s)` (also with the exact integer subtraction `cast(q - zp)`);
//  * quantize `convert(clamp(round(x / expand(s)) + expand(zp)))`;
//  * upstream `quant.dcast`, `quant.qcast` and `quant.scast` on
//    `!quant.uniform` per-tensor, per-axis and sub-channel types.
//
// The elementwise part may be written with arith/math ops on tensors, TOSA
// ops (with their implicit broadcast of unit dimensions) or inside
// linalg.generic bodies, in any mix: every value is looked at "from the
// root", as a tensor read through an affine map from the root's index space
// or as a scalar in a linalg body whose iteration space the root indexes.
// Where `expand` came from is BlockExpansion.h's business.
//
// A decomposition is raised only when the quant_block op computes exactly
// the same values under docs/Numerics.md; every refusal is reported with
// notifyMatchFailure and leaves the IR untouched. In particular:
//
//  * dequantize: every float type that holds q, zp or q - zp must hold
//    them exactly (then the float subtraction equals the contract's integer
//    one), and the product is rounded once to the result type either way;
//    `q * s + m` is not the float-zero-point domain (one FMA) and is not
//    folded into it;
//  * quantize: a true division in f32, rounding (math.roundeven,
//    math.round, math.trunc: the scheme's three rounding modes) before the
//    zero point is added, and a NaN-propagating clamp to integer bounds
//    inside the storage range. x * reciprocal(s) (TOSA has no float
//    division), round(x / s + zp), maxnumf/minnumf clamps, division in
//    f16 and a missing clamp all compute something else and are refused.
//    The decomposition's fptosi of a NaN quotient (0 / 0) is undefined; the
//    raised op defines it (the zero point), a refinement.
//
// Upstream quant ops take this project's numerics, not those of upstream's
// --lower-quant-ops: the raised quantize rounds half to even and saturates,
// where --lower-quant-ops truncates (arith.fptosi of x / s + zp) and only
// clamps narrowed ranges, after the conversion. Dequantize agrees with it
// wherever upstream's float arithmetic is exact (storage of at most 16 bits
// with f32, 8 bits with f16 / bf16 expressed types).
//
// The greedy driver runs without folding: upstream folds
// quant.dcast(quant.qcast(x)) to x, which would drop the quantization.
//
//===----------------------------------------------------------------------===//

#include "BlockExpansion.h"

#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace mlir::quant_block {
#define GEN_PASS_DEF_QUANTBLOCKRAISE
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

//===----------------------------------------------------------------------===//
// Values seen from the root of a decomposition
//===----------------------------------------------------------------------===//

namespace {
/// A value of the matched expression. Either a tensor, read at `map(i)` for
/// root index `i`, or a scalar: inside the body of `body` (whose iteration
/// index is `map(i)`) or free (a splat operand, a captured constant).
struct EwValue {
  Value value;
  AffineMap map;
  linalg::LinalgOp body;
  bool scalar = false;
};

/// An operation of the matched expression and its operands, seen from the
/// root.
struct EwOp {
  Operation *op;
  SmallVector<EwValue> operands;
};
} // namespace

/// True for linalg ops whose results are elementwise in their iteration
/// space (the body may still read operands through any indexing map).
static bool isParallelLinalgOp(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops();
}

/// Moves `value` across op boundaries without changing what it computes:
/// into the body of the linalg op that produced it, and out of a body
/// through the block argument of an input.
static EwValue normalize(EwValue value) {
  while (true) {
    if (!value.scalar) {
      auto result = dyn_cast<OpResult>(value.value);
      if (!result)
        return value;
      if (auto splat = dyn_cast<tensor::SplatOp>(result.getOwner())) {
        if (!splat.getDynamicSizes().empty())
          return value;
        value = {splat.getInput(), value.map, nullptr, true};
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(result.getOwner());
      if (!linalgOp || !isParallelLinalgOp(linalgOp))
        return value;
      AffineMap outputMap = linalgOp.getIndexingMapMatchingResult(result);
      if (!outputMap.isPermutation())
        return value;
      Value yielded = linalgOp.getBlock()->getTerminator()->getOperand(
          result.getResultNumber());
      value = {yielded, inversePermutation(outputMap).compose(value.map),
               linalgOp, true};
      continue;
    }
    auto argument = dyn_cast<BlockArgument>(value.value);
    if (!value.body || !argument ||
        argument.getOwner() != value.body.getBlock())
      return value;
    OpOperand *operand = value.body.getMatchingOpOperand(argument);
    if (value.body.isDpsInit(operand))
      return value;
    if (!isa<RankedTensorType>(operand->get().getType())) {
      // A scalar input (linalg.fill): the same value everywhere.
      value = {operand->get(), value.map, nullptr, true};
      continue;
    }
    value = {operand->get(),
             value.body.getMatchingIndexingMap(operand).compose(value.map),
             nullptr, false};
  }
}

static bool isArithOrMathElementwise(Operation *op) {
  return op->getNumResults() == 1 &&
         OpTrait::hasElementwiseMappableTraits(op) &&
         isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
             op->getDialect());
}

/// The index map of a TOSA operand of `operandType` under the implicit
/// broadcast of its unit dimensions to `resultType`.
static std::optional<AffineMap> getTosaBroadcastMap(Type operandType,
                                                    Type resultType) {
  auto operand = dyn_cast<RankedTensorType>(operandType);
  auto result = dyn_cast<RankedTensorType>(resultType);
  if (!operand || !result || operand.getRank() != result.getRank())
    return std::nullopt;
  MLIRContext *context = operandType.getContext();
  SmallVector<AffineExpr> exprs;
  for (auto [d, sizes] :
       llvm::enumerate(llvm::zip(operand.getShape(), result.getShape()))) {
    auto [operandSize, resultSize] = sizes;
    if (operandSize == resultSize)
      exprs.push_back(getAffineDimExpr(d, context));
    else if (operandSize == 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      return std::nullopt;
  }
  return AffineMap::get(result.getRank(), 0, exprs, context);
}

static bool isZeroShift(Value shift) {
  DenseIntElementsAttr attr;
  return matchPattern(shift, m_Constant(&attr)) &&
         llvm::all_of(attr.getValues<APInt>(),
                      [](const APInt &v) { return v.isZero(); });
}

/// The operation that defines `value` if it is one of the elementwise ops
/// this pass reads, with its operands seen from the root.
static std::optional<EwOp> classify(const EwValue &input) {
  EwValue value = normalize(input);
  Operation *def = value.value.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return std::nullopt;
  EwOp result{def, {}};
  if (value.scalar) {
    if (!value.body || def->getBlock() != value.body.getBlock() ||
        !isArithOrMathElementwise(def))
      return std::nullopt;
    for (Value operand : def->getOperands())
      result.operands.push_back({operand, value.map, value.body, true});
    return result;
  }
  Type resultType = def->getResult(0).getType();
  if (isArithOrMathElementwise(def)) {
    for (Value operand : def->getOperands()) {
      if (operand.getType() !=
          RankedTensorType::get(cast<ShapedType>(resultType).getShape(),
                                getElementTypeOrSelf(operand.getType())))
        return std::nullopt;
      result.operands.push_back({operand, value.map, nullptr, false});
    }
    return result;
  }
  if (!isa<tosa::AddOp, tosa::SubOp, tosa::MulOp, tosa::CastOp, tosa::ClampOp,
           tosa::ReciprocalOp>(def))
    return std::nullopt;
  unsigned count = def->getNumOperands();
  if (auto mul = dyn_cast<tosa::MulOp>(def)) {
    if (!isZeroShift(mul.getShift()))
      return std::nullopt;
    count = 2;
  }
  for (Value operand : def->getOperands().take_front(count)) {
    std::optional<AffineMap> map =
        getTosaBroadcastMap(operand.getType(), resultType);
    if (!map)
      return std::nullopt;
    result.operands.push_back(
        {operand, map->compose(value.map), nullptr, false});
  }
  return result;
}

template <typename... OpTys>
static std::optional<EwOp> matchOp(const EwValue &value) {
  std::optional<EwOp> op = classify(value);
  if (!op || !isa<OpTys...>(op->op))
    return std::nullopt;
  return op;
}

static Type elementTypeOf(Operation *op) {
  return getElementTypeOrSelf(op->getResult(0).getType());
}
static Type operandElementTypeOf(Operation *op) {
  return getElementTypeOrSelf(op->getOperand(0).getType());
}

/// An int-to-float conversion: arith.sitofp / uitofp or a TOSA cast (TOSA
/// integers are signed).
static bool isIntToFloat(Operation *op) {
  return isa<arith::SIToFPOp, arith::UIToFPOp>(op) ||
         (isa<tosa::CastOp>(op) && isa<IntegerType>(operandElementTypeOf(op)) &&
          isa<FloatType>(elementTypeOf(op)));
}
static bool isFloatToFloat(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp>(op) ||
         (isa<tosa::CastOp>(op) && isa<FloatType>(operandElementTypeOf(op)) &&
          isa<FloatType>(elementTypeOf(op)));
}
/// Widening float casts never change a value.
static bool isExactWidening(Operation *op) {
  if (!isFloatToFloat(op))
    return false;
  auto from = cast<FloatType>(operandElementTypeOf(op));
  auto to = cast<FloatType>(elementTypeOf(op));
  return APFloat::isRepresentableAsNormalIn(from.getFloatSemantics(),
                                            to.getFloatSemantics());
}

/// The root tensor itself: identity map, same shape, a tensor.
static std::optional<Value> matchRootShaped(const EwValue &input,
                                            ArrayRef<int64_t> shape) {
  EwValue value = normalize(input);
  if (value.scalar || !value.map.isIdentity())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(value.value.getType());
  if (!type || type.getShape() != shape)
    return std::nullopt;
  return value.value;
}

//===----------------------------------------------------------------------===//
// Parameters: scales and zero points
//===----------------------------------------------------------------------===//

/// Scales and zero points: where they expand from, with every cast on the
/// way (the tensor chain's and the expression's) in `casts`.
static std::optional<BlockExpansion> matchParam(const EwValue &input,
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

static bool isScaleType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Splits the casts of a scale into those applied to the contracted scales
/// and a trailing run of widening casts that the quant_block op does itself
/// (so the scheme keeps the narrower scale type). Returns the scale type.
static std::optional<Type> prepareScale(BlockExpansion &scale) {
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
static std::optional<int64_t> getExactInteger(const APFloat &value) {
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
static bool holdsIntegers(Type type, int64_t min, int64_t max) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType)
    return false;
  unsigned precision =
      APFloat::semanticsPrecision(floatType.getFloatSemantics());
  uint64_t largest = std::max(magnitude(min), magnitude(max));
  return precision >= 63 || largest <= (uint64_t(1) << precision);
}

static std::pair<int64_t, int64_t> rangeOf(IntegerType type) {
  return getIntegerStorageRange(type);
}

static IntegerType storageIntegerType(MLIRContext *context, unsigned width,
                                      bool isSigned) {
  return isSigned ? IntegerType::get(context, width)
                  : IntegerType::get(context, width, IntegerType::Unsigned);
}

namespace {
/// A zero point as the quant_block ops take it.
struct ZeroPoint {
  BlockExpansion expansion;
  /// Integer zero points: the (narrowest exact) integer type, signless or
  /// unsigned. Null when the zero points are float constants holding
  /// integers (converted once the storage type is known).
  IntegerType type;
  /// Float types the zero point passes through before it is used.
  SmallVector<Type> floatTypes;
  int64_t min = 0, max = 0;
};
} // namespace

/// Reads the casts of a zero point: an optional integer extension, one
/// integer-to-float conversion, then float casts; or only float casts of a
/// constant.
static std::optional<ZeroPoint> prepareZeroPoint(BlockExpansion expansion) {
  ZeroPoint zp;
  auto *conversion = llvm::find_if(expansion.casts, isIntToFloat);
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
static LogicalResult unifyBlocks(BlockExpansion &scale,
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
static SmallVector<int64_t> getBlockList(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> blocks) {
  if (llvm::all_of(llvm::zip(shape, blocks), [](auto pair) {
        return std::get<0>(pair) == std::get<1>(pair);
      }))
    return {};
  SmallVector<int64_t> list;
  for (auto [size, block] : llvm::zip(shape, blocks))
    list.push_back(block == size && size > 1 ? SchemeAttr::kWholeDimension
                                             : block);
  while (!list.empty() && list.front() == 1)
    list.erase(list.begin());
  return list;
}

/// A scale that is its own expansion (every block 1 element) leaves
/// nothing to contract: not a block-quantized tensor.
static constexpr StringLiteral kNotBlockwise =
    "the scale is not a blockwise repetition of a smaller tensor";

static bool isTrivial(ArrayRef<int64_t> shape, ArrayRef<int64_t> blocks) {
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  return elements > 1 && llvm::all_of(blocks, [](int64_t b) { return b == 1; });
}

/// Builds a scheme, or returns null (silently) when the verifier refuses it.
static SchemeAttr getScheme(MLIRContext *context, Type storage, Type expressed,
                            ArrayRef<int64_t> blockList, Type scale,
                            Type zeroPoint, int64_t qmin, int64_t qmax,
                            RoundingMode rounding) {
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });
  return SchemeAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context, storage,
      expressed, blockList, scale, zeroPoint, qmin, qmax, rounding,
      /*saturate=*/true, ScaleRoundingMode::Floor, OuterScaleAttr());
}

/// `value` with its integer elements reinterpreted as `elementType` (only
/// the signedness differs).
static Value bitcastElements(OpBuilder &builder, Location loc, Value value,
                             Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return tensor::BitcastOp::create(
      builder, loc, RankedTensorType::get(type.getShape(), elementType), value);
}

/// The contracted scale tensor of `scale`.
static Value buildScales(OpBuilder &builder, Location loc,
                         const BlockExpansion &scale) {
  Value value = materializeContracted(builder, loc, scale);
  for (Operation *cast : scale.casts)
    value = applyElementwiseCast(builder, loc, cast, value);
  return value;
}

/// The contracted zero point tensor of `zp`, of `type` (its own integer
/// type, or the storage type for float constants).
static Value buildZeroPoints(OpBuilder &builder, Location loc,
                             const ZeroPoint &zp, IntegerType type) {
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

//===----------------------------------------------------------------------===//
// Dequantize
//===----------------------------------------------------------------------===//

namespace {
/// `cast(q)`: the integer data and how it was converted.
struct IntData {
  Value data;
  IntegerType storage;
  SmallVector<Type> floatTypes;
};

struct DequantizeMatch {
  IntData q;
  BlockExpansion scale;
  Type scaleType;
  std::optional<ZeroPoint> zeroPoint;
  Type expressed;
};
} // namespace

/// Peels float casts off `value` (recording their types), returning the
/// value under them.
static EwValue peelFloatCasts(EwValue value, SmallVectorImpl<Type> &types) {
  while (std::optional<EwOp> op = classify(value)) {
    if (!isFloatToFloat(op->op))
      break;
    types.push_back(elementTypeOf(op->op));
    value = op->operands.front();
  }
  return value;
}

/// An integer tensor of the root's shape, possibly extended: the
/// signedness comes from the extension if any, else from `isSigned`.
static std::optional<IntData> matchIntegerData(EwValue value, bool isSigned,
                                               ArrayRef<int64_t> shape) {
  if (std::optional<EwOp> ext =
          matchOp<arith::ExtSIOp, arith::ExtUIOp>(value)) {
    // uitofp(extsi(q)) reads negative values as huge ones: not a
    // quantized tensor.
    if (!isSigned && isa<arith::ExtSIOp>(ext->op))
      return std::nullopt;
    isSigned = isa<arith::ExtSIOp>(ext->op);
    value = ext->operands.front();
  }
  std::optional<Value> data = matchRootShaped(value, shape);
  if (!data)
    return std::nullopt;
  auto intType = dyn_cast<IntegerType>(
      cast<RankedTensorType>(data->getType()).getElementType());
  if (!intType || !intType.isSignless() || intType.getWidth() < 2 ||
      intType.getWidth() > 16)
    return std::nullopt;
  IntData result;
  result.data = *data;
  result.storage =
      storageIntegerType(intType.getContext(), intType.getWidth(), isSigned);
  return result;
}

/// `cast(q) - zp` (or `cast(q - zp)`, or `cast(q)`) on one side of the
/// multiplication and the scale on the other. Returns a refusal reason on
/// failure.
static std::optional<StringRef> matchDequantizeSide(const EwOp &mul,
                                                    unsigned dataSide,
                                                    ArrayRef<int64_t> shape,
                                                    DequantizeMatch &match) {
  SmallVector<Type> diffTypes = {match.expressed};
  EwValue diff = peelFloatCasts(mul.operands[dataSide], diffTypes);
  std::optional<IntData> q;
  std::optional<BlockExpansion> zpExpansion;
  std::optional<ZeroPoint> zeroPoint;
  if (std::optional<EwOp> sub = matchOp<arith::SubFOp, tosa::SubOp>(diff)) {
    // (cast(q) - cast(zp)) in float.
    diffTypes.push_back(elementTypeOf(sub->op));
    SmallVector<Type> qTypes;
    EwValue converted = peelFloatCasts(sub->operands[0], qTypes);
    std::optional<EwOp> conversion = classify(converted);
    if (!conversion || !isIntToFloat(conversion->op))
      return StringRef("the minuend is not a converted integer tensor");
    qTypes.push_back(elementTypeOf(conversion->op));
    q = matchIntegerData(conversion->operands[0],
                         !isa<arith::UIToFPOp>(conversion->op), shape);
    if (!q)
      return StringRef("the minuend is not a 2..16-bit integer tensor of the "
                       "result's shape");
    q->floatTypes = qTypes;
    zpExpansion = matchParam(sub->operands[1], shape);
    if (!zpExpansion)
      return StringRef("the zero point is not a blockwise repetition");
  } else {
    std::optional<EwOp> conversion = classify(diff);
    if (!conversion || !isIntToFloat(conversion->op))
      return StringRef("no operand is a converted integer tensor");
    diffTypes.push_back(elementTypeOf(conversion->op));
    EwValue integer = conversion->operands[0];
    if (std::optional<EwOp> subi = matchOp<arith::SubIOp>(integer)) {
      // The contract's own form: the zero point subtracted exactly in
      // (wider) integers, then converted.
      if (isa<arith::UIToFPOp>(conversion->op))
        return StringRef("an integer difference converted as unsigned");
      q = matchIntegerData(subi->operands[0], /*isSigned=*/true, shape);
      zpExpansion = matchParam(subi->operands[1], shape);
      if (!q || !zpExpansion)
        return StringRef("not an integer subtraction of a blockwise zero "
                         "point");
      // The zero point enters through an integer extension (earlier casts
      // are applied to it); the difference must not wrap.
      ArrayRef<Operation *> casts = zpExpansion->casts;
      if (casts.empty() || !isa<arith::ExtSIOp, arith::ExtUIOp>(casts.back()))
        return StringRef("the integer subtraction is not of an extended zero "
                         "point");
      Operation *ext = casts.back();
      auto narrow = cast<IntegerType>(operandElementTypeOf(ext));
      ZeroPoint zp;
      zp.type = storageIntegerType(narrow.getContext(), narrow.getWidth(),
                                   isa<arith::ExtSIOp>(ext));
      std::tie(zp.min, zp.max) = rangeOf(zp.type);
      // q and zp have at most 32 bits, so 33 bits always hold q - zp.
      unsigned wideWidth =
          cast<IntegerType>(elementTypeOf(subi->op)).getWidth();
      auto [qmin, qmax] = rangeOf(q->storage);
      if (wideWidth < 33) {
        auto [wmin, wmax] =
            rangeOf(IntegerType::get(narrow.getContext(), wideWidth));
        if (qmin - zp.max < wmin || qmax - zp.min > wmax)
          return StringRef("the integer subtraction may wrap");
      }
      zpExpansion->casts.pop_back();
      zp.expansion = std::move(*zpExpansion);
      zpExpansion.reset();
      zeroPoint = std::move(zp);
    } else {
      q = matchIntegerData(integer, !isa<arith::UIToFPOp>(conversion->op),
                           shape);
      if (!q)
        return StringRef("the converted value is not a 2..16-bit integer "
                         "tensor of the result's shape");
    }
  }

  std::optional<BlockExpansion> scale =
      matchParam(mul.operands[1 - dataSide], shape);
  if (!scale)
    return StringRef(kNotBlockwise);
  std::optional<Type> scaleType = prepareScale(*scale);
  if (!scaleType)
    return StringRef("the scale is not f32, f16 or bf16");
  if (zpExpansion) {
    zeroPoint = prepareZeroPoint(std::move(*zpExpansion));
    if (!zeroPoint)
      return StringRef("the zero point is neither a converted integer tensor "
                       "nor a constant holding integers");
  }
  auto [qmin, qmax] = rangeOf(q->storage);
  // Float constants become zero points of the data's integer type.
  if (zeroPoint && !zeroPoint->type &&
      (zeroPoint->min < qmin || zeroPoint->max > qmax))
    return StringRef("the zero point does not fit the storage type");

  // Exactness: every float type that holds q, the zero point or their
  // difference must hold them exactly. Then each float step equals the
  // contract's exact integer subtraction, and the product is rounded once
  // to the result type in both.
  int64_t zmin = zeroPoint ? zeroPoint->min : 0;
  int64_t zmax = zeroPoint ? zeroPoint->max : 0;
  bool exact =
      llvm::all_of(q->floatTypes,
                   [&](Type t) { return holdsIntegers(t, qmin, qmax); }) &&
      llvm::all_of(diffTypes, [&](Type t) {
        return holdsIntegers(t, qmin - zmax, qmax - zmin);
      });
  if (zeroPoint)
    exact &= llvm::all_of(zeroPoint->floatTypes,
                          [&](Type t) { return holdsIntegers(t, zmin, zmax); });
  if (!exact)
    return StringRef("a float type of the decomposition does not hold the "
                     "integers exactly");
  if (zeroPoint && failed(unifyBlocks(*scale, zeroPoint->expansion)))
    return StringRef("the scale and the zero point repeat with different "
                     "blocks");
  if (isTrivial(shape, scale->blockShape))
    return StringRef(kNotBlockwise);
  match.q = std::move(*q);
  match.scale = std::move(*scale);
  match.scaleType = *scaleType;
  match.zeroPoint = std::move(zeroPoint);
  return std::nullopt;
}

static LogicalResult matchDequantize(PatternRewriter &rewriter, Operation *root,
                                     DequantizeMatch &match) {
  auto rootType = cast<RankedTensorType>(root->getResult(0).getType());
  ArrayRef<int64_t> shape = rootType.getShape();
  match.expressed = rootType.getElementType();
  if (!isScaleType(match.expressed))
    return rewriter.notifyMatchFailure(root, "not an f32/f16/bf16 result");
  EwValue rootValue{root->getResult(0),
                    rewriter.getMultiDimIdentityMap(shape.size()), nullptr,
                    false};
  std::optional<EwOp> mul = matchOp<arith::MulFOp, tosa::MulOp>(rootValue);
  if (!mul)
    return rewriter.notifyMatchFailure(root, "not a float multiplication");
  // The data may be on either side; report the first side's reason.
  std::optional<StringRef> reason = matchDequantizeSide(*mul, 0, shape, match);
  if (!reason)
    return success();
  if (!matchDequantizeSide(*mul, 1, shape, match))
    return success();
  return rewriter.notifyMatchFailure(root, *reason);
}

static LogicalResult raiseDequantize(PatternRewriter &rewriter,
                                     Operation *root) {
  DequantizeMatch match;
  if (failed(matchDequantize(rewriter, root, match)))
    return failure();
  auto rootType = cast<RankedTensorType>(root->getResult(0).getType());
  MLIRContext *context = rewriter.getContext();
  IntegerType zpType;
  if (match.zeroPoint)
    zpType = match.zeroPoint->type ? match.zeroPoint->type : match.q.storage;
  auto [qmin, qmax] = rangeOf(match.q.storage);
  SchemeAttr scheme =
      getScheme(context, match.q.storage, match.expressed,
                getBlockList(rootType.getShape(), match.scale.blockShape),
                match.scaleType, zpType, qmin, qmax, RoundingMode::HalfToEven);
  if (!scheme)
    return rewriter.notifyMatchFailure(root, "no valid scheme");
  auto qType = QuantizedTensorType::get(context, rootType.getShape(), scheme);

  Location loc = root->getLoc();
  Value data = bitcastElements(rewriter, loc, match.q.data, match.q.storage);
  Value scales = buildScales(rewriter, loc, match.scale);
  Value zeroPoints;
  if (match.zeroPoint)
    zeroPoints = buildZeroPoints(rewriter, loc, *match.zeroPoint, zpType);
  Value packed = PackOp::create(rewriter, loc, qType, data, scales, zeroPoints,
                                Value(), Value());
  rewriter.replaceOpWithNewOp<DequantizeOp>(root, rootType, packed);
  return success();
}

//===----------------------------------------------------------------------===//
// Quantize
//===----------------------------------------------------------------------===//

namespace {
struct QuantizeMatch {
  Value input;
  IntegerType storage;
  int64_t qmin, qmax;
  RoundingMode rounding;
  BlockExpansion scale;
  Type scaleType;
  std::optional<ZeroPoint> zeroPoint;
};
} // namespace

/// A splat float constant (a constant tensor, a broadcast scalar, a
/// captured scalar).
static std::optional<APFloat> matchSplatFloat(const EwValue &input) {
  EwValue value = normalize(input);
  Attribute attr;
  if (!matchPattern(value.value, m_Constant(&attr)))
    return std::nullopt;
  if (auto floatAttr = dyn_cast<FloatAttr>(attr))
    return floatAttr.getValue();
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr);
      dense && dense.isSplat())
    return dense.getSplatValue<APFloat>();
  return std::nullopt;
}

/// `clamp(v, lo, hi)` as minimumf/maximumf in either order or tosa.clamp,
/// NaN-propagating only (the contract defines NaN; an emulation that lets
/// a NaN through to the integer conversion has no defined result, one that
/// drops it in the clamp has a different one).
static LogicalResult matchClamp(PatternRewriter &rewriter, Operation *root,
                                const EwValue &value, EwValue &clamped,
                                int64_t &lo, int64_t &hi) {
  std::optional<EwOp> outer = classify(value);
  if (!outer)
    return rewriter.notifyMatchFailure(root, "no clamp before the conversion");
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(outer->op))
    return rewriter.notifyMatchFailure(
        root, "the clamp ignores NaN (maxnumf/minnumf), the contract maps "
              "it to the zero point");
  std::optional<APFloat> low, high;
  if (auto clamp = dyn_cast<tosa::ClampOp>(outer->op)) {
    if (clamp.getNanMode() != tosa::NanPropagationMode::PROPAGATE)
      return rewriter.notifyMatchFailure(root, "the clamp ignores NaN");
    auto minAttr = dyn_cast<FloatAttr>(clamp.getMinValAttr());
    auto maxAttr = dyn_cast<FloatAttr>(clamp.getMaxValAttr());
    if (!minAttr || !maxAttr)
      return rewriter.notifyMatchFailure(root, "not a float clamp");
    low = minAttr.getValue();
    high = maxAttr.getValue();
    clamped = outer->operands.front();
  } else if (isa<arith::MaximumFOp, arith::MinimumFOp>(outer->op)) {
    bool outerIsMax = isa<arith::MaximumFOp>(outer->op);
    auto split = [](const EwOp &op, EwValue &rest) -> std::optional<APFloat> {
      for (unsigned side : {0u, 1u}) {
        if (std::optional<APFloat> bound = matchSplatFloat(op.operands[side])) {
          rest = op.operands[1 - side];
          return bound;
        }
      }
      return std::nullopt;
    };
    EwValue rest;
    std::optional<APFloat> outerBound = split(*outer, rest);
    std::optional<EwOp> inner = outerIsMax ? matchOp<arith::MinimumFOp>(rest)
                                           : matchOp<arith::MaximumFOp>(rest);
    if (!outerBound || !inner)
      return rewriter.notifyMatchFailure(root,
                                         "not a clamp between two constants");
    std::optional<APFloat> innerBound = split(*inner, clamped);
    if (!innerBound)
      return rewriter.notifyMatchFailure(root,
                                         "not a clamp between two constants");
    low = outerIsMax ? outerBound : innerBound;
    high = outerIsMax ? innerBound : outerBound;
  } else {
    return rewriter.notifyMatchFailure(root, "no clamp before the conversion");
  }
  std::optional<int64_t> l = getExactInteger(*low), h = getExactInteger(*high);
  if (!l || !h || *l >= *h)
    return rewriter.notifyMatchFailure(root,
                                       "the clamp bounds are not integers");
  lo = *l;
  hi = *h;
  return success();
}

static LogicalResult matchQuantize(PatternRewriter &rewriter, Operation *root,
                                   QuantizeMatch &match) {
  auto rootType = cast<RankedTensorType>(root->getResult(0).getType());
  ArrayRef<int64_t> shape = rootType.getShape();
  EwValue rootValue{root->getResult(0),
                    rewriter.getMultiDimIdentityMap(shape.size()), nullptr,
                    false};
  std::optional<EwOp> conversion =
      matchOp<arith::FPToSIOp, arith::FPToUIOp>(rootValue);
  if (!conversion)
    return rewriter.notifyMatchFailure(root,
                                       "not a float-to-integer conversion");
  auto intType = cast<IntegerType>(rootType.getElementType());
  if (intType.getWidth() < 2 || intType.getWidth() > 16)
    return rewriter.notifyMatchFailure(root, "not 2..16-bit storage");
  match.storage = storageIntegerType(intType.getContext(), intType.getWidth(),
                                     isa<arith::FPToSIOp>(conversion->op));

  EwValue clamped;
  if (failed(matchClamp(rewriter, root, conversion->operands.front(), clamped,
                        match.qmin, match.qmax)))
    return failure();
  auto [lo, hi] = rangeOf(match.storage);
  if (match.qmin < lo || match.qmax > hi)
    return rewriter.notifyMatchFailure(
        root, "the clamp range exceeds the storage type");

  // round(x / s) + zp: the zero point is added after rounding.
  auto matchRound = [](const EwValue &value) {
    return matchOp<math::RoundEvenOp, math::RoundOp, math::TruncOp>(value);
  };
  std::optional<EwOp> round = matchRound(clamped);
  EwValue zpValue;
  bool hasZeroPoint = false;
  if (!round) {
    std::optional<EwOp> add = matchOp<arith::AddFOp, tosa::AddOp>(clamped);
    if (!add)
      return rewriter.notifyMatchFailure(root, "no rounding of x / s");
    for (unsigned side : {0u, 1u}) {
      if ((round = matchRound(add->operands[side]))) {
        zpValue = add->operands[1 - side];
        hasZeroPoint = true;
        break;
      }
    }
    if (!round)
      return rewriter.notifyMatchFailure(
          root, "no rounding before the zero point is added");
  }
  if (isa<math::RoundEvenOp>(round->op))
    match.rounding = RoundingMode::HalfToEven;
  else if (isa<math::RoundOp>(round->op))
    match.rounding = RoundingMode::HalfAwayFromZero;
  else
    match.rounding = RoundingMode::TowardZero;

  if (matchOp<arith::AddFOp, tosa::AddOp>(round->operands.front()))
    return rewriter.notifyMatchFailure(
        root, "rounds after adding the zero point (the contract rounds x / s "
              "first)");
  std::optional<EwOp> div = matchOp<arith::DivFOp>(round->operands.front());
  if (!div)
    return rewriter.notifyMatchFailure(
        root, "not a true division x / s (a reciprocal multiply rounds "
              "differently)");
  // The contract divides in f32 (also for f16/bf16 inputs) and rounds,
  // adds and clamps in the same f32.
  if (!elementTypeOf(div->op).isF32() || !elementTypeOf(round->op).isF32() ||
      !getElementTypeOrSelf(clamped.value.getType()).isF32())
    return rewriter.notifyMatchFailure(root, "the division is not in f32");

  EwValue x = div->operands[0];
  if (std::optional<EwOp> ext = matchOp<arith::ExtFOp>(x);
      ext && (operandElementTypeOf(ext->op).isF16() ||
              operandElementTypeOf(ext->op).isBF16()))
    x = ext->operands.front();
  std::optional<Value> input = matchRootShaped(x, shape);
  if (!input || !isScaleType(getElementTypeOrSelf(input->getType())))
    return rewriter.notifyMatchFailure(root,
                                       "the dividend is not a float tensor");
  match.input = *input;

  std::optional<BlockExpansion> scale = matchParam(div->operands[1], shape);
  if (!scale)
    return rewriter.notifyMatchFailure(root, kNotBlockwise);
  std::optional<Type> scaleType = prepareScale(*scale);
  if (!scaleType)
    return rewriter.notifyMatchFailure(root,
                                       "the scale is not f32, f16 or bf16");
  if (hasZeroPoint) {
    std::optional<BlockExpansion> zpExpansion = matchParam(zpValue, shape);
    if (!zpExpansion)
      return rewriter.notifyMatchFailure(
          root, "the zero point is not a blockwise repetition");
    std::optional<ZeroPoint> zp = prepareZeroPoint(std::move(*zpExpansion));
    if (!zp)
      return rewriter.notifyMatchFailure(
          root, "the zero point is neither an integer tensor nor a constant "
                "holding integers");
    if (!llvm::all_of(zp->floatTypes, [&](Type t) {
          return holdsIntegers(t, zp->min, zp->max);
        }))
      return rewriter.notifyMatchFailure(
          root, "the zero point is not exact in its float type");
    if (!zp->type && (zp->min < lo || zp->max > hi))
      return rewriter.notifyMatchFailure(
          root, "the zero point does not fit the storage type");
    if (failed(unifyBlocks(*scale, zp->expansion)))
      return rewriter.notifyMatchFailure(
          root, "the scale and the zero point repeat with different blocks");
    match.zeroPoint = std::move(zp);
  }
  if (isTrivial(shape, scale->blockShape))
    return rewriter.notifyMatchFailure(root, kNotBlockwise);
  match.scale = std::move(*scale);
  match.scaleType = *scaleType;
  return success();
}

static LogicalResult raiseQuantize(PatternRewriter &rewriter, Operation *root) {
  QuantizeMatch match;
  if (failed(matchQuantize(rewriter, root, match)))
    return failure();
  auto rootType = cast<RankedTensorType>(root->getResult(0).getType());
  auto inputType = cast<RankedTensorType>(match.input.getType());
  MLIRContext *context = rewriter.getContext();
  IntegerType zpType;
  if (match.zeroPoint)
    zpType = match.zeroPoint->type ? match.zeroPoint->type : match.storage;
  SchemeAttr scheme = getScheme(
      context, match.storage, inputType.getElementType(),
      getBlockList(rootType.getShape(), match.scale.blockShape),
      match.scaleType, zpType, match.qmin, match.qmax, match.rounding);
  if (!scheme)
    return rewriter.notifyMatchFailure(root, "no valid scheme");
  auto qType = QuantizedTensorType::get(context, rootType.getShape(), scheme);

  Location loc = root->getLoc();
  Value scales = buildScales(rewriter, loc, match.scale);
  Value zeroPoints;
  if (match.zeroPoint)
    zeroPoints = buildZeroPoints(rewriter, loc, *match.zeroPoint, zpType);
  Value quantized = QuantizeOp::create(rewriter, loc, qType, match.input,
                                       scales, zeroPoints, Value(), Value());
  auto parts = UnpackOp::create(rewriter, loc, qType.getPartTypes(), quantized);
  rewriter.replaceOp(root, bitcastElements(rewriter, loc, parts.getData(),
                                           rootType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Patterns on the elementwise decompositions
//===----------------------------------------------------------------------===//

namespace {
/// Any op producing one static tensor: a float result may be a dequantize,
/// an integer one a quantize. Anchored on every op because the root may be
/// an arith op on tensors, a TOSA op or any linalg op with the formula in
/// its body.
struct RaiseDecomposition : public RewritePattern {
  RaiseDecomposition(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 ||
        isa_and_nonnull<QuantBlockDialect>(op->getDialect()))
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "not a static ranked tensor");
    if (isa<FloatType>(type.getElementType()))
      return raiseDequantize(rewriter, op);
    if (isa<IntegerType>(type.getElementType()))
      return raiseQuantize(rewriter, op);
    return failure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Upstream quant.dcast / qcast / scast
//===----------------------------------------------------------------------===//

/// The quant_block type of a `tensor<... x !quant.uniform<...>>`, with its
/// scales and zero points as constants (contracted shape), or null.
static QuantizedTensorType convertUniformType(RankedTensorType tensorType,
                                              DenseElementsAttr &scales,
                                              DenseElementsAttr &zeroPoints) {
  if (!tensorType || !tensorType.hasStaticShape() || tensorType.getRank() == 0)
    return {};
  auto quantized =
      dyn_cast<quant::UniformQuantizedType>(tensorType.getElementType());
  auto perAxis =
      dyn_cast<quant::UniformQuantizedPerAxisType>(tensorType.getElementType());
  auto subChannel = dyn_cast<quant::UniformQuantizedSubChannelType>(
      tensorType.getElementType());
  auto base = dyn_cast<quant::QuantizedType>(tensorType.getElementType());
  if (!base || (!quantized && !perAxis && !subChannel))
    return {};
  MLIRContext *context = tensorType.getContext();
  Type expressed = base.getExpressedType();
  auto storageInt = dyn_cast<IntegerType>(base.getStorageType());
  if (!isScaleType(expressed) || !storageInt || storageInt.getWidth() < 2 ||
      storageInt.getWidth() > 32)
    return {};
  IntegerType storage =
      storageIntegerType(context, storageInt.getWidth(), base.isSigned());
  ArrayRef<int64_t> shape = tensorType.getShape();
  int64_t rank = shape.size();

  // Blocks per dimension and the parameters in row-major contracted order.
  SmallVector<int64_t> blocks(shape);
  SmallVector<double> scaleValues;
  SmallVector<APFloat> subChannelScales;
  SmallVector<int64_t> zpValues;
  if (quantized) {
    scaleValues.push_back(quantized.getScale());
    zpValues.push_back(quantized.getZeroPoint());
  } else if (perAxis) {
    int32_t axis = perAxis.getQuantizedDimension();
    if (axis < 0 || axis >= rank ||
        static_cast<int64_t>(perAxis.getScales().size()) != shape[axis])
      return {};
    blocks[axis] = 1;
    llvm::append_range(scaleValues, perAxis.getScales());
    llvm::append_range(zpValues, perAxis.getZeroPoints());
  } else {
    for (auto [axis, block] : subChannel.getBlockSizeInfo()) {
      if (axis < 0 || axis >= rank || block <= 0 || shape[axis] % block != 0)
        return {};
      blocks[axis] = block;
    }
    llvm::append_range(subChannelScales,
                       subChannel.getScales().getValues<APFloat>());
    for (const APInt &zp : subChannel.getZeroPoints().getValues<APInt>())
      zpValues.push_back(base.isSigned() ? zp.getSExtValue()
                                         : zp.getZExtValue());
  }
  SmallVector<int64_t> contracted;
  for (auto [size, block] : llvm::zip(shape, blocks))
    contracted.push_back(size / block);

  // Scales in the expressed type, as upstream's lowering materializes them.
  auto scaleTensorType = RankedTensorType::get(contracted, expressed);
  const llvm::fltSemantics &semantics =
      cast<FloatType>(expressed).getFloatSemantics();
  SmallVector<APFloat> scaleAttrs;
  for (double s : scaleValues) {
    APFloat value(s);
    bool lost = false;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    scaleAttrs.push_back(value);
  }
  for (APFloat value : subChannelScales) {
    bool lost = false;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    scaleAttrs.push_back(value);
  }
  if (static_cast<int64_t>(scaleAttrs.size()) !=
      scaleTensorType.getNumElements())
    return {};
  scales = DenseElementsAttr::get(scaleTensorType, scaleAttrs);

  // Zero points: none when all are 0, else in the storage type.
  Type zpType;
  zeroPoints = {};
  auto [lo, hi] = rangeOf(storage);
  if (llvm::any_of(zpValues, [](int64_t zp) { return zp != 0; })) {
    if (static_cast<int64_t>(zpValues.size()) !=
        scaleTensorType.getNumElements())
      return {};
    SmallVector<APInt> values;
    for (int64_t zp : zpValues) {
      if (zp < lo || zp > hi)
        return {};
      values.push_back(APInt(storageInt.getWidth(), zp, /*isSigned=*/true,
                             /*implicitTrunc=*/true));
    }
    zpType = storage;
    zeroPoints = DenseElementsAttr::get(
        RankedTensorType::get(contracted,
                              IntegerType::get(context, storageInt.getWidth())),
        values);
  }
  SchemeAttr scheme =
      getScheme(context, storage, expressed, getBlockList(shape, blocks),
                expressed, zpType, base.getStorageTypeMin(),
                base.getStorageTypeMax(), RoundingMode::HalfToEven);
  if (!scheme)
    return {};
  return QuantizedTensorType::get(context, shape, scheme);
}

/// The quant_block value equal to the `!quant.uniform` tensor `value`: a
/// pack of the storage tensor behind a quant.scast, or a quantize of the
/// float tensor behind a quant.qcast.
static FailureOr<Value> raiseQuantValue(PatternRewriter &rewriter,
                                        Operation *user, Value value,
                                        QuantizedTensorType &qType) {
  DenseElementsAttr scales, zeroPoints;
  qType = convertUniformType(dyn_cast<RankedTensorType>(value.getType()),
                             scales, zeroPoints);
  if (!qType)
    return rewriter.notifyMatchFailure(
        user, "not a static per-tensor, per-axis or sub-channel "
              "!quant.uniform tensor with 2..32-bit storage");
  Location loc = user->getLoc();
  auto makeParams = [&](Value &scaleValue, Value &zpValue) {
    scaleValue = arith::ConstantOp::create(rewriter, loc, scales);
    if (zeroPoints)
      zpValue = bitcastElements(
          rewriter, loc, arith::ConstantOp::create(rewriter, loc, zeroPoints),
          qType.getScheme().getZeroPointType());
  };
  if (auto scast = value.getDefiningOp<quant::StorageCastOp>()) {
    auto storage = dyn_cast<RankedTensorType>(scast.getInput().getType());
    if (!storage || !isa<IntegerType>(storage.getElementType()))
      return rewriter.notifyMatchFailure(user, "not a cast from storage");
    Value scaleValue, zpValue;
    makeParams(scaleValue, zpValue);
    Value data = bitcastElements(rewriter, loc, scast.getInput(),
                                 qType.getScheme().getStorageType());
    return PackOp::create(rewriter, loc, qType, data, scaleValue, zpValue,
                          Value(), Value())
        .getResult();
  }
  if (auto qcast = value.getDefiningOp<quant::QuantizeCastOp>()) {
    auto input = dyn_cast<RankedTensorType>(qcast.getInput().getType());
    if (!input ||
        input.getElementType() != qType.getScheme().getExpressedType())
      return rewriter.notifyMatchFailure(user, "not a cast from the expressed "
                                               "type");
    Value scaleValue, zpValue;
    makeParams(scaleValue, zpValue);
    return QuantizeOp::create(rewriter, loc, qType, qcast.getInput(),
                              scaleValue, zpValue, Value(), Value())
        .getResult();
  }
  return rewriter.notifyMatchFailure(
      user, "the quantized value comes from neither quant.scast nor "
            "quant.qcast");
}

/// True when every user of `qcast` is a quant.dcast or a quant.scast to
/// storage, so that one quant_block.quantize serves them all.
static bool hasOnlyCastUsers(quant::QuantizeCastOp qcast) {
  return llvm::all_of(qcast->getUsers(), [](Operation *user) {
    return isa<quant::DequantizeCastOp>(user) ||
           (isa<quant::StorageCastOp>(user) &&
            isa<IntegerType>(getElementTypeOrSelf(user->getResult(0))));
  });
}

/// Replaces a quant.scast to storage by the data part of `quantized`.
static void replaceStorageCast(PatternRewriter &rewriter,
                               quant::StorageCastOp op, Value quantized,
                               QuantizedTensorType qType) {
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  auto parts =
      UnpackOp::create(rewriter, op.getLoc(), qType.getPartTypes(), quantized);
  rewriter.replaceOp(op, bitcastElements(rewriter, op.getLoc(), parts.getData(),
                                         resultType.getElementType()));
}

namespace {
/// quant.qcast(x) whose users are all casts -> one quant_block.quantize,
/// its users -> dequantize / the data part.
struct RaiseQuantizeCast : public OpRewritePattern<quant::QuantizeCastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(quant::QuantizeCastOp op,
                                PatternRewriter &rewriter) const override {
    if (op->use_empty() || !hasOnlyCastUsers(op))
      return rewriter.notifyMatchFailure(op, "has users other than casts");
    QuantizedTensorType qType;
    FailureOr<Value> quantized =
        raiseQuantValue(rewriter, op, op.getResult(), qType);
    if (failed(quantized))
      return failure();
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      rewriter.setInsertionPoint(user);
      if (auto dcast = dyn_cast<quant::DequantizeCastOp>(user))
        rewriter.replaceOpWithNewOp<DequantizeOp>(
            dcast, dcast.getResult().getType(), *quantized);
      else
        replaceStorageCast(rewriter, cast<quant::StorageCastOp>(user),
                           *quantized, qType);
    }
    return success();
  }
};

/// quant.dcast(scast(q)) -> quant_block.dequantize of a pack; also
/// quant.dcast(qcast(x)) when the qcast has other users.
struct RaiseDequantizeCast : public OpRewritePattern<quant::DequantizeCastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(quant::DequantizeCastOp op,
                                PatternRewriter &rewriter) const override {
    if (auto qcast = op.getInput().getDefiningOp<quant::QuantizeCastOp>();
        qcast && hasOnlyCastUsers(qcast))
      return rewriter.notifyMatchFailure(op, "raised with its quant.qcast");
    QuantizedTensorType qType;
    FailureOr<Value> quantized =
        raiseQuantValue(rewriter, op, op.getInput(), qType);
    if (failed(quantized))
      return failure();
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, op.getResult().getType(),
                                              *quantized);
    return success();
  }
};

/// quant.scast(qcast(x)) to storage, the qcast having other users -> the
/// data of a quant_block.quantize.
struct RaiseStorageCast : public OpRewritePattern<quant::StorageCastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(quant::StorageCastOp op,
                                PatternRewriter &rewriter) const override {
    auto qcast = op.getInput().getDefiningOp<quant::QuantizeCastOp>();
    if (!qcast || hasOnlyCastUsers(qcast))
      return rewriter.notifyMatchFailure(
          op, "not a cast to storage of a quant.qcast with other users");
    QuantizedTensorType qType;
    FailureOr<Value> quantized =
        raiseQuantValue(rewriter, op, op.getInput(), qType);
    if (failed(quantized))
      return failure();
    replaceStorageCast(rewriter, op, *quantized, qType);
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

void mlir::quant_block::populateQuantBlockRaisePatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseDecomposition, RaiseQuantizeCast, RaiseDequantizeCast,
               RaiseStorageCast>(patterns.getContext());
}

namespace {
struct QuantBlockRaisePass
    : public mlir::quant_block::impl::QuantBlockRaiseBase<QuantBlockRaisePass> {
  using Base::Base;

  // The raised ops take contracted scales and zero points built with
  // arith.constant, tensor reshapes and tensor.bitcast, which the input
  // (say, only quant.dcast) may not have loaded.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.insert<arith::ArithDialect, tensor::TensorDialect>();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQuantBlockRaisePatterns(patterns);
    // No folding: upstream folds quant.dcast(quant.qcast(x)) to x, which
    // would erase the quantization this pass is here to raise. No constant
    // CSE either: IR the pass does not raise stays exactly as it was. Not
    // converging only means some decomposition stayed as it was.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.enableConstantCSE(false);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};
} // namespace
