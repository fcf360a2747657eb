//===- MatmulLowering.cpp - quant_block.matmul to linalg ------------------===//
//
// A float-accumulating matmul is one linalg.generic contraction that
// dequantizes the weight inside its body: its iteration space is the lhs
// batch and m dimensions followed by the weight's block iteration space (k
// and n split into blocks, packing groups and lanes), the lhs is viewed with
// its k dimension split the same way, and the weight's packed bytes, scales
// and zero points are read through projected permutations. The dequantized
// weight is never materialized, and the vectorizer still accepts the generic.
// Both sides are extended to the accumulator type, products summed over k in
// order from +0.0, and the sum rounded once to the expressed type.
// The op's fast-math flags go on the multiplications and additions of the
// float sum (`contract` lets LLVM fuse them). With `reassoc`, the k positions
// within a block (the k dimensions after the block index) become parallel
// dimensions of partial sums, each summed over the blocks in order, and a
// second generic adds the partial sums: the contraction then vectorizes along
// k with contiguous loads, and the split is fixed by the weight's block shape
// (never by the thread count).
// A weight layout the block space cannot express (ragged or dynamic blocks
// along k) falls back to a separate dequantize, with the same numerics. A
// quantized lhs (dynamic activation quantization, float accumulation) is
// dequantized first: activations are small next to weights.
// `propagate` requantizes the result with quantize_dynamic, the method
// chosen by the result's scheme.
//
//===----------------------------------------------------------------------===//

#include "BlockDequantizer.h"
#include "BlockIterationSpace.h"
#include "Patterns.h"
#include "TwoLevelParameters.h"
#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

static Value dequantizeIfQuantized(OpBuilder &b, Location loc, Value value) {
  auto quantized = dyn_cast<QuantizedTensorType>(value.getType());
  if (!quantized)
    return value;
  return DequantizeOp::create(b, loc, quantized.getExpressedTensorType(),
                              value);
}

static Value extendTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return arith::ExtFOp::create(b, loc, type, value);
}

/// `acc + l * r` with the op's fast-math flags on both operations.
static Value emitMultiplyAdd(OpBuilder &b, Location loc, Value acc, Value l,
                             Value r, arith::FastMathFlags flags) {
  Value product = arith::MulFOp::create(b, loc, l, r, flags);
  return arith::AddFOp::create(b, loc, acc, product, flags);
}

/// `acc + l * r` for the f32 sum over the blocks of an i32 product: with
/// `contract`, one math.fma (llvm.fma: rounded once on every host, as the
/// CPU kernels compute it; a mulf and an addf with `contract` would be
/// fused or not depending on the host's FMA), else as emitMultiplyAdd.
static Value emitBlockTermAdd(OpBuilder &b, Location loc, Value acc, Value l,
                              Value r, arith::FastMathFlags flags) {
  if (arith::bitEnumContainsAll(flags, arith::FastMathFlags::contract))
    return math::FmaOp::create(b, loc, l, r, acc);
  return emitMultiplyAdd(b, loc, acc, l, r, flags);
}

static bool hasReassoc(arith::FastMathFlags flags) {
  return arith::bitEnumContainsAll(flags, arith::FastMathFlags::reassoc);
}

/// Sums the trailing `numPartialDims` dimensions of `partial` (from +0.0,
/// with `flags`): the partial sums of a reassociated contraction.
static Value sumPartials(OpBuilder &b, Location loc, Value partial,
                         unsigned numPartialDims, arith::FastMathFlags flags) {
  auto partialType = cast<RankedTensorType>(partial.getType());
  unsigned rank = partialType.getRank();
  unsigned outRank = rank - numPartialDims;
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes;
  for (unsigned d = 0; d < outRank; ++d)
    sizes.push_back(tensor::getMixedSize(b, loc, partial, d));
  Type element = partialType.getElementType();
  Value init = tensor::EmptyOp::create(b, loc, sizes, element);
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0));
  init = linalg::FillOp::create(b, loc, zero, init).getResult(0);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps = {identity, identity.getMajorSubMap(outRank)};
  SmallVector<utils::IteratorType> iterators(outRank,
                                             utils::IteratorType::parallel);
  iterators.append(numPartialDims, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), partial, init, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value sum =
                   arith::AddFOp::create(nb, nloc, args[1], args[0], flags);
               linalg::YieldOp::create(nb, nloc, sum);
             })
      .getResult(0);
}

