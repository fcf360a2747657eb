//===- LegalizeBF16Vectors.cpp - bf16 vectors as i16 in LLVM IR -----------===//
//
// Loads and stores bf16 vectors of the LLVM dialect as i16 vectors, so that
// no bf16 vector value is left for the X86 back end to legalize (LLVM 22
// crashes on odd-length ones that cross blocks when AVX512-FP16 is on).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPULEGALIZEBF16VECTORS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// The vector of i16 with the shape of `type` when it is a vector of bf16;
/// null otherwise.
static VectorType getBitsVectorType(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isBF16())
    return {};
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

/// `value` bitcast to `type`, folding a bitcast from that type.
static Value bitcastTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (auto cast = value.getDefiningOp<LLVM::BitcastOp>())
    if (cast.getArg().getType() == type)
      return cast.getArg();
  return LLVM::BitcastOp::create(b, loc, type, value);
}

namespace {
struct CPULegalizeBF16VectorsPass
    : public quant_block::impl::CPULegalizeBF16VectorsBase<
          CPULegalizeBF16VectorsPass> {
  void runOnOperation() override {
    SmallVector<LLVM::LoadOp> loads;
    SmallVector<LLVM::StoreOp> stores;
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (getBitsVectorType(load.getType()))
          loads.push_back(load);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        if (getBitsVectorType(store.getValue().getType()))
          stores.push_back(store);
      }
    });
    for (LLVM::StoreOp store : stores) {
      OpBuilder b(store);
      Value bits = bitcastTo(b, store.getLoc(), store.getValue(),
                             getBitsVectorType(store.getValue().getType()));
      store.getValueMutable().assign(bits);
    }
    for (LLVM::LoadOp load : loads) {
      Type type = load.getType();
      // The same load (alignment, volatility, ...), of the bits.
      OpBuilder b(load);
      Operation *bitsLoad = b.clone(*load.getOperation());
      bitsLoad->getResult(0).setType(getBitsVectorType(type));
      b.setInsertionPointAfter(bitsLoad);
      // Uses that bitcast the value to i16 take the bits directly; the
      // others, a bitcast back to bf16 right after the load.
      Value asBF16;
      for (OpOperand &use : llvm::make_early_inc_range(load->getUses())) {
        auto cast = dyn_cast<LLVM::BitcastOp>(use.getOwner());
        if (cast && cast.getType() == bitsLoad->getResult(0).getType()) {
          cast.replaceAllUsesWith(bitsLoad->getResult(0));
          cast.erase();
          continue;
        }
        if (!asBF16)
          asBF16 = LLVM::BitcastOp::create(b, load.getLoc(), type,
                                           bitsLoad->getResult(0));
        use.set(asBF16);
      }
      load.erase();
    }
  }
};
} // namespace
