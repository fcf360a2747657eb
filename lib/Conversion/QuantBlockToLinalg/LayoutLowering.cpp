//===- LayoutLowering.cpp - quant_block layout ops to linalg / tensor -----===//
//
// transpose, reshape, extract_slice and broadcast move quantized data without
// dequantizing it: the same layout change is applied to the data and to every
// parameter tensor (their verifiers guarantee that the blocks move with the
// data, so the parameters' layout change is the contracted image of the
// data's). Packed sub-byte data is unpacked to codes, moved and repacked,
// because a layout change can move elements across byte boundaries.
//
//===----------------------------------------------------------------------===//

#include "GatherLowering.h"
#include "Patterns.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

namespace {

/// Applies one layout change to every part of a quantized tensor; `isData`
/// tells the data (one code per element) from the parameter tensors.
using LayoutFn =
    function_ref<Value(OpBuilder &, Location, Value,
                       RankedTensorType /*resultType*/, bool /*isData*/)>;

/// The lowered data of `type` as one signless code per element.
Value toCodes(OpBuilder &b, Location loc, QuantizedTensorType type,
              Value data) {
  SchemeAttr scheme = type.getScheme();
  if (!getPackingGroup(scheme)->isPacked())
    return data;
  auto codesType = RankedTensorType::get(
      type.getShape(), b.getIntegerType(scheme.getStorageBitWidth()));
  return unpackCodesByGather(b, loc, data, codesType,
                             scheme.getStorageBitWidth(),
                             scheme.isSignedStorage());
}

/// The inverse of toCodes for `type`.
Value fromCodes(OpBuilder &b, Location loc, QuantizedTensorType type,
                Value codes) {
  SchemeAttr scheme = type.getScheme();
  if (!getPackingGroup(scheme)->isPacked())
    return codes;
  return packCodesByGather(b, loc, codes, getLoweredDataType(type),
                           scheme.getStorageBitWidth());
}

/// Lowers a layout op whose input and result are quantized: `apply` moves
/// one tensor to the given result type.
LogicalResult
lowerLayoutOp(Operation *op, ValueRange parts, QuantizedTensorType inputType,
              QuantizedTensorType resultType, const TypeConverter &converter,
              ConversionPatternRewriter &rewriter, LayoutFn apply) {
  Location loc = op->getLoc();
  SmallVector<Type> resultParts;
  if (failed(converter.convertType(resultType, resultParts)))
    return failure();
  SchemeAttr scheme = resultType.getScheme();
  Type codeType = !getPackingGroup(scheme)->isPacked()
                      ? cast<RankedTensorType>(resultParts[0]).getElementType()
                      : rewriter.getIntegerType(scheme.getStorageBitWidth());
  Value codes = toCodes(rewriter, loc, inputType, parts[0]);
  Value moved =
      apply(rewriter, loc, codes,
            RankedTensorType::get(resultType.getShape(), codeType), true);
  SmallVector<Value> results = {fromCodes(rewriter, loc, resultType, moved)};
  for (auto [part, partType] :
       llvm::zip(parts.drop_front(), ArrayRef<Type>(resultParts).drop_front()))
    results.push_back(
        apply(rewriter, loc, part, cast<RankedTensorType>(partType), false));
  rewriter.replaceOpWithMultiple(op, {results});
  return success();
}

Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type, Value like,
                  ArrayRef<int64_t> sourceDims) {
  SmallVector<Value> dynamic;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      dynamic.push_back(tensor::DimOp::create(b, loc, like, sourceDims[d]));
  return tensor::EmptyOp::create(b, loc, type, dynamic);
}

struct TransposeOpLowering : public OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPermutation();
    return lowerLayoutOp(op, adaptor.getInput(), op.getInput().getType(),
                         op.getType(), *getTypeConverter(), rewriter,
                         [&](OpBuilder &b, Location loc, Value value,
                             RankedTensorType type, bool isData) -> Value {
                           Value init = createEmpty(b, loc, type, value, perm);
                           return linalg::TransposeOp::create(b, loc, value,
                                                              init, perm)
                               .getResult()
                               .front();
                         });
  }
};

