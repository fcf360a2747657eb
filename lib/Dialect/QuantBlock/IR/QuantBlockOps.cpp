//===- QuantBlockOps.cpp - quant_block operations -------------------------===//
//
// Verifiers and folders of the quant_block operations. The verifiers enforce
// that quantization parameters stay contracted and match the scheme exactly,
// and the layout ops' qparam rules; each message names the rule and the
// values involved.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockNumerics.h"
#include "quant-block/Numerics/BlockMath.h"
#include "quant-block/Numerics/ElementQuantizer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::quant_block;
namespace numerics = ::quant_block::numerics;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

static void printDim(InFlightDiagnostic &diag, int64_t dim) {
  if (ShapedType::isDynamic(dim))
    diag << '?';
  else
    diag << dim;
}

/// Checks that `value` (named `partName` in messages) has the type `expected`
/// that the quantized type `qType` prescribes for that part.
static LogicalResult verifyPart(Operation *op, StringRef partName, Value value,
                                RankedTensorType expected,
                                QuantizedTensorType qType, bool isContracted) {
  auto actual = cast<RankedTensorType>(value.getType());
  if (actual.getElementType() != expected.getElementType())
    return op->emitOpError()
           << partName << " element type " << actual.getElementType()
           << " does not match the scheme's " << expected.getElementType();
  if (actual.getRank() != expected.getRank())
    return op->emitOpError()
           << partName << " has rank " << actual.getRank()
           << " but must have the rank " << expected.getRank()
           << " of the quantized tensor (scales and zero points are never "
              "broadcast implicitly)";
  for (int64_t i = 0, e = actual.getRank(); i < e; ++i) {
    int64_t got = actual.getDimSize(i), want = expected.getDimSize(i);
    if (ShapedType::isDynamic(got) || ShapedType::isDynamic(want) ||
        got == want)
      continue;
    InFlightDiagnostic diag = op->emitOpError();
    diag << partName << " dimension " << i << " (size " << got << ") ";
    if (!isContracted) {
      diag << "does not match dimension " << i << " (size " << want
           << ") of the quantized tensor";
      return diag;
    }
    SmallVector<int64_t> block = qType.getEffectiveBlockShape();
    int64_t dim = qType.getShape()[i];
    if (partName.starts_with("outer")) {
      diag << "does not match the outer scale shape, which must be " << want;
      return diag;
    }
    diag << "does not match ceil(dimension " << i << " (size ";
    printDim(diag, dim);
    diag << ") / block ";
    printDim(diag, block[i]);
    diag << ") = " << want;
    return diag;
  }
  return success();
}

/// Checks the quantization parameter operands of quantize and pack against
/// the scheme of `qType`: present exactly when the scheme has them, each of
/// its part type.
static LogicalResult verifyParameters(Operation *op, QuantizedTensorType qType,
                                      Value scales, Value zeroPoints,
                                      Value outerScales, Value outerMins) {
  SchemeAttr scheme = qType.getScheme();
  if (failed(verifyPart(op, "scales", scales, qType.getScalesType(), qType,
                        /*isContracted=*/true)))
    return failure();

  auto checkOptional = [&](StringRef name, Value value,
                           RankedTensorType expected,
                           StringRef absentReason) -> LogicalResult {
    if (!expected && value)
      return op->emitOpError() << "has " << name << " but " << absentReason;
    if (expected && !value)
      return op->emitOpError()
             << "needs " << name << " of type " << expected
             << " because the scheme " << scheme << " has them";
    if (value)
      return verifyPart(op, name, value, expected, qType, true);
    return success();
  };
  if (failed(checkOptional("zero_points", zeroPoints, qType.getZeroPointsType(),
                           "the scheme has no zero point")))
    return failure();
  if (failed(checkOptional("outer_scales", outerScales,
                           qType.getOuterScalesType(),
                           "the scheme has no outer scale")))
    return failure();
  return checkOptional("outer_mins", outerMins, qType.getOuterMinsType(),
                       "the scheme's outer scale has no min");
}

/// Checks that `floatType` (the float side of quantize / dequantize) has the
/// quantized tensor's shape and the scheme's expressed element type.
static LogicalResult verifyExpressedSide(Operation *op, StringRef name,
                                         RankedTensorType floatType,
                                         QuantizedTensorType qType) {
  Type expressed = qType.getScheme().getExpressedType();
  if (floatType.getElementType() != expressed)
    return op->emitOpError()
           << name << " element type " << floatType.getElementType()
           << " does not match the scheme's expressed type " << expressed;
  if (failed(verifyCompatibleShape(floatType.getShape(), qType.getShape())))
    return op->emitOpError()
           << name << " shape " << floatType
           << " does not match the quantized tensor shape "
           << RankedTensorType::get(qType.getShape(), expressed);
  return success();
}

