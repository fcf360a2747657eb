//===- RepackWeights.cpp - row-tiled weights for long products ------------===//
//
// --quant-block-cpu-repack-weights: see Passes.td. The kernels with one
// weight row per vector lane transpose each 16-row chunk of a row-major
// weight in registers at every K step, once per tile of activation rows;
// a weight that is not a constant (a function argument: the caller's
// buffer, row-major) cannot be tiled at compile time. Repacking it once per
// call costs a pass over the weight, which pays once the product has
// enough rows to reuse it (measured in bench/README.md).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "RowTiles.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUREPACKWEIGHTS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// The static number of rows of the product `op` (every dimension of its
/// left operand but the last), or nullopt when one is dynamic.
static std::optional<int64_t> getStaticRows(MatmulOp op) {
  auto type = dyn_cast<ShapedType>(op.getLhs().getType());
  ArrayRef<int64_t> shape;
  if (type)
    shape = type.getShape();
  else if (auto quantized =
               dyn_cast<QuantizedTensorType>(op.getLhs().getType()))
    shape = quantized.getShape();
  else
    return std::nullopt;
  int64_t rows = 1;
  for (int64_t size : shape.drop_back()) {
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    rows *= size;
  }
  return rows;
}

/// Whether `weight` is a quant_block.pack of constants
/// (--quant-block-cpu-tile-constant-weights' domain).
static bool isPackOfConstants(Value weight) {
  auto pack = weight.getDefiningOp<PackOp>();
  return pack && llvm::all_of(pack->getOperands(), [](Value part) {
           return matchPattern(part, m_Constant());
         });
}

namespace {
struct CPURepackWeightsPass
    : public quant_block::impl::CPURepackWeightsBase<CPURepackWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minRows < 1) {
      getOperation().emitError()
          << "min-rows must be positive, not " << static_cast<int64_t>(minRows);
      return signalPassFailure();
    }
    StringRef name = QuantBlockDialect::getCPUKernelAttrName();
    // One repack per weight, right after it is defined, whatever number of
    // products use it.
    DenseMap<Value, Value> repacked;
    getOperation().walk([&](MatmulOp op) {
      auto kernel = op->getAttrOfType<CPUMatmulKernelAttr>(name);
      if (!kernel || !readsRowTiles(kernel.getFamily()) ||
          !op.getTransposeRhs())
        return;
      Value weight = op.getRhs();
      auto type = dyn_cast<QuantizedTensorType>(weight.getType());
      if (!type || type.getScheme().isRowTiled() || isPackOfConstants(weight))
        return;
      std::optional<int64_t> rows = getStaticRows(op);
      if (!rows || *rows < minRows)
        return;
      Value &tiled = repacked[weight];
      if (!tiled) {
        QuantizedTensorType tiledType = getRowTiledType(type);
        if (!tiledType)
          return;
        OpBuilder builder(op.getContext());
        builder.setInsertionPointAfterValue(weight);
        tiled = RepackOp::create(builder, weight.getLoc(), tiledType, weight);
      }
      op.getRhsMutable().assign(tiled);
    });
  }
};
} // namespace
