//===- RaiseUpstreamQuant.cpp - raise quant.dcast / qcast / scast ---------===//
//
// Replaces upstream `quant.dcast`, `quant.qcast` and `quant.scast` on
// `!quant.uniform` per-tensor, per-axis and sub-channel types by
// quant_block ops whose scheme, scales and zero points come from the type
// (as constants): a cast from storage becomes a quant_block.pack, a qcast a
// quant_block.quantize, a dcast a quant_block.dequantize of either.
//
// Upstream quant ops take this project's numerics, not those of upstream's
// --lower-quant-ops: the raised quantize rounds half to even and saturates,
// where --lower-quant-ops truncates (arith.fptosi of x / s + zp) and only
// clamps narrowed ranges, after the conversion. Dequantize agrees with it
// wherever upstream's float arithmetic is exact (storage of at most 16 bits
// with f32, 8 bits with f16 / bf16 expressed types).
//
// Drivers must run these patterns without folding: upstream folds
// quant.dcast(quant.qcast(x)) to x, which would drop the quantization.
//
//===----------------------------------------------------------------------===//

#include "RaiseParameters.h"

#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// The quant_block type of a `tensor<... x !quant.uniform<...>>`, with its
/// scales and zero points as constants (contracted shape), or null. A
/// dimension may be dynamic where one block spans it (every dimension of a
/// per-tensor type, the others of a per-axis or sub-channel one): it has one
/// parameter whatever its size.
static QuantizedTensorType convertUniformType(RankedTensorType tensorType,
                                              DenseElementsAttr &scales,
                                              DenseElementsAttr &zeroPoints) {
  if (!tensorType || tensorType.getRank() == 0)
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
      if (axis < 0 || axis >= rank || block <= 0 ||
          ShapedType::isDynamic(shape[axis]) || shape[axis] % block != 0)
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
    contracted.push_back(ShapedType::isDynamic(size) ? 1 : size / block);

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
        user, "not a per-tensor, per-axis or sub-channel !quant.uniform "
              "tensor with 2..32-bit storage and f32/f16/bf16 expressed type "
              "(of rank 1 or more, dynamic only in dimensions one block "
              "spans)");
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

void mlir::quant_block::populateQuantBlockRaiseUpstreamQuantPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseQuantizeCast, RaiseDequantizeCast, RaiseStorageCast>(
      patterns.getContext());
}
