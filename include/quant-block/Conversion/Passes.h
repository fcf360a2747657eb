//===- Passes.h - quant-block conversion passes -----------------*- C++ -*-===//
//
// Declares the conversion passes (generated from Passes.td) and their
// registration.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CONVERSION_PASSES_H
#define QUANT_BLOCK_CONVERSION_PASSES_H

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"

#include "mlir/Pass/Pass.h"

namespace mlir::quant_block {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "quant-block/Conversion/Passes.h.inc"

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CONVERSION_PASSES_H
