//===- EntrySignature.cpp - what quant-run passes to an entry -------------===//
//
// Maps the entry function's arguments and results to memref descriptors and
// scalars, and element types to numpy dtypes:
//
//   i1 -> |b1    i8/si8 -> |i1    ui8 -> |u1    (i16, i32, i64 alike)
//   index -> <i8 (64-bit index, the LLVM lowering's default on 64-bit hosts)
//   f16 -> <f2   f32 -> <f4   f64 -> <f8
//   bf16 -> <u2, f8E4M3FN / f8E5M2 / f8E8M0FNU / ... -> |u1 (bit patterns)
//
// bf16 and the 8-bit floats have no numpy dtype, so their bit patterns travel
// as unsigned integers of their size. Signless integers accept both
// signednesses of their size. Sub-byte integers and floats are refused: their
// memory form is the lowering's choice (a quantized tensor's sub-byte data
// is packed into i8 by --convert-quant-block-to-linalg, which is what
// quantizedAsParts passes).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/EntrySignature.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::quant_block::runner;
using llvm::Error;
using llvm::Expected;
using llvm::Twine;

static std::string toString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::optional<NpyDType> mlir::quant_block::runner::getNpyDType(Type type) {
  if (type.isIndex())
    return NpyDType{'i', 8};
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    if (width == 1)
      return NpyDType{'b', 1};
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return std::nullopt;
    return NpyDType{intType.isUnsigned() ? 'u' : 'i', width / 8};
  }
  if (type.isBF16())
    return NpyDType{'u', 2};
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 8)
    return NpyDType{'u', 1};
  if (type.isF16())
    return NpyDType{'f', 2};
  if (type.isF32())
    return NpyDType{'f', 4};
  if (type.isF64())
    return NpyDType{'f', 8};
  return std::nullopt;
}

std::string BoundaryValue::describeDType() const {
  std::string text = toString(elementType) + " (" + dtype.str();
  if (acceptsEitherSignedness)
    text += " or " + NpyDType{'u', dtype.size}.str();
  if (isa<FloatType>(elementType) && dtype.kind == 'u')
    text += " holding the " + toString(elementType) + " bit patterns";
  return text + ")";
}

unsigned EntrySignature::getNumLLVMArguments() const {
  unsigned count = 0;
  for (const BoundaryValue &argument : arguments)
    count += argument.getNumLLVMArguments();
  return count;
}

/// Describes a plain `type` crossing the boundary as `name`.
static Expected<BoundaryValue> describePlainValue(Type type,
                                                  const std::string &name) {
  BoundaryValue value;
  value.name = name;
  value.type = type;
  if (isa<UnrankedTensorType, UnrankedMemRefType>(type))
    return llvm::createStringError(
        name + " has type " + toString(type) +
        ", which quant-run cannot pass: it needs a ranked "
        "tensor or memref");
  if (auto memref = dyn_cast<MemRefType>(type);
      memref && !memref.getLayout().isIdentity())
    return llvm::createStringError(
        name + " has type " + toString(type) +
        ", which quant-run cannot pass: it needs the identity "
        "layout (dense, row-major)");
  if (isa<RankedTensorType, MemRefType>(type)) {
    auto shaped = cast<ShapedType>(type);
    value.isShaped = true;
    value.elementType = shaped.getElementType();
    value.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  } else if (type.isIntOrIndexOrFloat()) {
    value.elementType = type;
  } else {
    return llvm::createStringError(
        name + " has type " + toString(type) +
        ", which quant-run cannot pass (it passes ranked "
        "tensors, memrefs, integers, index and floats)");
  }

  std::optional<NpyDType> dtype = getNpyDType(value.elementType);
  if (!dtype)
    return llvm::createStringError(
        name + " has element type " + toString(value.elementType) +
        ", which quant-run cannot pass (supported: i1, i8, i16, "
        "i32, i64 of any signedness, index, f16, bf16, f32, f64 "
        "and 8-bit floats; sub-byte data crosses the boundary "
        "packed, as part of a !quant_block.tensor, see "
        "docs/Runner.md)");
  value.dtype = *dtype;
  value.acceptsEitherSignedness = value.elementType.isSignlessInteger() &&
                                  value.elementType.getIntOrFloatBitWidth() > 1;
  return value;
}

