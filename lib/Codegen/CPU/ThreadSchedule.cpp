//===- ThreadSchedule.cpp - the schedule of the threads' loops ------------===//
//
// --quant-block-cpu-thread-schedule: see Passes.td. The threads' loops of a
// decode step are short (a GEMV of a 7B layer takes a fraction of a
// millisecond) and memory-bound; with a static schedule a thread that gets
// less of the memory bus than the other waits at every loop's barrier.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUTHREADSCHEDULE
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {
struct CPUThreadSchedulePass
    : public quant_block::impl::CPUThreadScheduleBase<CPUThreadSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<omp::ClauseScheduleKind> kind =
        llvm::StringSwitch<std::optional<omp::ClauseScheduleKind>>(schedule)
            .Case("static", omp::ClauseScheduleKind::Static)
            .Case("dynamic", omp::ClauseScheduleKind::Dynamic)
            .Case("guided", omp::ClauseScheduleKind::Guided)
            .Case("runtime", omp::ClauseScheduleKind::Runtime)
            .Default(std::nullopt);
    if (!kind) {
      emitError(getOperation()->getLoc())
          << "unknown thread schedule '" << schedule
          << "': expected static, dynamic, guided or runtime";
      return signalPassFailure();
    }
    bool chunked = *kind == omp::ClauseScheduleKind::Dynamic ||
                   *kind == omp::ClauseScheduleKind::Guided;
    if (chunked && chunk < 1) {
      emitError(getOperation()->getLoc())
          << "the thread schedule's chunk must be at least 1, not "
          << static_cast<int64_t>(chunk);
      return signalPassFailure();
    }
    // Static is OpenMP's default: the loops stay as they are.
    if (*kind == omp::ClauseScheduleKind::Static)
      return;
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](omp::WsloopOp loop) {
      if (loop.getScheduleKind())
        return;
      loop.setScheduleKind(*kind);
      if (!chunked)
        return;
      OpBuilder builder(loop);
      loop.getScheduleChunkMutable().assign(arith::ConstantIntOp::create(
          builder, loop.getLoc(), builder.getI64Type(), chunk));
      // Each thread starts on its static share and takes iterations from
      // the others' ends when it runs out (libomp's static_steal).
      if (*kind == omp::ClauseScheduleKind::Dynamic)
        loop.setScheduleModAttr(omp::ScheduleModifierAttr::get(
            ctx, omp::ScheduleModifier::nonmonotonic));
    });
  }
};
} // namespace
