//===- FoldConstants.cpp - --quant-block-fold-constants -------------------===//
//
// Offline weight quantization: `quant_block.quantize` of a constant float
// tensor with constant parameters, and `quant_block.quantize_dynamic` of a
// constant, become `quant_block.pack` of constant storage codes (and, for
// quantize_dynamic, constant scales, zero points and outer scales), and a
// `quant_block.repack` of such a pack becomes a pack of the repacked type.
//
// The folded constants must be bit-identical to what the compiled code
// computes at run time (--convert-quant-block-to-linalg and the CPU
// pipeline). Every element is quantized by the numerics library's
// ElementQuantizer (lib/Numerics, the executable form of docs/Numerics.md),
// which the compiled code follows too; this file adds what is specific to
// quantize_dynamic, step by step as its lowering computes it: statistics in
// f32 with NaN-propagating minimum / maximum and -0 < +0, and the same
// conversions of scales to their stored types. The semantic test in
// test/Transforms/fold-constants.mlir checks the bits against the compiled
// path.
//
// Left alone (with a match-failure reason): non-constant operands, two-level
// integer scales, blocked outer scales and outer mins (GGUF K-quants),
// quantize_dynamic with an outer scale other than absmax, absmax / minmax
// blocks holding NaN (the NaN's bits would depend on the target's NaN
// propagation) and minmax integer zero points of non-finite blocks (the
// compiled code converts a NaN to an integer there, which is undefined).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockNumerics.h"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"
#include "quant-block/Support/PatternDriver.h"

#include "quant-block/Numerics/BlockMath.h"
#include "quant-block/Numerics/DynamicQuant.h"
#include "quant-block/Numerics/ElementQuantizer.h"
#include "quant-block/Numerics/FloatFormats.h"
#include "quant-block/Numerics/IntegerQuant.h"
#include "quant-block/Numerics/MX.h"
#include "quant-block/Numerics/Rounding.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>

namespace mlir::quant_block {
#define GEN_PASS_DEF_QUANTBLOCKFOLDCONSTANTS
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
namespace numerics = ::quant_block::numerics;

/// Folded tensors at least this large are emitted as dense_resource blobs
/// (as are those folded from one): they are not uniqued (hashed) in the
/// context and print out of line. Only for whole-byte element types: the
/// LLVM translation cannot materialize a dense_resource of i4 or f4E2M1FN
/// ("no known conversion for innermost element type"), while a dense literal
/// of them lowers fine.
static constexpr size_t kResourceThresholdBytes = 1 << 20;

//===----------------------------------------------------------------------===//
// Reading and writing constant tensors
//===----------------------------------------------------------------------===//

/// Bytes per element in the dense storage of `type` (sub-byte types take a
/// byte each, as DenseElementsAttr stores them).
static unsigned getStorageBytes(Type type) {
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

namespace {

/// Element access to a constant tensor (DenseElementsAttr, splat or not, or
/// a DenseResourceElementsAttr whose blob is loaded) by its raw storage.
class ConstantReader {
public:
  static std::optional<ConstantReader> get(Value value) {
    Attribute attr;
    if (!value || !matchPattern(value, m_Constant(&attr)))
      return std::nullopt;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() < 2 || type.getElementTypeBitWidth() > 64)
      return std::nullopt;
    unsigned bytes = getStorageBytes(type.getElementType());
    if (auto dense = dyn_cast<DenseElementsAttr>(attr))
      return ConstantReader(type, dense.getRawData(), dense.isSplat(), bytes,
                            /*fromResource=*/false);
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob)
        return std::nullopt;
      ArrayRef<char> data = blob->getData();
      if (data.size() != size_t(type.getNumElements()) * bytes)
        return std::nullopt;
      return ConstantReader(type, data, /*splat=*/false, bytes,
                            /*fromResource=*/true);
    }
    return std::nullopt;
  }

  RankedTensorType getType() const { return type; }
  bool isFromResource() const { return fromResource; }

  uint64_t getBits(int64_t index) const {
    const char *element = data.data() + (splat ? 0 : index * bytes);
    uint64_t bits = 0;
    for (unsigned i = 0; i < bytes; ++i)
      bits |= uint64_t(uint8_t(element[i])) << (8 * i);
    return bits;
  }

  float getFloat(int64_t index) const {
    return decodeToF32(type.getElementType(), getBits(index));
  }

