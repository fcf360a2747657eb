//===- ConvertQuantBlockToLinalg.cpp - the conversion pass ----------------===//
//
// The --convert-quant-block-to-linalg pass and the public pieces it is made
// of, so that another compiler's conversion driver does exactly what the
// pass does: the support check (anything this lowering cannot handle, and
// any upstream quant.dcast / quant.qcast left unraised, is a clear error at
// the op, never a half-converted module or "failed to legalize"), the
// conversion target, and the patterns (with the caller's type converter,
// which also rewrites function signatures, calls and returns).
//
//===----------------------------------------------------------------------===//

#include "BlockIterationSpace.h"
#include "Patterns.h"
#include "TwoLevelParameters.h"

#include "quant-block/Conversion/Passes.h"
#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CONVERTQUANTBLOCKTOLINALG
#include "quant-block/Conversion/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

static std::optional<std::string>
getUnsupportedTypeReason(QuantizedTensorType type) {
  SchemeAttr scheme = type.getScheme();
  // MX integer elements scale the effective scale once more, which the
  // folded single-level form cannot carry.
  if (scheme.hasMXScale() && hasTwoLevelBlockParameters(scheme))
    return std::string("f8E8M0FNU (MX) scales under a blocked outer scale "
                       "or an outer min are not lowered");
  std::optional<PackingGroup> group = getPackingGroup(scheme);
  if (!group)
    return "storage of " + std::to_string(scheme.getStorageBitWidth()) +
           " bits is not lowered (only 2- to 8-, 16- and 32-bit storage is)";
  if (type.getRank() == 0)
    return std::string("rank-0 quantized tensors are not lowered yet");
  if (group->isPacked() && ShapedType::isDynamic(type.getShape().back()))
    return std::string("the packed innermost dimension of sub-byte data must "
                       "be static");
  return std::nullopt;
}

std::optional<std::string>
mlir::quant_block::detail::getUnsupportedReason(Operation *op) {
  if (auto dynamic = dyn_cast<QuantizeDynamicOp>(op)) {
    QuantizedTensorType type = dynamic.getResult().getType();
    if (std::optional<std::string> reason = getUnsupportedTypeReason(type))
      return reason;
    SchemeAttr scheme = type.getScheme();
    if (scheme.getOuter() && dynamic.getMethod() != CalibrationMethod::AbsMax)
      return std::string("quantize_dynamic with an outer scale is lowered for "
                         "absmax only");
    // Only the block statistics need the expanded space; the data is
    // written by quantize, which packs in any layout.
    std::string whyNot;
    if (!BlockIterationSpace::get(padToWholeBlocks(type), whyNot,
                                  /*packData=*/false))
      return "quantize_dynamic: " + whyNot;
    return std::nullopt;
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    if (isa<IntegerType>(matmul.getAccumulatorType()))
      if (std::optional<std::string> reason =
              getIntegerMatmulUnsupportedReason(matmul))
        return reason;
    // The operands are dequantized and a propagated result is requantized
    // dynamically: those ops must be lowerable too.
    for (Value operand : {matmul.getLhs(), Value(matmul.getRhs())})
      if (auto type = dyn_cast<QuantizedTensorType>(operand.getType()))
        if (std::optional<std::string> reason = getUnsupportedTypeReason(type))
          return reason;
    if (auto type = dyn_cast<QuantizedTensorType>(matmul.getType())) {
      std::string whyNot;
      if (std::optional<std::string> reason = getUnsupportedTypeReason(type))
        return reason;
      if (!BlockIterationSpace::get(padToWholeBlocks(type), whyNot,
                                    /*packData=*/false))
        return "requantizing the matmul result: " + whyNot;
    }
    return std::nullopt;
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    for (int64_t d : broadcast.getDimensions())
      if (ShapedType::isDynamic(broadcast.getType().getShape()[d]))
        return std::string(
            "broadcasting along a new dynamic dimension is not lowered yet");
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto quantized = dyn_cast<QuantizedTensorType>(type))
      if (std::optional<std::string> reason =
              getUnsupportedTypeReason(quantized))
        return reason;
  return std::nullopt;
}

std::optional<std::string>
mlir::quant_block::getQuantBlockToLinalgUnsupportedReason(Operation *op) {
  return detail::getUnsupportedReason(op);
}

LogicalResult
mlir::quant_block::checkQuantBlockToLinalgSupport(Operation *root) {
  // Report every op this lowering cannot handle; a function signature is
  // only blamed when no op inside explains the problem already.
  bool supported = true;
  root->walk([&](Operation *op) {
    // Upstream quant.dcast / quant.qcast left by --quant-block-raise would
    // only fail later, in bufferization, far from the cause.
    if (op->getName().getStringRef() == "quant.dcast" ||
        op->getName().getStringRef() == "quant.qcast") {
      op->emitError()
          << "cannot lower to linalg: " << op->getName()
          << " was not raised to quant_block (--quant-block-raise takes "
             "ranked !quant.uniform tensors, per tensor, per axis or "
             "sub-channel, whose storage comes from quant.scast or whose "
             "values from quant.qcast, dynamic only in dimensions that one "
             "block spans)";
      supported = false;
      return;
    }
    if (!isa<QuantBlockDialect>(op->getDialect()))
      return;
    if (std::optional<std::string> reason = getUnsupportedReason(op)) {
      op->emitError() << "cannot lower to linalg: " << *reason;
      supported = false;
    }
  });
  if (!supported)
    return failure();
  root->walk([&](func::FuncOp func) {
    for (Type type :
         llvm::concat<const Type>(func.getFunctionType().getInputs(),
                                  func.getFunctionType().getResults())) {
      auto quantized = dyn_cast<QuantizedTensorType>(type);
      if (!quantized)
        continue;
      if (std::optional<std::string> reason =
              getUnsupportedTypeReason(quantized)) {
        func.emitError() << "cannot lower to linalg: " << *reason;
        supported = false;
        return;
      }
    }
  });
  return success(supported);
}

