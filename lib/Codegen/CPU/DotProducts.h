//===- DotProducts.h - byte dot products for the CPU kernels ----*- C++ -*-===//
//
// The unsigned-by-signed byte dot product that the matmul kernels emit and
// --quant-block-cpu-x86-dot-products turns into AVX512-VNNI's vpdpbusd.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_CPU_DOTPRODUCTS_H
#define QUANT_BLOCK_LIB_CODEGEN_CPU_DOTPRODUCTS_H

#include "mlir/IR/Builders.h"

namespace mlir::quant_block {

/// `acc[l] + sum over t < 4 of zext(unsignedBytes[4l + t]) *
/// sext(signedBytes[4l + t])` for a vector<16xi32> `acc` and two
/// vector<64xi8>, as a vector.contract of the extended bytes viewed as
/// vector<16x4xi32>.
Value buildUnsignedBySignedDot(OpBuilder &b, Location loc, Value acc,
                               Value unsignedBytes, Value signedBytes);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_LIB_CODEGEN_CPU_DOTPRODUCTS_H
