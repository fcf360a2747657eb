//===- X86TableLookups.cpp - 16-entry table lookups to vpermps ------------===//
//
// --quant-block-cpu-x86-table-lookups and the builders of the lookups it
// matches (TableLookups.h).
//
//===----------------------------------------------------------------------===//

#include "TableLookups.h"

#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUX86TABLELOOKUPS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

static constexpr int64_t kTableSize = 16;

Value mlir::quant_block::buildTableLookup(OpBuilder &b, Location loc,
                                          ArrayRef<float> table,
                                          Value indices) {
  assert(table.size() == kTableSize && "a table of 16 entries");
  auto tableType = RankedTensorType::get({kTableSize}, b.getF32Type());
  auto resultType = VectorType::get({kTableSize}, b.getF32Type());
  Value tableValue = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(tableType, table));
  Value mask = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({kTableSize}, b.getI1Type()),
                             true));
  Value passThru = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(resultType, 0.0f));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return vector::GatherOp::create(b, loc, resultType, tableValue,
                                  ValueRange{zero}, indices, mask, passThru);
}

Value mlir::quant_block::buildByteTableLookup(OpBuilder &b, Location loc,
                                              ArrayRef<int8_t> table,
                                              Value indices) {
  assert(table.size() == kTableSize && "a table of 16 entries");
  Type i8 = b.getI8Type();
  int64_t lanes = cast<VectorType>(indices.getType()).getNumElements();
  auto resultType = VectorType::get({lanes}, i8);
  SmallVector<APInt> entries;
  for (int8_t entry : table)
    entries.push_back(APInt(8, entry, /*isSigned=*/true));
  Value tableValue = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({kTableSize}, i8), entries));
  Value mask = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({lanes}, b.getI1Type()), true));
  Value passThru = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(resultType, b.getIntegerAttr(i8, 0)));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return vector::GatherOp::create(b, loc, resultType, tableValue,
                                  ValueRange{zero}, indices, mask, passThru);
}

/// The 16 values of the constant global that `base` reads, or null.
static DenseElementsAttr getConstantTable(Value base) {
  auto getGlobal = base.getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  if (!global || !global.getConstant())
    return {};
  auto values =
      dyn_cast_or_null<DenseElementsAttr>(global.getConstantInitValue());
  if (!values || values.getNumElements() != kTableSize)
    return {};
  return values;
}

namespace {

struct CPUX86TableLookupsPass
    : public quant_block::impl::CPUX86TableLookupsBase<CPUX86TableLookupsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Type f32 = Float32Type::get(ctx), i8 = IntegerType::get(ctx, 8);
    auto floatType = VectorType::get({kTableSize}, f32);
    auto floatIndexType =
        VectorType::get({kTableSize}, IntegerType::get(ctx, 32));
    auto byteType = VectorType::get({4 * kTableSize}, i8);
    SmallVector<vector::GatherOp> gathers;
    getOperation().walk([&](vector::GatherOp op) { gathers.push_back(op); });
    for (vector::GatherOp op : gathers) {
      DenseElementsAttr table = getConstantTable(op.getBase());
      if (!table || !matchPattern(op.getMask(), m_One()) ||
          !llvm::all_of(op.getOffsets(),
                        [](Value v) { return matchPattern(v, m_Zero()); }))
        continue;
      Type resultType = op.getResult().getType();
      Type indexType = op.getIndices().getType();
      OpBuilder b(op);
      Value lookup;
      if (resultType == floatType && indexType == floatIndexType &&
          table.getElementType() == f32) {
        Value tableVector =
            arith::ConstantOp::create(b, op.getLoc(), table.reshape(floatType));
        lookup = LLVM::CallIntrinsicOp::create(
                     b, op.getLoc(), floatType,
                     b.getStringAttr("llvm.x86.avx512.permvar.sf.512"),
                     ValueRange{tableVector, op.getIndices()})
                     .getResult(0);
      } else if (resultType == byteType && indexType == byteType &&
                 table.getElementType() == i8) {
        // vpshufb looks up within each 128-bit lane: the table in all four.
        SmallVector<APInt> entries;
        for (int64_t copy = 0; copy < 4; ++copy)
          llvm::append_range(entries, table.getValues<APInt>());
        Value tableVector = arith::ConstantOp::create(
            b, op.getLoc(), DenseElementsAttr::get(byteType, entries));
        lookup = LLVM::CallIntrinsicOp::create(
                     b, op.getLoc(), byteType,
                     b.getStringAttr("llvm.x86.avx512.pshuf.b.512"),
                     ValueRange{tableVector, op.getIndices()})
                     .getResult(0);
      } else {
        continue;
      }
      op.getResult().replaceAllUsesWith(lookup);
      op.erase();
    }
  }
};

} // namespace