/// Whether two schemes agree in everything but their layout (the block
/// shapes of the scales and of the outer scales). The fields are compared one
/// by one: a scheme with its block shape removed need not be a valid scheme
/// (an MX scale needs a block of 32), so it cannot be built to compare.
static bool isSameSchemeUpToLayout(SchemeAttr a, SchemeAttr b) {
  if (a.getStorageType() != b.getStorageType() ||
      a.getExpressedType() != b.getExpressedType() ||
      a.getScaleType() != b.getScaleType() ||
      a.getZeroPointType() != b.getZeroPointType() ||
      a.getQmin() != b.getQmin() || a.getQmax() != b.getQmax() ||
      a.getRounding() != b.getRounding() ||
      a.getSaturate() != b.getSaturate() ||
      a.getScaleRounding() != b.getScaleRounding())
    return false;
  OuterScaleAttr outerA = a.getOuter(), outerB = b.getOuter();
  if (!outerA || !outerB)
    return !outerA && !outerB;
  return outerA.getScaleType() == outerB.getScaleType() &&
         outerA.getMinType() == outerB.getMinType();
}

static LogicalResult verifySameSchemeUpToLayout(Operation *op,
                                                QuantizedTensorType input,
                                                QuantizedTensorType result) {
  if (!isSameSchemeUpToLayout(input.getScheme(), result.getScheme()))
    return op->emitOpError()
           << "may only change the block shape of the scheme, but the "
              "input scheme is "
           << input.getScheme() << " and the result scheme is "
           << result.getScheme();
  return success();
}

static bool hasBlockedOuter(QuantizedTensorType type) {
  OuterScaleAttr outer = type.getScheme().getOuter();
  return outer && !outer.getBlockShape().empty();
}

/// Refuses a row-tiled `value` (named `name`): the row-tiled layout is only
/// for the ops that say they take it (docs/Packing.md).
static LogicalResult verifyNotRowTiled(Operation *op, Value value,
                                       StringRef name) {
  if (!isRowTiled(value.getType()))
    return success();
  return op->emitOpError()
         << "does not take the row-tiled layout, but its " << name << " is "
         << value.getType()
         << "; only quant_block.matmul (as its transpose_rhs weight), pack, "
            "unpack and repack do: convert it with quant_block.repack";
}

