//===- RowTiles.h - weights in the row-tiled layout for CPU kernels -*- C++
//-*-===//
//
// What --quant-block-cpu-tile-constant-weights and
// --quant-block-cpu-repack-weights share: which kernels read 16-row tiles
// of a weight directly, and the row-tiled type of a weight.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_CPU_ROWTILES_H
#define QUANT_BLOCK_LIB_CODEGEN_CPU_ROWTILES_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

namespace mlir::quant_block::detail {

/// The rows of a tile: one weight row per 32-bit lane of a 512-bit vector,
/// the tile the kernels read directly.
inline constexpr int64_t kWeightTileRows = 16;

/// Whether the kernel family `family` reads a weight of `kWeightTileRows`-row
/// tiles directly (the others would repack it row-major on every call).
bool readsRowTiles(CPUMatmulKernelFamily family);

/// `type` in the row-tiled layout, or null where the layout does not take
/// it (rows not a multiple of the tile, blocks along N, blocks of partial
/// words, ...: the type's verifier decides, silently here).
QuantizedTensorType getRowTiledType(QuantizedTensorType type);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CODEGEN_CPU_ROWTILES_H