  /// The integer, sign-extended unless the type is unsigned.
  int64_t getInt(int64_t index) const {
    unsigned width = type.getElementTypeBitWidth();
    uint64_t bits = getBits(index);
    if (width < 64)
      bits &= (uint64_t(1) << width) - 1;
    if (type.getElementType().isUnsignedInteger() || width == 64)
      return int64_t(bits);
    return numerics::decodeIntegerCode(uint32_t(bits), width, true);
  }

private:
  ConstantReader(RankedTensorType type, ArrayRef<char> data, bool splat,
                 unsigned bytes, bool fromResource)
      : type(type), data(data), splat(splat), bytes(bytes),
        fromResource(fromResource) {}

  RankedTensorType type;
  ArrayRef<char> data;
  bool splat;
  unsigned bytes;
  bool fromResource;
};

/// Builds a constant tensor from raw element bits.
class ConstantWriter {
public:
  explicit ConstantWriter(RankedTensorType type)
      : type(type), bytes(getStorageBytes(type.getElementType())),
        data(size_t(type.getNumElements()) * bytes, 0) {}

  void set(int64_t index, uint64_t bits) {
    unsigned width = type.getElementTypeBitWidth();
    if (width < 64)
      bits &= (uint64_t(1) << width) - 1;
    for (unsigned i = 0; i < bytes; ++i)
      data[index * bytes + i] = char(bits >> (8 * i));
  }

  /// An arith.constant: a splat when every element is equal, a
  /// dense_resource blob when large (or when `preferResource`) and of a
  /// whole-byte element type, else a dense literal.
  Value create(PatternRewriter &rewriter, Location loc,
               bool preferResource) const {
    bool uniform = true;
    for (size_t i = bytes; uniform && i < data.size(); i += bytes)
      uniform = std::memcmp(&data[i], &data[0], bytes) == 0;
    TypedAttr attr;
    if (uniform && !data.empty()) {
      attr = DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>(data).take_front(bytes));
    } else if ((preferResource || data.size() >= kResourceThresholdBytes) &&
               type.getElementTypeBitWidth() % 8 == 0) {
      attr = DenseResourceElementsAttr::get(
          type, "quant_block_folded",
          HeapAsmResourceBlob::allocateAndCopyWithAlign(
              data, std::max<size_t>(bytes, alignof(uint64_t))));
    } else {
      attr = DenseElementsAttr::getFromRawBuffer(type, data);
    }
    return arith::ConstantOp::create(rewriter, loc, attr);
  }

private:
  RankedTensorType type;
  unsigned bytes;
  std::vector<char> data;
};

//===----------------------------------------------------------------------===//
// The blocked element space
//===----------------------------------------------------------------------===//

/// Maps every element of a static shape (row-major) to its block, i.e. to
/// the row-major index of its scale.
class BlockMap {
public:
  explicit BlockMap(QuantizedTensorType type)
      : shape(type.getShape()), block(type.getEffectiveBlockShape()) {
    for (int64_t &b : block)
      b = std::max<int64_t>(b, 1);
    numBlocks = 1;
    for (int64_t p : numerics::contractShape(shape, block))
      numBlocks *= p;
  }

  int64_t getNumElements() const { return ShapedType::getNumElements(shape); }
  int64_t getNumBlocks() const { return numBlocks; }

  /// Calls fn(element, block) for every element in row-major order.
  template <typename Fn> void forEach(Fn fn) const {
    int64_t rank = shape.size();
    SmallVector<int64_t> index(rank, 0);
    SmallVector<int64_t> contracted = numerics::contractShape(shape, block);
    for (int64_t e = 0, n = getNumElements(); e < n; ++e) {
      int64_t b = 0;
      for (int64_t d = 0; d < rank; ++d)
        b = b * contracted[d] + index[d] / block[d];
      fn(e, b);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
  }

private:
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> block;
  int64_t numBlocks;
};

} // namespace

//===----------------------------------------------------------------------===//
// Support checks
//===----------------------------------------------------------------------===//

/// Why a scheme cannot be folded, or nullopt when it can.
static std::optional<std::string> getUnsupportedReason(SchemeAttr scheme) {
  if (isa<IntegerType>(scheme.getScaleType()))
    return std::string("integer (two-level) block scales are not folded");
  if (OuterScaleAttr outer = scheme.getOuter()) {
    if (!outer.getBlockShape().empty() || outer.getMinType())
      return std::string("blocked outer scales and outer mins (K-quant "
                         "super-blocks) are not folded");
    if (!isa<Float32Type, Float16Type, BFloat16Type>(outer.getScaleType()))
      return std::string("the outer scale type is not f32, f16 or bf16");
  }
  if (scheme.hasFloatStorage() && !getFloatFormatKind(scheme.getStorageType()))
    return std::string("the storage type is not an OCP float format");
  if (scheme.hasIntegerStorage() &&
      (scheme.getStorageBitWidth() < 2 || scheme.getStorageBitWidth() > 32))
    return std::string("integer storage must have 2 to 32 bits");
  return std::nullopt;
}