/// verifyNotRowTiled for the op's first operand (`input`) and its result.
static LogicalResult verifyNotRowTiledInputOrResult(Operation *op) {
  if (failed(verifyNotRowTiled(op, op->getOperand(0), "input")))
    return failure();
  return verifyNotRowTiled(op, op->getResult(0), "result");
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::verify() {
  QuantizedTensorType qType = getResult().getType();
  if (failed(verifyNotRowTiledInputOrResult(*this)))
    return failure();
  if (failed(verifyExpressedSide(*this, "input", getInput().getType(), qType)))
    return failure();
  return verifyParameters(*this, qType, getScales(), getZeroPoints(),
                          getOuterScales(), getOuterMins());
}

/// The f32 value of a constant scale, if it has one exactly.
static std::optional<float> getExactF32(APFloat value) {
  bool losesInfo = false;
  APFloat::opStatus status = value.convert(
      APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
  if (losesInfo || (status & APFloat::opInvalidOp))
    return std::nullopt;
  return value.convertToFloat();
}

/// True if every storage code survives dequantize then quantize (as the
/// numerics library, and so the compiled code, computes them) unchanged
/// under this scale and zero point.
static bool isRoundTripExact(const numerics::ElementQuantizer &quantizer,
                             float storedScale, int64_t zeroPoint, float min) {
  if (!std::isfinite(storedScale) || storedScale == 0.0f)
    return false;
  float scale = quantizer.getEffectiveScale(storedScale);
  const numerics::ElementScheme &scheme = quantizer.getScheme();
  auto survives = [&](uint32_t code) {
    float x = quantizer.dequantize(code, scale, zeroPoint, min);
    return quantizer.quantize(x, scale, zeroPoint, min) == code;
  };
  if (!scheme.floatStorage) {
    if (scheme.range.max - scheme.range.min > (1 << 16))
      return false; // Too many values to enumerate at compile time.
    for (int64_t q = scheme.range.min; q <= scheme.range.max; ++q)
      if (!survives(numerics::encodeIntegerCode(q, scheme.storageBitWidth)))
        return false;
    return true;
  }
  numerics::FloatFormatKind kind = *scheme.floatStorage;
  for (uint32_t code = 0; code < (1u << scheme.storageBitWidth); ++code) {
    if (numerics::isNaNCode(kind, code) || survives(code))
      continue;
    // -0.0 and +0.0 both decode to zero: compare by value there.
    float x = quantizer.dequantize(code, scale, zeroPoint, min);
    uint32_t back = quantizer.quantize(x, scale, zeroPoint, min);
    if (!(numerics::decodeFloat(kind, code) == 0.0 &&
          numerics::decodeFloat(kind, back) == 0.0))
      return false;
  }
  return true;
}

namespace {
/// quantize(dequantize(pack(d, s, zp)), s, zp) -> pack(d, s, zp), but only
/// when the constant scales and zero points make the round trip exact for
/// every storage value. The reverse, dequantize(quantize(x)), loses
/// information and is never folded.
struct FoldQuantizeOfDequantize : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto dequantize = op.getInput().getDefiningOp<DequantizeOp>();
    if (!dequantize)
      return rewriter.notifyMatchFailure(op, "input is not a dequantize");
    Value quantized = dequantize.getInput();
    if (quantized.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "requantizes to another type");
    auto pack = quantized.getDefiningOp<PackOp>();
    if (!pack)
      return rewriter.notifyMatchFailure(
          op, "the dequantized value's parameters are unknown");
    if (pack.getScales() != op.getScales() ||
        pack.getZeroPoints() != op.getZeroPoints())
      return rewriter.notifyMatchFailure(op,
                                         "requantizes with other parameters");
    if (op.getOuterScales())
      return rewriter.notifyMatchFailure(
          op, "round trips through outer scales are not analysed");
    DenseElementsAttr scales;
    if (!matchPattern(op.getScales(), m_Constant(&scales)))
      return rewriter.notifyMatchFailure(op, "scales are not constant");
    DenseElementsAttr zeroPoints;
    if (op.getZeroPoints() &&
        !matchPattern(op.getZeroPoints(), m_Constant(&zeroPoints)))
      return rewriter.notifyMatchFailure(op, "zero points are not constant");

    SchemeAttr scheme = op.getType().getScheme();
    if (scheme.hasFloatStorage() &&
        !getFloatFormatKind(scheme.getStorageType()))
      return rewriter.notifyMatchFailure(
          op, "the storage type is not an OCP float format");
    numerics::ElementQuantizer quantizer(getElementScheme(scheme));
    bool floatZeroPoint = scheme.getZeroPointDomain() == ZeroPointDomain::Float;
    llvm::DenseSet<std::pair<uint32_t, uint64_t>> checked;
    auto scaleValues = scales.getValues<APFloat>();
    for (int64_t i = 0, e = scales.getNumElements(); i < e; ++i) {
      std::optional<float> scale =
          getExactF32(scaleValues[scales.isSplat() ? 0 : i]);
      if (!scale)
        return rewriter.notifyMatchFailure(op, "a scale is not an f32 value");
      int64_t zeroPoint = 0;
      float min = 0.0f;
      if (zeroPoints) {
        int64_t index = zeroPoints.isSplat() ? 0 : i;
        if (auto intType = dyn_cast<IntegerType>(zeroPoints.getElementType())) {
          APInt value = zeroPoints.getValues<APInt>()[index];
          zeroPoint = intType.isUnsigned() ? int64_t(value.getZExtValue())
                                           : value.getSExtValue();
        } else {
          std::optional<float> value =
              getExactF32(zeroPoints.getValues<APFloat>()[index]);
          if (!value)
            return rewriter.notifyMatchFailure(
                op, "a zero point is not an f32 value");
          min = *value;
        }
      }
      uint64_t zeroPointBits;
      if (floatZeroPoint) {
        uint32_t minBits;
        std::memcpy(&minBits, &min, sizeof(minBits));
        zeroPointBits = minBits;
      } else {
        zeroPointBits = uint64_t(zeroPoint);
      }
      uint32_t scaleBits;
      std::memcpy(&scaleBits, &*scale, sizeof(scaleBits));
      if (!checked.insert({scaleBits, zeroPointBits}).second)
        continue;
      if (checked.size() > 4096)
        return rewriter.notifyMatchFailure(
            op, "too many distinct scales to prove exactness");
      if (!isRoundTripExact(quantizer, *scale, zeroPoint, min))
        return rewriter.notifyMatchFailure(
            op, "the round trip is not exact for some scale");
    }
    rewriter.replaceOp(op, quantized);
    return success();
  }
};
} // namespace

void QuantizeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<FoldQuantizeOfDequantize>(context);
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  if (failed(verifyNotRowTiledInputOrResult(*this)))
    return failure();
  return verifyExpressedSide(*this, "result", getResult().getType(),
                             getInput().getType());
}

//===----------------------------------------------------------------------===//
// QuantizeDynamicOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeDynamicOp::verify() {
  QuantizedTensorType qType = getResult().getType();
  if (failed(verifyNotRowTiledInputOrResult(*this)))
    return failure();
  if (failed(verifyExpressedSide(*this, "input", getInput().getType(), qType)))
    return failure();
  SchemeAttr scheme = qType.getScheme();
  CalibrationMethod method = getMethod();
  StringRef methodName = stringifyCalibrationMethod(method);
  if (scheme.hasMXScale() != (method == CalibrationMethod::MX))
    return emitOpError() << "method '" << methodName << "' "
                         << (scheme.hasMXScale()
                                 ? "cannot derive f8E8M0FNU (MX) scales; use "
                                   "'mx'"
                                 : "needs f8E8M0FNU (MX) scales")
                         << " (scheme " << scheme << ")";
  bool hasZeroPoint = scheme.getZeroPointDomain() != ZeroPointDomain::None;
  if (method == CalibrationMethod::MinMax && !hasZeroPoint)
    return emitOpError() << "method 'minmax' needs a scheme with zero points "
                            "(asymmetric), but "
                         << scheme << " has none";
  if (method == CalibrationMethod::AbsMax && hasZeroPoint)
    return emitOpError() << "method 'absmax' is symmetric and cannot derive "
                            "zero points; use 'minmax' for "
                         << scheme;
  if (isa<IntegerType>(scheme.getScaleType()))
    return emitOpError() << "cannot derive integer (two-level) block scales "
                         << scheme.getScaleType()
                         << "; quantize them offline and use "
                            "quant_block.pack";
  if (hasBlockedOuter(qType))
    return emitOpError() << "can derive a per-tensor outer scale only, but "
                            "the scheme's outer scale is blocked: "
                         << scheme.getOuter();
  return success();
}

