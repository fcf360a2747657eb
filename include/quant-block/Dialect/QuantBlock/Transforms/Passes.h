//===- Passes.h - quant_block transformation passes -------------*- C++ -*-===//
//
// Declares the quant_block transformation passes (generated from Passes.td)
// and the pattern sets behind them, for embedders that run the patterns in
// their own drivers.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_TRANSFORMS_PASSES_H
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_TRANSFORMS_PASSES_H

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quant_block {

/// The values of the `domain` option of --quant-block-select-zero-point: one
/// zero-point domain, or the automatic choice.
enum class ZeroPointDomainChoice { Auto, None, Int, Float };

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h.inc"

/// Patterns of --quant-block-raise: the three families below.
void populateQuantBlockRaisePatterns(RewritePatternSet &patterns);

/// The dequantize decompositions of --quant-block-raise:
/// `(cast(q) - expand(zp)) * expand(s)` and its variants, in arith/math on
/// tensors, TOSA or linalg.generic bodies.
void populateQuantBlockRaiseDequantizePatterns(RewritePatternSet &patterns);

/// The quantize decompositions of --quant-block-raise:
/// `convert(clamp(round(x / expand(s)) + expand(zp)))`.
void populateQuantBlockRaiseQuantizePatterns(RewritePatternSet &patterns);

/// Upstream `quant.dcast` / `quant.qcast` / `quant.scast` on
/// `!quant.uniform` tensors, for input that has no other quantization. Run
/// them without folding: upstream folds quant.dcast(quant.qcast(x)) to x.
void populateQuantBlockRaiseUpstreamQuantPatterns(RewritePatternSet &patterns);

/// Patterns of --quant-block-select-zero-point: with no `domain`, the
/// `auto` choice (drop all-zero zero points, float to int when exact);
/// otherwise convert to `domain` where that is exact.
void populateQuantBlockSelectZeroPointPatterns(
    RewritePatternSet &patterns, std::optional<ZeroPointDomain> domain);

/// Patterns of --quant-block-propagate: layout ops below dequantize, and,
/// given a `propagation` mode, the matmul patterns that make compute ops
/// return quantized (propagate) or float (inhibit) results.
void populateQuantBlockPropagatePatterns(
    RewritePatternSet &patterns,
    std::optional<Propagation> propagation = std::nullopt);

/// Patterns of --quant-block-fold-constants.
void populateQuantBlockFoldConstantsPatterns(RewritePatternSet &patterns);

/// Patterns of --quant-block-fuse; `integerDot` turns products of
/// dynamically quantized int8 activations and integer weights into
/// i32-accumulating matmuls. Includes quant_block.matmul's canonicalization
/// patterns, which fold a transposed weight into `transpose_rhs`.
void populateQuantBlockFusePatterns(RewritePatternSet &patterns,
                                    bool integerDot = true);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_TRANSFORMS_PASSES_H
