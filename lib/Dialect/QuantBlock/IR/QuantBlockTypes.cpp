//===- QuantBlockTypes.cpp - quant_block types ----------------------------===//
//
// Parsing, printing and verification of !quant_block.tensor, and the types of
// its parts (data, scales, zero points, outer scales and mins), which every op
// verifier and every lowering derives from here so they cannot disagree.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::quant_block;

#define GET_TYPEDEF_CLASSES
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOpsTypes.cpp.inc"

void QuantBlockDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOpsTypes.cpp.inc"
      >();
}

Type QuantizedTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  SchemeAttr scheme;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/false) ||
      parser.parseComma() || parser.parseAttribute(scheme) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<QuantizedTensorType>(loc, parser.getContext(), shape,
                                                scheme);
}

void QuantizedTensorType::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printDimensionList(getShape());
  printer << ", " << getScheme() << '>';
}

/// The rules of the row-tiled layout that depend on the shape: whole tiles
/// of rows and whole 32-bit words of codes per block, so that every tile,
/// block and word is addressed without a remainder (docs/Packing.md).
static LogicalResult
verifyRowTiledShape(function_ref<InFlightDiagnostic()> emitError,
                    ArrayRef<int64_t> shape, SchemeAttr scheme) {
  int64_t rowTile = scheme.getRowTile();
  if (shape.size() != 2)
    return emitError() << "row_tile = " << rowTile
                       << " needs a rank-2 [N, K] tensor, not rank "
                       << shape.size();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return emitError() << "row_tile = " << rowTile
                       << " needs a static shape, but the shape is dynamic";
  if (shape[0] % rowTile != 0)
    return emitError() << "row_tile = " << rowTile << " does not divide the "
                       << shape[0] << " rows";
  if (shape[1] == 0)
    return emitError() << "row_tile = " << rowTile
                       << " needs a non-empty K, but K = 0";
  // The scheme verifier allows only [B] and [1, B] blocks: one row each.
  int64_t block = scheme.getEffectiveBlockShape(shape)[1];
  if (shape[1] % block != 0)
    return emitError() << "row_tile needs whole blocks, but the block of "
                       << block << " does not divide K = " << shape[1];
  unsigned bits = scheme.getStorageBitWidth();
  if (block * bits % 32 != 0)
    return emitError() << "row_tile needs blocks of whole 32-bit words, but "
                       << "a block of " << block << " x " << bits
                       << "-bit codes is " << block * bits << " bits";
  return success();
}

LogicalResult
QuantizedTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<int64_t> shape, SchemeAttr scheme) {
  if (!scheme)
    return emitError() << "a quantized tensor needs a scheme";
  for (auto [index, dim] : llvm::enumerate(shape))
    if (dim < 0 && !ShapedType::isDynamic(dim))
      return emitError() << "dimension " << index << " has negative size "
                         << dim;
  if (scheme.getBlockShape().size() > shape.size())
    return emitError() << "the scheme's block shape has "
                       << scheme.getBlockShape().size()
                       << " entries but the tensor only " << shape.size()
                       << " dimensions";
  if (OuterScaleAttr outer = scheme.getOuter())
    if (outer.getBlockShape().size() > shape.size())
      return emitError() << "the outer block shape has "
                         << outer.getBlockShape().size()
                         << " entries but the tensor only " << shape.size()
                         << " dimensions";
  if (scheme.isRowTiled())
    return verifyRowTiledShape(emitError, shape, scheme);
  return success();
}

bool QuantizedTensorType::hasStaticShape() const {
  return !llvm::any_of(getShape(), ShapedType::isDynamic);
}

RankedTensorType QuantizedTensorType::getDataType() const {
  return RankedTensorType::get(getShape(), getScheme().getStorageType());
}

RankedTensorType QuantizedTensorType::getExpressedTensorType() const {
  return RankedTensorType::get(getShape(), getScheme().getExpressedType());
}

RankedTensorType QuantizedTensorType::getScalesType() const {
  return RankedTensorType::get(getScheme().getScaleShape(getShape()),
                               getScheme().getScaleType());
}

RankedTensorType QuantizedTensorType::getZeroPointsType() const {
  Type zeroPointType = getScheme().getZeroPointType();
  if (!zeroPointType)
    return {};
  return RankedTensorType::get(getScheme().getScaleShape(getShape()),
                               zeroPointType);
}

RankedTensorType QuantizedTensorType::getOuterScalesType() const {
  OuterScaleAttr outer = getScheme().getOuter();
  if (!outer)
    return {};
  return RankedTensorType::get(getScheme().getOuterScaleShape(getShape()),
                               outer.getScaleType());
}

RankedTensorType QuantizedTensorType::getOuterMinsType() const {
  OuterScaleAttr outer = getScheme().getOuter();
  if (!outer || !outer.getMinType())
    return {};
  return RankedTensorType::get(getScheme().getOuterScaleShape(getShape()),
                               outer.getMinType());
}

SmallVector<Type> QuantizedTensorType::getPartTypes() const {
  SmallVector<Type> parts = {getDataType(), getScalesType()};
  for (Type optional : {Type(getZeroPointsType()), Type(getOuterScalesType()),
                        Type(getOuterMinsType())})
    if (optional)
      parts.push_back(optional);
  return parts;
}

QuantizedTensorType QuantizedTensorType::clone(ArrayRef<int64_t> shape,
                                               SchemeAttr scheme) const {
  return QuantizedTensorType::get(getContext(), shape, scheme);
}
