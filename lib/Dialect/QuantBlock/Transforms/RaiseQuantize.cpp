//===- RaiseQuantize.cpp - raise quantize decompositions ------------------===//
//
// Recognizes the way frontends spell a block-wise quantize,
// `convert(clamp(round(x / expand(s)) + expand(zp)))`, and replaces it by a
// quant_block.quantize whose data part takes the place of the converted
// result.
//
// It is raised only when the quant_block op computes exactly the same values
// under docs/Numerics.md: a true division in f32, rounding (math.roundeven,
// math.round, math.trunc: the scheme's three rounding modes) before the zero
// point is added, and a NaN-propagating clamp to integer bounds inside the
// storage range. x * reciprocal(s) (TOSA has no float division),
// round(x / s + zp), maxnumf/minnumf clamps, division in f16 and a missing
// clamp all compute something else and are refused. Clamp bounds may be
// conversions of constants (torch-mlir's `arith.sitofp` of i64 qmin / qmax);
// bounds computed from anything else are refused. The decomposition's
// fptosi of a NaN quotient (0 / 0) is undefined; the raised op defines it
// (the zero point), a refinement. Every refusal is reported with
// notifyMatchFailure and leaves the IR untouched.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseChain.h"
#include "RaiseParameters.h"

#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

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

/// The value of `value` if it is a splat float constant, or a conversion of
/// one that folds exactly like the compiled code would compute it: torch-mlir
/// writes the clamp bounds as `arith.sitofp` of i64 constants.
static std::optional<APFloat> foldSplatFloat(Value value) {
  APFloat constant(0.0f);
  if (!value)
    return std::nullopt;
  if (matchPattern(value, m_ConstantFloat(&constant)))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumOperands() != 1 || def->getNumResults() != 1)
    return std::nullopt;
  auto type = dyn_cast<FloatType>(elementTypeOf(def));
  if (!type)
    return std::nullopt;
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(def)) {
    APInt integer;
    if (!matchPattern(def->getOperand(0), m_ConstantInt(&integer)))
      return std::nullopt;
    APFloat result(type.getFloatSemantics());
    result.convertFromAPInt(integer, isa<arith::SIToFPOp>(def),
                            APFloat::rmNearestTiesToEven);
    return result;
  }
  // A truncf with an explicit rounding mode is not folded (rarely written,
  // and only to-nearest-even is what APFloat::convert does below).
  if (auto truncf = dyn_cast<arith::TruncFOp>(def);
      truncf && truncf.getRoundingmodeAttr())
    return std::nullopt;
  if (isa<arith::ExtFOp, arith::TruncFOp>(def)) {
    std::optional<APFloat> operand = foldSplatFloat(def->getOperand(0));
    if (!operand)
      return std::nullopt;
    bool lost = false;
    operand->convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                     &lost);
    return operand;
  }
  return std::nullopt;
}

/// A splat float constant (a constant tensor, a broadcast scalar, a
/// captured scalar), possibly converted from an integer or float constant.
static std::optional<APFloat> matchSplatFloat(const EwValue &input) {
  return foldSplatFloat(normalize(input).value);
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
    if (!outerBound)
      return rewriter.notifyMatchFailure(
          root, "the clamp bound is not a constant (nor a conversion of one)");
    std::optional<EwOp> inner = outerIsMax ? matchOp<arith::MinimumFOp>(rest)
                                           : matchOp<arith::MaximumFOp>(rest);
    if (!inner)
      return rewriter.notifyMatchFailure(root,
                                         "not a clamp between two constants");
    std::optional<APFloat> innerBound = split(*inner, clamped);
    if (!innerBound)
      return rewriter.notifyMatchFailure(
          root, "the clamp bound is not a constant (nor a conversion of one)");
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
  EwValue rootValue = getRootValue(root);
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

void mlir::quant_block::populateQuantBlockRaiseQuantizePatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseDecomposition<IntegerType>>(patterns.getContext(),
                                                raiseQuantize);
}