/// The constant float input of a quantize or quantize_dynamic.
static std::optional<ConstantReader> getConstantInput(Value input) {
  std::optional<ConstantReader> reader = ConstantReader::get(input);
  if (!reader || !isa<Float32Type, Float16Type, BFloat16Type>(
                     reader->getType().getElementType()))
    return std::nullopt;
  return reader;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// quantize(constant, constant parameters) -> pack(constant codes, the same
/// parameters).
struct FoldQuantizeOfConstant : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    QuantizedTensorType type = op.getType();
    SchemeAttr scheme = type.getScheme();
    if (std::optional<std::string> reason = getUnsupportedReason(scheme))
      return rewriter.notifyMatchFailure(op, *reason);
    if (op.getOuterMins())
      return rewriter.notifyMatchFailure(op, "outer mins are not folded");
    std::optional<ConstantReader> input = getConstantInput(op.getInput());
    if (!input)
      return rewriter.notifyMatchFailure(op, "the input is not a constant");
    std::optional<ConstantReader> scales = ConstantReader::get(op.getScales());
    if (!scales)
      return rewriter.notifyMatchFailure(op, "the scales are not constant");
    std::optional<ConstantReader> zeroPoints, outerScales;
    if (op.getZeroPoints() &&
        !(zeroPoints = ConstantReader::get(op.getZeroPoints())))
      return rewriter.notifyMatchFailure(op,
                                         "the zero points are not constant");
    if (op.getOuterScales() &&
        !(outerScales = ConstantReader::get(op.getOuterScales())))
      return rewriter.notifyMatchFailure(op,
                                         "the outer scales are not constant");
    if (!type.hasStaticShape() || type.getDataType().getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "nothing static to fold");

    numerics::ElementQuantizer quantizer(getElementScheme(scheme));
    std::optional<float> outer;
    if (outerScales)
      outer = outerScales->getFloat(0);
    bool floatZeroPoint = scheme.getZeroPointDomain() == ZeroPointDomain::Float;
    ConstantWriter data(type.getDataType());
    BlockMap(type).forEach([&](int64_t e, int64_t b) {
      float scale = quantizer.getEffectiveScale(scales->getFloat(b), outer);
      int64_t zp = 0;
      float min = 0.0f;
      if (zeroPoints && floatZeroPoint)
        min = zeroPoints->getFloat(b);
      else if (zeroPoints)
        zp = zeroPoints->getInt(b);
      data.set(e, quantizer.quantize(input->getFloat(e), scale, zp, min));
    });
    Value codes = data.create(rewriter, op.getLoc(), input->isFromResource());
    rewriter.replaceOpWithNewOp<PackOp>(op, type, codes, op.getScales(),
                                        op.getZeroPoints(), op.getOuterScales(),
                                        Value());
    return success();
  }
};

