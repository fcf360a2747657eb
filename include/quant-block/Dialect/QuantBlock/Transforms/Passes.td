//===- Passes.td - quant_block transformation passes -------*- tablegen -*-===//
//
// The passes that transform quant_block IR (and the upstream IR around it)
// before lowering: raise other frontends' decompositions into quant_block
// ops, choose zero points, propagate through layout ops, fold constants and
// fuse dequantization into its consumers. Flag names are part of the user
// interface (DESIGN.md).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_TRANSFORMS_PASSES_TD
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def QuantBlockRaise : Pass<"quant-block-raise"> {
  let summary = "Fold other frontends' quantization decompositions into "
                "quant_block ops";
  let description = [{
    Recognizes block-wise dequantization and quantization written the way
    importers emit them and replaces each by one quant_block op with the block
    shape inferred:

    * the WebNN / ONNX emulation `(cast(q) - expand(zp)) * expand(s)` where
      `expand` repeats each element blockwise along one or more axes
      (`tensor.expand_shape` + `linalg.broadcast` + `tensor.collapse_shape`,
      broadcasting `linalg.generic`s, TOSA `reshape` + `tile` + `reshape`),
      with and without zero point, and the matching quantize
      `clamp(round(x / expand(s)) + expand(zp))`;
    * the same as other projects write it: a product in f16 / bf16 extended
      to f32 (a dequantize to f16 / bf16, then `arith.extf`), an f32 product
      rounded to f16 / bf16 (a dequantize to f16 / bf16 with f32 scales),
      clamp bounds and zero points that are conversions of constants
      (torch-mlir's `arith.sitofp` of i64 scalars), f32 zero points converted
      from integer tensors (IREE's grouped dequantization), and copies,
      identity generics, casts and reshapes to the same type anywhere in the
      chain;
    * upstream `quant.dcast` / `quant.qcast` / `quant.scast` with
      `!quant.uniform` per-tensor, per-axis and sub-channel types (dynamic
      dimensions where one block spans them).

    Anything that is not an exact blockwise repetition, or would compute
    different values than the decomposition, is left untouched.

    `populateQuantBlockRaisePatterns(patterns)` adds the same patterns for
    C++ drivers; `populateQuantBlockRaiseDequantizePatterns`,
    `populateQuantBlockRaiseQuantizePatterns` and
    `populateQuantBlockRaiseUpstreamQuantPatterns` add one input family each
    (say, only `!quant.uniform` casts). Run them without folding: upstream
    folds `quant.dcast(quant.qcast(x))` to `x`.
  }];
  // The raised ops take contracted scales and zero points built with
  // arith.constant, tensor reshapes and tensor.bitcast, which the input (say,
  // only quant.dcast) may not have loaded.
  let dependentDialects = ["::mlir::quant_block::QuantBlockDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def QuantBlockSelectZeroPoint : Pass<"quant-block-select-zero-point"> {
  let summary = "Choose none, integer or float zero points";
  let description = [{
    Chooses the zero-point domain (torchao's ZeroPointDomain) of quantized
    tensors whose zero points are constants: `quant_block.pack` and
    `quant_block.quantize` with an `arith.constant` zero-point operand.

    * `domain=auto` (default) keeps results bit for bit and saves memory:
      zero points that are all zero are dropped (int zeros and float -0.0
      always; float +0.0 when every scale is a positive constant, because
      `fma(0, s, +0.0)` is +0.0 where `0 * s` is -0.0); float zero points `m`
      become integer ones of the storage type when every `zp = -m / s` is an
      integer in the storage range, `m == -zp * s` exactly and the scales are
      positive finite constants: then `fma(q, s, m)` and `(q - zp) * s` round
      the same exact value once. Only on `pack`, and only when the integer
      type is smaller: `quantize` rounds `(x - m) / s` with float zero points
      and `x / s + zp` with integer ones, which can differ.
    * `domain=none` only drops all-zero zero points, and says why not where
      one is not zero.
    * `domain=int` makes the exact float-to-int conversion above even when it
      saves nothing.
    * `domain=float` turns integer zero points into f32 ones, `m = -zp * s`
      rounded once to f32 (constant scales needed). **This can change
      results**: dequantize computes `fma(q, s, m)` instead of
      `(q - zp) * s`. Where `-zp * s` is exact in f32 and `s > 0` the values
      are the same; elsewhere they differ by the rounding error of `m`, at
      most half an f32 ulp of `|zp * s|`, which can be many ulps of a small
      result (where `q == zp`, the exact 0 becomes that error); under a
      negative scale a -0.0 result can become +0.0. `quantize` computes
      `round((x - m) / s)` instead of `round(x / s) + zp`, so a value that
      close to a rounding boundary can get the neighbouring code. The remark
      says how many blocks have a rounded `m`.

    The scheme is part of the quantized type, so every user of the value must
    take the new type: `dequantize` and `matmul` do (an i32-accumulating
    matmul only without float zero points), the layout ops are retyped along,
    `unpack` is when its zero-point result is unused and the zero points are
    not dropped. Anything else (`func.return`, `func.call`, an unknown op)
    makes the pass leave the op alone. Every decision, taken or refused, is a
    remark giving the memory it saves in bits per element, e.g. int4 instead
    of bf16 zero points at group 32 saves (16 - 4) / 32 = 0.375:

    ```mlir
    %z = arith.constant dense<[[-4.0, -2.0]]> : tensor<1x2xbf16>
    %q = quant_block.pack %d scales(%s : tensor<1x2xf16>)   // s = [[0.5, 0.25]]
        zero_points(%z : tensor<1x2xbf16>) : tensor<1x64xui4>
        -> !quant_block.tensor<1x64, #quant_block.scheme<ui4 : f32, block = [32], scale = f16, zero_point = bf16>>
    // becomes (remark: turns the bf16 zero points into ui4 ones: every
    // -m / s is an integer in [0, 15]; saves 0.375 bits per element)
    %z = arith.constant dense<[[8, 8]]> : tensor<1x2xui4>
    %q = quant_block.pack %d scales(%s : tensor<1x2xf16>)
        zero_points(%z : tensor<1x2xui4>) : tensor<1x64xui4>
        -> !quant_block.tensor<1x64, #quant_block.scheme<ui4 : f32, block = [32], scale = f16, zero_point = ui4>>
    ```

    An unknown `domain` is rejected by the option parser, before the pass
    runs.
  }];
  let dependentDialects = ["::mlir::quant_block::QuantBlockDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"domain", "domain", "::mlir::quant_block::ZeroPointDomainChoice",
           /*default=*/"::mlir::quant_block::ZeroPointDomainChoice::Auto",
           "Zero-point domain to select: auto (exact memory savings), none "
           "(drop all-zero zero points), int (float to int where exact) or "
           "float (int to float, m = -zp * s: changes rounding)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::quant_block::ZeroPointDomainChoice::Auto,
                        "auto", "exact memory savings"),
             clEnumValN(::mlir::quant_block::ZeroPointDomainChoice::None,
                        "none", "drop all-zero zero points"),
             clEnumValN(::mlir::quant_block::ZeroPointDomainChoice::Int,
                        "int", "float to int where exact"),
             clEnumValN(::mlir::quant_block::ZeroPointDomainChoice::Float,
                        "float", "int to float, m = -zp * s: changes rounding")
           )}]>,
  ];
}