/// Appends the boundary values of argument or result #`index` (`what`) of
/// `@entry`, of type `type`, to `values`.
static Error describeValue(Type type, StringRef what, unsigned index,
                           StringRef entry, bool quantizedAsParts,
                           llvm::SmallVectorImpl<BoundaryValue> &values) {
  std::string name = (what + " #" + Twine(index) + " of @" + entry).str();
  auto quantized = dyn_cast<quant_block::QuantizedTensorType>(type);
  if (!quantized) {
    if (isa<quant_block::QuantBlockDialect>(type.getDialect()))
      return llvm::createStringError(name + " has type " + toString(type) +
                                     ", which quant-run cannot pass");
    Expected<BoundaryValue> value = describePlainValue(type, name);
    if (!value)
      return value.takeError();
    value->position = index;
    values.push_back(std::move(*value));
    return Error::success();
  }

  if (!quantizedAsParts)
    return llvm::createStringError(
        name + " has type " + toString(type) +
        ": the entry function must take and return plain tensors. Pass the "
        "parts (data, scales, zero points) as tensors and build the quantized "
        "value inside with quant_block.pack; return quant_block.dequantize "
        "or quant_block.unpack results. Or run with "
        "--quantized-as-parts to pass the quantized tensor as its lowered "
        "parts, with sub-byte data packed into i8 (see docs/Runner.md)");

  quant_block::QuantBlockTypeConverter converter;
  llvm::SmallVector<Type> parts;
  if (failed(converter.convertType(type, parts)) || parts.empty())
    return llvm::createStringError(
        name + " has type " + toString(type) +
        ", which --convert-quant-block-to-linalg cannot lower "
        "(its storage type has no packed form yet)");
  llvm::SmallVector<StringRef> partNames = {"data", "scales"};
  if (quantized.getZeroPointsType())
    partNames.push_back("zero points");
  if (quantized.getOuterScalesType())
    partNames.push_back("outer scales");
  if (quantized.getOuterMinsType())
    partNames.push_back("outer mins");
  for (auto [part, partType] : llvm::enumerate(parts)) {
    std::string partName =
        name + " (the " + partNames[part].str() + " of " + toString(type) + ")";
    Expected<BoundaryValue> value = describePlainValue(partType, partName);
    if (!value)
      return value.takeError();
    value->position = index;
    values.push_back(std::move(*value));
  }
  return Error::success();
}

Expected<EntrySignature>
mlir::quant_block::runner::inspectEntryFunction(ModuleOp module, StringRef name,
                                                bool quantizedAsParts) {
  auto function = module.lookupSymbol<func::FuncOp>(name);
  if (!function) {
    std::string message = ("entry function @" + name + " not found").str();
    if (Operation *other = module.lookupSymbol(name)) {
      message += ": @" + name.str() + " is a '" +
                 other->getName().getStringRef().str() +
                 "', and quant-run needs a func.func (it reads the signature "
                 "before lowering)";
    } else {
      std::string known;
      for (auto candidate : module.getOps<func::FuncOp>())
        if (!candidate.isExternal())
          known +=
              (known.empty() ? "" : ", ") + ("@" + candidate.getName()).str();
      message += known.empty() ? " (the module defines no func.func)"
                               : " (the module defines " + known + ")";
    }
    return llvm::createStringError(message);
  }
  if (function.isExternal())
    return llvm::createStringError("entry function @" + name +
                                   " is only a declaration (it has no body)");

  EntrySignature signature;
  signature.name = name.str();
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
    size_t first = signature.arguments.size();
    if (Error err = describeValue(type, "argument", index, name,
                                  quantizedAsParts, signature.arguments))
      return std::move(err);
    bool resident = static_cast<bool>(function.getArgAttr(
        index, quant_block::QuantBlockDialect::getDeviceResidentAttrName()));
    for (BoundaryValue &value : llvm::drop_begin(signature.arguments, first))
      value.deviceResident = resident;
  }
  for (auto [index, type] : llvm::enumerate(function.getResultTypes()))
    if (Error err = describeValue(type, "result", index, name, quantizedAsParts,
                                  signature.results))
      return std::move(err);
  return std::move(signature);
}

Error mlir::quant_block::runner::checkInput(const EntrySignature &signature,
                                            unsigned index,
                                            const NpyArray &array,
                                            StringRef fileName) {
  const BoundaryValue &argument = signature.arguments[index];
  std::string input = ("input #" + Twine(index) + " '" + fileName + "'").str();
  const std::string &where = argument.name;

  bool dtypeMatches = array.dtype == argument.dtype;
  if (argument.acceptsEitherSignedness)
    dtypeMatches |= array.dtype == NpyDType{'u', argument.dtype.size};
  if (!dtypeMatches)
    return llvm::createStringError(input + " has dtype " + array.dtype.str() +
                                   " but " + where + " expects " +
                                   argument.describeDType());

  if (!argument.isShaped) {
    if (!array.shape.empty())
      return llvm::createStringError(
          input + " has shape " + array.getShapeString() + " but " + where +
          " is the scalar " + toString(argument.type) +
          ", which takes a 0-d array (numpy: np.save(f, "
          "np.float32(x)))");
    return Error::success();
  }
  if (array.shape.size() != argument.shape.size())
    return llvm::createStringError(
        input + " has rank " + Twine(array.shape.size()) + " (shape " +
        array.getShapeString() + ") but " + where + " has type " +
        toString(argument.type) + " (rank " + Twine(argument.shape.size()) +
        ")");
  for (auto [dim, expected] : llvm::enumerate(argument.shape)) {
    if (ShapedType::isDynamic(expected) || array.shape[dim] == expected)
      continue;
    return llvm::createStringError(
        input + " has shape " + array.getShapeString() + " but " + where +
        " has type " + toString(argument.type) + ": dimension " + Twine(dim) +
        " must be " + Twine(expected) + ", not " + Twine(array.shape[dim]));
  }
  return Error::success();
}
