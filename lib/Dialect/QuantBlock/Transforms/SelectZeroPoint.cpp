//===- SelectZeroPoint.cpp - --quant-block-select-zero-point --------------===//
//
// Chooses the zero-point domain (none, int, float: torchao's
// ZeroPointDomain) of quantized tensors whose zero points are constants, on
// `quant_block.pack` and `quant_block.quantize`:
//
// * all-zero zero points are dropped (int, or float -0.0; float +0.0 when
//   every scale is positive, since fma(0, s, +0.0) is +0.0 where 0 * s is
//   -0.0 for a negative s);
// * float zero points m become integer ones zp = -m / s when every zp is an
//   integer in the storage range and m == -zp * s exactly (positive finite
//   constant scales): then fma(q, s, m) and (q - zp) * s both round the same
//   exact value once. Only on pack: quantize would round (x - m) / s one way
//   and x / s + zp another;
// * with `domain=float` only, integer zero points become float ones
//   m = -zp * s (rounded to f32): this may change results, as the pass
//   description says, and is never done unasked.
//
// The scheme is part of the quantized type, so every user of the value must
// take the new type: dequantize and matmul do, the layout ops are retyped
// along, unpack when its zero-point result is unused; anything else (a
// func.return, a call) makes the pass refuse. Every decision, taken or
// refused, is explained with a remark that gives the memory it saves in bits
// per element.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"

#include "quant-block/Numerics/IntegerQuant.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

#include <cmath>

namespace mlir::quant_block {
#define GEN_PASS_DEF_QUANTBLOCKSELECTZEROPOINT
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
namespace numerics = ::quant_block::numerics;

//===----------------------------------------------------------------------===//
// Constant parameters
//===----------------------------------------------------------------------===//

/// The values of a constant tensor, as doubles (every f32/f16/bf16 value
/// and every integer of up to 32 bits is exact), or nullopt when `value` is
/// not a constant of a type read here.
static std::optional<std::vector<double>> getConstantValues(Value value) {
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  Type elementType = attr.getElementType();
  std::vector<double> values;
  values.reserve(attr.getNumElements());
  if (auto intType = dyn_cast<IntegerType>(elementType)) {
    if (intType.getWidth() > 32)
      return std::nullopt;
    for (const APInt &v : attr.getValues<APInt>())
      values.push_back(intType.isUnsigned() ? double(v.getZExtValue())
                                            : double(v.getSExtValue()));
    return values;
  }
  if (!isa<Float32Type, Float16Type, BFloat16Type>(elementType))
    return std::nullopt;
  for (APFloat v : attr.getValues<APFloat>()) {
    bool losesInfo;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
    values.push_back(v.convertToDouble());
  }
  return values;
}

/// "0.375": a bit count per element for remarks.
static std::string formatBits(double bits) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", bits);
  return text;
}

namespace {

/// The parameters of one pack or quantize whose zero points are constants.
struct ZeroPointSite {
  Operation *op;
  QuantizedTensorType type;
  Value scales, zeroPoints, outerScales, outerMins;
  bool isQuantize;

  SchemeAttr getScheme() const { return type.getScheme(); }

  /// What zero points of `newBits` bits each (0: none) save, or cost, per
  /// element against the current ones: (old - new) bits per block over the
  /// block's elements, averaged over the tensor when its shape is static
  /// (ragged blocks included). "saves 0.375 bits per element".
  std::string describeSaving(int64_t newBits, bool infinitive = false) const {
    int64_t oldBits = getScheme().getZeroPointType().getIntOrFloatBitWidth();
    int64_t diff = oldBits - newBits;
    std::string verb = diff >= 0 ? "save" : "cost";
    verb += infinitive ? " " : "s ";
    double perElement;
    if (type.hasStaticShape() && type.getDataType().getNumElements() > 0) {
      perElement = double(std::abs(diff)) *
                   double(type.getZeroPointsType().getNumElements()) /
                   double(type.getDataType().getNumElements());
    } else {
      int64_t blockElements = 1;
      for (int64_t b : type.getEffectiveBlockShape()) {
        if (ShapedType::isDynamic(b))
          return verb + std::to_string(std::abs(diff)) + " bits per block";
        blockElements *= b;
      }
      perElement = double(std::abs(diff)) / double(blockElements);
    }
    return verb + formatBits(perElement) + " bits per element";
  }
};

/// Which quantized values change type when the root's scheme changes, and
/// the types they get.
struct RetypePlan {
  SmallVector<std::pair<Value, Type>> values;
};

/// Rewrites zero points of one pack or quantize as the domain option asks.
class ZeroPointSelector {
public:
  ZeroPointSelector(std::optional<ZeroPointDomain> domain) : domain(domain) {}

