//===- GatherLowering.h - general lowering with gathered parameters -*- C++
//-*-//
//
// The general form of quantize and dequantize for layouts the expanded block
// iteration space cannot express: ragged last blocks, blocked dynamic
// dimensions, one scale per packed element, odd innermost sizes. The generic
// iterates over the natural element (or packed byte) space and reads the
// block parameters and packed bytes with tensor.extract at computed indices.
// It is correct for every layout; the vectorizer turns its reads into
// gathers, so the expanded form is preferred where it applies.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_GATHERLOWERING_H
#define QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_GATHERLOWERING_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

#include "mlir/IR/Builders.h"

namespace mlir::quant_block::detail {

/// Dequantizes lowered `data` / `scales` / `zeroPoints` (null without) of
/// `type` into a tensor of `resultType`.
Value dequantizeByGather(OpBuilder &b, Location loc, QuantizedTensorType type,
                         RankedTensorType resultType, Value data, Value scales,
                         Value zeroPoints, Value outerScale);

/// Quantizes `input` into the lowered data tensor of `type`.
Value quantizeByGather(OpBuilder &b, Location loc, QuantizedTensorType type,
                       Value input, Value scales, Value zeroPoints,
                       Value outerScale);

/// Packs logical signless `codes` (any innermost size, e.g. one that is not
/// a multiple of the packing group) into the lowered data type `dataType`.
Value packCodesByGather(OpBuilder &b, Location loc, Value codes,
                        RankedTensorType dataType, unsigned width);

/// Unpacks lowered `data` into logical codes of `logicalType`.
Value unpackCodesByGather(OpBuilder &b, Location loc, Value data,
                          RankedTensorType logicalType, unsigned width,
                          bool isSigned);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_GATHERLOWERING_H