void mlir::quant_block::configureQuantBlockToLinalgConversionTarget(
    ConversionTarget &target, const TypeConverter &typeConverter) {
  target.addIllegalDialect<QuantBlockDialect>();
  target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                         math::MathDialect, tensor::TensorDialect>();
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
    return typeConverter.isSignatureLegal(func.getFunctionType()) &&
           typeConverter.isLegal(&func.getBody());
  });
  target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp>(
      [&](Operation *op) { return typeConverter.isLegal(op); });
  target.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return typeConverter.isLegal(op); });
  target.addDynamicallyLegalOp<tensor::BitcastOp>(
      [](tensor::BitcastOp op) { return !isSignednessCast(op); });
}

void mlir::quant_block::populateQuantBlockToLinalgConversionPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns) {
  detail::populateDequantizePatterns(typeConverter, patterns);
  detail::populateQuantizePatterns(typeConverter, patterns);
  detail::populatePackPatterns(typeConverter, patterns);
  detail::populateQuantizeDynamicPatterns(typeConverter, patterns);
  detail::populateMatmulPatterns(typeConverter, patterns);
  detail::populateLayoutPatterns(typeConverter, patterns);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 typeConverter);
  populateCallOpTypeConversionPattern(patterns, typeConverter);
  populateReturnOpTypeConversionPattern(patterns, typeConverter);
  // The parts are signless; what --quant-block-raise reinterpreted as
  // unsigned storage becomes signless again.
  populateSignednessCastPatterns(patterns);
}

namespace {
/// The argument and result attributes of a function whose signature the
/// conversion expands, by position in the converted signature: each part
/// of a quantized value takes the attributes of the value it belongs to
/// (`quant_block.device_resident` applies to every part of a weight). The
/// signature conversion itself keeps the attribute arrays by index, which
/// would move them onto the wrong arguments.
struct ExpandedSignatureAttrs {
  func::FuncOp func;
  SmallVector<DictionaryAttr> arguments;
  SmallVector<DictionaryAttr> results;
};
} // namespace

/// Records the attributes of the functions whose signatures expand, as they
/// will be placed after the conversion (none if no attribute is set).
static SmallVector<ExpandedSignatureAttrs>
recordExpandedSignatureAttrs(Operation *root,
                             const TypeConverter &typeConverter) {
  SmallVector<ExpandedSignatureAttrs> records;
  root->walk([&](func::FuncOp func) {
    if (!func.getAllArgAttrs() && !func.getAllResultAttrs())
      return;
    auto expand = [&](TypeRange types, ArrayAttr attrs,
                      SmallVector<DictionaryAttr> &expanded) {
      bool changed = false;
      for (auto [index, type] : llvm::enumerate(types)) {
        SmallVector<Type> parts;
        if (failed(typeConverter.convertType(type, parts)))
          parts.assign(1, type);
        changed |= parts.size() != 1;
        auto attr = attrs ? cast<DictionaryAttr>(attrs[index])
                          : DictionaryAttr::get(func.getContext());
        expanded.append(parts.size(), attr);
      }
      return changed;
    };
    ExpandedSignatureAttrs record{func, {}, {}};
    bool arguments = expand(func.getArgumentTypes(), func.getAllArgAttrs(),
                            record.arguments);
    bool results =
        expand(func.getResultTypes(), func.getAllResultAttrs(), record.results);
    if (arguments || results)
      records.push_back(std::move(record));
  });
  return records;
}

namespace {
struct ConvertQuantBlockToLinalgPass
    : public mlir::quant_block::impl::ConvertQuantBlockToLinalgBase<
          ConvertQuantBlockToLinalgPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(checkQuantBlockToLinalgSupport(root)))
      return signalPassFailure();

    QuantBlockTypeConverter typeConverter;
    ConversionTarget target(getContext());
    configureQuantBlockToLinalgConversionTarget(target, typeConverter);
    RewritePatternSet patterns(&getContext());
    populateQuantBlockToLinalgConversionPatterns(typeConverter, patterns);
    SmallVector<ExpandedSignatureAttrs> attrs =
        recordExpandedSignatureAttrs(root, typeConverter);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      return signalPassFailure();
    for (ExpandedSignatureAttrs &record : attrs) {
      if (record.func.getNumArguments() == record.arguments.size())
        record.func.setAllArgAttrs(record.arguments);
      if (record.func.getNumResults() == record.results.size())
        record.func.setAllResultAttrs(record.results);
    }
  }
};
} // namespace
