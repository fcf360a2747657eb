//===- QuantBlockOps.td - quant_block operations -----------*- tablegen -*-===//
//
// Operations on block-quantized tensors: quantize / dequantize with explicit
// or data-derived parameters, pack / unpack between a quantized tensor and its
// parts, a matmul with a quantized right-hand side, and the layout ops that
// move quantized data without dequantizing it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKOPS_TD
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKOPS_TD

include "quant-block/Dialect/QuantBlock/IR/QuantBlockTypes.td"
include "mlir/Dialect/Arith/IR/ArithBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// A generic constraint (not the TypeDef itself) so that the custom assembly
// prints the full `!quant_block.tensor<...>` rather than the stripped form.
def QuantBlock_QuantizedTensor : Type<
    CPred<"::llvm::isa<::mlir::quant_block::QuantizedTensorType>($_self)">,
    "block-quantized tensor", "::mlir::quant_block::QuantizedTensorType">;
def AnyRankedTensorOrQuantized
    : AnyTypeOf<[AnyRankedTensor, QuantBlock_QuantizedTensor]>;

class QuantBlock_Op<string mnemonic, list<Trait> traits = []>
    : Op<QuantBlock_Dialect, mnemonic, !listconcat([Pure], traits)>;

def QuantBlock_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;

//===----------------------------------------------------------------------===//
// quantize / dequantize / quantize_dynamic
//===----------------------------------------------------------------------===//