def QuantBlockPropagate : Pass<"quant-block-propagate"> {
  let summary = "Move dequantization below layout ops";
  let description = [{
    Rewrites `layout(dequantize(q))` into `dequantize(layout(q))` so that
    data stays quantized through layout changes; the quant_block layout op
    moves the scales and zero points with the data. Dequantization is
    element-wise, so results are bit for bit the same.

    * `linalg.transpose`, `tosa.transpose` -> `quant_block.transpose`: the
      block shape (and a blocked outer scale's) is permuted.
    * `tensor.expand_shape`, `tensor.collapse_shape`, `tensor.reshape`,
      `tosa.reshape` (static shapes) -> `quant_block.reshape` with the block
      shape that keeps every block whole (`[4, 64]` in blocks `[1, 32]` is
      `[256]` in blocks `[32]`; `[64]` in blocks `[32]` is `[4, 16]` in
      blocks `[2, 16]`). A reshape that would cut a block, regroup a ragged
      one or give an invalid scheme (an MX block must stay 32 elements along
      one dimension) is left alone.
    * `tensor.extract_slice` (static) -> `quant_block.extract_slice` of the
      smallest block-aligned window holding the slice; where the slice does
      not start on a block boundary or is strided, a float
      `tensor.extract_slice` of the window takes the rest, and a window that
      would be the whole tensor is left alone. Rank-reducing slices drop
      their unit dimensions with a reshape.
    * `linalg.broadcast` -> `quant_block.broadcast`; new dimensions get
      whole-dimension blocks (`*`, the scales stay contracted), or blocks of
      1 where the scheme needs it (MX). New dynamic dimensions are left
      alone.

    What is legal is what the quant_block op's verifier accepts; every
    candidate is verified before the IR changes.

    ```mlir
    %x = quant_block.dequantize %q : !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> tensor<4x64xf32>
    %t = linalg.transpose ins(%x : tensor<4x64xf32>) outs(%e : tensor<64x4xf32>) permutation = [1, 0]
    // becomes
    %t = quant_block.transpose %q permutation = [1, 0] : !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
        -> !quant_block.tensor<64x4, #quant_block.scheme<i8 : f32, block = [32, 1]>>
    %x = quant_block.dequantize %t : !quant_block.tensor<64x4, #quant_block.scheme<i8 : f32, block = [32, 1]>> -> tensor<64x4xf32>
    ```

    `propagation` decides whether `quant_block.matmul` returns quantized or
    float results (Burn's QuantPropagation): `propagate` (default) folds
    `quantize_dynamic` of an `inhibit` matmul's float result (when it is the
    only user) into a `propagate` matmul returning that scheme; `inhibit`
    splits a `propagate` matmul into an `inhibit` one and the
    `quantize_dynamic` (absmax, minmax or mx, as the result's scheme says)
    that a propagated result is defined by. Both forms compute the same
    values. An unknown `propagation` is rejected by the option parser.
    `populateQuantBlockPropagatePatterns(patterns, mode)` adds the same
    patterns for C++ drivers (the layout ones alone without a mode).
  }];
  let dependentDialects = ["::mlir::quant_block::QuantBlockDialect"];
  let options = [
    Option<"propagation", "propagation", "::mlir::quant_block::Propagation",
           /*default=*/"::mlir::quant_block::Propagation::Propagate",
           "propagate: compute ops return quantized results when their "
           "consumer requantizes; inhibit: they return float results",
           [{::llvm::cl::values(
             clEnumValN(::mlir::quant_block::Propagation::Propagate,
                        "propagate", "compute ops return quantized results "
                        "when their consumer requantizes"),
             clEnumValN(::mlir::quant_block::Propagation::Inhibit,
                        "inhibit", "they return float results")
           )}]>,
  ];
}

def QuantBlockFoldConstants : Pass<"quant-block-fold-constants"> {
  let summary = "Quantize constant weights at compile time";
  let description = [{
    Replaces `quantize` and `quantize_dynamic` of constant float tensors (with
    constant scales, zero points and outer scales where `quantize` takes
    them) by `quant_block.pack` of constant storage codes, scales, zero
    points and outer scales: offline weight quantization. The constants are
    bit for bit what the compiled code computes at run time (its f32
    arithmetic is mirrored step by step, with the numerics library for the
    roundings and encodings), for integer storage of 2 to 32 bits, OCP FP8 /
    FP6 / FP4 storage, f32 / f16 / bf16 / E8M0 / E4M3 scales, int and float
    zero points, per-tensor outer scales (NVFP4) and every calibration
    (absmax, minmax, mx; the MX `scale_rounding` modes other than `floor`,
    which the lowering does not have, follow the numerics library).

    ```mlir
    %w = arith.constant dense<...> : tensor<4096x4096xf32>
    %q = quant_block.quantize_dynamic absmax %w : tensor<4096x4096xf32>
        -> !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [32], scale = f16>>
    // becomes
    %d = arith.constant dense<...> : tensor<4096x4096xi4>
    %s = arith.constant dense_resource<quant_block_folded> : tensor<4096x128xf16>
    %q = quant_block.pack %d scales(%s : tensor<4096x128xf16>) : tensor<4096x4096xi4>
        -> !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [32], scale = f16>>
    ```

    A `quant_block.repack` of a `pack` of constants (a constant weight
    converted to the row-tiled layout, docs/Packing.md) becomes a `pack` of
    the same constants with the repacked type: the layout is part of the
    constant's type, and the lowering packs the codes straight into it.

    Inputs may be `dense` or `dense_resource` constants. Uniform results are
    splats; results of whole-byte element types become `dense_resource`
    blobs when they are 1 MiB or larger or come from a blob, other results
    (sub-byte codes) dense literals.

    Left alone: non-constant operands, two-level integer scales, blocked
    outer scales and outer mins (K-quants), `quantize_dynamic` with an outer
    scale other than absmax, absmax / minmax blocks holding NaN (the bits of
    the NaN scale would depend on the target) and minmax integer zero points
    of blocks holding Inf (undefined in the compiled code).
  }];
  let dependentDialects = ["::mlir::quant_block::QuantBlockDialect",
                           "::mlir::arith::ArithDialect"];
}

def QuantBlockFuse : Pass<"quant-block-fuse"> {
  let summary = "Fuse dequantization into its consumers";
  let description = [{
    Folds `quant_block.dequantize` into the matrix products that consume it
    (`linalg.matmul`, `linalg.batch_matmul`, their transposed-operand forms
    and `tosa.matmul`), producing `quant_block.matmul`, whose lowering
    contracts the packed weight directly: the dequantized weight is never
    materialized. When the activation is itself dynamically quantized to
    8-bit integers with blocks along K matching the weight's, the product
    accumulates in i32 per block with the scales of both sides applied once
    per block (llama.cpp style): the activation side is then
    `dequantize(quantize_dynamic(x))`, both sides are operands the verifier
    accepts for `accumulate(i32)` (integer storage of at most 8 bits, or
    FP4 E2M1 codes in the weight: MXFP4, NVFP4) with the same block size
    along K, and the lowering implements the product (activations in
    blocks of one row, sub-byte codes in whole packing groups; weight
    scales of one or two levels, the outer scale per tensor or blocked as in
    GGUF K-quants) for the weight as it reads it once a transpose or unit
    batch reshape is folded into the product: the pass asks the lowering
    (`getIntegerMatmulUnsupportedReason`), so it never turns a product that
    compiles into one that does not. That path rounds differently from the
    float product of the dequantized values (exact integer block sums, then
    one f32 scaling per block; docs/Numerics.md), which is why
    `integer-dot=false` turns it off.

    The fused op carries the fast-math flags of the contraction it replaces.
    A `linalg.generic` with a multiply-add body keeps the flags its
    `arith.mulf` and `arith.addf` share: with none, the sum runs over k in
    order and the rewrite is bit-exact. A named contraction
    (`linalg.matmul`, `linalg.batch_matmul`, ...) has no written order of
    summation, so its fused form gets `fastmath<reassoc,contract>` and the
    backend may vectorize along k and use fused multiply-adds
    (docs/Numerics.md bounds the error). `tosa.matmul` keeps the strict order.

    A weight transposed before the contraction (a linear layer as torch-mlir
    writes `aten.linear`: `linalg.transpose` of the dequantized weight, which
    --quant-block-propagate turns into `quant_block.transpose` of the packed
    weight) gives a matmul of the transposed packed weight; the pass folds
    that transpose (and a unit batch reshape, as TOSA writes the batched
    weight) into `transpose_rhs` with `quant_block.matmul`'s canonicalization
    patterns, so the matmul reads the weight as stored and no transposed copy
    is materialized. --quant-block-cpu-pipeline runs propagation and fusion.

    ```mlir
    %w = quant_block.dequantize %q : !q -> tensor<64x128xf32>
    %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x128xf32>)
                       outs(%zero : tensor<4x128xf32>) -> tensor<4x128xf32>
    // becomes
    %y = quant_block.matmul %x, %q accumulate(f32) inhibit
           fastmath<reassoc,contract> : tensor<4x64xf32>, !q -> tensor<4x128xf32>
    ```
  }];
  let dependentDialects = ["::mlir::quant_block::QuantBlockDialect"];
  let options = [
    Option<"integerDot", "integer-dot", "bool", /*default=*/"true",
           "Accumulate products of dynamically quantized activations and "
           "integer (or MXFP4, NVFP4) weights in i32 per block">,
  ];
}

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_TRANSFORMS_PASSES_TD
