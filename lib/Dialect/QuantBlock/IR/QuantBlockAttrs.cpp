//===- QuantBlockAttrs.cpp - quant_block attributes -----------------------===//
//
// Parsing, printing and verification of #quant_block.scheme and its outer
// scale, the named OCP MX / NVFP4 schemes, and the block shape queries used by
// types and ops. Every verifier message names the rule and the offending
// values, because schemes usually come from importers and the user must be
// able to tell which field of which frontend attribute was wrong.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Numerics/BlockMath.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::quant_block;
namespace numerics = ::quant_block::numerics;

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.cpp.inc"

void QuantBlockDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Type predicates
//===----------------------------------------------------------------------===//

bool mlir::quant_block::isOCPFloatStorageType(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float6E2M3FNType,
             Float6E3M2FNType, Float4E2M1FNType>(type);
}

static bool isValidIntegerStorage(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  return intType && !intType.isSigned() && intType.getWidth() >= 2 &&
         intType.getWidth() <= 32;
}

bool mlir::quant_block::isValidStorageType(Type type) {
  return isValidIntegerStorage(type) || isOCPFloatStorageType(type);
}

bool mlir::quant_block::isValidExpressedType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

std::pair<int64_t, int64_t>
mlir::quant_block::getIntegerStorageRange(IntegerType type) {
  unsigned width = type.getWidth();
  if (type.isUnsigned())
    return {0, (int64_t(1) << width) - 1};
  return {-(int64_t(1) << (width - 1)), (int64_t(1) << (width - 1)) - 1};
}

bool mlir::quant_block::isSameBlockPartition(int64_t a, int64_t b,
                                             int64_t dimSize) {
  return numerics::isSameBlockPartition(a, b, dimSize);
}

static constexpr StringLiteral kSupportedStorage =
    "a 2..32-bit integer (iN or uiN) or one of f8E4M3FN, f8E5M2, f6E2M3FN, "
    "f6E3M2FN, f4E2M1FN";

//===----------------------------------------------------------------------===//
// Block lists: `[` (integer | `*`) (`,` ...)* `]`
//===----------------------------------------------------------------------===//

static ParseResult parseBlockList(AsmParser &parser,
                                  SmallVectorImpl<int64_t> &block) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        if (succeeded(parser.parseOptionalStar())) {
          block.push_back(SchemeAttr::kWholeDimension);
          return success();
        }
        int64_t size;
        if (parser.parseInteger(size))
          return failure();
        block.push_back(size);
        return success();
      });
}

static void printBlockList(AsmPrinter &printer, ArrayRef<int64_t> block) {
  printer << '[';
  llvm::interleaveComma(block, printer, [&](int64_t size) {
    if (size == SchemeAttr::kWholeDimension)
      printer << '*';
    else
      printer << size;
  });
  printer << ']';
}

static LogicalResult
verifyBlockList(function_ref<InFlightDiagnostic()> emitError,
                ArrayRef<int64_t> block, StringRef what) {
  for (auto [index, size] : llvm::enumerate(block))
    if (size <= 0 && size != SchemeAttr::kWholeDimension)
      return emitError() << what << " size " << size << " at position " << index
                         << " must be positive or '*'";
  return success();
}

//===----------------------------------------------------------------------===//
// OuterScaleAttr
//===----------------------------------------------------------------------===//

Attribute OuterScaleAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  Type scaleType, minType;
  SmallVector<int64_t> block;
  if (parser.parseLess() || parser.parseType(scaleType))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef field;
    SMLoc fieldLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&field) || parser.parseEqual())
      return {};
    if (field == "block") {
      if (parseBlockList(parser, block))
        return {};
    } else if (field == "min") {
      if (parser.parseType(minType))
        return {};
    } else {
      parser.emitError(fieldLoc, "unknown outer scale field '")
          << field << "'; expected 'block' or 'min'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<OuterScaleAttr>(loc, parser.getContext(), scaleType,
                                           block, minType);
}

void OuterScaleAttr::print(AsmPrinter &printer) const {
  printer << '<' << getScaleType();
  if (!getBlockShape().empty()) {
    printer << ", block = ";
    printBlockList(printer, getBlockShape());
  }
  if (getMinType())
    printer << ", min = " << getMinType();
  printer << '>';
}