def QuantBlock_QuantizeOp : QuantBlock_Op<"quantize", [AttrSizedOperandSegments]> {
  let summary = "quantize a float tensor with given scales and zero points";
  let description = [{
    Quantizes `input` block by block with the given scales (and zero points,
    outer scales and outer mins when the result's scheme has them). The
    input element type must be the scheme's expressed type; the parameter
    operands must have exactly the part types of the result type (see
    `!quant_block.tensor`), i.e. stay contracted.

    Integer storage (zero point `zp` of the int domain, or none):
    `q = clamp(round(x / s) + zp, qmin, qmax)`, a true division computed in at
    least f32, rounded as the scheme says (half-to-even by default). Float
    zero point `m`: `q = clamp(round((x - m) / s), qmin, qmax)`. Float
    storage: `q = convert(x / s)` with the scheme's rounding, saturating to
    the format's largest finite value unless `saturate = false`. With an
    outer scale, `s` is `scale * outer_scale` of the element's block.

    ```mlir
    %q = quant_block.quantize %w scales(%s : tensor<64x4xf16>)
        zero_points(%zp : tensor<64x4xi4>)
        : tensor<64x128xf32> -> !quant_block.tensor<64x128,
            #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>>
    ```
  }];
  let arguments = (ins
    QuantBlock_FloatTensor:$input,
    AnyRankedTensor:$scales,
    Optional<AnyRankedTensor>:$zero_points,
    Optional<AnyRankedTensor>:$outer_scales,
    Optional<AnyRankedTensor>:$outer_mins
  );
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input `scales` `(` $scales `:` qualified(type($scales)) `)`
    (`zero_points` `(` $zero_points^ `:` qualified(type($zero_points)) `)`)?
    (`outer_scales` `(` $outer_scales^ `:` qualified(type($outer_scales)) `)`)?
    (`outer_mins` `(` $outer_mins^ `:` qualified(type($outer_mins)) `)`)?
    attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def QuantBlock_DequantizeOp : QuantBlock_Op<"dequantize"> {
  let summary = "dequantize a quantized tensor to its expressed type";
  let description = [{
    Computes the expressed (float) value of every element:
    `x = (q - zp) * s` for an int zero point, `x = q * s + m` for a float
    zero point (one FMA), `x = q * s` without one; float storage is decoded
    exactly first. With an outer scale `s = scale * outer_scale` (and
    `m = zero_point * outer_min` with an outer min). Integer storage with an
    `f8E8M0FNU` scale is OCP MX integer: the element is a two's-complement
    fixed-point number with `bits - 2` fraction bits (MXINT8: `q * 2^-6`).
    The arithmetic is done in the expressed type, except that f16/bf16
    results are computed in f32 and rounded once.

    ```mlir
    %x = quant_block.dequantize %q : !quant_block.tensor<64x128,
        #quant_block.scheme<mxfp4>> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins QuantBlock_QuantizedTensor:$input);
  let results = (outs QuantBlock_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def QuantBlock_QuantizeDynamicOp : QuantBlock_Op<"quantize_dynamic"> {
  let summary = "quantize with scales and zero points computed from the data";
  let description = [{
    Computes each block's parameters from the block's own values, then
    quantizes as `quant_block.quantize` does. `method` says how, and must
    agree with the scheme:

    * `absmax` (no zero point): `s = max|x| / qmax` for integer storage
      (symmetric), `s = max|x| / max_finite(storage)` for float storage;
      a block of zeros gets `s = 1`. With an outer scale (NVFP4), the outer
      scale is `max|x| over the tensor / (max_finite(storage) *
      max_finite(scale type))` and block scales are rounded to the scale type
      after dividing by it.
    * `minmax` (int or float zero point): `s = (max - min) / (qmax - qmin)`
      with `min <= 0 <= max` widened to include zero; int domain
      `zp = clamp(round(qmin - min / s))`, float domain `m = min`.
    * `mx` (`f8E8M0FNU` scales, OCP MX v1.0): shared exponent
      `floor(log2(max|x|)) - emax(storage)` (or the scheme's
      `scale_rounding`), clamped to [-127, 127]; a block holding NaN or Inf
      gets the NaN scale.

    ```mlir
    %q = quant_block.quantize_dynamic mx %x : tensor<16x64xf32>
        -> !quant_block.tensor<16x64, #quant_block.scheme<mxfp8_e4m3>>
    ```
  }];
  let arguments = (ins
    QuantBlock_CalibrationMethod:$method,
    QuantBlock_FloatTensor:$input
  );
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = [{
    $method $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// pack / unpack
//===----------------------------------------------------------------------===//

def QuantBlock_PackOp : QuantBlock_Op<"pack", [AttrSizedOperandSegments]> {
  let summary = "assemble a quantized tensor from its data, scales and zero points";
  let description = [{
    Builds a quantized tensor from its parts; no arithmetic. `data` holds one
    storage value per element (logical layout; sub-byte packing in memory is
    the lowering's business and documented in `docs/Packing.md`). Each part
    must have exactly the type the result type prescribes.

    ```mlir
    %q = quant_block.pack %d scales(%s : tensor<2x1xf8E8M0FNU>)
        : tensor<2x32xf4E2M1FN> -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$data,
    AnyRankedTensor:$scales,
    Optional<AnyRankedTensor>:$zero_points,
    Optional<AnyRankedTensor>:$outer_scales,
    Optional<AnyRankedTensor>:$outer_mins
  );
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = [{
    $data `scales` `(` $scales `:` qualified(type($scales)) `)`
    (`zero_points` `(` $zero_points^ `:` qualified(type($zero_points)) `)`)?
    (`outer_scales` `(` $outer_scales^ `:` qualified(type($outer_scales)) `)`)?
    (`outer_mins` `(` $outer_mins^ `:` qualified(type($outer_mins)) `)`)?
    attr-dict `:` qualified(type($data)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def QuantBlock_UnpackOp : QuantBlock_Op<"unpack"> {
  let summary = "split a quantized tensor into its data, scales and zero points";
  let description = [{
    The inverse of `quant_block.pack`: returns the parts in order data,
    scales, then zero points, outer scales and outer mins when the scheme
    has them. The result types must be exactly the input type's part types.

    ```mlir
    %d, %s, %zp = quant_block.unpack %q : !quant_block.tensor<8x64,
        #quant_block.scheme<ui4 : f16, block = [64], scale = f16, zero_point = ui4>>
        -> tensor<8x64xui4>, tensor<8x1xf16>, tensor<8x1xui4>
    ```
  }];
  let arguments = (ins QuantBlock_QuantizedTensor:$input);
  let results = (outs Variadic<AnyRankedTensor>:$parts);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($parts))";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getData() { return getParts()[0]; }
    ::mlir::Value getScales() { return getParts()[1]; }
    /// Null when the scheme has no zero point.
    ::mlir::Value getZeroPoints();
    /// Null when the scheme has no outer scale.
    ::mlir::Value getOuterScales();
    /// Null when the scheme's outer scale has no min.
    ::mlir::Value getOuterMins();
  }];
}

//===----------------------------------------------------------------------===//
// repack
//===----------------------------------------------------------------------===//

def QuantBlock_RepackOp : QuantBlock_Op<"repack"> {
  let summary = "convert a quantized tensor between the row-major and "
                "row-tiled layouts";
  let description = [{
    The same values in another lowered layout: the input and result types
    differ only in the scheme's `row_tile` (absent: row-major). No value
    changes; the lowering moves the data's 32-bit words, the scales and the
    zero points (a transpose of each part). `--quant-block-fold-constants`
    folds a repack of constant parts into a `quant_block.pack` of the
    result type, so that a constant weight is tiled at compile time; a
    repack of a repack folds to its input when the types match.

    ```mlir
    %t = quant_block.repack %w
        : !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [32], scale = f16>>
        -> !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [32], scale = f16, row_tile = 16>>
    ```

    Incorrect / correct:

    ```mlir
    // error: may only change row_tile (the block differs)
    %t = quant_block.repack %w : !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [32]>>
        -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [64], row_tile = 16>>
    %t = quant_block.repack %w : !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [32]>>
        -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [32], row_tile = 16>>
    ```
  }];
  let arguments = (ins QuantBlock_QuantizedTensor:$input);
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

def QuantBlock_MatmulOp : QuantBlock_Op<"matmul"> {
  let summary = "matrix product with a block-quantized right-hand side";
  let description = [{
    `result[..., m, n] = sum_k lhs[..., m, k] * rhs[k, n]` (`rhs[n, k]` with
    `transpose_rhs`, the PyTorch `Linear` weight layout). `lhs` is a float
    tensor or a quantized tensor (dynamic activation quantization); `rhs` is a
    quantized tensor of rank 2, or of the same rank as `lhs` with equal batch
    dimensions.

    `accumulate(T)` is the accumulation type: `f32`, `f16` or `bf16`, or
    `i32` when both operands are quantized with integer storage of at most 8
    bits and `lhs` has no float zero point (or `rhs` holds FP4 E2M1 codes:
    MXFP4, NVFP4; twice their values are the integers), in which case the
    products of storage values are summed in i32 within each K-block and
    scaled per block (llama.cpp style); mins of `rhs` (float zero points,
    or integer ones under an outer min: GGUF Q4_K) add each block's sum of
    the activation codes times the min, as llama.cpp's Q4_K x Q8_K does;
    both operands must then use the same block size along K. The accumulation type must be at least as wide as the expressed type
    when it is a float.

    `inhibit` returns a float tensor of the expressed type; `propagate`
    returns a quantized tensor whose scheme says how the result is
    requantized (its parameters are derived from the result as
    `quantize_dynamic absmax`/`minmax`/`mx` would, chosen by that scheme).

    `fastmath<...>` takes arith's fast-math flags and applies them to the
    float sum over k (for `accumulate(i32)`, to the f32 sum over the blocks;
    the integer block sums are exact in any order). Without flags the sum runs
    over k in increasing order, each product and sum rounded separately
    (`docs/Numerics.md`, bit-exact). With `reassoc` the sum may be split,
    tree-reduced and reordered; with `contract` a product and the following
    sum may be one fused multiply-add. `docs/Numerics.md` states the error
    bound; no result depends on the thread count.

    A row-tiled `rhs` (`row_tile` in its scheme) is accepted with
    `transpose_rhs` only; `lhs` and a quantized result are row-major.

    Canonicalization folds a `quant_block.transpose` of `rhs` that swaps its
    last two dimensions (and keeps the batch ones) into `transpose_rhs`,
    setting the flag or dropping it, so that the contraction reads the weight
    in its stored layout and no transposed copy is materialized; the sum runs
    over k in the same order, so the values do not change. A
    `quant_block.reshape` that only puts unit batch dimensions in front of a
    rank-2 `rhs` (TOSA's batched form of a linear layer) is dropped: a rank-2
    `rhs` is shared by every batch. There is no `transpose_lhs`: a
    transposed `lhs` stays as it is.

    ```mlir
    %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
        : tensor<?x4096xf32>, !quant_block.tensor<11008x4096,
          #quant_block.scheme<i4 : f32, block = [128], scale = f16>>
        -> tensor<?x11008xf32>
    %z = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
        fastmath<reassoc,contract> : tensor<?x4096xf32>, !w -> tensor<?x11008xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensorOrQuantized:$lhs,
    QuantBlock_QuantizedTensor:$rhs,
    UnitAttr:$transpose_rhs,
    TypeAttr:$accumulator_type,
    QuantBlock_Propagation:$propagation,
    DefaultValuedAttr<Arith_FastMathAttr,
                      "::mlir::arith::FastMathFlags::none">:$fastmath
  );
  let results = (outs AnyRankedTensorOrQuantized:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_rhs` $transpose_rhs^)?
    `accumulate` `(` $accumulator_type `)` $propagation
    (`fastmath` `` $fastmath^)? attr-dict
    `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = [{
    /// Why a tensor of `type` cannot be operand `name` ("lhs" or "rhs") of
    /// an `accumulate(i32)` product (the verifier's rule for each operand),
    /// or std::nullopt if it can. --quant-block-fuse asks the same.
    static std::optional<std::string>
    getIntegerOperandError(QuantizedTensorType type, ::llvm::StringRef name);

    /// The rhs that this op's canonicalization reaches from `rhs`, folding
    /// transposes of the last two dimensions into `transpose_rhs` and
    /// dropping reshapes that only add unit batch dimensions, and whether
    /// the product then reads it transposed (given `transposeRhs` now).
    /// --quant-block-fuse asks what the lowering will see.
    static std::pair<::mlir::Value, bool> getFoldedRhs(::mlir::Value rhs,
                                                       bool transposeRhs);
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

def QuantBlock_TransposeOp : QuantBlock_Op<"transpose"> {
  let summary = "permute the dimensions of a quantized tensor";
  let description = [{
    `result[i_perm[0], ...] = input[i_0, ...]` as `linalg.transpose`:
    result dimension `d` is input dimension `permutation[d]`. The qparam rule:
    scales, zero points and the block shape are permuted the same way (the
    result scheme's effective block shape is the permuted input one; an outer
    block over the scales is permuted too). No value changes.

    ```mlir
    %t = quant_block.transpose %q permutation = [1, 0]
        : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
        -> !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [32, 1]>>
    ```
  }];
  let arguments = (ins
    QuantBlock_QuantizedTensor:$input,
    DenseI64ArrayAttr:$permutation
  );
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input `permutation` `=` $permutation attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def QuantBlock_ReshapeOp : QuantBlock_Op<"reshape"> {
  let summary = "reshape a quantized tensor without splitting blocks";
  let description = [{
    Reinterprets the elements in row-major order under a new static shape.
    The qparam rule: the reshape must map every block of the input onto
    exactly one block of the result (blocks may be merged with their
    neighbours' dimensions or split into several dimensions, never cut), so
    that the scales, read in row-major order, are reshaped the same way. Ragged
    last blocks may not take part in a reshaped dimension group. Schemes with a
    blocked outer scale are not reshaped.

    ```mlir
    // Folds the WebNN/ONNX (M, K/32, 32) view back to (M, K).
    %r = quant_block.reshape %q
        : !quant_block.tensor<8x4x32, #quant_block.scheme<i4 : f32, block = [1, 32]>>
        -> !quant_block.tensor<8x128, #quant_block.scheme<i4 : f32, block = [32]>>
    ```
  }];
  let arguments = (ins QuantBlock_QuantizedTensor:$input);
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def QuantBlock_ExtractSliceOp : QuantBlock_Op<"extract_slice"> {
  let summary = "take a block-aligned slice of a quantized tensor";
  let description = [{
    Takes the unit-stride slice `[offsets, offsets + sizes)` of `input`. The
    qparam rule: every offset must be a multiple of the block size along its
    dimension, so the slice takes whole blocks (the last one may be partial)
    and its scales are the matching slice of the input's scales. Schemes with
    a blocked outer scale are not sliced.

    ```mlir
    %s = quant_block.extract_slice %q offsets = [0, 64] sizes = [16, 64]
        : !quant_block.tensor<16x256, #quant_block.scheme<mxfp4>>
        -> !quant_block.tensor<16x64, #quant_block.scheme<mxfp4>>
    ```
  }];
  let arguments = (ins
    QuantBlock_QuantizedTensor:$input,
    DenseI64ArrayAttr:$offsets,
    DenseI64ArrayAttr:$sizes
  );
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets `sizes` `=` $sizes attr-dict
    `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def QuantBlock_BroadcastOp : QuantBlock_Op<"broadcast"> {
  let summary = "broadcast a quantized tensor along new dimensions";
  let description = [{
    As `linalg.broadcast`: `dimensions` lists the result dimensions that are
    new; the other result dimensions are the input's, in order. The qparam
    rule: along the kept dimensions the block shape is unchanged; along the
    new dimensions the scales and zero points are replicated like the data,
    so any block size is valid there (a whole-dimension block, `*`, keeps
    them contracted). Schemes with a blocked outer scale are not broadcast.

    ```mlir
    %b = quant_block.broadcast %q dimensions = [0]
        : !quant_block.tensor<128, #quant_block.scheme<i8 : f32, block = [32]>>
        -> !quant_block.tensor<4x128, #quant_block.scheme<i8 : f32, block = [*, 32]>>
    ```
  }];
  let arguments = (ins
    QuantBlock_QuantizedTensor:$input,
    DenseI64ArrayAttr:$dimensions
  );
  let results = (outs QuantBlock_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input `dimensions` `=` $dimensions attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKOPS_TD