/// The contraction with the weight dequantized in the body, or a null value
/// when the weight's layout has no block iteration space the contraction can
/// share (then the caller dequantizes separately).
static Value buildFusedContraction(OpBuilder &b, Location loc, MatmulOp op,
                                   Value lhs, ValueRange weightParts,
                                   FloatType acc) {
  QuantizedTensorType weightType = op.getRhs().getType();
  std::string whyNot;
  std::optional<BlockIterationSpace> space =
      BlockIterationSpace::get(weightType, whyNot);
  if (!space)
    return {};
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t rank = lhsType.getRank();
  int64_t weightRank = weightType.getRank();
  int64_t kDim = op.getTransposeRhs() ? weightRank - 1 : weightRank - 2;
  int64_t nDim = op.getTransposeRhs() ? weightRank - 2 : weightRank - 1;
  // Batch dimensions of a batched weight must not be blocked: they are
  // shared with the lhs one to one.
  for (int64_t d = 0; d < weightRank - 2; ++d)
    if (space->elementGroups[d].size() != 1)
      return {};
  // The lhs k dimension is split like the weight's, which needs a static k.
  ArrayRef<int64_t> spaceShape = space->iterShape;
  const ReassociationIndices &kGroup = space->elementGroups[kDim];
  const ReassociationIndices &nGroup = space->elementGroups[nDim];
  if (kGroup.size() > 1 && lhsType.isDynamicDim(rank - 1))
    return {};

  // Generic dimensions: lhs batch..., m, then every block space dimension
  // (the weight's batch dimensions are the lhs's, not new ones).
  MLIRContext *ctx = b.getContext();
  unsigned numBatch = rank - 2;
  unsigned m = numBatch;
  SmallVector<unsigned> dimMap(space->getNumDims());
  unsigned next = m + 1;
  for (int64_t d = 0; d < weightRank; ++d) {
    for (int64_t spaceDim : space->elementGroups[d]) {
      if (d < weightRank - 2)
        dimMap[spaceDim] = numBatch - (weightRank - 2) + d;
      else
        dimMap[spaceDim] = next++;
    }
  }
  unsigned numDims = next;
  auto dimExpr = [&](unsigned d) { return getAffineDimExpr(d, ctx); };

  // lhs viewed as [batch..., m, k split like the weight's k].
  SmallVector<ReassociationIndices> lhsGroups;
  SmallVector<int64_t> lhsShape;
  SmallVector<AffineExpr> lhsExprs, outExprs;
  for (unsigned d = 0; d <= m; ++d) {
    lhsGroups.push_back({static_cast<int64_t>(lhsShape.size())});
    lhsShape.push_back(lhsType.getDimSize(d));
    lhsExprs.push_back(dimExpr(d));
    outExprs.push_back(dimExpr(d));
  }
  ReassociationIndices lhsKGroup;
  for (int64_t spaceDim : kGroup) {
    lhsKGroup.push_back(lhsShape.size());
    lhsShape.push_back(kGroup.size() == 1 ? lhsType.getDimSize(rank - 1)
                                          : spaceShape[spaceDim]);
    lhsExprs.push_back(dimExpr(dimMap[spaceDim]));
  }
  lhsGroups.push_back(lhsKGroup);
  Value lhsView = expandTo(b, loc, lhs, lhsGroups, lhsShape);

  // Output [batch..., m, n split like the weight's n], from +0.0.
  SmallVector<OpFoldResult> outSizes;
  for (unsigned d = 0; d <= m; ++d)
    outSizes.push_back(tensor::getMixedSize(b, loc, lhs, d));
  SmallVector<ReassociationIndices> outGroups;
  for (unsigned d = 0; d <= m; ++d)
    outGroups.push_back({static_cast<int64_t>(d)});
  ReassociationIndices outNGroup;
  for (int64_t spaceDim : nGroup) {
    outNGroup.push_back(outSizes.size());
    int64_t size = spaceShape[spaceDim];
    if (ShapedType::isDynamic(size))
      outSizes.push_back(tensor::getMixedSize(b, loc, weightParts[0], nDim));
    else
      outSizes.push_back(b.getIndexAttr(size));
    outExprs.push_back(dimExpr(dimMap[spaceDim]));
  }
  outGroups.push_back(outNGroup);
  // With reassoc, the k dimensions within a block hold partial sums.
  arith::FastMathFlags flags = op.getFastmath();
  SmallVector<int64_t> partialDims;
  if (hasReassoc(flags))
    for (int64_t spaceDim : ArrayRef<int64_t>(kGroup).drop_front())
      partialDims.push_back(spaceDim);
  SmallVector<OpFoldResult> partialSizes(outSizes);
  for (int64_t spaceDim : partialDims) {
    partialSizes.push_back(b.getIndexAttr(spaceShape[spaceDim]));
    outExprs.push_back(dimExpr(dimMap[spaceDim]));
  }
  Value init = tensor::EmptyOp::create(b, loc, partialSizes, acc);
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(acc, 0));
  init = linalg::FillOp::create(b, loc, zero, init).getResult(0);

  SmallVector<Value> flatWeightParts = llvm::to_vector(weightParts);
  foldTwoLevelBlockParameters(b, loc, weightType, flatWeightParts);
  BlockDequantizer weight(b, loc, weightType, *space, flatWeightParts);
  SmallVector<Value> inputs = {lhsView};
  llvm::append_range(inputs, weight.getInputs());
  SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, lhsExprs, ctx)};
  llvm::append_range(maps, weight.getMaps(ctx, dimMap, numDims));
  maps.push_back(AffineMap::get(numDims, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators(numDims,
                                             utils::IteratorType::parallel);
  for (int64_t spaceDim : kGroup)
    iterators[dimMap[spaceDim]] = utils::IteratorType::reduction;
  for (int64_t spaceDim : partialDims)
    iterators[dimMap[spaceDim]] = utils::IteratorType::parallel;

  size_t numWeightInputs = weight.getInputs().size();
  Value product =
      linalg::GenericOp::create(
          b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value w =
                weight.emit(nb, nloc, args.slice(1, numWeightInputs), dimMap);
            Value l = extendTo(nb, nloc, args[0], acc);
            Value r = extendTo(nb, nloc, w, acc);
            linalg::YieldOp::create(
                nb, nloc, emitMultiplyAdd(nb, nloc, args.back(), l, r, flags));
          })
          .getResult(0);
  if (!partialDims.empty())
    product = sumPartials(b, loc, product, partialDims.size(), flags);
  SmallVector<int64_t> resultShape(lhsType.getShape().drop_back());
  resultShape.push_back(weightType.getShape()[nDim]);
  return collapseTo(b, loc, product, outGroups,
                    RankedTensorType::get(resultShape, acc));
}