LogicalResult
OuterScaleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       Type scaleType, ArrayRef<int64_t> blockShape,
                       Type minType) {
  if (!isValidExpressedType(scaleType))
    return emitError() << "outer scale type " << scaleType
                       << " is not supported; expected f32, f16 or bf16";
  if (minType && !isValidExpressedType(minType))
    return emitError() << "outer min type " << minType
                       << " is not supported; expected f32, f16 or bf16";
  return verifyBlockList(emitError, blockShape, "outer block");
}

//===----------------------------------------------------------------------===//
// SchemeAttr: named schemes
//===----------------------------------------------------------------------===//

namespace {
struct NamedScheme {
  StringLiteral name;
  Type (*storage)(MLIRContext *);
  int64_t blockSize;
  Type (*scale)(MLIRContext *);
  bool hasOuterF32;
};
} // namespace

static Type getE8M0(MLIRContext *ctx) { return Float8E8M0FNUType::get(ctx); }
static Type getE4M3(MLIRContext *ctx) { return Float8E4M3FNType::get(ctx); }

static const NamedScheme kNamedSchemes[] = {
    {"mxfp8_e4m3", [](MLIRContext *c) -> Type { return getE4M3(c); }, 32,
     getE8M0, false},
    {"mxfp8_e5m2",
     [](MLIRContext *c) -> Type { return Float8E5M2Type::get(c); }, 32, getE8M0,
     false},
    {"mxfp6_e2m3",
     [](MLIRContext *c) -> Type { return Float6E2M3FNType::get(c); }, 32,
     getE8M0, false},
    {"mxfp6_e3m2",
     [](MLIRContext *c) -> Type { return Float6E3M2FNType::get(c); }, 32,
     getE8M0, false},
    {"mxfp4", [](MLIRContext *c) -> Type { return Float4E2M1FNType::get(c); },
     32, getE8M0, false},
    {"mxint8", [](MLIRContext *c) -> Type { return IntegerType::get(c, 8); },
     32, getE8M0, false},
    {"nvfp4", [](MLIRContext *c) -> Type { return Float4E2M1FNType::get(c); },
     16, getE4M3, true},
};

SchemeAttr SchemeAttr::getNamed(MLIRContext *context, StringRef name,
                                Type expressedType) {
  for (const NamedScheme &named : kNamedSchemes) {
    if (named.name != name)
      continue;
    OuterScaleAttr outer;
    if (named.hasOuterF32)
      outer =
          OuterScaleAttr::get(context, Float32Type::get(context), {}, Type());
    Type storage = named.storage(context);
    int64_t qmin = 0, qmax = 0;
    if (auto intType = dyn_cast<IntegerType>(storage))
      std::tie(qmin, qmax) = getIntegerStorageRange(intType);
    return SchemeAttr::get(
        context, storage, expressedType, ArrayRef<int64_t>{named.blockSize},
        named.scale(context), Type(), qmin, qmax, RoundingMode::HalfToEven,
        /*saturate=*/true, ScaleRoundingMode::Floor, outer, /*rowTile=*/0);
  }
  return {};
}

std::optional<StringRef> SchemeAttr::getStandardName() const {
  for (const NamedScheme &named : kNamedSchemes)
    if (getNamed(getContext(), named.name, getExpressedType()) == *this)
      return StringRef(named.name);
  return std::nullopt;
}

SchemeAttr SchemeAttr::get(Type storageType, Type expressedType,
                           ArrayRef<int64_t> blockShape, Type scaleType,
                           Type zeroPointType) {
  int64_t qmin = 0, qmax = 0;
  if (auto intType = dyn_cast<IntegerType>(storageType))
    std::tie(qmin, qmax) = getIntegerStorageRange(intType);
  return SchemeAttr::get(storageType.getContext(), storageType, expressedType,
                         blockShape, scaleType, zeroPointType, qmin, qmax,
                         RoundingMode::HalfToEven, /*saturate=*/true,
                         ScaleRoundingMode::Floor, OuterScaleAttr(),
                         /*rowTile=*/0);
}

//===----------------------------------------------------------------------===//
// SchemeAttr: queries
//===----------------------------------------------------------------------===//

