//===- QuantizeLowering.cpp - quant_block.quantize to linalg --------------===//
//
// One linalg.generic in the expanded block iteration space writing the
// (packed) storage codes: q = clamp(round(x / s) + zp, qmin, qmax) with a true
// division (f32, or f64 for 32-bit storage), NaN -> zero point. For 2- and
// 4-bit storage the lanes of a byte are a reduction dimension that ORs each
// code into its bits. For packing groups of several bytes (3-, 5-, 6- and
// 7-bit storage) the codes are computed first, one i8 per element, and
// packed by a second generic (GroupPacking.h): a byte there takes bits from
// up to four codes, and computing each code once is cheaper than
// recomputing it for every byte it touches (after vectorization the codes
// stay in registers). The parameters pass through unchanged.
//
//===----------------------------------------------------------------------===//

#include "BlockIterationSpace.h"
#include "GatherLowering.h"
#include "GroupPacking.h"
#include "Patterns.h"
#include "TwoLevelParameters.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// The lowered parts of the quantized result, with a null data slot: the
/// given parameters with their element types made signless.
static SmallVector<Value>
getLoweredParameters(OpBuilder &b, Location loc, const TypeConverter &converter,
                     QuantizedTensorType type, Value scales, Value zeroPoints,
                     Value outerScales, Value outerMins) {
  SmallVector<Value> parts = {Value(), scales};
  for (Value part : {zeroPoints, outerScales, outerMins})
    if (part)
      parts.push_back(part);
  SmallVector<Type> loweredTypes;
  (void)converter.convertType(type, loweredTypes);
  for (auto [part, loweredType] : llvm::zip(parts, loweredTypes))
    if (part)
      part = castTensorElements(b, loc, part, loweredType);
  return parts;
}

/// Quantizes `inputView` (the element view of `space`, whose packing groups
/// span several bytes) into the lowered data of `type`: codes as i8 in the
/// element space, then packed group by group.
static Value quantizeGroups(OpBuilder &b, Location loc,
                            QuantizedTensorType type,
                            const BlockIterationSpace &space, Value inputView,
                            Value scales, Value zeroPoints, Value outerScale) {
  MLIRContext *ctx = b.getContext();
  SchemeAttr scheme = type.getScheme();
  // The element view is already expanded: its dimensions are the iteration
  // dimensions one to one.
  SmallVector<ReassociationIndices> identityGroups;
  for (unsigned d = 0; d < space.getNumDims(); ++d)
    identityGroups.push_back({d});
  Value init = createEmptyLike(b, loc, space.getElementShape(), b.getI8Type(),
                               inputView, identityGroups);
  SmallVector<Value> inputs = {inputView, scales};
  SmallVector<AffineMap> maps = {space.getElementMap(ctx),
                                 space.getParamMap(ctx)};
  if (zeroPoints) {
    inputs.push_back(zeroPoints);
    maps.push_back(space.getParamMap(ctx));
  }
  maps.push_back(space.getElementMap(ctx));
  SmallVector<utils::IteratorType> iterators(space.getNumDims(),
                                             utils::IteratorType::parallel);
  Value codes =
      linalg::GenericOp::create(
          b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value zeroPoint = zeroPoints ? args[2] : Value();
            Value code = emitQuantize(b, loc, scheme, args[0], args[1],
                                      zeroPoint, outerScale);
            linalg::YieldOp::create(
                b, loc,
                ValueRange{arith::TruncIOp::create(b, loc, b.getI8Type(), code)
                               .getResult()});
          })
          .getResult(0);
  Value bytes = packGroups(
      b, loc, codes, PackingGroup{space.elementsPerGroup, space.bytesPerGroup},
      scheme.getStorageBitWidth());
  return collapseTo(b, loc, bytes, space.packedGroups,
                    getLoweredDataType(type));
}