std::optional<std::string>
mlir::quant_block::getIntegerMatmulUnsupportedReason(QuantizedTensorType lhs,
                                                     QuantizedTensorType rhs) {
  SchemeAttr lhsScheme = lhs.getScheme();
  std::string whyNot;
  // Sub-byte activation codes are unpacked in their own block space.
  if (lhsScheme.getStorageBitWidth() < 8 &&
      !BlockIterationSpace::get(lhs, whyNot))
    return "i32 accumulation with a sub-byte lhs: " + whyNot;
  if (lhsScheme.getOuter())
    return std::string("i32 accumulation with an outer scale on the lhs is "
                       "not lowered");
  // The activation scales are read per row and K block: blocks of the lhs
  // that span several rows (or batch entries) would need another map.
  ArrayRef<int64_t> lhsShape = lhs.getShape();
  SmallVector<int64_t> lhsBlock = lhs.getEffectiveBlockShape();
  for (int64_t d = 0; d + 1 < lhs.getRank(); ++d)
    if (lhsBlock[d] != 1 && lhsShape[d] != 1)
      return std::string("i32 accumulation with lhs blocks that span several "
                         "rows is not lowered (quantize activations per row)");
  // The weight's outer scales (per tensor, as NVFP4's, or blocked over
  // integer block scales, as GGUF K-quants') multiply its block scales, as
  // dequantize does; outer mins make float zero points, which the verifier
  // refuses for i32 accumulation.
  std::optional<BlockIterationSpace> space =
      BlockIterationSpace::get(rhs, whyNot);
  if (!space)
    return "i32 accumulation: " + whyNot;
  int64_t weightRank = rhs.getRank();
  for (int64_t d = 0; d < weightRank - 2; ++d)
    if (space->elementGroups[d].size() != 1)
      return std::string("i32 accumulation with blocks along batch "
                         "dimensions is not lowered");
  if (ShapedType::isDynamic(lhsShape.back()))
    return std::string("i32 accumulation needs a static contraction size");
  return std::nullopt;
}

std::optional<std::string>
mlir::quant_block::detail::getIntegerMatmulUnsupportedReason(MatmulOp op) {
  return quant_block::getIntegerMatmulUnsupportedReason(
      cast<QuantizedTensorType>(op.getLhs().getType()), op.getRhs().getType());
}