/// quantize_dynamic(constant) -> pack(constant codes, scales, zero points,
/// outer scales), with the parameters derived as the lowering of
/// quantize_dynamic derives them.
struct FoldQuantizeDynamicOfConstant
    : public OpRewritePattern<QuantizeDynamicOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeDynamicOp op,
                                PatternRewriter &rewriter) const override {
    QuantizedTensorType type = op.getType();
    SchemeAttr scheme = type.getScheme();
    if (std::optional<std::string> reason = getUnsupportedReason(scheme))
      return rewriter.notifyMatchFailure(op, *reason);
    CalibrationMethod method = op.getMethod();
    if (scheme.getOuter() && method != CalibrationMethod::AbsMax)
      return rewriter.notifyMatchFailure(
          op, "outer scales are derived for absmax only");
    if (method == CalibrationMethod::MX && scheme.hasIntegerStorage() &&
        scheme.getStorageBitWidth() > 16)
      return rewriter.notifyMatchFailure(op,
                                         "MX integers have at most 16 bits");
    std::optional<ConstantReader> input = getConstantInput(op.getInput());
    if (!input)
      return rewriter.notifyMatchFailure(op, "the input is not a constant");
    if (!type.hasStaticShape() || type.getDataType().getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "nothing static to fold");

    BlockMap blocks(type);
    int64_t numBlocks = blocks.getNumBlocks();
    bool minMax = method == CalibrationMethod::MinMax;

    // 1. Block statistics in f32: max |x|, or min and max.
    std::vector<float> first(numBlocks, minMax ? INFINITY : 0.0f);
    std::vector<float> second(minMax ? numBlocks : 0, -INFINITY);
    bool anyNaN = false, anyNonFinite = false;
    blocks.forEach([&](int64_t e, int64_t b) {
      float x = input->getFloat(e);
      anyNaN |= std::isnan(x);
      anyNonFinite |= !std::isfinite(x);
      if (minMax) {
        first[b] = numerics::minimumF(first[b], x);
        second[b] = numerics::maximumF(second[b], x);
      } else {
        first[b] = numerics::maximumF(first[b], std::fabs(x));
      }
    });
    if (anyNaN && method != CalibrationMethod::MX)
      return rewriter.notifyMatchFailure(
          op, "a block holds NaN: its scale's NaN bits depend on the target");
    bool intZeroPoint = scheme.getZeroPointDomain() == ZeroPointDomain::Int;
    if (anyNonFinite && minMax && intZeroPoint)
      return rewriter.notifyMatchFailure(
          op, "a block holds Inf: its integer zero point is undefined");

    Type scaleType = scheme.getScaleType();
    numerics::ElementQuantizer quantizer(getElementScheme(scheme));
    double storageMax;
    if (scheme.hasIntegerStorage())
      storageMax = double(scheme.getQmax());
    else
      storageMax = numerics::getFloatFormatInfo(
                       *getFloatFormatKind(scheme.getStorageType()))
                       .maxNormal;
    // Every constant of the lowering is an f32 literal.
    float storageMaxF = numerics::roundToF32(storageMax);

    // The stored scale of a block, rounded to the scale type as the
    // lowering's convertScale does, and its f32 value.
    auto storeScale = [&](float scale) -> std::pair<uint64_t, float> {
      uint64_t bits;
      if (isa<Float8E4M3FNType>(scaleType)) {
        bits = std::isnan(scale)
                   ? *numerics::getNaNCode(numerics::FloatFormatKind::F8E4M3FN)
                   : numerics::encodeFloat(numerics::FloatFormatKind::F8E4M3FN,
                                           scale,
                                           numerics::RoundingMode::HalfToEven,
                                           /*saturate=*/true);
      } else {
        bits = encodeFromF32(scaleType, scale);
      }
      return {bits, decodeToF32(scaleType, bits)};
    };

    // 2. A per-tensor outer scale (NVFP4): max |x| / (max storage * max
    // scale), 1 for an all-zero tensor, rounded to the outer type.
    std::optional<float> outer;
    uint64_t outerBits = 0;
    if (OuterScaleAttr outerAttr = scheme.getOuter()) {
      float global = 0.0f;
      for (float amax : first)
        global = numerics::maximumF(global, amax);
      double scaleMax =
          isa<Float8E4M3FNType>(scaleType)
              ? 448.0
              : APFloat::getLargest(
                    cast<FloatType>(scaleType).getFloatSemantics())
                    .convertToDouble();
      float value = numerics::getAbsMaxOuterScale(global, storageMax, scaleMax);
      outerBits = encodeFromF32(outerAttr.getScaleType(), value);
      outer = decodeToF32(outerAttr.getScaleType(), outerBits);
    }

    // 3. Scales and zero points.
    ConstantWriter scalesWriter(type.getScalesType());
    std::optional<ConstantWriter> zeroPointsWriter;
    if (scheme.getZeroPointType())
      zeroPointsWriter.emplace(type.getZeroPointsType());
    std::vector<float> blockScale(numBlocks), blockMin(numBlocks, 0.0f);
    std::vector<int64_t> blockZeroPoint(numBlocks, 0);
    numerics::IntegerRange range = {scheme.getQmin(), scheme.getQmax()};
    for (int64_t b = 0; b < numBlocks; ++b) {
      if (method == CalibrationMethod::MX) {
        numerics::MXElementType element =
            scheme.hasFloatStorage()
                ? numerics::MXElementType::getFloat(
                      *getFloatFormatKind(scheme.getStorageType()))
                : numerics::MXElementType::getInteger(
                      scheme.getStorageBitWidth());
        // NaN / Inf blocks have no exponent: the NaN scale.
        std::optional<int> exponent;
        if (std::isfinite(first[b]))
          exponent = numerics::mxSharedExponent(
              double(first[b]), element, toNumerics(scheme.getScaleRounding()));
        uint8_t code = numerics::encodeE8M0(exponent);
        scalesWriter.set(b, code);
        blockScale[b] = decodeToF32(scaleType, code);
        continue;
      }
      if (!minMax) {
        auto [bits, value] =
            storeScale(numerics::getAbsMaxScale(first[b], storageMaxF, outer));
        scalesWriter.set(b, bits);
        blockScale[b] = value;
        continue;
      }
      auto [lo, hi] = numerics::includeZero(first[b], second[b]);
      auto [bits, value] = storeScale(numerics::getMinMaxScale(lo, hi, range));
      scalesWriter.set(b, bits);
      blockScale[b] = value;
      Type zeroPointType = scheme.getZeroPointType();
      if (!intZeroPoint) {
        uint64_t zpBits = encodeFromF32(zeroPointType, lo);
        zeroPointsWriter->set(b, zpBits);
        blockMin[b] = decodeToF32(zeroPointType, zpBits);
        continue;
      }
      // The zero point from the stored scale, computed in i32 and truncated
      // to the zero-point type.
      std::optional<int32_t> zeroPoint =
          numerics::getMinMaxIntZeroPoint(lo, value, range);
      if (!zeroPoint)
        return rewriter.notifyMatchFailure(
            op, "a zero point does not fit the i32 the lowering computes in");
      unsigned zpWidth = zeroPointType.getIntOrFloatBitWidth();
      uint32_t code = numerics::encodeIntegerCode(*zeroPoint, 32) &
                      uint32_t((uint64_t(1) << zpWidth) - 1);
      zeroPointsWriter->set(b, code);
      blockZeroPoint[b] = numerics::decodeIntegerCode(
          code, zpWidth, !zeroPointType.isUnsignedInteger());
    }

    // 4. The data, quantized with the stored parameters.
    ConstantWriter data(type.getDataType());
    blocks.forEach([&](int64_t e, int64_t b) {
      float scale = quantizer.getEffectiveScale(blockScale[b], outer);
      data.set(e, quantizer.quantize(input->getFloat(e), scale,
                                     blockZeroPoint[b], blockMin[b]));
    });

    Location loc = op.getLoc();
    bool resource = input->isFromResource();
    Value codes = data.create(rewriter, loc, resource);
    Value scales = scalesWriter.create(rewriter, loc, resource);
    Value zeroPoints, outerScales;
    if (zeroPointsWriter)
      zeroPoints = zeroPointsWriter->create(rewriter, loc, resource);
    if (outer) {
      ConstantWriter writer(type.getOuterScalesType());
      writer.set(0, outerBits);
      outerScales = writer.create(rewriter, loc, /*preferResource=*/false);
    }
    rewriter.replaceOpWithNewOp<PackOp>(op, type, codes, scales, zeroPoints,
                                        outerScales, Value());
    return success();
  }
};