ZeroPointDomain SchemeAttr::getZeroPointDomain() const {
  Type zp = getZeroPointType();
  if (!zp)
    return ZeroPointDomain::None;
  // With an outer min the zero points are (possibly quantized) mins scaled by
  // the outer min, i.e. float-domain offsets.
  if (getOuter() && getOuter().getMinType())
    return ZeroPointDomain::Float;
  return isa<IntegerType>(zp) ? ZeroPointDomain::Int : ZeroPointDomain::Float;
}

bool SchemeAttr::hasIntegerStorage() const {
  return isa<IntegerType>(getStorageType());
}
bool SchemeAttr::hasFloatStorage() const {
  return isa<FloatType>(getStorageType());
}
bool SchemeAttr::isSignedStorage() const {
  auto intType = dyn_cast<IntegerType>(getStorageType());
  return !intType || !intType.isUnsigned();
}
unsigned SchemeAttr::getStorageBitWidth() const {
  return getStorageType().getIntOrFloatBitWidth();
}
bool SchemeAttr::hasMXScale() const {
  return isa<Float8E8M0FNUType>(getScaleType());
}

SmallVector<int64_t>
SchemeAttr::getEffectiveBlockShape(ArrayRef<int64_t> shape) const {
  return numerics::resolveBlockShape(getBlockShape(), shape);
}

SmallVector<int64_t> SchemeAttr::getScaleShape(ArrayRef<int64_t> shape) const {
  return numerics::contractShape(shape, getEffectiveBlockShape(shape));
}

SmallVector<int64_t>
SchemeAttr::getOuterScaleShape(ArrayRef<int64_t> shape) const {
  if (!getOuter())
    return {};
  SmallVector<int64_t> scaleShape = getScaleShape(shape);
  return numerics::contractShape(
      scaleShape,
      numerics::resolveBlockShape(getOuter().getBlockShape(), scaleShape));
}

SchemeAttr SchemeAttr::withBlockShape(ArrayRef<int64_t> blockShape) const {
  return SchemeAttr::get(getContext(), getStorageType(), getExpressedType(),
                         blockShape, getScaleType(), getZeroPointType(),
                         getQmin(), getQmax(), getRounding(), getSaturate(),
                         getScaleRounding(), getOuter(), getRowTile());
}

SchemeAttr SchemeAttr::withOuter(OuterScaleAttr outer) const {
  return SchemeAttr::get(getContext(), getStorageType(), getExpressedType(),
                         getBlockShape(), getScaleType(), getZeroPointType(),
                         getQmin(), getQmax(), getRounding(), getSaturate(),
                         getScaleRounding(), outer, getRowTile());
}

SchemeAttr SchemeAttr::withRowTile(int64_t rowTile) const {
  return SchemeAttr::get(getContext(), getStorageType(), getExpressedType(),
                         getBlockShape(), getScaleType(), getZeroPointType(),
                         getQmin(), getQmax(), getRounding(), getSaturate(),
                         getScaleRounding(), getOuter(), rowTile);
}

//===----------------------------------------------------------------------===//
// SchemeAttr: parsing and printing
//===----------------------------------------------------------------------===//

