//===- X86SixBitSpreads.cpp - 6-bit code spreads to vpmultishiftqb --------===//
//
// --quant-block-cpu-x86-six-bit-spreads: the spread of four 6-bit codes to
// a byte each, as --quant-block-cpu-matmul-kernels emits it for Q6_K's
// storage, becomes one AVX512-VBMI vpmultishiftqb and a mask.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUX86SIXBITSPREADS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

static constexpr int64_t kLanes = 16;

/// The value of an integer constant or splat vector (m_ConstantInt matches
/// both), if `value` is one.
static std::optional<uint64_t> getSplat(Value value) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getZExtValue();
}

/// `value` = (d << shift) & mask (no shift when `shift` is 0): d, or null.
static Value matchShiftedField(Value value, int64_t shift, uint64_t mask) {
  auto masked = value.getDefiningOp<arith::AndIOp>();
  if (!masked)
    return {};
  for (int64_t side = 0; side < 2; ++side) {
    Value field = masked->getOperand(side);
    if (getSplat(masked->getOperand(1 - side)) != mask)
      continue;
    if (shift == 0)
      return field;
    auto shifted = field.getDefiningOp<arith::ShLIOp>();
    if (shifted && getSplat(shifted.getRhs()) == uint64_t(shift))
      return shifted.getLhs();
  }
  return {};
}

/// The d of `value` = (d & 63) | (d << 2 & 63 << 8) | (d << 4 & 63 << 16)
/// | (d << 6 & 63 << 24) on vector<16xi32>, the ors in the order the
/// kernels emit them (either operand of each), or null.
static Value matchSpread(Value value) {
  auto type = dyn_cast<VectorType>(value.getType());
  if (!type || type.getShape() != ArrayRef<int64_t>{kLanes} ||
      !type.getElementType().isInteger(32))
    return {};
  Value codes;
  for (int64_t j = 3; j >= 1; --j) {
    auto joined = value.getDefiningOp<arith::OrIOp>();
    if (!joined)
      return {};
    Value rest;
    for (int64_t side = 0; side < 2 && !rest; ++side) {
      Value field =
          matchShiftedField(joined->getOperand(side), 2 * j, 0x3Fu << (8 * j));
      if (field && (!codes || field == codes)) {
        codes = field;
        rest = joined->getOperand(1 - side);
      }
    }
    if (!rest)
      return {};
    value = rest;
  }
  Value first = matchShiftedField(value, 0, 0x3F);
  return first == codes ? codes : Value();
}

namespace {

struct CPUX86SixBitSpreadsPass
    : public quant_block::impl::CPUX86SixBitSpreadsBase<
          CPUX86SixBitSpreadsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<arith::OrIOp, Value>> spreads;
    getOperation().walk([&](arith::OrIOp op) {
      if (Value codes = matchSpread(op.getResult()))
        spreads.push_back({op, codes});
    });
    for (auto [op, codes] : spreads) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      // A logical right shift by at most 8 moves into the offsets: the
      // fourth code then ends at bit 31 at most, within the lane.
      int64_t first = 0;
      if (auto shifted = codes.getDefiningOp<arith::ShRUIOp>()) {
        std::optional<uint64_t> shift = getSplat(shifted.getRhs());
        if (shift && *shift <= 8) {
          first = int64_t(*shift);
          codes = shifted.getLhs();
        }
      }
      auto bytes = VectorType::get({4 * kLanes}, b.getI8Type());
      SmallVector<int8_t> offsets;
      for (int64_t byte = 0; byte < 4 * kLanes; ++byte)
        offsets.push_back(int8_t(first + 6 * (byte % 4) + 32 * (byte % 8 / 4)));
      Value control = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(bytes, ArrayRef<int8_t>(offsets)));
      Value source = vector::BitCastOp::create(b, loc, bytes, codes);
      Value picked = LLVM::CallIntrinsicOp::create(
                         b, loc, bytes,
                         b.getStringAttr("llvm.x86.avx512.pmultishift.qb.512"),
                         ValueRange{control, source})
                         .getResult(0);
      auto lanes = cast<VectorType>(op.getType());
      Value mask = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(lanes, APInt(32, 0x3F3F3F3F)));
      Value spread = arith::AndIOp::create(
          b, loc, vector::BitCastOp::create(b, loc, lanes, picked), mask);
      op.getResult().replaceAllUsesWith(spread);
    }
  }
};

} // namespace
