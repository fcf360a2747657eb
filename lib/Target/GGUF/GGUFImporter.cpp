//===- GGUFImporter.cpp - a GGUF file as a quant_block module ------------===//

#include "quant-block/Target/GGUF/GGUFImporter.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"
#include "quant-block/Target/GGUF/GGUFParts.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::gguf;

void mlir::quant_block::gguf::registerGGUFImportDialects(
    DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  tensor::TensorDialect, QuantBlockDialect>();
}

/// `tensor`'s value as f32: dequantized, widened (f16, bf16: exact) or as
/// it is.
static Value buildDequantized(OpBuilder &builder, Location loc, Value value,
                              RankedTensorType resultType) {
  Type type = value.getType();
  if (isa<QuantizedTensorType>(type))
    return DequantizeOp::create(builder, loc, resultType, value);
  auto tensorType = cast<RankedTensorType>(type);
  if (tensorType.getElementType().isF32())
    return value;
  // An elementwise linalg.generic extf (exact for f16 and bf16).
  Value init = tensor::EmptyOp::create(builder, loc, resultType.getShape(),
                                       resultType.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(resultType.getRank(),
                                                         builder.getContext());
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, resultType, ValueRange{value}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value wide = arith::ExtFOp::create(nested, nestedLoc,
                                           nested.getF32Type(), args[0]);
        linalg::YieldOp::create(nested, nestedLoc, wide);
      });
  return generic.getResult(0);
}

OwningOpRef<ModuleOp>
mlir::quant_block::gguf::importGGUF(const GGUFFile &file, MLIRContext *context,
                                    const GGUFImportOptions &options) {
  DialectRegistry registry;
  registerGGUFImportDialects(registry);
  context->appendDialectRegistry(registry);
  context->loadAllAvailableDialects();

  Location fileLoc = FileLineColLoc::get(context, file.getName(), 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module->getBody());

  // The tensors asked for, in the file's order.
  std::vector<const GGUFTensorInfo *> selected;
  if (options.tensors.empty()) {
    for (const GGUFTensorInfo &tensor : file.getTensors())
      selected.push_back(&tensor);
  } else {
    llvm::StringSet<> seen;
    for (const std::string &name : options.tensors) {
      const GGUFTensorInfo *tensor = file.lookupTensor(name);
      if (!tensor) {
        emitError(fileLoc) << "no tensor named '" << name << "' in the file";
        return nullptr;
      }
      if (seen.insert(name).second)
        selected.push_back(tensor);
    }
  }

  bool failed = false;
  for (const GGUFTensorInfo *tensor : selected) {
    Location loc = NameLoc::get(builder.getStringAttr(tensor->name), fileLoc);
    llvm::Expected<TensorLayout> layout = getTensorLayout(*tensor);
    if (!layout) {
      std::string message = llvm::toString(layout.takeError());
      if (options.skipUnsupported) {
        emitWarning(loc) << message << "; left out";
        continue;
      }
      emitError(loc) << message;
      failed = true;
      continue;
    }
    Type argumentType = parseType(layout->type, context);
    if (!argumentType) {
      // Our own scheme table must parse; say which entry did not.
      emitError(loc) << "internal error: the type '" << layout->type << "' of "
                     << tensor->type->name << " does not parse";
      failed = true;
      continue;
    }
    auto resultType =
        RankedTensorType::get(tensor->getShape(), builder.getF32Type());
    auto function = func::FuncOp::create(
        builder, loc, tensor->name,
        builder.getFunctionType({argumentType}, {resultType}));
    function.setArgAttr(0, kTensorAttrName,
                        builder.getStringAttr(tensor->name));
    OpBuilder body = OpBuilder::atBlockBegin(function.addEntryBlock());
    Value result =
        buildDequantized(body, loc, function.getArgument(0), resultType);
    func::ReturnOp::create(body, loc, result);
  }
  if (failed)
    return nullptr;
  return module;
}
