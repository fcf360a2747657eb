//===- RowTiles.cpp - weights in the row-tiled layout for CPU kernels -----===//

#include "RowTiles.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::quant_block;

bool mlir::quant_block::detail::readsRowTiles(CPUMatmulKernelFamily family) {
  return family == CPUMatmulKernelFamily::VnniRowLanes ||
         family == CPUMatmulKernelFamily::Amx ||
         family == CPUMatmulKernelFamily::OrderedRows;
}

QuantizedTensorType
mlir::quant_block::detail::getRowTiledType(QuantizedTensorType type) {
  MLIRContext *context = type.getContext();
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });
  return QuantizedTensorType::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context,
      type.getShape(), type.getScheme().withRowTile(kWeightTileRows));
}