/// The codes of a sub-byte quantized tensor minus their zero points, as an
/// i32 tensor of its shape: one generic over its block space, which unpacks
/// the codes as dequantize does.
static Value unpackCenteredCodes(OpBuilder &b, Location loc,
                                 QuantizedTensorType type, ValueRange parts) {
  std::string whyNot;
  BlockIterationSpace space = *BlockIterationSpace::get(type, whyNot);
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  Value init = createEmptyLike(b, loc, space.getElementShape(), i32, parts[0],
                               space.elementGroups);
  BlockDequantizer codes(b, loc, type, space, parts);
  SmallVector<AffineMap> maps = codes.getMaps(ctx);
  maps.push_back(space.getElementMap(ctx));
  SmallVector<utils::IteratorType> iterators(space.getNumDims(),
                                             utils::IteratorType::parallel);
  Value centered =
      linalg::GenericOp::create(
          b, loc, init.getType(), codes.getInputs(), ValueRange{init}, maps,
          iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(
                nb, nloc, codes.emitCenteredCode(nb, nloc, args.drop_back()));
          })
          .getResult(0);
  return collapseTo(b, loc, centered, space.elementGroups,
                    RankedTensorType::get(type.getShape(), i32));
}

/// The i32-accumulating product (docs/Numerics.md): per K-block, the sum of
/// centered code products in i32 (E2M1 weight codes as twice their value,
/// the sum halved); then, over the blocks in order from +0.0,
/// the f32 sum of each block sum times the product of both block scales.
/// Two generics: the block sums (batch..., m, n..., kb) and their scaling.
static Value buildIntegerContraction(OpBuilder &b, Location loc, MatmulOp op,
                                     ValueRange lhsParts,
                                     ValueRange weightParts) {
  auto lhsType = cast<QuantizedTensorType>(op.getLhs().getType());
  QuantizedTensorType weightType = op.getRhs().getType();
  std::string whyNot;
  BlockIterationSpace space = *BlockIterationSpace::get(weightType, whyNot);
  MLIRContext *ctx = b.getContext();
  int64_t rank = lhsType.getRank();
  int64_t weightRank = weightType.getRank();
  int64_t kDim = op.getTransposeRhs() ? weightRank - 1 : weightRank - 2;
  int64_t nDim = op.getTransposeRhs() ? weightRank - 2 : weightRank - 1;
  const ReassociationIndices &kGroup = space.elementGroups[kDim];
  const ReassociationIndices &nGroup = space.elementGroups[nDim];
  unsigned numBatch = rank - 2, m = numBatch;
  SmallVector<unsigned> dimMap(space.getNumDims());
  unsigned next = m + 1;
  for (int64_t d = 0; d < weightRank; ++d)
    for (int64_t spaceDim : space.elementGroups[d])
      dimMap[spaceDim] =
          d < weightRank - 2 ? numBatch - (weightRank - 2) + d : next++;
  unsigned numDims = next;
  unsigned kb = dimMap[kGroup[0]];
  auto dimExpr = [&](unsigned d) { return getAffineDimExpr(d, ctx); };

  // The lhs codes viewed with k split like the weight's; its scales and zero
  // points are indexed by (batch..., m, kb). Sub-byte codes (4-bit
  // activations) are unpacked first, their zero points subtracted: the
  // activations are small (M x K).
  SchemeAttr lhsScheme = lhsType.getScheme();
  bool lhsUnpacked = lhsScheme.getStorageBitWidth() < 8;
  Value lhsData = lhsUnpacked ? unpackCenteredCodes(b, loc, lhsType, lhsParts)
                              : lhsParts[0];
  auto lhsDataType = cast<RankedTensorType>(lhsData.getType());
  SmallVector<ReassociationIndices> lhsGroups;
  SmallVector<int64_t> lhsShape;
  SmallVector<AffineExpr> lhsExprs, paramExprs, sumExprs, outExprs;
  for (unsigned d = 0; d <= m; ++d) {
    lhsGroups.push_back({static_cast<int64_t>(lhsShape.size())});
    lhsShape.push_back(lhsDataType.getDimSize(d));
    lhsExprs.push_back(dimExpr(d));
    paramExprs.push_back(dimExpr(d));
    sumExprs.push_back(dimExpr(d));
  }
  ReassociationIndices lhsKGroup;
  for (int64_t spaceDim : kGroup) {
    lhsKGroup.push_back(lhsShape.size());
    lhsShape.push_back(space.iterShape[spaceDim]);
    lhsExprs.push_back(dimExpr(dimMap[spaceDim]));
  }
  lhsGroups.push_back(lhsKGroup);
  paramExprs.push_back(dimExpr(kb));
  Value lhsView = expandTo(b, loc, lhsData, lhsGroups, lhsShape);
  bool lhsHasZeroPoints =
      !lhsUnpacked && static_cast<bool>(lhsScheme.getZeroPointType());

  // Block sums: [batch..., m, n split like the weight's, kb] x i32.
  SmallVector<OpFoldResult> sumSizes;
  for (unsigned d = 0; d <= m; ++d)
    sumSizes.push_back(tensor::getMixedSize(b, loc, lhsData, d));
  SmallVector<ReassociationIndices> outGroups;
  for (unsigned d = 0; d <= m; ++d)
    outGroups.push_back({static_cast<int64_t>(d)});
  ReassociationIndices outNGroup;
  for (int64_t spaceDim : nGroup) {
    outNGroup.push_back(sumSizes.size());
    int64_t size = space.iterShape[spaceDim];
    sumSizes.push_back(ShapedType::isDynamic(size)
                           ? tensor::getMixedSize(b, loc, weightParts[0], nDim)
                           : OpFoldResult(b.getIndexAttr(size)));
    sumExprs.push_back(dimExpr(dimMap[spaceDim]));
    outExprs.push_back(dimExpr(dimMap[spaceDim]));
  }
  outGroups.push_back(outNGroup);
  SmallVector<OpFoldResult> outSizes(sumSizes);
  sumSizes.push_back(b.getIndexAttr(space.iterShape[kGroup[0]]));
  sumExprs.push_back(dimExpr(kb));

  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value sumInit = tensor::EmptyOp::create(b, loc, sumSizes, i32);
  Value zero32 = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  sumInit = linalg::FillOp::create(b, loc, zero32, sumInit).getResult(0);

  // Integer block scales and blocked outer scales become effective f32
  // block scales first, as dequantize computes them.
  SmallVector<Value> flatWeightParts = llvm::to_vector(weightParts);
  foldTwoLevelBlockParameters(b, loc, weightType, flatWeightParts);
  // Mins (float zero points once folded: Q4_1, Q4_K): the weight codes are
  // summed as they are, and each block adds the activation codes' block sum
  // times the min (docs/Numerics.md).
  Value weightMins;
  QuantizedTensorType codesType = weightType;
  if (SchemeAttr flat = weightType.getScheme();
      flat.getZeroPointDomain() == ZeroPointDomain::Float) {
    weightMins = flatWeightParts[2];
    flatWeightParts.erase(flatWeightParts.begin() + 2);
    codesType = weightType.clone(
        weightType.getShape(),
        SchemeAttr::get(ctx, flat.getStorageType(), flat.getExpressedType(),
                        flat.getBlockShape(), flat.getScaleType(), Type(),
                        flat.getQmin(), flat.getQmax(), flat.getRounding(),
                        flat.getSaturate(), flat.getScaleRounding(),
                        flat.getOuter(), flat.getRowTile()));
  }
  BlockDequantizer weight(b, loc, codesType, space, flatWeightParts);
  SmallVector<Value> inputs = {lhsView};
  SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, lhsExprs, ctx)};
  AffineMap lhsParamMap = AffineMap::get(numDims, 0, paramExprs, ctx);
  if (lhsHasZeroPoints) {
    inputs.push_back(lhsParts[2]);
    maps.push_back(lhsParamMap);
  }
  size_t weightFirst = inputs.size();
  llvm::append_range(inputs, weight.getInputs());
  llvm::append_range(maps, weight.getMaps(ctx, dimMap, numDims));
  maps.push_back(AffineMap::get(numDims, 0, sumExprs, ctx));
  SmallVector<utils::IteratorType> iterators(numDims,
                                             utils::IteratorType::parallel);
  for (int64_t spaceDim : ArrayRef<int64_t>(kGroup).drop_front())
    iterators[dimMap[spaceDim]] = utils::IteratorType::reduction;
  size_t numWeightInputs = weight.getInputs().size();
  bool lhsSigned = lhsScheme.isSignedStorage();
  bool lhsUnsignedZeroPoints = hasUnsignedZeroPoints(lhsScheme);
  // An activation code minus its zero point (args[1] when it has them), in
  // i32: the block sums' and the activation sums' left operand.
  auto emitCenteredLhsCode = [&](OpBuilder &nb, Location nloc,
                                 ValueRange args) -> Value {
    Value l = extendInteger(nb, nloc, args[0], i32, lhsSigned);
    if (!lhsHasZeroPoints)
      return l;
    return arith::SubIOp::create(
        nb, nloc, l,
        extendInteger(nb, nloc, args[1], i32, !lhsUnsignedZeroPoints));
  };
  Value sums =
      linalg::GenericOp::create(
          b, loc, sumInit.getType(), inputs, ValueRange{sumInit}, maps,
          iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value l = emitCenteredLhsCode(nb, nloc, args);
            Value r = weight.emitCenteredCode(
                nb, nloc, args.slice(weightFirst, numWeightInputs), dimMap);
            Value sum = arith::AddIOp::create(
                nb, nloc, args.back(), arith::MulIOp::create(nb, nloc, l, r));
            linalg::YieldOp::create(nb, nloc, sum);
          })
          .getResult(0);

  // With mins: the activation codes' block sums [batch..., m, kb] (the
  // lhs view's dimensions, reduced over those of k after kb).
  Value activationSums;
  if (weightMins) {
    unsigned numLhsDims = lhsShape.size();
    SmallVector<AffineExpr> lhsSumExprs;
    for (unsigned d = 0; d <= m + 1; ++d)
      lhsSumExprs.push_back(dimExpr(d));
    AffineMap lhsSumMap = AffineMap::get(numLhsDims, 0, lhsSumExprs, ctx);
    SmallVector<OpFoldResult> lhsSumSizes(sumSizes.begin(),
                                          sumSizes.begin() + m + 1);
    lhsSumSizes.push_back(b.getIndexAttr(space.iterShape[kGroup[0]]));
    Value init = tensor::EmptyOp::create(b, loc, lhsSumSizes, i32);
    init = linalg::FillOp::create(b, loc, zero32, init).getResult(0);
    SmallVector<Value> lhsInputs = {lhsView};
    SmallVector<AffineMap> lhsMaps = {
        AffineMap::getMultiDimIdentityMap(numLhsDims, ctx)};
    if (lhsHasZeroPoints) {
      lhsInputs.push_back(lhsParts[2]);
      lhsMaps.push_back(lhsSumMap);
    }
    lhsMaps.push_back(lhsSumMap);
    SmallVector<utils::IteratorType> lhsIterators(
        numLhsDims, utils::IteratorType::reduction);
    for (unsigned d = 0; d <= m + 1; ++d)
      lhsIterators[d] = utils::IteratorType::parallel;
    activationSums = linalg::GenericOp::create(
                         b, loc, init.getType(), lhsInputs, ValueRange{init},
                         lhsMaps, lhsIterators,
                         [&](OpBuilder &nb, Location nloc, ValueRange args) {
                           Value l = emitCenteredLhsCode(nb, nloc, args);
                           Value sum =
                               arith::AddIOp::create(nb, nloc, args.back(), l);
                           linalg::YieldOp::create(nb, nloc, sum);
                         })
                         .getResult(0);
  }

  // Scaling: out[batch..., m, n...] = sum over kb of
  // f32(sums) * (f32(lhs scale) * f32(weight scale)), from +0.0; with
  // mins, each block then adds f32(activation sums) * (f32(lhs scale) *
  // min).
  SmallVector<unsigned> scaleDims;
  SmallVector<AffineExpr> scaleDimExprs(numDims, getAffineConstantExpr(0, ctx));
  unsigned numScaleDims = 0;
  for (unsigned d = 0; d <= m; ++d)
    scaleDimExprs[d] = dimExpr(numScaleDims++);
  for (int64_t spaceDim : nGroup)
    scaleDimExprs[dimMap[spaceDim]] = dimExpr(numScaleDims++);
  unsigned kbScaleDim = numScaleDims++;
  scaleDimExprs[kb] = dimExpr(kbScaleDim);
  auto toScaleSpace = [&](AffineMap map) {
    return map.replaceDimsAndSymbols(scaleDimExprs, {}, numScaleDims, 0);
  };
  bool twiceWeightValues =
      isa<Float4E2M1FNType>(weightType.getScheme().getStorageType());
  Value outInit = tensor::EmptyOp::create(b, loc, outSizes, f32);
  Value zeroF = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  outInit = linalg::FillOp::create(b, loc, zeroF, outInit).getResult(0);
  AffineMap sumMap = toScaleSpace(AffineMap::get(numDims, 0, sumExprs, ctx));
  SmallVector<AffineMap> scaleMaps = {
      sumMap, toScaleSpace(lhsParamMap),
      toScaleSpace(weight.getScaleMap(ctx, dimMap, numDims))};
  SmallVector<Value> scaleInputs = {sums, lhsParts[1], flatWeightParts[1]};
  if (weightMins) {
    scaleInputs.append({activationSums, weightMins});
    scaleMaps.append({toScaleSpace(lhsParamMap), scaleMaps.back()});
  }
  scaleMaps.push_back(sumMap.dropResult(sumMap.getNumResults() - 1));
  // With mins, a last reduction dimension of 2 picks the block's term (0)
  // or its min term (1): one add of the accumulator per iteration, in the
  // contract's order, which the vectorizer recognizes as a reduction (two
  // chained adds it does not).
  unsigned termDim = numScaleDims;
  if (weightMins) {
    for (AffineMap &map : scaleMaps)
      map = AffineMap::get(numScaleDims + 1, 0, map.getResults(), ctx);
    // Which term: [0, 1] along the term dimension (an operand, so that the
    // dimension has a size; i32, as i1 tensors are bit-packed in vectors).
    auto termType = RankedTensorType::get({2}, i32);
    scaleInputs.push_back(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(termType, ArrayRef<int32_t>{0, 1})));
    scaleMaps.insert(scaleMaps.end() - 1,
                     AffineMap::get(numScaleDims + 1, 0,
                                    {getAffineDimExpr(termDim, ctx)}, ctx));
  }
  SmallVector<utils::IteratorType> scaleIterators(
      numScaleDims + (weightMins ? 1 : 0), utils::IteratorType::parallel);
  scaleIterators[kbScaleDim] = utils::IteratorType::reduction;
  if (weightMins)
    scaleIterators[termDim] = utils::IteratorType::reduction;
  Value product =
      linalg::GenericOp::create(
          b, loc, outInit.getType(), scaleInputs, ValueRange{outInit},
          scaleMaps, scaleIterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value sum = quant_block::detail::emitBlockSumToF32(
                nb, nloc, args[0], twiceWeightValues);
            // The weight's effective block scale: times the outer scale,
            // rounded once, as dequantize computes it.
            Value weightScale = emitScaleToF32(nb, nloc, args[2]);
            if (Value outer = weight.getOuterScale())
              weightScale = arith::MulFOp::create(nb, nloc, weightScale, outer);
            Value lhsScale = emitScaleToF32(nb, nloc, args[1]);
            Value scale =
                arith::MulFOp::create(nb, nloc, lhsScale, weightScale);
            if (weightMins) {
              Value activationSum =
                  arith::SIToFPOp::create(nb, nloc, nb.getF32Type(), args[3]);
              Value minScale = arith::MulFOp::create(
                  nb, nloc, lhsScale,
                  convertFloat(nb, nloc, args[4], nb.getF32Type()));
              Value isMinTerm = arith::CmpIOp::create(
                  nb, nloc, arith::CmpIPredicate::ne, args[5],
                  arith::ConstantOp::create(nb, nloc, nb.getI32IntegerAttr(0)));
              sum = arith::SelectOp::create(nb, nloc, isMinTerm, activationSum,
                                            sum);
              scale =
                  arith::SelectOp::create(nb, nloc, isMinTerm, minScale, scale);
            }
            Value acc = emitBlockTermAdd(nb, nloc, args.back(), sum, scale,
                                         op.getFastmath());
            linalg::YieldOp::create(nb, nloc, acc);
          })
          .getResult(0);
  SmallVector<int64_t> resultShape(lhsType.getShape().drop_back());
  resultShape.push_back(weightType.getShape()[nDim]);
  return collapseTo(b, loc, product, outGroups,
                    RankedTensorType::get(resultShape, f32));
}