  LogicalResult select(const ZeroPointSite &site,
                       PatternRewriter &rewriter) const;

private:
  /// Plans retyping the users of `root` for `newScheme`, or says why a user
  /// cannot take the new type.
  std::optional<std::string> planUsers(Value root, QuantizedTensorType newType,
                                       RetypePlan &plan) const;
  /// Replaces the site by one of `newType` with `newZeroPoints` (null to
  /// drop them) and retypes the users.
  void apply(const ZeroPointSite &site, QuantizedTensorType newType,
             Value newZeroPoints, const RetypePlan &plan,
             PatternRewriter &rewriter) const;
  /// Applies a decision if the users allow it; remarks either way. `done`
  /// says what was done ("drops the zero points: ..."), `todo` the same as
  /// an infinitive ("drop the zero points"), for the refusal.
  LogicalResult decide(const ZeroPointSite &site, SchemeAttr newScheme,
                       function_ref<Value()> createZeroPoints,
                       const std::string &done, const std::string &todo,
                       int64_t newBits, PatternRewriter &rewriter) const;

  /// The f32 scales of every block the way dequantize applies them (the
  /// stored scale times the per-tensor outer scale), or nullopt when they
  /// are not constants.
  std::optional<std::vector<float>>
  getEffectiveScales(const ZeroPointSite &site) const;

  std::optional<ZeroPointDomain> domain;
};

} // namespace

std::optional<std::vector<float>>
ZeroPointSelector::getEffectiveScales(const ZeroPointSite &site) const {
  std::optional<std::vector<double>> scales = getConstantValues(site.scales);
  if (!scales)
    return std::nullopt;
  float outer = 1.0f;
  bool hasOuter = false;
  if (site.outerScales) {
    std::optional<std::vector<double>> outers =
        getConstantValues(site.outerScales);
    if (!outers || outers->size() != 1)
      return std::nullopt;
    outer = float((*outers)[0]);
    hasOuter = true;
  }
  // The zero points are a constant, so their count is static even when the
  // quantized tensor's shape is not.
  int64_t numBlocks =
      cast<RankedTensorType>(site.zeroPoints.getType()).getNumElements();
  if (scales->size() != 1 && int64_t(scales->size()) != numBlocks)
    return std::nullopt;
  std::vector<float> result(numBlocks);
  for (int64_t b = 0; b < numBlocks; ++b) {
    float s = float((*scales)[scales->size() == 1 ? 0 : b]);
    result[b] = hasOuter ? s * outer : s;
  }
  return result;
}