namespace {

struct QuantizeOpLowering : public OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QuantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType qType = op.getResult().getType();
    std::string whyNot;
    std::optional<BlockIterationSpace> space =
        BlockIterationSpace::get(qType, whyNot);
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput().front();
    Value scales = adaptor.getScales().front();
    Value zeroPoints =
        op.getZeroPoints() ? adaptor.getZeroPoints().front() : Value();
    Value outerScales =
        op.getOuterScales() ? adaptor.getOuterScales().front() : Value();
    Value outerMins =
        op.getOuterMins() ? adaptor.getOuterMins().front() : Value();
    // The generated arithmetic reads signless parameters, two-level ones
    // folded into effective block parameters; the result keeps the given
    // ones.
    SmallVector<Value> signless =
        getLoweredParameters(rewriter, loc, *getTypeConverter(), qType, scales,
                             zeroPoints, outerScales, outerMins);
    auto resultParts = [&](Value data) {
      SmallVector<Value> parts(signless);
      parts[0] = data;
      return parts;
    };
    QuantizedTensorType computeType = qType;
    SmallVector<Value> computeParts(signless);
    foldTwoLevelBlockParameters(rewriter, loc, computeType, computeParts);
    SchemeAttr scheme = computeType.getScheme();
    Value outerScale = extractOuterScale(
        rewriter, loc, getOuterScalesPart(scheme, computeParts));
    scales = computeParts[1];
    zeroPoints = scheme.getZeroPointType() ? computeParts[2] : Value();
    if (!space) {
      // Layouts the expanded space cannot express take the general form.
      Value data = quantizeByGather(rewriter, loc, computeType, input, scales,
                                    zeroPoints, outerScale);
      if (!data)
        return rewriter.notifyMatchFailure(op, whyNot);
      rewriter.replaceOpWithMultiple(op, {resultParts(data)});
      return success();
    }

    RankedTensorType dataType = getLoweredDataType(qType);
    Value inputView = expandTo(rewriter, loc, input, space->elementGroups,
                               space->getElementShape());
    if (space->bytesPerGroup > 1) {
      Value data = quantizeGroups(rewriter, loc, computeType, *space, inputView,
                                  scales, zeroPoints, outerScale);
      rewriter.replaceOpWithMultiple(op, {resultParts(data)});
      return success();
    }
    Value init =
        createEmptyLike(rewriter, loc, space->getPackedShape(),
                        dataType.getElementType(), input, space->packedGroups);
    if (space->laneDim) {
      // Lanes are OR-ed into zero-initialized bytes.
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getI8IntegerAttr(0));
      init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
    }
    SmallVector<Value> inputs = {inputView, scales};
    SmallVector<AffineMap> maps = {space->getElementMap(ctx),
                                   space->getParamMap(ctx)};
    if (zeroPoints) {
      inputs.push_back(zeroPoints);
      maps.push_back(space->getParamMap(ctx));
    }
    maps.push_back(space->getPackedMap(ctx));
    SmallVector<utils::IteratorType> iterators(space->getNumDims(),
                                               utils::IteratorType::parallel);
    if (space->laneDim)
      iterators[*space->laneDim] = utils::IteratorType::reduction;

    unsigned width = scheme.getStorageBitWidth();
    std::optional<unsigned> laneDim = space->laneDim;
    Type storageType = dataType.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value zeroPoint = zeroPoints ? args[2] : Value();
          Value code = emitQuantize(b, loc, scheme, args[0], args[1], zeroPoint,
                                    outerScale);
          Value result;
          if (laneDim) {
            Value lane = linalg::IndexOp::create(b, loc, *laneDim);
            Value bits = placeInLane(b, loc, code, lane, width);
            result = arith::OrIOp::create(b, loc, args.back(), bits);
          } else {
            result = codeToStorage(b, loc, code, storageType);
          }
          linalg::YieldOp::create(b, loc, result);
        });
    Value data = collapseTo(rewriter, loc, generic.getResult(0),
                            space->packedGroups, dataType);
    rewriter.replaceOpWithMultiple(op, {resultParts(data)});
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populateQuantizePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizeOpLowering>(converter, patterns.getContext());
}