Attribute SchemeAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};

  Type storage, expressed;
  SchemeAttr named;
  StringRef name;
  SmallVector<StringRef> names;
  for (const NamedScheme &scheme : kNamedSchemes)
    names.push_back(scheme.name);
  if (succeeded(parser.parseOptionalKeyword(&name, names))) {
    expressed = Float32Type::get(ctx);
    if (succeeded(parser.parseOptionalColon()) && parser.parseType(expressed))
      return {};
    named = getNamed(ctx, name, expressed);
  } else {
    SMLoc storageLoc = parser.getCurrentLocation();
    OptionalParseResult parsedStorage = parser.parseOptionalType(storage);
    if (!parsedStorage.has_value() || failed(*parsedStorage)) {
      parser.emitError(storageLoc, "expected a storage type or one of the "
                                   "named schemes: ")
          << llvm::join(names, ", ");
      return {};
    }
    if (parser.parseColon() || parser.parseType(expressed))
      return {};
  }

  // Start from the named scheme's fields, or from the defaults.
  SmallVector<int64_t> block;
  Type scale = Float32Type::get(ctx), zeroPoint;
  std::optional<std::pair<int64_t, int64_t>> range;
  RoundingMode rounding = RoundingMode::HalfToEven;
  bool saturate = true;
  ScaleRoundingMode scaleRounding = ScaleRoundingMode::Floor;
  OuterScaleAttr outer;
  int64_t rowTile = 0;
  if (named) {
    storage = named.getStorageType();
    llvm::append_range(block, named.getBlockShape());
    scale = named.getScaleType();
    outer = named.getOuter();
  }

  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef field;
    SMLoc fieldLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&field))
      return {};
    if (!seen.insert(field).second) {
      parser.emitError(fieldLoc, "scheme field '") << field << "' given twice";
      return {};
    }
    if (parser.parseEqual())
      return {};
    if (field == "block") {
      block.clear();
      if (parseBlockList(parser, block))
        return {};
    } else if (field == "scale") {
      if (parser.parseType(scale))
        return {};
    } else if (field == "zero_point") {
      if (parser.parseType(zeroPoint))
        return {};
      if (isa<NoneType>(zeroPoint))
        zeroPoint = Type();
    } else if (field == "range") {
      int64_t lo, hi;
      if (parser.parseLSquare() || parser.parseInteger(lo) ||
          parser.parseComma() || parser.parseInteger(hi) ||
          parser.parseRSquare())
        return {};
      if (!isa<IntegerType>(storage)) {
        parser.emitError(fieldLoc, "'range' needs integer storage, not ")
            << storage;
        return {};
      }
      range = {lo, hi};
    } else if (field == "rounding" || field == "scale_rounding") {
      StringRef mode;
      SMLoc modeLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&mode))
        return {};
      if (field == "rounding") {
        std::optional<RoundingMode> parsed = symbolizeRoundingMode(mode);
        if (!parsed) {
          parser.emitError(modeLoc, "unknown rounding '")
              << mode
              << "'; expected half_to_even, half_away_from_zero or "
                 "toward_zero";
          return {};
        }
        rounding = *parsed;
      } else {
        std::optional<ScaleRoundingMode> parsed =
            symbolizeScaleRoundingMode(mode);
        if (!parsed) {
          parser.emitError(modeLoc, "unknown scale_rounding '")
              << mode << "'; expected floor, ceil or half_to_even";
          return {};
        }
        scaleRounding = *parsed;
      }
    } else if (field == "saturate") {
      StringRef value;
      SMLoc valueLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&value))
        return {};
      if (value != "true" && value != "false") {
        parser.emitError(valueLoc, "expected 'true' or 'false'");
        return {};
      }
      saturate = value == "true";
    } else if (field == "outer") {
      if (succeeded(parser.parseOptionalKeyword("none"))) {
        outer = {};
      } else {
        outer = llvm::dyn_cast_or_null<OuterScaleAttr>(
            OuterScaleAttr::parse(parser, Type()));
        if (!outer)
          return {};
      }
    } else if (field == "row_tile") {
      if (parser.parseInteger(rowTile))
        return {};
    } else {
      parser.emitError(fieldLoc, "unknown scheme field '")
          << field
          << "'; expected block, scale, zero_point, range, rounding, "
             "saturate, scale_rounding, outer or row_tile";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};

  int64_t qmin = 0, qmax = 0;
  if (auto intType = dyn_cast<IntegerType>(storage)) {
    if (intType.getWidth() >= 2 && intType.getWidth() <= 32)
      std::tie(qmin, qmax) = getIntegerStorageRange(intType);
    if (range)
      std::tie(qmin, qmax) = *range;
  }
  return parser.getChecked<SchemeAttr>(loc, ctx, storage, expressed, block,
                                       scale, zeroPoint, qmin, qmax, rounding,
                                       saturate, scaleRounding, outer, rowTile);
}

