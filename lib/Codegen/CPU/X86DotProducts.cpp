//===- X86DotProducts.cpp - byte contractions to vpdpbusd -----------------===//
//
// --quant-block-cpu-x86-dot-products and the builder of the contraction it
// matches (DotProducts.h).
//
//===----------------------------------------------------------------------===//

#include "DotProducts.h"

#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUX86DOTPRODUCTS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

static constexpr int64_t kDotLanes = 16;
static constexpr int64_t kDotGroup = 4;

Value mlir::quant_block::buildUnsignedBySignedDot(OpBuilder &b, Location loc,
                                                  Value acc,
                                                  Value unsignedBytes,
                                                  Value signedBytes) {
  auto grouped = VectorType::get({kDotLanes, kDotGroup}, b.getI8Type());
  auto wide = VectorType::get({kDotLanes, kDotGroup}, b.getI32Type());
  Value lhs = arith::ExtUIOp::create(
      b, loc, wide,
      vector::ShapeCastOp::create(b, loc, grouped, unsignedBytes));
  Value rhs = arith::ExtSIOp::create(
      b, loc, wide, vector::ShapeCastOp::create(b, loc, grouped, signedBytes));
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap lanes = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
  return vector::ContractionOp::create(
      b, loc, lhs, rhs, acc,
      b.getAffineMapArrayAttr({identity, identity, lanes}),
      b.getArrayAttr(
          {vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
           vector::IteratorTypeAttr::get(ctx,
                                         vector::IteratorType::reduction)}));
}

/// The vector<64xi8> that `value` extends from (through a shape_cast from
/// or to vector<16x4>, or a broadcast of extended bytes, which
/// canonicalization makes of an extension of broadcast bytes), or null.
template <typename ExtOp> static Value getExtendedBytes(Value value) {
  auto flat = VectorType::get({kDotLanes * kDotGroup},
                              IntegerType::get(value.getContext(), 8));
  if (auto broadcast = value.getDefiningOp<vector::BroadcastOp>()) {
    auto ext = broadcast.getSource().getDefiningOp<ExtOp>();
    if (!ext || !getElementTypeOrSelf(ext.getIn().getType()).isInteger(8))
      return {};
    OpBuilder b(broadcast);
    Value bytes = vector::BroadcastOp::create(
        b, broadcast.getLoc(),
        VectorType::get({kDotLanes, kDotGroup}, b.getI8Type()), ext.getIn());
    return vector::ShapeCastOp::create(b, broadcast.getLoc(), flat, bytes);
  }
  auto ext = value.getDefiningOp<ExtOp>();
  if (!ext)
    return {};
  Value source = ext.getIn();
  auto type = dyn_cast<VectorType>(source.getType());
  if (!type || !type.getElementType().isInteger(8) ||
      type.getNumElements() != kDotLanes * kDotGroup)
    return {};
  if (auto cast = source.getDefiningOp<vector::ShapeCastOp>())
    source = cast.getSource();
  if (source.getType() != flat) {
    OpBuilder b(ext);
    source = vector::ShapeCastOp::create(b, ext.getLoc(), flat, source);
  }
  return source;
}

namespace {

struct CPUX86DotProductsPass
    : public quant_block::impl::CPUX86DotProductsBase<CPUX86DotProductsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap lanes = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
    auto accType = VectorType::get({kDotLanes}, IntegerType::get(ctx, 32));
    SmallVector<vector::ContractionOp> contractions;
    getOperation().walk(
        [&](vector::ContractionOp op) { contractions.push_back(op); });
    for (vector::ContractionOp op : contractions) {
      if (op.getKind() != vector::CombiningKind::ADD ||
          op.getAcc().getType() != accType ||
          op.getIndexingMapsArray() !=
              ArrayRef<AffineMap>{identity, identity, lanes})
        continue;
      Value unsignedBytes = getExtendedBytes<arith::ExtUIOp>(op.getLhs());
      Value signedBytes = getExtendedBytes<arith::ExtSIOp>(op.getRhs());
      if (!unsignedBytes || !signedBytes)
        continue;
      OpBuilder b(op);
      Value dot = LLVM::CallIntrinsicOp::create(
                      b, op.getLoc(), accType,
                      b.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
                      ValueRange{op.getAcc(), unsignedBytes, signedBytes})
                      .getResult(0);
      op.getResult().replaceAllUsesWith(dot);
      op.erase();
    }
  }
};

} // namespace