namespace {

struct MatmulOpLowering : public OpConversionPattern<MatmulOp> {
  MatmulOpLowering(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context) {
    // A product of a row-tiled weight becomes one of a row-major weight.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(MatmulOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A row-tiled weight (one the CPU kernels did not take): the same
    // product of the weight repacked row-major, lowered next.
    QuantizedTensorType weightType = op.getRhs().getType();
    if (weightType.getScheme().isRowTiled()) {
      Value rowMajor = RepackOp::create(
          rewriter, loc,
          weightType.clone(weightType.getShape(),
                           weightType.getScheme().withRowTile(0)),
          op.getRhs());
      rewriter.replaceOp(op, MatmulOp::create(rewriter, loc, op.getType(),
                                              ValueRange{op.getLhs(), rowMajor},
                                              op->getAttrs()));
      return success();
    }
    auto acc = dyn_cast<FloatType>(op.getAccumulatorType());
    if (!acc) {
      if (getIntegerMatmulUnsupportedReason(op))
        return rewriter.notifyMatchFailure(op, "unsupported i32 matmul");
      Value product = buildIntegerContraction(
          rewriter, loc, op, adaptor.getLhs(), adaptor.getRhs());
      return finish(op, product, rewriter);
    }
    Value lhs = castToWeightDepth(
        rewriter, loc, op, dequantizeIfQuantized(rewriter, loc, op.getLhs()));
    Value product =
        buildFusedContraction(rewriter, loc, op, lhs, adaptor.getRhs(), acc);
    if (!product)
      product = buildSeparateContraction(rewriter, loc, op, lhs, acc);
    return finish(op, product, rewriter);
  }