struct ReshapeOpLowering : public OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerLayoutOp(
        op, adaptor.getInput(), op.getInput().getType(), op.getType(),
        *getTypeConverter(), rewriter,
        [&](OpBuilder &b, Location loc, Value value, RankedTensorType type,
            bool isData) -> Value {
          // Static shapes (verified): row-major reinterpretation.
          SmallVector<int64_t> dims(type.getShape());
          auto shapeType =
              RankedTensorType::get({type.getRank()}, b.getIndexType());
          Value shape = arith::ConstantOp::create(
              b, loc,
              DenseIntElementsAttr::get(
                  shapeType, llvm::map_to_vector(dims, [](int64_t d) {
                    return APInt(64, d);
                  })));
          return tensor::ReshapeOp::create(b, loc, type, value, shape)
              .getResult();
        });
  }
};

struct ExtractSliceOpLowering : public OpConversionPattern<ExtractSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExtractSliceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType inputType = op.getInput().getType();
    SmallVector<int64_t> block = inputType.getEffectiveBlockShape();
    ArrayRef<int64_t> offsets = op.getOffsets();
    return lowerLayoutOp(
        op, adaptor.getInput(), inputType, op.getType(), *getTypeConverter(),
        rewriter,
        [&](OpBuilder &b, Location loc, Value value, RankedTensorType type,
            bool isData) -> Value {
          // Elements start at the offsets; parameters at offset / block
          // (offsets are block-aligned, verified), with the result's
          // contracted sizes. (The shapes cannot tell the two apart: a slice
          // smaller than a block has as many scales as elements.)
          SmallVector<OpFoldResult> sliceOffsets, sizes, strides;
          auto sourceShape = cast<RankedTensorType>(value.getType()).getShape();
          for (auto [d, size] : llvm::enumerate(type.getShape())) {
            int64_t offset = offsets[d];
            if (!isData)
              offset = ShapedType::isDynamic(block[d]) ? 0 : offset / block[d];
            // A dimension of one (a per-tensor outer scale, a whole-block
            // scale) can only be sliced at 0.
            if (sourceShape[d] == 1)
              offset = 0;
            sliceOffsets.push_back(b.getIndexAttr(offset));
            sizes.push_back(b.getIndexAttr(size));
            strides.push_back(b.getIndexAttr(1));
          }
          return tensor::ExtractSliceOp::create(b, loc, type, value,
                                                sliceOffsets, sizes, strides)
              .getResult();
        });
  }
};

struct BroadcastOpLowering : public OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> dims = op.getDimensions();
    return lowerLayoutOp(
        op, adaptor.getInput(), op.getInput().getType(), op.getType(),
        *getTypeConverter(), rewriter,
        [&](OpBuilder &b, Location loc, Value value, RankedTensorType type,
            bool isData) -> Value {
          SmallVector<Value> dynamic;
          int64_t inputDim = 0;
          for (auto [d, size] : llvm::enumerate(type.getShape())) {
            bool isNew = llvm::is_contained(dims, int64_t(d));
            if (ShapedType::isDynamic(size)) {
              if (isNew)
                return Value(); // Rejected before lowering.
              dynamic.push_back(tensor::DimOp::create(b, loc, value, inputDim));
            }
            if (!isNew)
              ++inputDim;
          }
          Value init = tensor::EmptyOp::create(b, loc, type, dynamic);
          return linalg::BroadcastOp::create(b, loc, value, init, dims)
              .getResult()
              .front();
        });
  }
};

} // namespace

void mlir::quant_block::detail::populateLayoutPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<TransposeOpLowering, ReshapeOpLowering, ExtractSliceOpLowering,
               BroadcastOpLowering>(converter, patterns.getContext());
}