void SchemeAttr::print(AsmPrinter &printer) const {
  printer << '<';
  if (std::optional<StringRef> name = withRowTile(0).getStandardName()) {
    printer << *name;
    if (!getExpressedType().isF32())
      printer << " : " << getExpressedType();
    if (isRowTiled())
      printer << ", row_tile = " << getRowTile();
    printer << '>';
    return;
  }
  printer << getStorageType() << " : " << getExpressedType();
  if (!getBlockShape().empty()) {
    printer << ", block = ";
    printBlockList(printer, getBlockShape());
  }
  if (!getScaleType().isF32())
    printer << ", scale = " << getScaleType();
  if (getZeroPointType())
    printer << ", zero_point = " << getZeroPointType();
  if (auto intType = dyn_cast<IntegerType>(getStorageType())) {
    auto [lo, hi] = getIntegerStorageRange(intType);
    if (getQmin() != lo || getQmax() != hi)
      printer << ", range = [" << getQmin() << ", " << getQmax() << ']';
  }
  if (getRounding() != RoundingMode::HalfToEven)
    printer << ", rounding = " << stringifyRoundingMode(getRounding());
  if (!getSaturate())
    printer << ", saturate = false";
  if (getScaleRounding() != ScaleRoundingMode::Floor)
    printer << ", scale_rounding = "
            << stringifyScaleRoundingMode(getScaleRounding());
  if (getOuter()) {
    printer << ", outer = ";
    getOuter().print(printer);
  }
  if (isRowTiled())
    printer << ", row_tile = " << getRowTile();
  printer << '>';
}

//===----------------------------------------------------------------------===//
// SchemeAttr: verification
//===----------------------------------------------------------------------===//