  /// The weight dequantized into its own tensor, then contracted.
  static Value buildSeparateContraction(ConversionPatternRewriter &rewriter,
                                        Location loc, MatmulOp op, Value lhs,
                                        FloatType acc) {
    MLIRContext *ctx = rewriter.getContext();
    Value rhs = dequantizeIfQuantized(rewriter, loc, op.getRhs());
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t rank = lhsType.getRank();
    bool batchedRhs = rhsType.getRank() == rank;
    bool transposed = op.getTransposeRhs();

    // Iteration space: batch..., m, n, k.
    unsigned numDims = rank + 1;
    auto dim = [&](unsigned d) { return getAffineDimExpr(d, ctx); };
    unsigned m = rank - 2, n = rank - 1, k = rank;
    SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
    for (unsigned d = 0; d + 2 < unsigned(rank); ++d) {
      lhsExprs.push_back(dim(d));
      outExprs.push_back(dim(d));
      if (batchedRhs)
        rhsExprs.push_back(dim(d));
    }
    lhsExprs.append({dim(m), dim(k)});
    if (transposed)
      rhsExprs.append({dim(n), dim(k)});
    else
      rhsExprs.append({dim(k), dim(n)});
    outExprs.append({dim(m), dim(n)});
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, lhsExprs, ctx),
                                   AffineMap::get(numDims, 0, rhsExprs, ctx),
                                   AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(numDims,
                                               utils::IteratorType::parallel);
    iterators[k] = utils::IteratorType::reduction;