std::optional<std::string>
ZeroPointSelector::planUsers(Value root, QuantizedTensorType newType,
                             RetypePlan &plan) const {
  SmallVector<std::pair<Value, QuantizedTensorType>> worklist = {
      {root, newType}};
  llvm::DenseSet<Value> seen = {root};
  bool dropsZeroPoints = !newType.getScheme().getZeroPointType();
  bool floatZeroPoints =
      newType.getScheme().getZeroPointDomain() == ZeroPointDomain::Float;
  while (!worklist.empty()) {
    auto [value, type] = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<DequantizeOp>(user))
        continue;
      if (auto matmul = dyn_cast<MatmulOp>(user)) {
        if (floatZeroPoints && isa<IntegerType>(matmul.getAccumulatorType()))
          return std::string("it feeds a quant_block.matmul with i32 "
                             "accumulation, which cannot apply float zero "
                             "points");
        continue;
      }
      if (isa<TransposeOp, ReshapeOp, ExtractSliceOp, BroadcastOp>(user)) {
        // Layout ops change only the block shapes: carry the new zero-point
        // type into their result's scheme.
        Value result = user->getResult(0);
        auto oldType = cast<QuantizedTensorType>(result.getType());
        SchemeAttr old = oldType.getScheme();
        SchemeAttr scheme = newType.getScheme()
                                .withBlockShape(old.getBlockShape())
                                .withOuter(old.getOuter());
        auto resultType = oldType.clone(oldType.getShape(), scheme);
        if (seen.insert(result).second) {
          plan.values.push_back({result, resultType});
          worklist.push_back({result, resultType});
        }
        continue;
      }
      if (auto unpack = dyn_cast<UnpackOp>(user)) {
        if (dropsZeroPoints)
          return std::string("quant_block.unpack returns the zero points as "
                             "a part, which cannot be removed in place");
        Value zeroPoints = unpack.getZeroPoints();
        if (!zeroPoints.use_empty())
          return std::string("the zero points that quant_block.unpack "
                             "returns are used");
        if (seen.insert(zeroPoints).second)
          plan.values.push_back({zeroPoints, type.getZeroPointsType()});
        continue;
      }
      if (isa<func::ReturnOp>(user))
        return std::string("it is returned by func.return, and the "
                           "function's result type would have to change");
      return "it is used by '" + user->getName().getStringRef().str() +
             "', which cannot take another quantized type";
    }
  }
  return std::nullopt;
}

void ZeroPointSelector::apply(const ZeroPointSite &site,
                              QuantizedTensorType newType, Value newZeroPoints,
                              const RetypePlan &plan,
                              PatternRewriter &rewriter) const {
  for (const auto &[value, type] : plan.values) {
    Value retyped = value;
    Type newValueType = type;
    rewriter.modifyOpInPlace(retyped.getDefiningOp(),
                             [&] { retyped.setType(newValueType); });
  }
  Operation *op = site.op;
  if (auto quantize = dyn_cast<QuantizeOp>(op)) {
    rewriter.replaceOpWithNewOp<QuantizeOp>(
        quantize, newType, quantize.getInput(), site.scales, newZeroPoints,
        site.outerScales, site.outerMins);
    return;
  }
  auto pack = cast<PackOp>(op);
  rewriter.replaceOpWithNewOp<PackOp>(pack, newType, pack.getData(),
                                      site.scales, newZeroPoints,
                                      site.outerScales, site.outerMins);
}

LogicalResult
ZeroPointSelector::decide(const ZeroPointSite &site, SchemeAttr newScheme,
                          function_ref<Value()> createZeroPoints,
                          const std::string &done, const std::string &todo,
                          int64_t newBits, PatternRewriter &rewriter) const {
  QuantizedTensorType newType =
      site.type.clone(site.type.getShape(), newScheme);
  RetypePlan plan;
  if (std::optional<std::string> whyNot =
          planUsers(site.op->getResult(0), newType, plan)) {
    site.op->emitRemark() << "cannot " << todo << " (which would "
                          << site.describeSaving(newBits, /*infinitive=*/true)
                          << "): the quantized type would change, but "
                          << *whyNot << "; saves 0 bits per element";
    return failure();
  }
  site.op->emitRemark() << done << "; " << site.describeSaving(newBits);
  apply(site, newType, createZeroPoints ? createZeroPoints() : Value(), plan,
        rewriter);
  return success();
}

/// The scheme with another zero-point type (null: none).
static SchemeAttr withZeroPointType(SchemeAttr scheme, Type zeroPointType) {
  return SchemeAttr::get(scheme.getContext(), scheme.getStorageType(),
                         scheme.getExpressedType(), scheme.getBlockShape(),
                         scheme.getScaleType(), zeroPointType, scheme.getQmin(),
                         scheme.getQmax(), scheme.getRounding(),
                         scheme.getSaturate(), scheme.getScaleRounding(),
                         scheme.getOuter(), scheme.getRowTile());
}

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

