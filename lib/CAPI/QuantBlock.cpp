//===- QuantBlock.cpp - C API of the quant_block dialect ------------------===//
//
// Thin wrappers from the C API to the C++ attribute and type classes.
//
//===----------------------------------------------------------------------===//

#include "quant-block-c/QuantBlock.h"
#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::quant_block;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(QuantBlock, quant_block,
                                      QuantBlockDialect)

static SchemeAttr scheme(MlirAttribute attr) {
  return cast<SchemeAttr>(unwrap(attr));
}

bool mlirAttributeIsAQuantBlockScheme(MlirAttribute attr) {
  return isa<SchemeAttr>(unwrap(attr));
}

MlirAttribute mlirQuantBlockSchemeAttrGet(
    MlirContext ctx, MlirType storage, MlirType expressed, intptr_t blockRank,
    const int64_t *blockShape, MlirType scaleType, MlirType zeroPointType) {
  MLIRContext *context = unwrap(ctx);
  Type storageType = unwrap(storage);
  int64_t qmin = 0, qmax = 0;
  if (auto intType = dyn_cast_or_null<IntegerType>(storageType))
    if (intType.getWidth() >= 2 && intType.getWidth() <= 32)
      std::tie(qmin, qmax) = getIntegerStorageRange(intType);
  Location loc = UnknownLoc::get(context);
  return wrap(SchemeAttr::getChecked(
      [&] { return emitError(loc); }, context, storageType, unwrap(expressed),
      ArrayRef<int64_t>(blockShape, blockRank), unwrap(scaleType),
      unwrap(zeroPointType), qmin, qmax, RoundingMode::HalfToEven,
      /*saturate=*/true, ScaleRoundingMode::Floor, OuterScaleAttr(),
      /*rowTile=*/int64_t(0)));
}

MlirAttribute mlirQuantBlockSchemeAttrGetNamed(MlirContext ctx,
                                               MlirStringRef name,
                                               MlirType expressedType) {
  return wrap(
      SchemeAttr::getNamed(unwrap(ctx), unwrap(name), unwrap(expressedType)));
}

MlirType mlirQuantBlockSchemeAttrGetStorageType(MlirAttribute attr) {
  return wrap(scheme(attr).getStorageType());
}
MlirType mlirQuantBlockSchemeAttrGetExpressedType(MlirAttribute attr) {
  return wrap(scheme(attr).getExpressedType());
}
intptr_t mlirQuantBlockSchemeAttrGetBlockRank(MlirAttribute attr) {
  return scheme(attr).getBlockShape().size();
}
int64_t mlirQuantBlockSchemeAttrGetBlockSize(MlirAttribute attr, intptr_t pos) {
  return scheme(attr).getBlockShape()[pos];
}
MlirType mlirQuantBlockSchemeAttrGetScaleType(MlirAttribute attr) {
  return wrap(scheme(attr).getScaleType());
}
MlirType mlirQuantBlockSchemeAttrGetZeroPointType(MlirAttribute attr) {
  return wrap(scheme(attr).getZeroPointType());
}
MlirQuantBlockZeroPointDomain
mlirQuantBlockSchemeAttrGetZeroPointDomain(MlirAttribute attr) {
  return static_cast<MlirQuantBlockZeroPointDomain>(
      scheme(attr).getZeroPointDomain());
}
int64_t mlirQuantBlockSchemeAttrGetQmin(MlirAttribute attr) {
  return scheme(attr).getQmin();
}
int64_t mlirQuantBlockSchemeAttrGetQmax(MlirAttribute attr) {
  return scheme(attr).getQmax();
}
bool mlirQuantBlockSchemeAttrGetSaturate(MlirAttribute attr) {
  return scheme(attr).getSaturate();
}
MlirQuantBlockRoundingMode
mlirQuantBlockSchemeAttrGetRounding(MlirAttribute attr) {
  return static_cast<MlirQuantBlockRoundingMode>(scheme(attr).getRounding());
}
MlirQuantBlockScaleRoundingMode
mlirQuantBlockSchemeAttrGetScaleRounding(MlirAttribute attr) {
  return static_cast<MlirQuantBlockScaleRoundingMode>(
      scheme(attr).getScaleRounding());
}
bool mlirQuantBlockSchemeAttrHasOuter(MlirAttribute attr) {
  return bool(scheme(attr).getOuter());
}
MlirType mlirQuantBlockSchemeAttrGetOuterScaleType(MlirAttribute attr) {
  OuterScaleAttr outer = scheme(attr).getOuter();
  return wrap(outer ? outer.getScaleType() : Type());
}
intptr_t mlirQuantBlockSchemeAttrGetOuterBlockRank(MlirAttribute attr) {
  OuterScaleAttr outer = scheme(attr).getOuter();
  return outer ? outer.getBlockShape().size() : 0;
}
int64_t mlirQuantBlockSchemeAttrGetOuterBlockSize(MlirAttribute attr,
                                                  intptr_t pos) {
  return scheme(attr).getOuter().getBlockShape()[pos];
}
MlirType mlirQuantBlockSchemeAttrGetOuterMinType(MlirAttribute attr) {
  OuterScaleAttr outer = scheme(attr).getOuter();
  return wrap(outer ? outer.getMinType() : Type());
}
int64_t mlirQuantBlockSchemeAttrGetRowTile(MlirAttribute attr) {
  return scheme(attr).getRowTile();
}
MlirAttribute mlirQuantBlockSchemeAttrWithRowTile(MlirAttribute attr,
                                                  int64_t rowTile) {
  SchemeAttr s = scheme(attr);
  MLIRContext *context = s.getContext();
  Location loc = UnknownLoc::get(context);
  return wrap(SchemeAttr::getChecked(
      [&] { return emitError(loc); }, context, s.getStorageType(),
      s.getExpressedType(), s.getBlockShape(), s.getScaleType(),
      s.getZeroPointType(), s.getQmin(), s.getQmax(), s.getRounding(),
      s.getSaturate(), s.getScaleRounding(), s.getOuter(), rowTile));
}
bool mlirQuantBlockSchemeAttrGetStandardName(MlirAttribute attr,
                                             MlirStringRef *name) {
  std::optional<StringRef> standard = scheme(attr).getStandardName();
  if (!standard)
    return false;
  *name = wrap(*standard);
  return true;
}

