//===- QuantizeLowering.cpp - quant_block.quantize to linalg --------------===//
//
// One linalg.generic in the expanded block iteration space writing the
// (packed) storage codes: q = clamp(round(x / s) + zp, qmin, qmax) with a true
// division (f32, or f64 for 32-bit storage), NaN -> zero point. For sub-byte
// storage the lanes of a byte are a reduction dimension that ORs each code
// into its bits. The parameters pass through unchanged.
//
//===----------------------------------------------------------------------===//

#include "BlockIterationSpace.h"
#include "Patterns.h"
#include "ScalarCodegen.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

namespace {

struct QuantizeOpLowering : public OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QuantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType qType = op.getResult().getType();
    SchemeAttr scheme = qType.getScheme();
    std::string whyNot;
    std::optional<BlockIterationSpace> space =
        BlockIterationSpace::get(qType, whyNot);
    if (!space)
      return rewriter.notifyMatchFailure(op, whyNot);

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput().front();
    Value scales = adaptor.getScales().front();
    Value zeroPoints =
        op.getZeroPoints() ? adaptor.getZeroPoints().front() : Value();

    RankedTensorType dataType = getLoweredDataType(qType);
    Value inputView = expandTo(rewriter, loc, input, space->elementGroups,
                               space->getElementShape());
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
          FloatType computeType = getQuantizeComputeType(ctx, scheme);
          IntegerType intType = getIntegerComputeType(ctx, scheme);
          Value x = convertFloat(b, loc, args[0], computeType);
          Value scale = convertFloat(b, loc, args[1], computeType);
          ZeroPointDomain domain = scheme.getZeroPointDomain();
          if (domain == ZeroPointDomain::Float)
            x = arith::SubFOp::create(
                b, loc, x, convertFloat(b, loc, args[2], computeType));
          Value scaled = arith::DivFOp::create(b, loc, x, scale);
          Value rounded = roundToIntegral(b, loc, scaled, scheme.getRounding());
          auto constant = [&](double value) -> Value {
            return arith::ConstantOp::create(
                b, loc, b.getFloatAttr(computeType, value));
          };
          Value qmin = constant(double(scheme.getQmin()));
          Value qmax = constant(double(scheme.getQmax()));
          Value offset = constant(0.0);
          if (domain == ZeroPointDomain::Int) {
            Value zp = extendInteger(b, loc, args[2], intType,
                                     !hasUnsignedZeroPoints(scheme));
            offset = arith::SIToFPOp::create(b, loc, computeType, zp);
            rounded = arith::AddFOp::create(b, loc, rounded, offset);
          }
          // maximumf/minimumf propagate NaN, which then maps to the zero
          // point (clamped), as docs/Numerics.md defines.
          Value clamped = arith::MinimumFOp::create(
              b, loc, arith::MaximumFOp::create(b, loc, rounded, qmin), qmax);
          Value nanValue = arith::MinimumFOp::create(
              b, loc, arith::MaximumFOp::create(b, loc, offset, qmin), qmax);
          Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                              clamped, clamped);
          clamped = arith::SelectOp::create(b, loc, isNaN, nanValue, clamped);
          Value code = arith::FPToSIOp::create(b, loc, intType, clamped);
          Value result;
          if (laneDim) {
            Value lane = linalg::IndexOp::create(b, loc, *laneDim);
            Value bits = placeInLane(b, loc, code, lane, width);
            result = arith::OrIOp::create(b, loc, args.back(), bits);
          } else {
            result = arith::TruncIOp::create(b, loc, storageType, code);
          }
          linalg::YieldOp::create(b, loc, result);
        });
    Value data = collapseTo(rewriter, loc, generic.getResult(0),
                            space->packedGroups, dataType);
    SmallVector<Value> results = {data, scales};
    if (zeroPoints)
      results.push_back(zeroPoints);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populateQuantizePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizeOpLowering>(converter, patterns.getContext());
}
