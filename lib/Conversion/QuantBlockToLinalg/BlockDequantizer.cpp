//===- BlockDequantizer.cpp - dequantization inside a generic -------------===//
//
// See BlockDequantizer.h. A packing group of several bytes (3-, 5-, 6- and
// 7-bit storage) is read as one input per byte and assembled into one
// integer from which each lane shifts its code, so a code that straddles two
// bytes needs no gather.
//
//===----------------------------------------------------------------------===//

#include "BlockDequantizer.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

BlockDequantizer::BlockDequantizer(OpBuilder &b, Location loc,
                                   QuantizedTensorType type,
                                   const BlockIterationSpace &space,
                                   ValueRange parts)
    : scheme(type.getScheme()), space(space) {
  SmallVector<Value> planes = space.getBytePlanes(b, loc, parts[0]);
  numPlanes = planes.size();
  inputs.append(planes.begin(), planes.end());
  inputs.push_back(parts[1]);
  hasZeroPoints = static_cast<bool>(scheme.getZeroPointType());
  if (hasZeroPoints)
    inputs.push_back(parts[2]);
  outerScale = extractOuterScale(b, loc, getOuterScalesPart(scheme, parts));
}

SmallVector<AffineMap> BlockDequantizer::getMaps(MLIRContext *ctx,
                                                 ArrayRef<unsigned> dimMap,
                                                 unsigned numDims) const {
  SmallVector<AffineExpr> dims;
  for (unsigned d : dimMap)
    dims.push_back(getAffineDimExpr(d, ctx));
  auto remap = [&](AffineMap map) {
    return map.replaceDimsAndSymbols(dims, {}, numDims, 0);
  };
  SmallVector<AffineMap> maps(numPlanes, remap(space.getPackedMap(ctx)));
  maps.push_back(remap(space.getParamMap(ctx)));
  if (hasZeroPoints)
    maps.push_back(remap(space.getParamMap(ctx)));
  return maps;
}

SmallVector<AffineMap> BlockDequantizer::getMaps(MLIRContext *ctx) const {
  SmallVector<unsigned> identity =
      llvm::to_vector(llvm::seq<unsigned>(0, space.getNumDims()));
  return getMaps(ctx, identity, space.getNumDims());
}

Value BlockDequantizer::emitCode(OpBuilder &b, Location loc, ValueRange args,
                                 ArrayRef<unsigned> dimMap) const {
  Value code = assembleGroupWord(b, loc, args.take_front(numPlanes));
  if (space.laneDim) {
    Value lane = linalg::IndexOp::create(b, loc, dimMap[*space.laneDim]);
    code = extractPackedLane(b, loc, code, lane, scheme.getStorageBitWidth(),
                             scheme.isSignedStorage());
  }
  return code;
}

Value BlockDequantizer::emitCenteredCode(OpBuilder &b, Location loc,
                                         ValueRange args,
                                         ArrayRef<unsigned> dimMap) const {
  Type i32 = b.getI32Type();
  if (isa<Float4E2M1FNType>(scheme.getStorageType()))
    return emitE2M1TwiceValue(b, loc, emitCode(b, loc, args, dimMap));
  Value code = extendInteger(b, loc, emitCode(b, loc, args, dimMap), i32,
                             scheme.isSignedStorage());
  if (!hasZeroPoints)
    return code;
  Value zeroPoint = extendInteger(b, loc, args[numPlanes + 1], i32,
                                  !hasUnsignedZeroPoints(scheme));
  return arith::SubIOp::create(b, loc, code, zeroPoint);
}

AffineMap BlockDequantizer::getScaleMap(MLIRContext *ctx,
                                        ArrayRef<unsigned> dimMap,
                                        unsigned numDims) const {
  return getMaps(ctx, dimMap, numDims)[numPlanes];
}

Value BlockDequantizer::emit(OpBuilder &b, Location loc, ValueRange args,
                             ArrayRef<unsigned> dimMap) const {
  Value code = emitCode(b, loc, args, dimMap);
  ValueRange params = args.drop_front(numPlanes);
  Value zeroPoint = hasZeroPoints ? params[1] : Value();
  return emitDequantize(b, loc, scheme, code, params[0], zeroPoint, outerScale);
}

Value BlockDequantizer::emit(OpBuilder &b, Location loc,
                             ValueRange args) const {
  SmallVector<unsigned> identity =
      llvm::to_vector(llvm::seq<unsigned>(0, space.getNumDims()));
  return emit(b, loc, args, identity);
}

Value BlockDequantizer::emitCenteredCode(OpBuilder &b, Location loc,
                                         ValueRange args) const {
  SmallVector<unsigned> identity =
      llvm::to_vector(llvm::seq<unsigned>(0, space.getNumDims()));
  return emitCenteredCode(b, loc, args, identity);
}