bool mlirTypeIsAQuantBlockTensor(MlirType type) {
  return isa<QuantizedTensorType>(unwrap(type));
}

MlirType mlirQuantBlockTensorTypeGet(MlirContext ctx, intptr_t rank,
                                     const int64_t *shape,
                                     MlirAttribute schemeAttr) {
  MLIRContext *context = unwrap(ctx);
  Location loc = UnknownLoc::get(context);
  return wrap(QuantizedTensorType::getChecked(
      [&] { return emitError(loc); }, context, ArrayRef<int64_t>(shape, rank),
      scheme(schemeAttr)));
}

static QuantizedTensorType tensorType(MlirType type) {
  return cast<QuantizedTensorType>(unwrap(type));
}
MlirAttribute mlirQuantBlockTensorTypeGetScheme(MlirType type) {
  return wrap(Attribute(tensorType(type).getScheme()));
}
MlirType mlirQuantBlockTensorTypeGetDataType(MlirType type) {
  return wrap(Type(tensorType(type).getDataType()));
}
MlirType mlirQuantBlockTensorTypeGetScalesType(MlirType type) {
  return wrap(Type(tensorType(type).getScalesType()));
}
MlirType mlirQuantBlockTensorTypeGetZeroPointsType(MlirType type) {
  return wrap(Type(tensorType(type).getZeroPointsType()));
}

/// The lowered part types of `type` (none when it has no lowering).
static SmallVector<Type> getLoweredPartTypes(MlirType type) {
  SmallVector<Type> parts;
  if (failed(QuantBlockTypeConverter().convertType(tensorType(type), parts)))
    parts.clear();
  return parts;
}
intptr_t mlirQuantBlockTensorTypeGetNumLoweredParts(MlirType type) {
  return getLoweredPartTypes(type).size();
}
MlirType mlirQuantBlockTensorTypeGetLoweredPartType(MlirType type,
                                                    intptr_t pos) {
  SmallVector<Type> parts = getLoweredPartTypes(type);
  if (pos < 0 || pos >= intptr_t(parts.size()))
    return wrap(Type());
  return wrap(parts[pos]);
}
