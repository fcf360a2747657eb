//===- ElementwiseChain.cpp - a decomposition seen from its root ----------===//
//
// Implements the root's view of a decomposition declared in
// ElementwiseChain.h: which elementwise ops (arith and math on tensors or in
// linalg bodies, TOSA with its implicit broadcast) the raise matchers look
// through, and how an operand's indexing composes on the way to the root.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseChain.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

RankedTensorType mlir::quant_block::detail::getRootType(Operation *op) {
  if (op->getNumResults() != 1 ||
      isa_and_nonnull<QuantBlockDialect>(op->getDialect()))
    return {};
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getRank() == 0)
    return {};
  return type;
}

EwValue mlir::quant_block::detail::getRootValue(Operation *root) {
  Value result = root->getResult(0);
  int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
  return {result, AffineMap::getMultiDimIdentityMap(rank, root->getContext()),
          nullptr, false};
}

/// True for linalg ops whose results are elementwise in their iteration
/// space (the body may still read operands through any indexing map).
static bool isParallelLinalgOp(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops();
}

/// The operand of `op` when `op` returns it unchanged: a cast or reshape to
/// the type it already has, tosa.identity. (Copies and identity generics
/// are linalg ops; normalize walks through their bodies.)
static Value getUnchangedOperand(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumOperands() == 0)
    return {};
  Value source = op->getOperand(0);
  if (source.getType() != op->getResult(0).getType())
    return {};
  if (isa<tensor::CastOp, tensor::ReshapeOp, tosa::ReshapeOp, tosa::IdentityOp>(
          op))
    return source;
  return {};
}

/// Moves `value` across op boundaries without changing what it computes:
/// into the body of the linalg op that produced it, out of a body through
/// the block argument of an input, and through ops that return their
/// operand unchanged.
EwValue mlir::quant_block::detail::normalize(EwValue value) {
  if (!value.value)
    return value;
  while (true) {
    if (!value.scalar) {
      auto result = dyn_cast<OpResult>(value.value);
      if (!result)
        return value;
      if (Value source = getUnchangedOperand(result.getOwner())) {
        value.value = source;
        continue;
      }
      if (auto splat = dyn_cast<tensor::SplatOp>(result.getOwner())) {
        if (!splat.getDynamicSizes().empty())
          return value;
        value = {splat.getInput(), value.map, nullptr, true};
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(result.getOwner());
      if (!linalgOp || !isParallelLinalgOp(linalgOp))
        return value;
      AffineMap outputMap = linalgOp.getIndexingMapMatchingResult(result);
      if (!outputMap.isPermutation())
        return value;
      Value yielded = linalgOp.getBlock()->getTerminator()->getOperand(
          result.getResultNumber());
      value = {yielded, inversePermutation(outputMap).compose(value.map),
               linalgOp, true};
      continue;
    }
    auto argument = dyn_cast<BlockArgument>(value.value);
    if (!value.body || !argument ||
        argument.getOwner() != value.body.getBlock())
      return value;
    OpOperand *operand = value.body.getMatchingOpOperand(argument);
    if (value.body.isDpsInit(operand))
      return value;
    if (!isa<RankedTensorType>(operand->get().getType())) {
      // A scalar input (linalg.fill): the same value everywhere.
      value = {operand->get(), value.map, nullptr, true};
      continue;
    }
    value = {operand->get(),
             value.body.getMatchingIndexingMap(operand).compose(value.map),
             nullptr, false};
  }
}

static bool isArithOrMathElementwise(Operation *op) {
  return op->getNumResults() == 1 &&
         OpTrait::hasElementwiseMappableTraits(op) &&
         isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
             op->getDialect());
}