/// repack(pack(constant parts)) -> pack(the same parts) of the repacked
/// type: a constant weight takes its layout at compile time (pack's parts
/// are logical, so only the result type changes).
struct FoldRepackOfConstant : public OpRewritePattern<RepackOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RepackOp op,
                                PatternRewriter &rewriter) const override {
    auto pack = op.getInput().getDefiningOp<PackOp>();
    if (!pack)
      return rewriter.notifyMatchFailure(op, "the input is not a pack");
    if (!llvm::all_of(pack->getOperands(), [](Value part) {
          return matchPattern(part, m_Constant());
        }))
      return rewriter.notifyMatchFailure(op, "the parts are not constant");
    rewriter.replaceOpWithNewOp<PackOp>(
        op, op.getType(), pack.getData(), pack.getScales(),
        pack.getZeroPoints(), pack.getOuterScales(), pack.getOuterMins());
    return success();
  }
};

} // namespace

void mlir::quant_block::populateQuantBlockFoldConstantsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldQuantizeOfConstant, FoldQuantizeDynamicOfConstant,
               FoldRepackOfConstant>(patterns.getContext());
}

namespace {
struct QuantBlockFoldConstantsPass
    : public mlir::quant_block::impl::QuantBlockFoldConstantsBase<
          QuantBlockFoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQuantBlockFoldConstantsPatterns(patterns);
    // Only these rewrites (and the removal of the float constants they make
    // dead): no folding or region simplification of the surrounding IR.
    if (failed(applyOnlyPatterns(getOperation(), std::move(patterns),
                                 "constant folding")))
      return signalPassFailure();
  }
};
} // namespace