LogicalResult ZeroPointSelector::select(const ZeroPointSite &site,
                                        PatternRewriter &rewriter) const {
  SchemeAttr scheme = site.getScheme();
  Type zpType = scheme.getZeroPointType();
  ZeroPointDomain current = scheme.getZeroPointDomain();
  Operation *op = site.op;
  std::string zpName = typeName(zpType);
  std::string domainName =
      domain ? stringifyZeroPointDomain(*domain).str() : "auto";
  std::string keeps = "; saves 0 bits per element";

  if (OuterScaleAttr outer = scheme.getOuter(); outer && outer.getMinType()) {
    op->emitRemark() << "keeps the " << zpName
                     << " zero points: an outer min scales them (K-quant "
                        "super-blocks), which this pass does not analyse"
                     << keeps;
    return failure();
  }
  std::optional<std::vector<double>> zeroPoints =
      getConstantValues(site.zeroPoints);
  if (!zeroPoints)
    return rewriter.notifyMatchFailure(
        op, "the zero points are not a dense constant of a type read here");
  int64_t numBlocks = zeroPoints->size();
  auto zpAt = [&](int64_t b) {
    return (*zeroPoints)[zeroPoints->size() == 1 ? 0 : b];
  };
  bool allZero = llvm::all_of(*zeroPoints, [](double v) { return v == 0.0; });
  std::optional<int64_t> firstNonZero;
  for (int64_t b = 0; b < numBlocks && !firstNonZero; ++b)
    if (zpAt(b) != 0.0)
      firstNonZero = b;
  auto describeNonZero = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "zero point " << llvm::format("%g", zpAt(*firstNonZero))
       << " of block " << *firstNonZero << " is not zero";
    return text;
  };
  std::optional<std::vector<float>> scales = getEffectiveScales(site);

  // Already in the requested domain.
  if (domain && *domain == current) {
    op->emitRemark() << "keeps the " << zpName << " zero points: they are in "
                     << "the requested " << domainName << " domain" << keeps;
    return failure();
  }

  // 1. Drop all-zero zero points (auto, none).
  bool wantsNone = !domain || *domain == ZeroPointDomain::None;
  if (wantsNone && allZero) {
    // (q - 0) * s and fma(q, s, -0.0) are q * s exactly; fma(q, s, +0.0)
    // differs only where q * s is -0.0, which a positive scale never gives
    // for an integer q.
    bool exact = true;
    std::string whyNot;
    if (current == ZeroPointDomain::Float) {
      for (int64_t b = 0; b < numBlocks && exact; ++b) {
        if (std::signbit(zpAt(b)))
          continue;
        if (!scales) {
          exact = false;
          whyNot = "they are +0.0 and the scales are not constant, so "
                   "fma(q, s, +0.0) = +0.0 where q * s = -0.0 cannot be "
                   "ruled out";
        } else if (!((*scales)[b] > 0.0f) && !std::isnan((*scales)[b])) {
          exact = false;
          whyNot = "they are +0.0 and the scale of block " + std::to_string(b) +
                   " is not positive, so fma(q, s, +0.0) would be +0.0 where "
                   "q * s is -0.0";
        }
      }
    }
    if (exact)
      return decide(site, withZeroPointType(scheme, Type()), nullptr,
                    "drops the " + zpName + " zero points: all are zero",
                    "drop the " + zpName + " zero points", 0, rewriter);
    // Integer zero points (all 0) would need positive scales just the same.
    if (domain)
      op->emitRemark() << "cannot drop the " << zpName
                       << " zero points exactly: " << whyNot << keeps;
    else
      op->emitRemark() << "keeps the " << zpName << " zero points: " << whyNot
                       << keeps;
    return failure();
  }
  if (domain && *domain == ZeroPointDomain::None) {
    op->emitRemark() << "cannot drop the " << zpName
                     << " zero points (domain=none): " << describeNonZero()
                     << ", and dropping it would shift its block by zp * s"
                     << keeps;
    return failure();
  }

  // 2. Float to int (auto, int): zp = -m / s when exact.
  if (current == ZeroPointDomain::Float) {
    bool asked = domain.has_value();
    auto refuse = [&](const std::string &why) {
      if (asked)
        op->emitRemark() << "cannot turn the " << zpName
                         << " zero points into integer ones (domain=int): "
                         << why << keeps;
      else
        op->emitRemark() << "keeps the " << zpName << " zero points: " << why
                         << keeps;
      return failure();
    };
    if (site.isQuantize)
      return refuse("quant_block.quantize rounds (x - m) / s with float zero "
                    "points but x / s + zp with integer ones, so its codes "
                    "could change (fold it to a pack first)");
    auto storage = cast<IntegerType>(scheme.getStorageType());
    numerics::IntegerRange range = numerics::getIntegerStorageRange(
        storage.getWidth(), !storage.isUnsigned());
    if (range.max - range.min >= (int64_t(1) << 24))
      return refuse("storage of " + std::to_string(storage.getWidth()) +
                    " bits does not convert to f32 exactly");
    if (!scales)
      return refuse("the scales are not constant, so -m / s is unknown");
    std::vector<double> integers(numBlocks);
    for (int64_t b = 0; b < numBlocks; ++b) {
      double m = zpAt(b), s = (*scales)[b];
      std::string block = "block " + std::to_string(b);
      if (!(s > 0.0) || !std::isfinite(s))
        return refuse("the scale of " + block + " is not positive and finite");
      double k = -m / s;
      if (k != std::nearbyint(k) || k * s != -m || k < double(range.min) ||
          k > double(range.max)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << block << " has m = " << llvm::format("%g", m)
           << ", which is not -zp * s for an integer zp in [" << range.min
           << ", " << range.max << "] (s = " << llvm::format("%g", s) << ")";
        return refuse(text);
      }
      integers[b] = k == 0.0 ? 0.0 : k;
    }
    if (!asked && storage.getWidth() >= zpType.getIntOrFloatBitWidth())
      return refuse(typeName(storage) + " zero points would not be smaller");
    RankedTensorType zpTensorType =
        cast<RankedTensorType>(site.zeroPoints.getType()).clone(storage);
    SmallVector<APInt> values;
    for (double k : integers)
      values.push_back(APInt(storage.getWidth(), int64_t(k),
                             /*isSigned=*/!storage.isUnsigned()));
    auto createZeroPoints = [&]() -> Value {
      return arith::ConstantOp::create(
          rewriter, op->getLoc(), DenseElementsAttr::get(zpTensorType, values));
    };
    std::string todo = "turn the " + zpName + " zero points into " +
                       typeName(storage) + " ones";
    std::string done =
        "turns" + todo.substr(4) + ": every -m / s is an integer in [" +
        std::to_string(range.min) + ", " + std::to_string(range.max) + "]";
    return decide(site, withZeroPointType(scheme, storage), createZeroPoints,
                  done, todo, storage.getWidth(), rewriter);
  }

  // 3. Int to float (domain=float only): m = -zp * s in f32.
  if (!domain) {
    op->emitRemark() << "keeps the " << zpName
                     << " zero points: " << describeNonZero() << keeps;
    return failure();
  }
  assert(*domain == ZeroPointDomain::Float && current == ZeroPointDomain::Int);
  if (!scales) {
    op->emitRemark() << "cannot turn the " << zpName
                     << " zero points into float ones (domain=float): the "
                        "scales are not constant, so m = -zp * s is unknown"
                     << keeps;
    return failure();
  }
  Type f32 = rewriter.getF32Type();
  SmallVector<float> mins;
  int64_t inexact = 0;
  for (int64_t b = 0; b < numBlocks; ++b) {
    float s = (*scales)[b];
    float m = float(-zpAt(b)) * s;
    // m is exact when the product needs no rounding.
    if (double(m) != -zpAt(b) * double(s))
      ++inexact;
    mins.push_back(m);
  }
  RankedTensorType zpTensorType =
      cast<RankedTensorType>(site.zeroPoints.getType()).clone(f32);
  auto createZeroPoints = [&]() -> Value {
    return arith::ConstantOp::create(
        rewriter, op->getLoc(),
        DenseElementsAttr::get(zpTensorType, ArrayRef<float>(mins)));
  };
  std::string todo = "turn the " + zpName +
                     " zero points into f32 ones, m = -zp * s (domain=float)";
  std::string done = "turns" + todo.substr(4) +
                     ": dequantize computes fma(q, s, m) instead of "
                     "(q - zp) * s";
  if (inexact)
    done += ", and m is rounded in " + std::to_string(inexact) + " of " +
            std::to_string(numBlocks) +
            " blocks, so results there may differ by that rounding";
  else
    done += ", which gives the same values since every m is exact (a zero "
            "result may lose its sign under a negative scale)";
  if (site.isQuantize)
    done += "; quantize rounds (x - m) / s instead of x / s + zp";
  return decide(site, withZeroPointType(scheme, f32), createZeroPoints, done,
                todo, 32, rewriter);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// Selects the zero points of a pack or quantize with constant zero points.