/// The index map of a TOSA operand of `operandType` under the implicit
/// broadcast of its unit dimensions to `resultType`.
static std::optional<AffineMap> getTosaBroadcastMap(Type operandType,
                                                    Type resultType) {
  auto operand = dyn_cast<RankedTensorType>(operandType);
  auto result = dyn_cast<RankedTensorType>(resultType);
  if (!operand || !result || operand.getRank() != result.getRank())
    return std::nullopt;
  MLIRContext *context = operandType.getContext();
  SmallVector<AffineExpr> exprs;
  for (auto [d, sizes] :
       llvm::enumerate(llvm::zip(operand.getShape(), result.getShape()))) {
    auto [operandSize, resultSize] = sizes;
    if (operandSize == resultSize)
      exprs.push_back(getAffineDimExpr(d, context));
    else if (operandSize == 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      return std::nullopt;
  }
  return AffineMap::get(result.getRank(), 0, exprs, context);
}

static bool isZeroShift(Value shift) {
  DenseIntElementsAttr attr;
  return matchPattern(shift, m_Constant(&attr)) &&
         llvm::all_of(attr.getValues<APInt>(),
                      [](const APInt &v) { return v.isZero(); });
}

/// The operation that defines `value` if it is one of the elementwise ops
/// this pass reads, with its operands seen from the root.
std::optional<EwOp> mlir::quant_block::detail::classify(const EwValue &input) {
  EwValue value = normalize(input);
  Operation *def = value.value ? value.value.getDefiningOp() : nullptr;
  if (!def || def->getNumResults() != 1)
    return std::nullopt;
  EwOp result{def, {}};
  if (value.scalar) {
    if (!value.body || def->getBlock() != value.body.getBlock() ||
        !isArithOrMathElementwise(def))
      return std::nullopt;
    for (Value operand : def->getOperands())
      result.operands.push_back({operand, value.map, value.body, true});
    return result;
  }
  Type resultType = def->getResult(0).getType();
  if (isArithOrMathElementwise(def)) {
    for (Value operand : def->getOperands()) {
      if (operand.getType() !=
          RankedTensorType::get(cast<ShapedType>(resultType).getShape(),
                                getElementTypeOrSelf(operand.getType())))
        return std::nullopt;
      result.operands.push_back({operand, value.map, nullptr, false});
    }
    return result;
  }
  if (!isa<tosa::AddOp, tosa::SubOp, tosa::MulOp, tosa::CastOp, tosa::ClampOp,
           tosa::ReciprocalOp>(def))
    return std::nullopt;
  unsigned count = def->getNumOperands();
  if (auto mul = dyn_cast<tosa::MulOp>(def)) {
    if (!isZeroShift(mul.getShift()))
      return std::nullopt;
    count = 2;
  }
  for (Value operand : def->getOperands().take_front(count)) {
    std::optional<AffineMap> map =
        getTosaBroadcastMap(operand.getType(), resultType);
    if (!map)
      return std::nullopt;
    result.operands.push_back(
        {operand, map->compose(value.map), nullptr, false});
  }
  return result;
}

Type mlir::quant_block::detail::elementTypeOf(Operation *op) {
  return getElementTypeOrSelf(op->getResult(0).getType());
}
Type mlir::quant_block::detail::operandElementTypeOf(Operation *op) {
  return getElementTypeOrSelf(op->getOperand(0).getType());
}

/// An int-to-float conversion: arith.sitofp / uitofp or a TOSA cast (TOSA
/// integers are signed).
bool mlir::quant_block::detail::isIntToFloat(Operation *op) {
  return isa<arith::SIToFPOp, arith::UIToFPOp>(op) ||
         (isa<tosa::CastOp>(op) && isa<IntegerType>(operandElementTypeOf(op)) &&
          isa<FloatType>(elementTypeOf(op)));
}
bool mlir::quant_block::detail::isFloatToFloat(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp>(op) ||
         (isa<tosa::CastOp>(op) && isa<FloatType>(operandElementTypeOf(op)) &&
          isa<FloatType>(elementTypeOf(op)));
}
/// Widening float casts never change a value.
bool mlir::quant_block::detail::isExactWidening(Operation *op) {
  if (!isFloatToFloat(op))
    return false;
  auto from = cast<FloatType>(operandElementTypeOf(op));
  auto to = cast<FloatType>(elementTypeOf(op));
  return APFloat::isRepresentableAsNormalIn(from.getFloatSemantics(),
                                            to.getFloatSemantics());
}

/// The root tensor itself: identity map, same shape, a tensor.
std::optional<Value>
mlir::quant_block::detail::matchRootShaped(const EwValue &input,
                                           ArrayRef<int64_t> shape) {
  EwValue value = normalize(input);
  if (!value.value || value.scalar || !value.map.isIdentity())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(value.value.getType());
  if (!type || type.getShape() != shape)
    return std::nullopt;
  return value.value;
}