LogicalResult SchemeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Type storageType, Type expressedType,
                                 ArrayRef<int64_t> blockShape, Type scaleType,
                                 Type zeroPointType, int64_t qmin, int64_t qmax,
                                 RoundingMode rounding, bool saturate,
                                 ScaleRoundingMode scaleRounding,
                                 OuterScaleAttr outer, int64_t rowTile) {
  // Storage.
  auto intStorage = dyn_cast<IntegerType>(storageType);
  if (intStorage && intStorage.isSigned())
    return emitError() << "storage type " << storageType
                       << " is not supported; write signed storage as the "
                          "signless i"
                       << intStorage.getWidth();
  if (!isValidStorageType(storageType))
    return emitError() << "storage type " << storageType
                       << " is not supported; expected " << kSupportedStorage;
  if (!isValidExpressedType(expressedType))
    return emitError() << "expressed type " << expressedType
                       << " is not supported; expected f32, f16 or bf16";

  // Block shape.
  if (failed(verifyBlockList(emitError, blockShape, "block")))
    return failure();

  // Scales.
  bool mxScale = isa<Float8E8M0FNUType>(scaleType);
  bool floatScale = isValidExpressedType(scaleType) || mxScale ||
                    isa<Float8E4M3FNType>(scaleType);
  auto intScale = dyn_cast<IntegerType>(scaleType);
  if (intScale) {
    // Integer (quantized) block scales are only meaningful under a float
    // second-level scale, as in GGUF K-quants.
    if (intScale.isSigned() || intScale.getWidth() < 2 ||
        intScale.getWidth() > 8)
      return emitError() << "integer scale type " << scaleType
                         << " is not supported; expected a 2..8-bit "
                            "signless or unsigned integer";
    if (!outer)
      return emitError() << "integer scale type " << scaleType
                         << " needs an outer (second-level) float scale";
  } else if (!floatScale) {
    return emitError() << "scale type " << scaleType
                       << " is not supported; expected f32, f16, bf16, "
                          "f8E8M0FNU or f8E4M3FN";
  }

  // Zero points.
  if (zeroPointType) {
    if (!intStorage)
      return emitError() << "zero point type " << zeroPointType
                         << " needs integer storage, but the storage type is "
                         << storageType;
    if (auto intZp = dyn_cast<IntegerType>(zeroPointType)) {
      if (intZp.isSigned() || intZp.getWidth() < 2 || intZp.getWidth() > 32)
        return emitError() << "integer zero point type " << zeroPointType
                           << " is not supported; expected a 2..32-bit "
                              "signless or unsigned integer";
    } else if (!isValidExpressedType(zeroPointType)) {
      return emitError() << "zero point type " << zeroPointType
                         << " is not supported; expected an integer type "
                            "(int domain) or f32, f16, bf16 (float domain)";
    }
    if (mxScale)
      return emitError() << "MX schemes (f8E8M0FNU scales) have no zero "
                            "point, but zero point type "
                         << zeroPointType << " is given";
  }

  // Range.
  if (intStorage) {
    auto [lo, hi] = getIntegerStorageRange(intStorage);
    if (qmin < lo || qmax > hi)
      return emitError() << "range [" << qmin << ", " << qmax
                         << "] is outside the storage range [" << lo << ", "
                         << hi << "] of " << storageType;
    if (qmin >= qmax)
      return emitError() << "range [" << qmin << ", " << qmax
                         << "] is empty: qmin must be less than qmax";
  } else if (qmin != 0 || qmax != 0) {
    return emitError() << "range [" << qmin << ", " << qmax
                       << "] needs integer storage, not " << storageType;
  }

  // Saturation: only formats that can encode Inf or NaN may overflow to them.
  if (!saturate && !isa<Float8E4M3FNType, Float8E5M2Type>(storageType))
    return emitError() << "saturate = false needs a storage type that "
                          "encodes Inf or NaN (f8E4M3FN, f8E5M2), not "
                       << storageType;

  // MX rules (OCP MX v1.0): power-of-two scales shared by exactly 32
  // elements along one dimension, float or signed integer elements.
  if (scaleRounding != ScaleRoundingMode::Floor && !mxScale)
    return emitError() << "scale_rounding = "
                       << stringifyScaleRoundingMode(scaleRounding)
                       << " needs f8E8M0FNU (MX) scales, not " << scaleType;
  if (mxScale) {
    int64_t nonUnit = 0, size = 0;
    for (int64_t b : blockShape) {
      if (b != 1) {
        ++nonUnit;
        size = b;
      }
    }
    if (nonUnit != 1 || size != 32) {
      InFlightDiagnostic diag = emitError();
      diag << "an f8E8M0FNU (MX) scale needs a block of exactly 32 elements "
              "along one dimension (OCP MX v1.0), but the block is [";
      llvm::interleaveComma(blockShape, diag, [&](int64_t b) {
        if (b == kWholeDimension)
          diag << "*";
        else
          diag << b;
      });
      return diag << "]";
    }
    if (intStorage && intStorage.isUnsigned())
      return emitError() << "MX integer storage must be signed (MXINT8), not "
                         << storageType;
  }

  // Second level.
  if (outer && outer.getMinType() && !zeroPointType)
    return emitError() << "an outer min (" << outer.getMinType()
                       << ") needs zero points (mins) to scale";
  // The row-tiled layout (the shape-dependent rules are the tensor type's).
  if (rowTile != 0) {
    if (rowTile < 2)
      return emitError() << "row_tile = " << rowTile
                         << " is not a tile: expected 2 or more rows (or no "
                            "row_tile for the row-major layout)";
    unsigned bits = storageType.getIntOrFloatBitWidth();
    if (bits != 4 && bits != 6 && bits != 8)
      return emitError() << "row_tile needs 4-, 6- or 8-bit storage, not "
                         << storageType;
    if (blockShape.empty() || blockShape.size() > 2 ||
        (blockShape.size() == 2 && blockShape[0] != 1))
      return emitError() << "row_tile needs blocks along the last dimension "
                            "only ([1, B] or [B])";
    // The outer parameters are tiled as the block scales are: one row of
    // blocks each, so that a tile's R rows share each outer block's index.
    ArrayRef<int64_t> outerBlock =
        outer ? outer.getBlockShape() : ArrayRef<int64_t>();
    if (outerBlock.size() > 2 ||
        (outerBlock.size() == 2 && outerBlock[0] != 1)) {
      InFlightDiagnostic diag =
          emitError() << "row_tile allows a per-tensor outer scale or outer "
                         "blocks along the last dimension only ([1, B] or "
                         "[B]), but the outer scale's blocks are [";
      llvm::interleaveComma(outerBlock, diag);
      return diag << "]";
    }
  }
  (void)rounding;
  return success();
}

LogicalResult
CPUMatmulKernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            CPUMatmulKernelFamily family, int64_t tileM,
                            int64_t tileN, int64_t blocksPerStep) {
  if (tileM < 1 || tileN < 1 || blocksPerStep < 1)
    return emitError() << "the tile [" << tileM << ", " << tileN
                       << "] and blocks_per_step " << blocksPerStep
                       << " must be positive";
  return success();
}
