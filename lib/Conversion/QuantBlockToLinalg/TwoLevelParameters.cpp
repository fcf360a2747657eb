//===- TwoLevelParameters.cpp - folding second-level scales ---------------===//
//
// See TwoLevelParameters.h. The generic that computes the effective
// parameters iterates over the scale tensor; an outer block that divides its
// dimension splits that dimension in two, so the outer parameters are read
// through a projected permutation (vectorizable), and only a ragged outer
// block falls back to a floordiv map.
//
//===----------------------------------------------------------------------===//

#include "TwoLevelParameters.h"
#include "BlockIterationSpace.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Numerics/BlockMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

bool mlir::quant_block::detail::hasTwoLevelBlockParameters(SchemeAttr scheme) {
  OuterScaleAttr outer = scheme.getOuter();
  return outer && (!outer.getBlockShape().empty() || outer.getMinType() ||
                   isa<IntegerType>(scheme.getScaleType()));
}

/// A block parameter of (scheme) type `type`, read from the signless lowered
/// tensor, converted exactly to f32.
static Value parameterToF32(OpBuilder &b, Location loc, Value value,
                            Type type) {
  if (auto intType = dyn_cast<IntegerType>(type)) {
    Value wide = extendInteger(b, loc, value, b.getI32Type(),
                               /*isSigned=*/!intType.isUnsigned());
    return arith::SIToFPOp::create(b, loc, b.getF32Type(), wide);
  }
  return emitScaleToF32(b, loc, value);
}

void mlir::quant_block::detail::foldTwoLevelBlockParameters(
    OpBuilder &b, Location loc, QuantizedTensorType &type,
    SmallVectorImpl<Value> &parts) {
  SchemeAttr scheme = type.getScheme();
  if (!hasTwoLevelBlockParameters(scheme))
    return;
  MLIRContext *ctx = b.getContext();
  OuterScaleAttr outer = scheme.getOuter();
  Type zeroPointType = scheme.getZeroPointType();
  bool hasMin = static_cast<bool>(outer.getMinType());
  unsigned next = 1;
  Value scales = parts[next++];
  Value zeroPoints = zeroPointType ? parts[next++] : Value();
  Value outerScales = parts[next++];
  Value outerMins = hasMin ? parts[next++] : Value();

  // The iteration space: the scale tensor, each dimension that a static outer
  // block divides split into (outer index, index within the outer block). A
  // static dimension that ends in a ragged outer block is padded to whole
  // outer blocks first (the padding's results are sliced off), so that no
  // map needs a division: the vectorizer refuses those, and tiling slices
  // them wrongly.
  Value givenScales = scales;
  auto scalesType = cast<RankedTensorType>(scales.getType());
  ArrayRef<int64_t> scaleShape = scalesType.getShape();
  SmallVector<int64_t> outerBlock = ::quant_block::numerics::resolveBlockShape(
      outer.getBlockShape(), scaleShape);
  SmallVector<int64_t> paddedShape(scaleShape);
  SmallVector<int64_t> iterShape;
  SmallVector<ReassociationIndices> groups;
  SmallVector<AffineExpr> outerExprs;
  for (auto [d, size, block] : llvm::enumerate(scaleShape, outerBlock)) {
    unsigned first = iterShape.size();
    AffineExpr dim = getAffineDimExpr(first, ctx);
    bool isStatic =
        !ShapedType::isDynamic(size) && !ShapedType::isDynamic(block);
    if (block == 1) {
      iterShape.push_back(size);
      groups.push_back({first});
      outerExprs.push_back(dim);
    } else if (isStatic && size >= block) {
      paddedShape[d] = (size + block - 1) / block * block;
      iterShape.append({paddedShape[d] / block, block});
      groups.push_back({first, first + 1});
      outerExprs.push_back(dim);
    } else {
      iterShape.push_back(size);
      groups.push_back({first});
      // A block covering the whole (possibly dynamic) dimension has a single
      // outer parameter; only a dynamic dimension with a static outer block
      // is indexed by division.
      bool whole = ShapedType::isDynamic(block) || isStatic;
      outerExprs.push_back(whole ? getAffineConstantExpr(0, ctx)
                                 : dim.floorDiv(block));
    }
  }
  bool padded = ArrayRef<int64_t>(paddedShape) != scaleShape;
  auto padToWholeOuterBlocks = [&](Value value) -> Value {
    if (!padded)
      return value;
    auto type = cast<RankedTensorType>(value.getType());
    Value zero = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(type.getElementType())));
    return tensor::createPadHighOp(type.clone(paddedShape), value, zero,
                                   /*nofold=*/false, loc, b);
  };
  scales = padToWholeOuterBlocks(scales);
  if (hasMin)
    zeroPoints = padToWholeOuterBlocks(zeroPoints);
  unsigned numDims = iterShape.size();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(numDims, ctx);
  AffineMap outerMap = AffineMap::get(numDims, 0, outerExprs, ctx);

  Type f32 = b.getF32Type();
  SmallVector<Value> inputs = {expandTo(b, loc, scales, groups, iterShape),
                               outerScales};
  SmallVector<AffineMap> maps = {identity, outerMap};
  SmallVector<Value> inits = {
      createEmptyLike(b, loc, iterShape, f32, scales, groups)};
  if (hasMin) {
    inputs.append({expandTo(b, loc, zeroPoints, groups, iterShape), outerMins});
    maps.append({identity, outerMap});
    inits.push_back(createEmptyLike(b, loc, iterShape, f32, scales, groups));
  }
  maps.append(inits.size(), identity);
  SmallVector<utils::IteratorType> iterators(numDims,
                                             utils::IteratorType::parallel);
  Type scaleType = scheme.getScaleType();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(ValueRange(inits)), inputs, inits, maps, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        // One statement per op: the order in which function arguments are
        // evaluated is unspecified, and the IR must not depend on the
        // compiler that built us.
        Value outerScale = convertFloat(b, loc, args[1], f32);
        Value scale = parameterToF32(b, loc, args[0], scaleType);
        SmallVector<Value> results = {
            arith::MulFOp::create(b, loc, scale, outerScale)};
        if (hasMin) {
          Value outerMin = convertFloat(b, loc, args[3], f32);
          Value min = parameterToF32(b, loc, args[2], zeroPointType);
          results.push_back(arith::MulFOp::create(b, loc, min, outerMin));
        }
        linalg::YieldOp::create(b, loc, results);
      });

  auto flatType = RankedTensorType::get(paddedShape, f32);
  auto flatten = [&](Value result) -> Value {
    Value flat = collapseTo(b, loc, result, groups, flatType);
    if (!padded)
      return flat;
    SmallVector<OpFoldResult> offsets(scaleShape.size(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(scaleShape.size(), b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(scaleShape, f32), flat, offsets,
        tensor::getMixedSizes(b, loc, givenScales), strides);
  };
  SmallVector<Value> flatParts = {parts[0], flatten(generic.getResult(0))};
  if (hasMin)
    flatParts.push_back(flatten(generic.getResult(1)));
  else if (zeroPoints)
    flatParts.push_back(zeroPoints);
  parts.assign(flatParts.begin(), flatParts.end());

  SchemeAttr flat =
      SchemeAttr::get(ctx, scheme.getStorageType(), scheme.getExpressedType(),
                      scheme.getBlockShape(), f32, hasMin ? f32 : zeroPointType,
                      scheme.getQmin(), scheme.getQmax(), scheme.getRounding(),
                      scheme.getSaturate(), scheme.getScaleRounding(),
                      OuterScaleAttr(), scheme.getRowTile());
  type = type.clone(type.getShape(), flat);
}
