//===- TileConstantWeights.cpp - constant weights in the row-tiled layout -===//
//
// --quant-block-cpu-tile-constant-weights: see Passes.td. The kernels with
// one weight row per vector lane read a row-major weight 16 rows at a time
// and transpose each chunk in registers at every K step; the row-tiled
// layout (docs/Packing.md) stores it that way already. A weight packed from
// constants (an imported model's initializers) gets that layout at compile
// time for free: pack's parts are logical, and the lowering tiles constant
// parts into new constants.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "RowTiles.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUTILECONSTANTWEIGHTS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

namespace {
struct CPUTileConstantWeightsPass
    : public quant_block::impl::CPUTileConstantWeightsBase<
          CPUTileConstantWeightsPass> {
  void runOnOperation() override {
    StringRef name = QuantBlockDialect::getCPUKernelAttrName();
    // One tiled pack per row-major one, whatever number of products use it
    // (each would otherwise get its own copy of the constants).
    DenseMap<Operation *, PackOp> tiledPacks;
    getOperation().walk([&](MatmulOp op) {
      auto kernel = op->getAttrOfType<CPUMatmulKernelAttr>(name);
      if (!kernel || !readsRowTiles(kernel.getFamily()) ||
          !op.getTransposeRhs())
        return;
      auto pack = op.getRhs().getDefiningOp<PackOp>();
      if (!pack || pack.getType().getScheme().isRowTiled() ||
          !llvm::all_of(pack->getOperands(), [](Value part) {
            return matchPattern(part, m_Constant());
          }))
        return;
      PackOp &tiledPack = tiledPacks[pack];
      if (!tiledPack) {
        QuantizedTensorType tiled = getRowTiledType(pack.getType());
        if (!tiled)
          return;
        // A new pack of the same constant parts: other users of the
        // row-major one keep it.
        OpBuilder builder(pack);
        tiledPack = PackOp::create(
            builder, pack.getLoc(), tiled, pack.getData(), pack.getScales(),
            pack.getZeroPoints(), pack.getOuterScales(), pack.getOuterMins());
      }
      op.getRhsMutable().assign(tiledPack);
    });
    // The row-major packs no product uses any more.
    for (auto &[pack, tiled] : tiledPacks)
      if (tiled && pack->use_empty())
        pack->erase();
  }
};
} // namespace
