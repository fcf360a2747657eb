//===- RaiseDequantize.cpp - raise dequantize decompositions --------------===//
//
// Recognizes the ways frontends spell a block-wise dequantize,
// `(cast(q) - expand(zp)) * expand(s)` and `cast(q) * expand(s)` (also with
// the exact integer subtraction `cast(q - zp)`), and replaces each by a
// quant_block.pack of the data and the contracted parameters followed by a
// quant_block.dequantize.
//
// It is raised only when the quant_block op computes exactly the same values
// under docs/Numerics.md: every float type that holds q, zp or q - zp must
// hold them exactly (then the float subtraction equals the contract's
// integer one), and the product is rounded once to the result type either
// way. A product in f16 / bf16 then extended is the dequantize to that type
// (then extended): the f32 product of two such exact values is exact, so one
// rounding to f16 / bf16 is all either does. An f32 product rounded to f16 /
// bf16 is the contract's dequantize to f16 / bf16 itself. `q * s + m` is not
// the float-zero-point domain (one FMA) and is not folded into it. Every
// refusal is reported with notifyMatchFailure and leaves the IR untouched.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseChain.h"
#include "RaiseParameters.h"

#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

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
  /// The type the multiplication is computed in: the expressed type, or
  /// f32 when the root rounds an f32 product to the expressed type.
  Type productType;
  /// The root extends the dequantized values exactly to this wider type.
  Type widenedTo;
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
  SmallVector<Type> diffTypes = {match.productType};
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
  // Not a structured binding: the lambdas below capture these (C++17).
  int64_t qmin, qmax;
  std::tie(qmin, qmax) = rangeOf(q->storage);
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

/// A float narrowing that rounds to nearest, ties to even (arith.truncf
/// without another rounding mode, tosa.cast).
static bool hasDefaultRounding(Operation *op) {
  auto truncf = dyn_cast<arith::TruncFOp>(op);
  return !truncf || !truncf.getRoundingmodeAttr() ||
         truncf.getRoundingmodeAttr().getValue() ==
             arith::RoundingMode::to_nearest_even;
}

static LogicalResult matchDequantize(PatternRewriter &rewriter, Operation *root,
                                     DequantizeMatch &match) {
  auto rootType = cast<RankedTensorType>(root->getResult(0).getType());
  ArrayRef<int64_t> shape = rootType.getShape();
  match.expressed = rootType.getElementType();
  match.productType = match.expressed;
  EwValue product = getRootValue(root);
  // A product in f16 / bf16 extended to f32 is the dequantize to f16 / bf16
  // extended; an f32 product rounded to f16 / bf16 is the dequantize to
  // f16 / bf16 itself (docs/Numerics.md: computed in f32, rounded once).
  if (std::optional<EwOp> rootCast = classify(product);
      rootCast && isFloatToFloat(rootCast->op)) {
    Type from = operandElementTypeOf(rootCast->op);
    bool widens = APFloat::isRepresentableBy(
        cast<FloatType>(from).getFloatSemantics(),
        cast<FloatType>(match.expressed).getFloatSemantics());
    if (widens && isScaleType(from)) {
      match.widenedTo = match.expressed;
      match.expressed = match.productType = from;
    } else if (from.isF32() && !widens && hasDefaultRounding(rootCast->op)) {
      match.productType = from;
    } else {
      return rewriter.notifyMatchFailure(
          root, "a float cast of the product that is neither an exact "
                "extension nor a rounding of an f32 product");
    }
    product = rootCast->operands.front();
  }
  if (!isScaleType(match.expressed))
    return rewriter.notifyMatchFailure(root, "not an f32/f16/bf16 result");
  std::optional<EwOp> mul = matchOp<arith::MulFOp, tosa::MulOp>(product);
  if (!mul)
    return rewriter.notifyMatchFailure(root, "not a float multiplication");
  if (elementTypeOf(mul->op) != match.productType)
    return rewriter.notifyMatchFailure(root, "the multiplication is not in the "
                                             "type the cast expects");
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
  auto expressedType =
      RankedTensorType::get(rootType.getShape(), match.expressed);
  Value result = DequantizeOp::create(rewriter, loc, expressedType, packed);
  if (match.widenedTo)
    result = arith::ExtFOp::create(rewriter, loc, rootType, result);
  rewriter.replaceOp(root, result);
  return success();
}

void mlir::quant_block::populateQuantBlockRaiseDequantizePatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseDecomposition<FloatType>>(patterns.getContext(),
                                              raiseDequantize);
}