//===----------------------------------------------------------------------===//
// PackOp / UnpackOp
//===----------------------------------------------------------------------===//

LogicalResult PackOp::verify() {
  QuantizedTensorType qType = getResult().getType();
  if (failed(verifyPart(*this, "data", getData(), qType.getDataType(), qType,
                        /*isContracted=*/false)))
    return failure();
  return verifyParameters(*this, qType, getScales(), getZeroPoints(),
                          getOuterScales(), getOuterMins());
}

OpFoldResult PackOp::fold(FoldAdaptor) {
  // pack(unpack(q)) -> q.
  auto unpack = getData().getDefiningOp<UnpackOp>();
  if (!unpack || unpack.getInput().getType() != getType() ||
      getData() != unpack.getData() || getScales() != unpack.getScales() ||
      getZeroPoints() != unpack.getZeroPoints() ||
      getOuterScales() != unpack.getOuterScales() ||
      getOuterMins() != unpack.getOuterMins())
    return {};
  return unpack.getInput();
}

LogicalResult UnpackOp::verify() {
  QuantizedTensorType qType = getInput().getType();
  SmallVector<Type> expected = qType.getPartTypes();
  if (getParts().size() != expected.size())
    return emitOpError() << "returns " << getParts().size()
                         << " parts but the scheme " << qType.getScheme()
                         << " has " << expected.size()
                         << " (data, scales, then zero points, outer scales "
                            "and outer mins when present)";
  static const StringRef kNames[] = {"data", "scales", "zero_points",
                                     "outer_scales", "outer_mins"};
  // Map each optional part to its name by skipping the absent ones.
  SmallVector<StringRef> names = {kNames[0], kNames[1]};
  if (qType.getZeroPointsType())
    names.push_back(kNames[2]);
  if (qType.getOuterScalesType())
    names.push_back(kNames[3]);
  if (qType.getOuterMinsType())
    names.push_back(kNames[4]);
  for (auto [index, part] : llvm::enumerate(getParts()))
    if (failed(verifyPart(*this, names[index], part,
                          cast<RankedTensorType>(expected[index]), qType,
                          /*isContracted=*/index != 0)))
      return failure();
  return success();
}

static Value getOptionalPart(UnpackOp op, unsigned which) {
  QuantizedTensorType qType = op.getInput().getType();
  bool present[] = {bool(qType.getZeroPointsType()),
                    bool(qType.getOuterScalesType()),
                    bool(qType.getOuterMinsType())};
  if (!present[which])
    return {};
  unsigned index = 2;
  for (unsigned i = 0; i < which; ++i)
    index += present[i];
  return op.getParts()[index];
}

Value UnpackOp::getZeroPoints() { return getOptionalPart(*this, 0); }
Value UnpackOp::getOuterScales() { return getOptionalPart(*this, 1); }
Value UnpackOp::getOuterMins() { return getOptionalPart(*this, 2); }

