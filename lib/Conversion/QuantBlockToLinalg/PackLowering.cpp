//===- PackLowering.cpp - quant_block.pack / unpack to linalg -------------===//
//
// pack and unpack move between a quantized tensor's logical parts (one
// storage value per element, unsigned types kept) and its lowered parts
// (packed, signless). Parameters only change signedness (tensor.bitcast);
// sub-byte data is packed into, or unpacked from, bytes along the innermost
// dimension by one linalg.generic: in whole packing groups when the
// innermost size is a multiple of the group (GroupPacking.h), else in the
// gather form that handles a partial group at the end of each row.
// Constant codes (a weight quantized offline, --quant-block-fold-constants)
// are packed here, at compile time, by the numerics library's packing.
//
//===----------------------------------------------------------------------===//

#include "GatherLowering.h"
#include "GroupPacking.h"
#include "Patterns.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "quant-block/Numerics/Packing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

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

/// Splits the innermost dimension of `value` (static, a multiple of
/// `inner`) into [S / inner, inner].
static Value splitLast(OpBuilder &b, Location loc, Value value, int64_t inner) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  int64_t last = type.getShape().back();
  sizes.back() = b.getIndexAttr(last / inner);
  sizes.push_back(b.getIndexAttr(inner));
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  dispatchIndexOpFoldResults(sizes, dynamic, shape);
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      splitInnermost(type.getRank()), sizes);
}

/// The inverse of splitLast.
static Value mergeLast(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank() - 1;
  SmallVector<int64_t> shape(type.getShape().drop_back());
  shape.back() *= type.getShape().back();
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      splitInnermost(rank));
}

/// The packed bytes of the constant sub-byte codes `codes` as `dataType`
/// (each innermost row starting on a byte boundary, docs/Packing.md), or
/// null when `codes` is not a dense constant of a static shape.
static DenseElementsAttr
packConstantCodes(Value codes, RankedTensorType dataType, unsigned width) {
  DenseElementsAttr constant;
  if (!matchPattern(codes, m_Constant(&constant)) || !dataType.hasStaticShape())
    return {};
  auto type = cast<RankedTensorType>(constant.getType());
  int64_t rowLength = type.getShape().back();
  int64_t rowBytes = dataType.getShape().back();
  if (rowLength == 0 || rowBytes == 0)
    return {};
  uint32_t mask = (1u << width) - 1;
  auto codeOf = [&](const APInt &bits) {
    return uint32_t(bits.getZExtValue()) & mask;
  };
  std::vector<uint32_t> all;
  all.reserve(type.getNumElements());
  if (isa<FloatType>(type.getElementType())) {
    for (const APFloat &value : constant.getValues<APFloat>())
      all.push_back(codeOf(value.bitcastToAPInt()));
  } else {
    for (const APInt &value : constant.getValues<APInt>())
      all.push_back(codeOf(value));
  }
  SmallVector<int8_t> bytes;
  bytes.reserve(dataType.getNumElements());
  for (size_t start = 0; start < all.size(); start += rowLength) {
    std::vector<uint32_t> row(all.begin() + start,
                              all.begin() + start + rowLength);
    for (uint8_t byte : ::quant_block::numerics::packBits(row, width))
      bytes.push_back(int8_t(byte));
  }
  return DenseElementsAttr::get(dataType, ArrayRef<int8_t>(bytes));
}

namespace {

struct PackOpLowering : public OpConversionPattern<PackOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PackOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizedTensorType tiledType = op.getResult().getType();
    // A row-tiled result is packed row-major, then tiled.
    QuantizedTensorType qType = tiledType.clone(
        tiledType.getShape(), tiledType.getScheme().withRowTile(0));
    SmallVector<Type> loweredTypes;
    if (failed(getTypeConverter()->convertType(qType, loweredTypes)))
      return rewriter.notifyMatchFailure(op, "unsupported quantized type");
    Location loc = op.getLoc();
    SchemeAttr scheme = qType.getScheme();
    auto dataType = cast<RankedTensorType>(loweredTypes[0]);
    PackingGroup group = *getPackingGroup(scheme);
    unsigned width = scheme.getStorageBitWidth();

