//===- PackLowering.cpp - quant_block.pack / unpack to linalg -------------===//
//
// pack and unpack move between a quantized tensor's logical parts (one
// storage value per element, unsigned types kept) and its lowered parts
// (packed, signless). Parameters only change signedness (tensor.bitcast);
// sub-byte data is packed into, or unpacked from, bytes along the innermost
// dimension by one linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "GatherLowering.h"
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

static RankedTensorType withElementType(Type tensorType, Type elementType) {
  auto ranked = cast<RankedTensorType>(tensorType);
  return RankedTensorType::get(ranked.getShape(), elementType);
}

/// The [..., S] tensor viewed as [..., S / p, p] groups, with its innermost
/// dimension split.
static SmallVector<ReassociationIndices> splitInnermost(int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank - 1; ++d)
    groups.push_back({d});
  groups.push_back({rank - 1, rank});
  return groups;
}

static SmallVector<OpFoldResult> getSplitShape(OpBuilder &b, Location loc,
                                               Value value, int64_t perByte) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  int64_t last = *getConstantIntValue(sizes.back());
  sizes.back() = b.getIndexAttr(last / perByte);
  sizes.push_back(b.getIndexAttr(perByte));
  return sizes;
}

namespace {

struct PackOpLowering : public OpConversionPattern<PackOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PackOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType qType = op.getResult().getType();
    SmallVector<Type> loweredTypes;
    if (failed(getTypeConverter()->convertType(qType, loweredTypes)))
      return rewriter.notifyMatchFailure(op, "unsupported quantized type");
    Location loc = op.getLoc();
    SchemeAttr scheme = qType.getScheme();
    auto dataType = cast<RankedTensorType>(loweredTypes[0]);
    int64_t perByte = *getElementsPerByte(scheme);

    // Logical data as the lowered element type (8 bits and wider) or as
    // integer codes (sub-byte, to be packed).
    Value data = adaptor.getData().front();
    Type signlessStorage =
        IntegerType::get(rewriter.getContext(), scheme.getStorageBitWidth());
    data = castTensorElements(
        rewriter, loc, data,
        withElementType(data.getType(), perByte > 1
                                            ? signlessStorage
                                            : dataType.getElementType()));
    if (perByte > 1) {
      int64_t rank = qType.getRank();
      int64_t last = qType.getShape().back();
      if (ShapedType::isDynamic(last))
        return rewriter.notifyMatchFailure(op, "dynamic packed dimension");
      if (last % perByte != 0) {
        data = packCodesByGather(rewriter, loc, data, dataType,
                                 scheme.getStorageBitWidth());
      } else {
        SmallVector<OpFoldResult> split =
            getSplitShape(rewriter, loc, data, perByte);
        SmallVector<int64_t> splitShape;
        SmallVector<Value> dynamic;
        dispatchIndexOpFoldResults(split, dynamic, splitShape);
        Value view = tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get(splitShape, signlessStorage),
            data, splitInnermost(rank), split);
        SmallVector<OpFoldResult> outSizes(split.begin(), split.end() - 1);
        Value init = tensor::EmptyOp::create(rewriter, loc, outSizes,
                                             rewriter.getI8Type());
        Value zero = arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getI8IntegerAttr(0));
        init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
        MLIRContext *ctx = rewriter.getContext();
        AffineMap in = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
        AffineMap out = in.dropResult(rank);
        SmallVector<utils::IteratorType> iterators(
            rank + 1, utils::IteratorType::parallel);
        iterators[rank] = utils::IteratorType::reduction;
        unsigned width = scheme.getStorageBitWidth();
        data = linalg::GenericOp::create(
                   rewriter, loc, init.getType(), ValueRange{view},
                   ValueRange{init}, ArrayRef<AffineMap>{in, out}, iterators,
                   [&](OpBuilder &b, Location loc, ValueRange args) {
                     Value lane = linalg::IndexOp::create(b, loc, rank);
                     Value bits = placeInLane(b, loc, args[0], lane, width);
                     linalg::YieldOp::create(
                         b, loc,
                         ValueRange{arith::OrIOp::create(b, loc, args[1], bits)
                                        .getResult()});
                   })
                   .getResult(0);
      }
    }
    if (data.getType() != dataType)
      return rewriter.notifyMatchFailure(op, "lowered data type mismatch");

    SmallVector<Value> results = {data};
    SmallVector<Value> params = {op.getScales(), op.getZeroPoints(),
                                 op.getOuterScales(), op.getOuterMins()};
    SmallVector<ValueRange> adapted = {
        adaptor.getScales(), adaptor.getZeroPoints(), adaptor.getOuterScales(),
        adaptor.getOuterMins()};
    for (auto [param, lowered] : llvm::zip(params, adapted)) {
      if (!param)
        continue;
      Type target = loweredTypes[results.size()];
      results.push_back(
          castTensorElements(rewriter, loc, lowered.front(), target));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct UnpackOpLowering : public OpConversionPattern<UnpackOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnpackOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType qType = op.getInput().getType();
    SchemeAttr scheme = qType.getScheme();
    Location loc = op.getLoc();
    ValueRange parts = adaptor.getInput();
    int64_t perByte = *getElementsPerByte(scheme);
    unsigned width = scheme.getStorageBitWidth();
    Type signlessStorage = IntegerType::get(rewriter.getContext(), width);

    Value data = parts[0];
    if (perByte > 1) {
      int64_t rank = qType.getRank();
      int64_t last = qType.getShape().back();
      auto logical = RankedTensorType::get(qType.getShape(), signlessStorage);
      if (ShapedType::isDynamic(last))
        return rewriter.notifyMatchFailure(op, "dynamic packed dimension");
      if (last % perByte != 0) {
        data = unpackCodesByGather(rewriter, loc, data, logical, width,
                                   scheme.isSignedStorage());
      } else {
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(rewriter, loc, data);
        sizes.push_back(rewriter.getIndexAttr(perByte));
        Value init =
            tensor::EmptyOp::create(rewriter, loc, sizes, signlessStorage);
        MLIRContext *ctx = rewriter.getContext();
        AffineMap out = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
        AffineMap in = out.dropResult(rank);
        SmallVector<utils::IteratorType> iterators(
            rank + 1, utils::IteratorType::parallel);
        bool isSigned = scheme.isSignedStorage();
        Value split =
            linalg::GenericOp::create(
                rewriter, loc, init.getType(), ValueRange{data},
                ValueRange{init}, ArrayRef<AffineMap>{in, out}, iterators,
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  Value lane = linalg::IndexOp::create(b, loc, rank);
                  Value code =
                      extractPackedLane(b, loc, args[0], lane, width, isSigned);
                  linalg::YieldOp::create(
                      b, loc,
                      ValueRange{
                          arith::TruncIOp::create(b, loc, signlessStorage, code)
                              .getResult()});
                })
                .getResult(0);
        data = tensor::CollapseShapeOp::create(rewriter, loc, logical, split,
                                               splitInnermost(rank));
      }
    }
    SmallVector<Value> results;
    for (auto [index, result] : llvm::enumerate(op.getParts())) {
      Value lowered = index == 0 ? data : parts[index];
      results.push_back(
          castTensorElements(rewriter, loc, lowered, result.getType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populatePackPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<PackOpLowering, UnpackOpLowering>(converter,
                                                 patterns.getContext());
}