LogicalResult UnpackOp::fold(FoldAdaptor,
                             SmallVectorImpl<OpFoldResult> &results) {
  // unpack(pack(parts)) -> parts.
  auto pack = getInput().getDefiningOp<PackOp>();
  if (!pack)
    return failure();
  results.push_back(pack.getData());
  results.push_back(pack.getScales());
  for (Value optional :
       {pack.getZeroPoints(), pack.getOuterScales(), pack.getOuterMins()})
    if (optional)
      results.push_back(optional);
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> getShapeOf(Type type) {
  if (auto quantized = dyn_cast<QuantizedTensorType>(type))
    return quantized.getShape();
  return cast<RankedTensorType>(type).getShape();
}

std::optional<std::string>
MatmulOp::getIntegerOperandError(QuantizedTensorType type, StringRef name) {
  SchemeAttr scheme = type.getScheme();
  std::string error;
  llvm::raw_string_ostream os(error);
  // FP4 E2M1 weights (MXFP4, NVFP4) enter the block sums as twice their
  // values, small integers (docs/Numerics.md).
  if (isa<Float4E2M1FNType>(scheme.getStorageType())) {
    if (name != "rhs")
      os << "i32 accumulation takes FP4 E2M1 codes only in rhs (the weight), "
            "but "
         << name << " stores '" << scheme.getStorageType() << "'";
  } else if (!scheme.hasIntegerStorage() || scheme.getStorageBitWidth() > 8) {
    os << "i32 accumulation needs integer storage of at most 8 bits (or FP4 "
          "E2M1 codes in rhs), but "
       << name << " stores '" << scheme.getStorageType() << "'";
  } else if (scheme.getZeroPointDomain() == ZeroPointDomain::Float &&
             name != "rhs") {
    // The weight's mins enter as a second block term, the mins times the
    // activation block sums (docs/Numerics.md); an activation with float
    // zero points has no integer block sum.
    os << "i32 accumulation cannot apply the float zero points of " << name
       << " (only the weight, rhs, may have mins)";
  } else if (scheme.hasMXScale()) {
    os << "i32 accumulation of MX integers is not defined; " << name
       << " uses f8E8M0FNU scales";
  }
  if (error.empty())
    return std::nullopt;
  return error;
}

LogicalResult MatmulOp::verify() {
  QuantizedTensorType rhs = getRhs().getType();
  SchemeAttr rhsScheme = rhs.getScheme();
  Type expressed = rhsScheme.getExpressedType();
  auto lhsQuantized = dyn_cast<QuantizedTensorType>(getLhs().getType());
  ArrayRef<int64_t> lhsShape = getShapeOf(getLhs().getType());
  ArrayRef<int64_t> rhsShape = rhs.getShape();

  if (failed(verifyNotRowTiled(*this, getLhs(), "lhs")) ||
      failed(verifyNotRowTiled(*this, getResult(), "result")))
    return failure();
  if (rhsScheme.isRowTiled() && !getTransposeRhs())
    return emitOpError() << "takes a row-tiled rhs only as a transposed "
                            "([N, K]) weight, but transpose_rhs is not set "
                            "(rhs "
                         << rhs << ")";

  if (lhsShape.size() < 2)
    return emitOpError() << "lhs must have rank >= 2, but has rank "
                         << lhsShape.size();
  if (rhsShape.size() != 2 && rhsShape.size() != lhsShape.size())
    return emitOpError() << "rhs must have rank 2 or the rank "
                         << lhsShape.size() << " of lhs, but has rank "
                         << rhsShape.size();

  // Element types.
  Type lhsExpressed =
      lhsQuantized
          ? lhsQuantized.getScheme().getExpressedType()
          : cast<RankedTensorType>(getLhs().getType()).getElementType();
  if (lhsExpressed != expressed)
    return emitOpError() << "lhs expresses " << lhsExpressed
                         << " but rhs expresses " << expressed;

  // Contraction dimension.
  size_t rank = lhsShape.size();
  int64_t lhsK = lhsShape[rank - 1];
  size_t rhsKDim =
      getTransposeRhs() ? rhsShape.size() - 1 : rhsShape.size() - 2;
  size_t rhsNDim =
      getTransposeRhs() ? rhsShape.size() - 2 : rhsShape.size() - 1;
  int64_t rhsK = rhsShape[rhsKDim];
  if (!ShapedType::isDynamic(lhsK) && !ShapedType::isDynamic(rhsK) &&
      lhsK != rhsK)
    return emitOpError() << "contraction sizes differ: lhs dimension "
                         << rank - 1 << " is " << lhsK << " but rhs dimension "
                         << rhsKDim << " is " << rhsK;

  // Expected result shape: lhs batch dims, M, N.
  SmallVector<int64_t> resultShape(lhsShape.begin(), lhsShape.end() - 1);
  resultShape.push_back(rhsShape[rhsNDim]);
  if (rhsShape.size() == rank)
    for (size_t i = 0; i + 2 < rank; ++i)
      if (failed(verifyCompatibleShape(ArrayRef<int64_t>{lhsShape[i]},
                                       ArrayRef<int64_t>{rhsShape[i]})))
        return emitOpError() << "batch dimension " << i << " differs: lhs "
                             << lhsShape[i] << ", rhs " << rhsShape[i];

  // Result kind follows the propagation mode.
  Type resultType = getResult().getType();
  auto quantizedResult = dyn_cast<QuantizedTensorType>(resultType);
  if (getPropagation() == Propagation::Inhibit) {
    auto floatResult = dyn_cast<RankedTensorType>(resultType);
    if (!floatResult || floatResult.getElementType() != expressed)
      return emitOpError() << "with 'inhibit' returns a float tensor of the "
                              "expressed type "
                           << expressed << ", not " << resultType;
  } else {
    if (!quantizedResult)
      return emitOpError() << "with 'propagate' returns a quantized tensor, "
                              "not "
                           << resultType;
    if (quantizedResult.getScheme().getExpressedType() != expressed)
      return emitOpError() << "result scheme expresses "
                           << quantizedResult.getScheme().getExpressedType()
                           << " but the operands express " << expressed;
    if (quantizedResult.getScheme().getOuter() &&
        !quantizedResult.getScheme().getOuter().getBlockShape().empty())
      return emitOpError() << "cannot requantize its result to a scheme with "
                              "a blocked outer scale";
    if (isa<IntegerType>(quantizedResult.getScheme().getScaleType()))
      return emitOpError() << "cannot requantize its result to integer "
                              "(two-level) block scales";
  }
  if (failed(verifyCompatibleShape(getShapeOf(resultType), resultShape))) {
    InFlightDiagnostic diag = emitOpError();
    diag << "result shape [";
    llvm::interleaveComma(getShapeOf(resultType), diag,
                          [&](int64_t d) { printDim(diag, d); });
    diag << "] does not match the expected [";
    llvm::interleaveComma(resultShape, diag,
                          [&](int64_t d) { printDim(diag, d); });
    return diag << "]";
  }

  // Accumulation.
  Type acc = getAccumulatorType();
  if (auto accInt = dyn_cast<IntegerType>(acc)) {
    if (!accInt.isSignless() || accInt.getWidth() != 32)
      return emitOpError() << "integer accumulation must be i32, not " << acc;
    if (!lhsQuantized)
      return emitOpError() << "i32 accumulation needs a quantized lhs "
                              "(dynamic activation quantization)";
    for (auto [name, type] :
         {std::pair<StringRef, QuantizedTensorType>{"lhs", lhsQuantized},
          {"rhs", rhs}})
      if (std::optional<std::string> error = getIntegerOperandError(type, name))
        return emitOpError() << *error;
    int64_t lhsBlockK = lhsQuantized.getEffectiveBlockShape()[rank - 1];
    int64_t rhsBlockK = rhs.getEffectiveBlockShape()[rhsKDim];
    if (!isSameBlockPartition(lhsBlockK, rhsBlockK, lhsK))
      return emitOpError() << "i32 accumulation needs the same block size "
                              "along K on both sides, but lhs has "
                           << lhsBlockK << " and rhs has " << rhsBlockK;
  } else if (auto accFloat = dyn_cast<FloatType>(acc)) {
    if (!isValidExpressedType(accFloat))
      return emitOpError() << "accumulator type " << acc
                           << " is not supported; expected f32, f16, bf16 or "
                              "i32";
    if (accFloat != expressed && !accFloat.isF32())
      return emitOpError() << "accumulator type " << acc
                           << " is narrower than or incompatible with the "
                              "expressed type "
                           << expressed;
  } else {
    return emitOpError() << "accumulator type " << acc
                         << " is not supported; expected f32, f16, bf16 or "
                            "i32";
  }
  return success();
}

/// Whether `type` keeps sub-byte codes with one scale per element along its
/// innermost dimension: the packed bytes of such a weight cannot be read in
/// whole blocks, so its matmul falls back to dequantizing it separately (and
/// the i32-accumulating one is not lowered at all).
static bool hasUnpackableInnermostBlock(QuantizedTensorType type) {
  return type.getScheme().getStorageBitWidth() < 8 &&
         type.getEffectiveBlockShape().back() == 1;
}

/// The input of `rhs` when it is a quant_block.transpose that swaps the last
/// two dimensions (keeping the batch ones) and whose input the product can
/// read as stored; null otherwise.
static Value getFoldableTransposeSource(Value rhs) {
  auto transpose = rhs.getDefiningOp<TransposeOp>();
  if (!transpose)
    return {};
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (perm[d] != d)
      return {};
  if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return {};
  if (hasUnpackableInnermostBlock(transpose.getInput().getType()) &&
      !hasUnpackableInnermostBlock(transpose.getType()))
    return {};
  return transpose.getInput();
}

/// The input of `rhs` when it is a quant_block.reshape that only puts unit
/// batch dimensions in front of a rank-2 tensor; null otherwise.
static Value getUnitBatchReshapeSource(Value rhs) {
  auto reshape = rhs.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return {};
  ArrayRef<int64_t> source = reshape.getInput().getType().getShape();
  ArrayRef<int64_t> result = reshape.getType().getShape();
  if (source.size() != 2 || result.size() <= 2 ||
      result.take_back(2) != source ||
      !llvm::all_of(result.drop_back(2), [](int64_t d) { return d == 1; }))
    return {};
  return reshape.getInput();
}

namespace {
/// `matmul(x, transpose(w))` with a transpose that swaps the last two
/// dimensions of `w` and keeps its batch dimensions is `matmul(x, w)` with
/// `transpose_rhs` toggled: the product reads rhs[..., n, k] instead of
/// rhs[..., k, n] of the transposed tensor, which is the same element (the
/// transpose permutes the scales and the block shape with the data). The
/// sum over k keeps its order, so the bits do not change, and the transposed
/// copy of the packed weight is no longer materialized (frontends write
/// `aten.linear` as a transpose of the weight and a matmul, which
/// --quant-block-propagate and --quant-block-fuse turn into this form).
struct FoldTransposeIntoMatmulRhs : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getRhs().getDefiningOp<TransposeOp>();
    if (!transpose || !getFoldableTransposeSource(op.getRhs()))
      return rewriter.notifyMatchFailure(
          op, "rhs is not a transpose of the last two dimensions that the "
              "product can read as stored");
    rewriter.modifyOpInPlace(op, [&] {
      op.getRhsMutable().assign(transpose.getInput());
      op.setTransposeRhs(!op.getTransposeRhs());
    });
    // Drivers that do not fold (--quant-block-fuse) would keep it otherwise.
    if (transpose->use_empty())
      rewriter.eraseOp(transpose);
    return success();
  }
};

