//===- ByteDotProducts.cpp - 4-way byte dot products in vector form -------===//
//
// See ByteDotProducts.h.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/ByteDotProducts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_block;

Value ByteDotFactor::materialize(OpBuilder &b, Location loc) const {
  if (bytes)
    return bytes;
  auto type = VectorType::get({4}, b.getI8Type());
  SmallVector<APInt> values;
  for (const APInt &value : constant.getValues<APInt>())
    values.push_back(value.trunc(8));
  return arith::ConstantOp::create(b, loc,
                                   DenseIntElementsAttr::get(type, values));
}

/// `value` as a factor: the extension of a vector<4xi8>, or a constant whose
/// four values are bytes (signed when they all fit, else unsigned).
static std::optional<ByteDotFactor> matchFactor(Value value) {
  auto isBytes = [](Value in) {
    auto type = dyn_cast<VectorType>(in.getType());
    return type && type.getRank() == 1 && type.getNumElements() == 4 &&
           !type.isScalable() && type.getElementType().isInteger(8);
  };
  ByteDotFactor factor;
  if (auto ext = value.getDefiningOp<arith::ExtSIOp>()) {
    if (!isBytes(ext.getIn()))
      return std::nullopt;
    factor.bytes = ext.getIn();
    return factor;
  }
  if (auto ext = value.getDefiningOp<arith::ExtUIOp>()) {
    if (!isBytes(ext.getIn()))
      return std::nullopt;
    factor.bytes = ext.getIn();
    factor.isSigned = false;
    return factor;
  }
  DenseIntElementsAttr constant;
  if (!matchPattern(value, m_Constant(&constant)))
    return std::nullopt;
  bool allSigned = true, allUnsigned = true;
  for (const APInt &element : constant.getValues<APInt>()) {
    int64_t v = element.getSExtValue();
    allSigned &= v >= -128 && v <= 127;
    allUnsigned &= v >= 0 && v <= 255;
  }
  if (!allSigned && !allUnsigned)
    return std::nullopt;
  factor.constant = constant;
  factor.isSigned = allSigned;
  return factor;
}

std::optional<ByteDotProduct>
mlir::quant_block::matchByteDotProduct(vector::ReductionOp reduction) {
  if (reduction.getKind() != vector::CombiningKind::ADD ||
      !reduction.getType().isInteger(32))
    return std::nullopt;
  VectorType type = reduction.getSourceVectorType();
  if (type.getRank() != 1 || type.getNumElements() != 4 || type.isScalable())
    return std::nullopt;
  auto product = reduction.getVector().getDefiningOp<arith::MulIOp>();
  if (!product) {
    // The sum of 4 extended bytes (a product with ones, which the
    // canonicalizer folds to its other factor): a dot product with ones.
    std::optional<ByteDotFactor> bytes = matchFactor(reduction.getVector());
    if (!bytes || !bytes->bytes)
      return std::nullopt;
    ByteDotFactor ones;
    ones.constant = DenseIntElementsAttr::get(
        VectorType::get({4}, IntegerType::get(reduction.getContext(), 32)),
        APInt(32, 1));
    return ByteDotProduct{ones, *bytes, reduction.getAcc()};
  }
  std::optional<ByteDotFactor> lhs = matchFactor(product.getLhs());
  std::optional<ByteDotFactor> rhs = matchFactor(product.getRhs());
  // Two constants would have been folded; one factor must be a value.
  if (!lhs || !rhs || (!lhs->bytes && !rhs->bytes))
    return std::nullopt;
  return ByteDotProduct{*lhs, *rhs, reduction.getAcc()};
}
