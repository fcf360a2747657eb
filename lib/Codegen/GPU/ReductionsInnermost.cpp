//===- ReductionsInnermost.cpp - reduction loops after parallel loops -----===//
//
// --quant-block-gpu-reductions-innermost: see Passes.td. On the GPU each
// outermost scf.parallel is a kernel's threads, and
// convert-linalg-to-parallel-loops keeps a linalg op's loops in their order:
// parallel loops after a reduction loop become an inner scf.parallel that
// every thread runs in sequence. Interchanging the parallel loops before
// the reductions gives each output element its own thread without changing
// the order of any element's reduction.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUREDUCTIONSINNERMOST
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// The loop order of `op` with its parallel loops first, then its
/// reductions, each in their order; empty when that is the order already.
static SmallVector<unsigned> getParallelFirstOrder(linalg::GenericOp op) {
  SmallVector<unsigned> parallel, reduction;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (linalg::isReductionIterator(iterator) ? reduction : parallel)
        .push_back(dim);
  if (reduction.empty() || parallel.empty() ||
      reduction.front() > parallel.back())
    return {};
  SmallVector<unsigned> order(parallel);
  order.append(reduction);
  return order;
}

namespace {
struct GPUReductionsInnermostPass
    : public quant_block::impl::GPUReductionsInnermostBase<
          GPUReductionsInnermostPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!getParallelFirstOrder(op).empty())
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op,
                                              getParallelFirstOrder(op)))) {
        op.emitOpError("could not interchange its loops to put its "
                       "reductions last");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