/// `matmul(x, reshape(w))` where the reshape only puts unit batch dimensions
/// in front of a rank-2 `w` is `matmul(x, w)`: a rank-2 rhs is shared by
/// every batch, and the verifier already holds the batch of `x` to 1. TOSA
/// importers write a linear layer's weight this way (tosa.matmul is
/// batched), and without the reshape the transpose before it folds too.
struct FoldUnitBatchReshapeIntoMatmulRhs : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto reshape = op.getRhs().getDefiningOp<ReshapeOp>();
    if (!reshape || !getUnitBatchReshapeSource(op.getRhs()))
      return rewriter.notifyMatchFailure(
          op, "rhs is not a reshape that only adds unit batch dimensions");
    rewriter.modifyOpInPlace(
        op, [&] { op.getRhsMutable().assign(reshape.getInput()); });
    if (reshape->use_empty())
      rewriter.eraseOp(reshape);
    return success();
  }
};
} // namespace

std::pair<Value, bool> MatmulOp::getFoldedRhs(Value rhs, bool transposeRhs) {
  while (true) {
    if (Value source = getUnitBatchReshapeSource(rhs)) {
      rhs = source;
    } else if (Value source = getFoldableTransposeSource(rhs)) {
      rhs = source;
      transposeRhs = !transposeRhs;
    } else {
      return {rhs, transposeRhs};
    }
  }
}

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldTransposeIntoMatmulRhs, FoldUnitBatchReshapeIntoMatmulRhs>(
      context);
}

