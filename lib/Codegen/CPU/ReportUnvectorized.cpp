//===- ReportUnvectorized.cpp - remark on linalg ops left scalar ----------===//
//
// --quant-block-cpu-report-unvectorized: after --quant-block-cpu-vectorize,
// every linalg op still there becomes scalar loops. This pass says so, with
// the reason (VectorizationLimits.h), so that a kernel cannot fall back to
// scalar code without anyone noticing.
//
//===----------------------------------------------------------------------===//

#include "VectorizationLimits.h"

#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUREPORTUNVECTORIZED
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {
struct CPUReportUnvectorizedPass
    : public mlir::quant_block::impl::CPUReportUnvectorizedBase<
          CPUReportUnvectorizedPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](linalg::LinalgOp op) {
      op->emitRemark() << "not vectorized: "
                       << mlir::quant_block::detail::getUnvectorizedReason(op);
    });
    markAllAnalysesPreserved();
  }
};
} // namespace