template <typename OpTy>
struct SelectZeroPointPattern : public OpRewritePattern<OpTy> {
  SelectZeroPointPattern(MLIRContext *context,
                         std::optional<ZeroPointDomain> domain)
      : OpRewritePattern<OpTy>(context), selector(domain) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!op.getZeroPoints())
      return rewriter.notifyMatchFailure(op, "no zero points");
    if (!matchPattern(op.getZeroPoints(), m_Constant()))
      return rewriter.notifyMatchFailure(op, "zero points are not constant");
    ZeroPointSite site{op,
                       op.getType(),
                       op.getScales(),
                       op.getZeroPoints(),
                       op.getOuterScales(),
                       op.getOuterMins(),
                       std::is_same_v<OpTy, QuantizeOp>};
    return selector.select(site, rewriter);
  }

  ZeroPointSelector selector;
};

/// Collects the operands' producers of replaced ops, so that the pass can
/// erase the zero-point constants it leaves unused.
struct ReplacedOperandsListener : public RewriterBase::Listener {
  void notifyOperationReplaced(Operation *op, ValueRange) override {
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.insert(producer);
  }
  void notifyOperationErased(Operation *op) override { producers.remove(op); }

  llvm::SetVector<Operation *> producers;
};

} // namespace

void mlir::quant_block::populateQuantBlockSelectZeroPointPatterns(
    RewritePatternSet &patterns, std::optional<ZeroPointDomain> domain) {
  patterns
      .add<SelectZeroPointPattern<PackOp>, SelectZeroPointPattern<QuantizeOp>>(
          patterns.getContext(), domain);
}

namespace {
struct QuantBlockSelectZeroPointPass
    : public mlir::quant_block::impl::QuantBlockSelectZeroPointBase<
          QuantBlockSelectZeroPointPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<ZeroPointDomain> selected;
    switch (domain) {
    case ZeroPointDomainChoice::Auto:
      break;
    case ZeroPointDomainChoice::None:
      selected = ZeroPointDomain::None;
      break;
    case ZeroPointDomainChoice::Int:
      selected = ZeroPointDomain::Int;
      break;
    case ZeroPointDomainChoice::Float:
      selected = ZeroPointDomain::Float;
      break;
    }
    RewritePatternSet patterns(&getContext());
    populateQuantBlockSelectZeroPointPatterns(patterns, selected);
    // One visit per op: each decision is taken, and remarked, once, and the
    // ops this pass creates are not revisited.
    ReplacedOperandsListener listener;
    walkAndApplyPatterns(getOperation(), std::move(patterns), &listener);
    for (Operation *producer : llvm::reverse(listener.producers))
      if (isOpTriviallyDead(producer))
        producer->erase();
  }
};
} // namespace