//===----------------------------------------------------------------------===//
// RepackOp
//===----------------------------------------------------------------------===//

LogicalResult RepackOp::verify() {
  QuantizedTensorType input = getInput().getType();
  QuantizedTensorType result = getResult().getType();
  if (input.getShape() != result.getShape())
    return emitOpError() << "may not change the shape, but the input is "
                         << input << " and the result " << result;
  if (input.getScheme().withRowTile(0) != result.getScheme().withRowTile(0))
    return emitOpError() << "may only change row_tile, but the input scheme "
                            "is "
                         << input.getScheme() << " and the result scheme is "
                         << result.getScheme();
  return success();
}

OpFoldResult RepackOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // repack(repack(x)) -> x when the layouts come back to x's.
  if (auto inner = getInput().getDefiningOp<RepackOp>())
    if (inner.getInput().getType() == getType())
      return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  if (failed(verifyNotRowTiledInputOrResult(*this)))
    return failure();
  QuantizedTensorType input = getInput().getType();
  QuantizedTensorType result = getResult().getType();
  ArrayRef<int64_t> perm = getPermutation();
  int64_t rank = input.getRank();
  if (int64_t(perm.size()) != rank)
    return emitOpError() << "permutation has " << perm.size()
                         << " entries but the input has rank " << rank;
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOpError() << "permutation is not a permutation of [0, " << rank
                           << ")";
    seen[p] = true;
  }
  if (result.getRank() != rank)
    return emitOpError() << "result rank " << result.getRank()
                         << " differs from input rank " << rank;
  if (failed(verifySameSchemeUpToLayout(*this, input, result)))
    return failure();
  SmallVector<int64_t> inBlock = input.getEffectiveBlockShape();
  SmallVector<int64_t> outBlock = result.getEffectiveBlockShape();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t inDim = input.getShape()[perm[d]];
    if (failed(verifyCompatibleShape(ArrayRef<int64_t>{result.getShape()[d]},
                                     ArrayRef<int64_t>{inDim})))
      return emitOpError() << "result dimension " << d << " (size "
                           << result.getShape()[d]
                           << ") must be input dimension " << perm[d]
                           << " (size " << inDim << ")";
    if (!isSameBlockPartition(outBlock[d], inBlock[perm[d]], inDim))
      return emitOpError() << "result block " << outBlock[d]
                           << " along dimension " << d
                           << " must be the input block " << inBlock[perm[d]]
                           << " along dimension " << perm[d]
                           << " (a transpose permutes the block shape)";
  }
  if (hasBlockedOuter(input) || hasBlockedOuter(result)) {
    SmallVector<int64_t> inScales(input.getScalesType().getShape());
    SmallVector<int64_t> inOuter = numerics::resolveBlockShape(
        input.getScheme().getOuter().getBlockShape(), inScales);
    SmallVector<int64_t> outScales(result.getScalesType().getShape());
    SmallVector<int64_t> outOuter = numerics::resolveBlockShape(
        result.getScheme().getOuter().getBlockShape(), outScales);
    for (int64_t d = 0; d < rank; ++d)
      if (!isSameBlockPartition(outOuter[d], inOuter[perm[d]],
                                inScales[perm[d]]))
        return emitOpError()
               << "result outer block " << outOuter[d] << " along dimension "
               << d << " must be the input outer block " << inOuter[perm[d]]
               << " along dimension " << perm[d];
  }
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  // An identity permutation, or a transpose undoing the one before it.
  if (llvm::equal(getPermutation(),
                  llvm::seq<int64_t>(0, getPermutation().size())) &&
      getInput().getType() == getType())
    return getInput();
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> inner = producer.getPermutation();
    ArrayRef<int64_t> outer = getPermutation();
    bool identity = true;
    for (size_t d = 0; d < outer.size(); ++d)
      identity &= inner[outer[d]] == int64_t(d);
    if (identity && producer.getInput().getType() == getType())
      return producer.getInput();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (failed(verifyNotRowTiledInputOrResult(*this)))
    return failure();
  QuantizedTensorType input = getInput().getType();
  QuantizedTensorType result = getResult().getType();
  if (!input.hasStaticShape() || !result.hasStaticShape())
    return emitOpError() << "needs static shapes";
  if (failed(verifySameSchemeUpToLayout(*this, input, result)))
    return failure();
  if (hasBlockedOuter(input) || hasBlockedOuter(result))
    return emitOpError() << "cannot reshape a scheme with a blocked outer "
                            "scale";
  int64_t inCount = ShapedType::getNumElements(input.getShape());
  int64_t outCount = ShapedType::getNumElements(result.getShape());
  if (inCount != outCount)
    return emitOpError() << "input has " << inCount
                         << " elements but the result " << outCount;
  if (std::optional<std::string> error = numerics::checkBlockwiseReshape(
          input.getShape(), input.getEffectiveBlockShape(), result.getShape(),
          result.getEffectiveBlockShape()))
    return emitOpError() << "would split or regroup blocks: " << *error;
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto producer = getInput().getDefiningOp<ReshapeOp>())
    if (producer.getInput().getType() == getType())
      return producer.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ExtractSliceOp
