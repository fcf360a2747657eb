//===- TableLookups.h - table lookups for the CPU kernels ------*- C++ -*-===//
//-*-===//
//
// The 16-entry table lookups that the matmul kernels emit (E2M1 codes to
// their f32 values, or to bytes for integer dot products) and
// --quant-block-cpu-x86-table-lookups turns into AVX-512's vpermps or
// vpshufb.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_CPU_TABLELOOKUPS_H
#define QUANT_BLOCK_LIB_CODEGEN_CPU_TABLELOOKUPS_H

#include "mlir/IR/Builders.h"

namespace mlir::quant_block {

/// `table[indices[l]]` for each lane of a vector<16xi32> `indices` with
/// values in [0, 16), as a vector.gather from a constant tensor<16xf32>
/// (which bufferizes to a constant global).
Value buildTableLookup(OpBuilder &b, Location loc, ArrayRef<float> table,
                       Value indices);

/// `table[indices[l]]` for each lane of a vector<64xi8> `indices` with
/// values in [0, 16), as a vector.gather from a constant tensor<16xi8>.
Value buildByteTableLookup(OpBuilder &b, Location loc, ArrayRef<int8_t> table,
                           Value indices);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_LIB_CODEGEN_CPU_TABLELOOKUPS_H
