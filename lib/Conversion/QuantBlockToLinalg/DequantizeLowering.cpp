//===- DequantizeLowering.cpp - quant_block.dequantize to linalg ----------===//
//
// One linalg.generic in the expanded block iteration space: it reads the
// (packed) storage code, the block's scale and zero point through projected
// permutations, and writes x = (q - zp) * s, q * s + m (one FMA) or q * s,
// computed in f32 and rounded once to the expressed type. A packing group of
// several bytes (3-, 5-, 6- and 7-bit storage) is read as one input per byte
// and assembled into one integer from which each lane shifts its code, so a
// code that straddles two bytes needs no gather.
//
//===----------------------------------------------------------------------===//

#include "BlockDequantizer.h"
#include "BlockIterationSpace.h"
#include "GatherLowering.h"
#include "Patterns.h"
#include "TwoLevelParameters.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

namespace {

struct DequantizeOpLowering : public OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType qType = op.getInput().getType();
    std::string whyNot;
    std::optional<BlockIterationSpace> space =
        BlockIterationSpace::get(qType, whyNot);
    Location loc = op.getLoc();
    SmallVector<Value> parts = llvm::to_vector(adaptor.getInput());
    foldTwoLevelBlockParameters(rewriter, loc, qType, parts);
    SchemeAttr scheme = qType.getScheme();
    Value data = parts[0], scales = parts[1];
    Value zeroPoints = scheme.getZeroPointType() ? parts[2] : Value();
    Value outerScale =
        extractOuterScale(rewriter, loc, getOuterScalesPart(scheme, parts));
    if (!space) {
      // Layouts the expanded space cannot express take the general form.
      Value result =
          dequantizeByGather(rewriter, loc, qType, op.getResult().getType(),
                             data, scales, zeroPoints, outerScale);
      if (!result)
        return rewriter.notifyMatchFailure(op, whyNot);
      rewriter.replaceOp(op, result);
      return success();
    }

    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getResult().getType();
    Value init =
        createEmptyLike(rewriter, loc, space->getElementShape(),
                        scheme.getExpressedType(), data, space->elementGroups);
    BlockDequantizer dequantizer(rewriter, loc, qType, *space, parts);
    SmallVector<AffineMap> maps = dequantizer.getMaps(ctx);
    maps.push_back(space->getElementMap(ctx));
    SmallVector<utils::IteratorType> iterators(space->getNumDims(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), dequantizer.getInputs(),
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc,
                                  dequantizer.emit(b, loc, args.drop_back()));
        });
    Value collapsed = collapseTo(rewriter, loc, generic.getResult(0),
                                 space->elementGroups, resultType);
    rewriter.replaceOp(op, collapsed);
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populateDequantizePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DequantizeOpLowering>(converter, patterns.getContext());
}