//===----------------------------------------------------------------------===//

LogicalResult ExtractSliceOp::verify() {
  if (failed(verifyNotRowTiledInputOrResult(*this)))
    return failure();
  QuantizedTensorType input = getInput().getType();
  QuantizedTensorType result = getResult().getType();
  int64_t rank = input.getRank();
  ArrayRef<int64_t> offsets = getOffsets(), sizes = getSizes();
  if (int64_t(offsets.size()) != rank || int64_t(sizes.size()) != rank)
    return emitOpError() << "needs one offset and one size per dimension ("
                         << rank << "), but has " << offsets.size()
                         << " offsets and " << sizes.size() << " sizes";
  if (result.getRank() != rank)
    return emitOpError() << "result rank " << result.getRank()
                         << " differs from input rank " << rank;
  if (failed(verifySameSchemeUpToLayout(*this, input, result)))
    return failure();
  if (hasBlockedOuter(input))
    return emitOpError() << "cannot slice a scheme with a blocked outer scale";
  if (std::optional<std::string> error = numerics::checkBlockwiseSlice(
          input.getShape(), input.getEffectiveBlockShape(), offsets, sizes,
          result.getShape(), result.getEffectiveBlockShape()))
    return emitOpError() << *error;
  return success();
}

OpFoldResult ExtractSliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  if (failed(verifyNotRowTiledInputOrResult(*this)))
    return failure();
  QuantizedTensorType input = getInput().getType();
  QuantizedTensorType result = getResult().getType();
  ArrayRef<int64_t> dims = getDimensions();
  int64_t rank = result.getRank();
  if (input.getRank() + int64_t(dims.size()) != rank)
    return emitOpError() << "input rank " << input.getRank() << " plus "
                         << dims.size()
                         << " new dimensions must equal the result rank "
                         << rank;
  SmallVector<bool> isNew(rank, false);
  int64_t previous = -1;
  for (int64_t d : dims) {
    if (d <= previous || d >= rank)
      return emitOpError() << "dimensions must be sorted, unique and in [0, "
                           << rank << ")";
    isNew[d] = true;
    previous = d;
  }
  if (failed(verifySameSchemeUpToLayout(*this, input, result)))
    return failure();
  if (hasBlockedOuter(input))
    return emitOpError()
           << "cannot broadcast a scheme with a blocked outer scale";
  SmallVector<int64_t> inBlock = input.getEffectiveBlockShape();
  SmallVector<int64_t> outBlock = result.getEffectiveBlockShape();
  int64_t inDim = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (isNew[d])
      continue;
    int64_t size = input.getShape()[inDim];
    if (failed(verifyCompatibleShape(ArrayRef<int64_t>{result.getShape()[d]},
                                     ArrayRef<int64_t>{size})))
      return emitOpError() << "result dimension " << d << " (size "
                           << result.getShape()[d]
                           << ") must be input dimension " << inDim << " (size "
                           << size << ")";
    if (!isSameBlockPartition(outBlock[d], inBlock[inDim], size))
      return emitOpError() << "result block " << outBlock[d]
                           << " along kept dimension " << d
                           << " must be the input block " << inBlock[inDim];
    ++inDim;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TableGen'd op method definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.cpp.inc"