    // Logical data as the lowered element type (8 bits and wider) or as
    // integer codes (sub-byte, to be packed); constant codes packed now.
    Value data = adaptor.getData().front();
    Type signlessStorage = IntegerType::get(rewriter.getContext(), width);
    DenseElementsAttr packedConstant =
        group.isPacked() ? packConstantCodes(op.getData(), dataType, width)
                         : DenseElementsAttr();
    if (packedConstant) {
      data = arith::ConstantOp::create(rewriter, loc, packedConstant);
    } else {
      data = castTensorElements(
          rewriter, loc, data,
          withElementType(data.getType(), group.isPacked()
                                              ? signlessStorage
                                              : dataType.getElementType()));
    }
    if (group.isPacked() && !packedConstant) {
      int64_t last = qType.getShape().back();
      if (ShapedType::isDynamic(last))
        return rewriter.notifyMatchFailure(op, "dynamic packed dimension");
      if (last % group.elements != 0) {
        data = packCodesByGather(rewriter, loc, data, dataType, width);
      } else {
        Value bytes = packGroups(rewriter, loc,
                                 splitLast(rewriter, loc, data, group.elements),
                                 group, width);
        data = group.isBytewise() ? bytes : mergeLast(rewriter, loc, bytes);
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
    if (tiledType.getScheme().isRowTiled())
      results = tileLoweredParts(rewriter, loc, tiledType, results);
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
    SmallVector<Value> parts = llvm::to_vector(adaptor.getInput());
    if (scheme.isRowTiled())
      parts = untileLoweredParts(rewriter, loc, qType, parts);
    PackingGroup group = *getPackingGroup(scheme);
    unsigned width = scheme.getStorageBitWidth();
    Type signlessStorage = IntegerType::get(rewriter.getContext(), width);

    Value data = parts[0];
    if (group.isPacked()) {
      int64_t last = qType.getShape().back();
      auto logical = RankedTensorType::get(qType.getShape(), signlessStorage);
      if (ShapedType::isDynamic(last))
        return rewriter.notifyMatchFailure(op, "dynamic packed dimension");
      if (last % group.elements != 0) {
        data = unpackCodesByGather(rewriter, loc, data, logical, width,
                                   scheme.isSignedStorage());
      } else {
        Value bytes = group.isBytewise()
                          ? data
                          : splitLast(rewriter, loc, data, group.bytes);
        Value codes = unpackGroups(rewriter, loc, bytes, group, width,
                                   scheme.isSignedStorage(), signlessStorage);
        data = tensor::CollapseShapeOp::create(rewriter, loc, logical, codes,
                                               splitInnermost(qType.getRank()));
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

/// quant_block.repack: the input's parts untiled if they are tiled, then
/// tiled if the result is.
struct RepackOpLowering : public OpConversionPattern<RepackOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RepackOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    QuantizedTensorType input = op.getInput().getType();
    QuantizedTensorType result = op.getResult().getType();
    SmallVector<Value> parts = llvm::to_vector(adaptor.getInput());
    if (input.getScheme().isRowTiled())
      parts = untileLoweredParts(rewriter, loc, input, parts);
    if (result.getScheme().isRowTiled())
      parts = tileLoweredParts(rewriter, loc, result, parts);
    rewriter.replaceOpWithMultiple(op, {parts});
    return success();
  }
};

/// builtin.unrealized_conversion_cast between a quantized tensor and
/// exactly its lowered parts (docs/Packing.md, "Lowered tensors"), either
/// way: how a caller that passes or receives the lowered parts states it
/// in IR that verifies before the lowering. The lowering makes it the
/// identity; a cast to any other types is left for the driver to report.
struct LoweredPartsCastLowering
    : public OpConversionPattern<UnrealizedConversionCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnrealizedConversionCastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    for (ValueRange operand : adaptor.getOperands())
      llvm::append_range(inputs, operand);
    SmallVector<Type> resultTypes;
    if (failed(
            getTypeConverter()->convertTypes(op.getResultTypes(), resultTypes)))
      return rewriter.notifyMatchFailure(op, "unconvertible result types");
    if (TypeRange(ValueRange(inputs)) != TypeRange(resultTypes))
      return rewriter.notifyMatchFailure(
          op, "not a cast between a quantized tensor and its lowered parts");
    SmallVector<SmallVector<Value>> replacements;
    size_t next = 0;
    for (Type type : op.getResultTypes()) {
      SmallVector<Type> lowered;
      if (failed(getTypeConverter()->convertType(type, lowered)))
        return failure();
      replacements.emplace_back(ArrayRef(inputs).slice(next, lowered.size()));
      next += lowered.size();
    }
    rewriter.replaceOpWithMultiple(op, std::move(replacements));
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populatePackPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<PackOpLowering, UnpackOpLowering, RepackOpLowering,
               LoweredPartsCastLowering>(converter, patterns.getContext());
}
