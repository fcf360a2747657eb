//===- TwoLevelParameters.h - folding second-level scales -------*- C++ -*-===//
//
// GGUF K-quant style super-blocks: integer (quantized) block scales, outer
// scales blocked over the scale tensor, and outer mins that scale the zero
// points. The lowering folds them into effective f32 block parameters first,
//
//   s_eff[b] = f32(scale[b]) * f32(outer_scale[b / outer_block])
//   m_eff[b] = f32(zero_point[b]) * f32(outer_min[b / outer_block])
//
// with one generic over the *scale* tensor (parameters stay contracted, one
// value per block, never one per element), and then lowers the op with the
// equivalent single-level scheme (f32 scales, f32 float zero points when
// there is an outer min). Every element of a block then computes exactly
// what docs/Numerics.md defines, and the element kernels stay the ones every
// other scheme uses.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_TWOLEVELPARAMETERS_H
#define QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_TWOLEVELPARAMETERS_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.h"

#include "mlir/IR/Builders.h"

namespace mlir::quant_block::detail {

/// True for schemes whose block parameters are two-level in a way the
/// element kernels do not read directly: integer block scales, blocked outer
/// scales or an outer min. (A per-tensor outer scale over float scales, as
/// in NVFP4, is read directly.)
bool hasTwoLevelBlockParameters(SchemeAttr scheme);

/// When `type` has two-level block parameters, replaces `type` by the
/// equivalent single-level type and `parts` (lowered: data, scales, [zero
/// points], [outer scales], [outer mins]; the data may be null) by data,
/// effective scales and [effective zero points]. Otherwise leaves both.
void foldTwoLevelBlockParameters(OpBuilder &b, Location loc,
                                 QuantizedTensorType &type,
                                 SmallVectorImpl<Value> &parts);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CONVERSION_QUANTBLOCKTOLINALG_TWOLEVELPARAMETERS_H
