//===- LowerStridedCopies.cpp - copies between strided views as loops -----===//
//
// --quant-block-lower-strided-copies: see Passes.td. The pipelines' code
// must not call the runner utility library for a copy one-shot
// bufferization made (an insert of a tensor into a strided slice): the
// compiled functions are linked without it (and on a GPU target the copy
// belongs on the device).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIES
#include "quant-block/Codegen/Common/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// Whether convert-memref-to-llvm copies `type` with one memcpy (the test
/// its copy lowering makes).
static bool isOneContiguousBlock(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    memref::isStaticShapeAndContiguousRowMajor(memref));
}

namespace {
struct LowerStridedCopiesPass
    : public quant_block::impl::LowerStridedCopiesBase<LowerStridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> strided;
    getOperation().walk([&](memref::CopyOp copy) {
      if (contiguous || !isOneContiguousBlock(copy.getSource().getType()) ||
          !isOneContiguousBlock(copy.getTarget().getType()))
        strided.push_back(copy);
    });
    for (memref::CopyOp copy : strided) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