    // Output sizes: lhs batch and m, rhs n.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank - 1; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, lhs, d));
    int64_t nDim = transposed ? rhsType.getRank() - 2 : rhsType.getRank() - 1;
    sizes.push_back(tensor::getMixedSize(rewriter, loc, rhs, nDim));
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, acc);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getFloatAttr(acc, 0));
    init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
    Value product =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{lhs, rhs},
            ValueRange{init}, maps, iterators,
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value l = extendTo(b, loc, args[0], acc);
              Value r = extendTo(b, loc, args[1], acc);
              linalg::YieldOp::create(
                  b, loc,
                  emitMultiplyAdd(b, loc, args[2], l, r, op.getFastmath()));
            })
            .getResult(0);
    return product;
  }

  /// Rounds the sum to the expressed type and requantizes it for
  /// `propagate`.
  static LogicalResult finish(MatmulOp op, Value product,
                              ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    Type expressed = op.getRhs().getType().getScheme().getExpressedType();
    auto productType = cast<RankedTensorType>(product.getType());
    if (productType.getElementType() != expressed)
      product = arith::TruncFOp::create(rewriter, loc,
                                        productType.clone(expressed), product);
    if (op.getPropagation() == Propagation::Inhibit) {
      rewriter.replaceOp(op, product);
      return success();
    }
    auto resultType = cast<QuantizedTensorType>(op.getResult().getType());
    SchemeAttr scheme = resultType.getScheme();
    CalibrationMethod method =
        scheme.hasMXScale() ? CalibrationMethod::MX
        : scheme.getZeroPointDomain() != ZeroPointDomain::None
            ? CalibrationMethod::MinMax
            : CalibrationMethod::AbsMax;
    Value quantized =
        QuantizeDynamicOp::create(rewriter, loc, resultType, method, product);
    rewriter.replaceOp(op, quantized);
    return success();
  }
};

} // namespace

void mlir::quant_block::detail::populateMatmulPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatmulOpLowering>(converter, patterns.getContext());
}
