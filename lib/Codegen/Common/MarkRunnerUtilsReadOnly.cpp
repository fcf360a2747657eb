//===- MarkRunnerUtilsReadOnly.cpp - read-only runner utility calls -------===//
//
// See Passes.td: --quant-block-mark-runner-utils-read-only.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_MARKRUNNERUTILSREADONLY
#include "quant-block/Codegen/Common/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// The runner utilities (mlir/ExecutionEngine/RunnerUtils.h) that read their
/// memref arguments and write none.
static bool isReadOnlyRunnerUtil(StringRef name) {
  return name.starts_with("printMemref") || name.starts_with("verifyMemRef");
}

namespace {
struct MarkRunnerUtilsReadOnlyPass
    : public quant_block::impl::MarkRunnerUtilsReadOnlyBase<
          MarkRunnerUtilsReadOnlyPass> {
  void runOnOperation() override {
    auto access = StringAttr::get(&getContext(), "read");
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isExternal() || !isReadOnlyRunnerUtil(func.getSymName()))
        continue;
      for (auto [index, type] :
           llvm::enumerate(func.getFunctionType().getInputs()))
        if (isa<TensorType>(type) &&
            !func.getArgAttr(
                index,
                bufferization::BufferizationDialect::kBufferAccessAttrName))
          func.setArgAttr(
              index, bufferization::BufferizationDialect::kBufferAccessAttrName,
              access);
    }
  }
};
} // namespace
