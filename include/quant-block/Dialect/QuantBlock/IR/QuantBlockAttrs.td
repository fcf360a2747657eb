//===- QuantBlockAttrs.td - quant_block attributes ---------*- tablegen -*-===//
//
// The scheme attribute (#quant_block.scheme) that says exactly how a quantized
// tensor is laid out, its second-level ("outer") scale, and the enums used by
// schemes and ops.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKATTRS_TD
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKATTRS_TD

include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def QuantBlock_RoundingMode : I32EnumAttr<"RoundingMode",
    "rounding of scaled values to storage values", [
      I32EnumAttrCase<"HalfToEven", 0, "half_to_even">,
      I32EnumAttrCase<"HalfAwayFromZero", 1, "half_away_from_zero">,
      I32EnumAttrCase<"TowardZero", 2, "toward_zero">
    ]> {
  let cppNamespace = "::mlir::quant_block";
  let genSpecializedAttr = 0;
}

def QuantBlock_ScaleRoundingMode : I32EnumAttr<"ScaleRoundingMode",
    "rounding of an MX shared exponent (f8E8M0FNU scales)", [
      I32EnumAttrCase<"Floor", 0, "floor">,
      I32EnumAttrCase<"Ceil", 1, "ceil">,
      I32EnumAttrCase<"HalfToEven", 2, "half_to_even">
    ]> {
  let cppNamespace = "::mlir::quant_block";
  let genSpecializedAttr = 0;
}

def QuantBlock_ZeroPointDomain : I32EnumAttr<"ZeroPointDomain",
    "domain of the zero point (torchao's ZeroPointDomain)", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Int", 1, "int">,
      I32EnumAttrCase<"Float", 2, "float">
    ]> {
  let cppNamespace = "::mlir::quant_block";
  let genSpecializedAttr = 0;
}

def QuantBlock_CalibrationMethod : I32EnumAttr<"CalibrationMethod",
    "how quantize_dynamic derives scales and zero points from the data", [
      I32EnumAttrCase<"AbsMax", 0, "absmax">,
      I32EnumAttrCase<"MinMax", 1, "minmax">,
      I32EnumAttrCase<"MX", 2, "mx">
    ]> {
  let cppNamespace = "::mlir::quant_block";
}

def QuantBlock_Propagation : I32EnumAttr<"Propagation",
    "whether a compute op on quantized inputs returns a quantized or a float "
    "result (Burn's QuantPropagation)", [
      I32EnumAttrCase<"Inhibit", 0, "inhibit">,
      I32EnumAttrCase<"Propagate", 1, "propagate">
    ]> {
  let cppNamespace = "::mlir::quant_block";
}

def QuantBlock_CPUMatmulKernelFamily : I32EnumAttr<"CPUMatmulKernelFamily",
    "the kind of register-tiled kernel --quant-block-cpu-matmul-kernels "
    "emits for a quant_block.matmul (docs/CPU.md)", [
      // f32 / f16 / bf16 activations, reassociated: 16 partial sums per
      // output, added across the lanes at the end.
      I32EnumAttrCase<"PartialSums", 0, "partial_sums">,
      // Float activations in the strict order: one weight row per lane,
      // each output summed over k in increasing order.
      I32EnumAttrCase<"OrderedRows", 1, "ordered_rows">,
      // int8 activations, accumulate(i32): generic i32 tiles.
      I32EnumAttrCase<"IntegerTiles", 2, "integer_tiles">,
      // The same with vpdpbusd (AVX512-VNNI), lanes added by a shuffle tree.
      I32EnumAttrCase<"VnniTiles", 3, "vnni_tiles">,
      // vpdpbusd with one weight row per i32 lane (N a multiple of 16).
      I32EnumAttrCase<"VnniRowLanes", 4, "vnni_row_lanes">,
      // AMX tiles for every whole 16 activation rows, vnni_row_lanes for
      // the rows left over.
      I32EnumAttrCase<"Amx", 5, "amx">,
      // bf16 activations, reassociated: AMX-BF16 tiles (tdpbf16ps) for
      // every whole 16 activation rows against the weight dequantized to
      // bf16 once per call, partial_sums for the rows left over.
      I32EnumAttrCase<"AmxBF16", 6, "amx_bf16">
    ]> {
  let cppNamespace = "::mlir::quant_block";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class QuantBlock_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<QuantBlock_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def QuantBlock_OuterScaleAttr : QuantBlock_Attr<"OuterScale", "outer"> {
  let summary = "second-level scale over the block scales";
  let description = [{
    A second level of scaling applied on top of the block scales, as NVFP4
    (one per-tensor f32 scale) and GGUF K-quants (one f16 super-scale and one
    f16 super-min per super-block of 8 blocks) use.

    ```
    outer ::= `<` scale-type (`,` `block` `=` block-list)? (`,` `min` `=` float-type)? `>`
    ```

    `block` is a block shape over the *scale tensor* (right-aligned like the
    scheme's own block shape); omitted means one outer scale for the whole
    tensor. With `min`, the scheme's zero points (float domain) are scaled by
    the outer min too. The effective per-block parameters are

    ```
    s_eff[b] = scale[b] * outer_scale[b / outer_block]
    m_eff[b] = zero_point[b] * outer_min[b / outer_block]   (with `min`)
    ```

    Examples: NVFP4 `outer = <f32>`; Q4_K `outer = <f16, block = [8], min = f16>`
    with `ui6` scales and `ui6` zero points.
  }];
  let parameters = (ins
    "::mlir::Type":$scaleType,
    OptionalArrayRefParameter<"int64_t">:$blockShape,
    OptionalParameter<"::mlir::Type">:$minType
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def QuantBlock_SchemeAttr : QuantBlock_Attr<"Scheme", "scheme"> {
  let summary = "how a quantized tensor is laid out: storage, blocks, scales, zero points";
  let description = [{
    A scheme relates a quantized tensor's data, scales and zero points. It is
    rank-independent: its block shape is right-aligned to the tensor's
    dimensions (missing leading entries are 1), so `block = [32]` means groups
    of 32 along the last dimension for a tensor of any rank.

    ```
    scheme      ::= `<` body (`,` field)* `>`
    body        ::= storage-type `:` expressed-type
                  | named-scheme (`:` expressed-type)?
    named-scheme ::= `mxfp8_e4m3` | `mxfp8_e5m2` | `mxfp6_e2m3` | `mxfp6_e3m2`
                   | `mxfp4` | `mxint8` | `nvfp4`
    field ::= `block` `=` `[` (integer | `*`) (`,` (integer | `*`))* `]`
            | `scale` `=` type          // f32 (default), f16, bf16, f8E8M0FNU, f8E4M3FN
            | `zero_point` `=` type     // integer type: int domain; f32/f16/bf16: float domain
            | `range` `=` `[` qmin `,` qmax `]`
            | `rounding` `=` (`half_to_even` | `half_away_from_zero` | `toward_zero`)
            | `saturate` `=` (`true` | `false`)
            | `scale_rounding` `=` (`floor` | `ceil` | `half_to_even`)
            | `outer` `=` outer-scale
            | `row_tile` `=` integer      // the row-tiled layout, see below
    ```

    * storage: `i2`..`i32` (signed), `ui2`..`ui32` (unsigned), `f8E4M3FN`,
      `f8E5M2`, `f6E2M3FN`, `f6E3M2FN`, `f4E2M1FN`.
    * expressed: `f32`, `f16`, `bf16`.
    * block: one size per dimension, right-aligned; `*` covers the whole
      dimension; omitted means per-tensor. A ragged last block is allowed:
      the scale dimension is `ceil(dim / block)` (ONNX `block_size`).
    * zero point: none (default), int (`x = (q - zp) * s`) or float
      (`x = q * s + m`, one FMA, as ggml Q4_1 uses).
    * range: `[qmin, qmax]` inside the storage range (integer storage only),
      e.g. the narrow symmetric `[-7, 7]` for `i4`.
    * rounding: of `x / s` to storage (half-to-even by default;
      half-away-from-zero reproduces the microxcaling reference).
    * saturate: float storage only; `false` turns overflow into Inf/NaN as
      ONNX `saturate=0` does.
    * scale_rounding: how an `f8E8M0FNU` shared exponent is rounded
      (`floor` is the OCP MX v1.0 rule and the default).

    * row_tile: the lowered layout of a rank-2 `[N, K]` weight whose
      blocks run along K (`[1, B]`): `row_tile = R` stores the data in
      tiles of R rows, each tile as the 32-bit words of its rows
      interleaved (word `d` of rows `0 .. R-1`, then word `d + 1`, ...), and
      the scales and zero points as, for each tile and block, the tile's R
      values. Omitted (the default) is the row-major layout. Only the
      lowered parts differ: the logical values, every dequantized element
      and every result are the same. A tiled tensor is accepted only as the
      `transpose_rhs` weight of `quant_block.matmul`, by `quant_block.pack`
      and `quant_block.unpack` (of logical, row-major parts) and by
      `quant_block.repack`, which converts between layouts; the matmul
      kernels of the CPU pipeline stream it with no transposition
      (docs/Packing.md, "The row-tiled layout"). Needs 4-, 6- or 8-bit storage,
      R >= 2, a static N that R divides, a static K that B divides, B * bits
      a multiple of 32, and an outer scale per tensor or in blocks along
      the last dimension only (blocked outer scales and outer mins are
      tiled as the scales are).

    Named schemes (all expressed `f32` unless `: type` follows the name):

    | name | storage | block | scale | outer |
    |------|---------|-------|-------|-------|
    | `mxfp8_e4m3` | f8E4M3FN | 32 | f8E8M0FNU | |
    | `mxfp8_e5m2` | f8E5M2 | 32 | f8E8M0FNU | |
    | `mxfp6_e2m3` | f6E2M3FN | 32 | f8E8M0FNU | |
    | `mxfp6_e3m2` | f6E3M2FN | 32 | f8E8M0FNU | |
    | `mxfp4` | f4E2M1FN | 32 | f8E8M0FNU | |
    | `mxint8` | i8 | 32 | f8E8M0FNU | |
    | `nvfp4` | f4E2M1FN | 16 | f8E4M3FN | `<f32>` |

    Examples:

    ```mlir
    // int4 weights, groups of 32 along K, f16 scales, int4 zero points.
    #quant_block.scheme<i4 : f32, block = [32], scale = f16, zero_point = i4>
    // Narrow symmetric int4, per output channel of a [N, K] weight.
    #quant_block.scheme<i4 : bf16, block = [1, *], range = [-7, 7]>
    // 128x128 blocks of FP8 (DeepSeek-V3 style).
    #quant_block.scheme<f8E4M3FN : bf16, block = [128, 128]>
    // MXFP4 with bf16 activations.
    #quant_block.scheme<mxfp4 : bf16>
    ```

    Incorrect / correct pairs the verifier enforces:

    ```mlir
    // error: an f8E8M0FNU (MX) scale needs a block of exactly 32 elements
    #quant_block.scheme<f4E2M1FN : f32, block = [16], scale = f8E8M0FNU>
    #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU>
    // error: range [-8, 8] is outside the storage range [-8, 7] of i4
    #quant_block.scheme<i4 : f32, range = [-8, 8]>
    #quant_block.scheme<i4 : f32, range = [-7, 7]>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$storageType,
    "::mlir::Type":$expressedType,
    OptionalArrayRefParameter<"int64_t">:$blockShape,
    "::mlir::Type":$scaleType,
    OptionalParameter<"::mlir::Type">:$zeroPointType,
    "int64_t":$qmin,
    "int64_t":$qmax,
    "::mlir::quant_block::RoundingMode":$rounding,
    "bool":$saturate,
    "::mlir::quant_block::ScaleRoundingMode":$scaleRounding,
    OptionalParameter<"::mlir::quant_block::OuterScaleAttr">:$outer,
    "int64_t":$rowTile
  );
  let builders = [
    // Defaults everything but storage, expressed, block and scale types: no
    // zero point, the full storage range, half-to-even, saturating, floor.
    AttrBuilderWithInferredContext<(ins "::mlir::Type":$storageType,
        "::mlir::Type":$expressedType,
        "::llvm::ArrayRef<int64_t>":$blockShape,
        "::mlir::Type":$scaleType,
        CArg<"::mlir::Type", "{}">:$zeroPointType)>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Block sizes are right-aligned; this marks a block that covers the
    /// whole dimension (`*` in the syntax).
    static constexpr int64_t kWholeDimension = -1;

    /// Returns the scheme for an OCP MX / NVFP4 name (`mxfp4`, `nvfp4`, ...),
    /// or null if `name` is not one.
    static SchemeAttr getNamed(::mlir::MLIRContext *context,
                               ::llvm::StringRef name,
                               ::mlir::Type expressedType);
    /// Returns the standard name this scheme spells, if it is exactly one.
    std::optional<::llvm::StringRef> getStandardName() const;

    ZeroPointDomain getZeroPointDomain() const;
    bool hasIntegerStorage() const;
    bool hasFloatStorage() const;
    bool isSignedStorage() const;
    unsigned getStorageBitWidth() const;
    /// True for f8E8M0FNU scales, i.e. OCP MX power-of-two shared exponents.
    bool hasMXScale() const;

    /// The block shape resolved against a concrete tensor shape: one entry
    /// per dimension, leading dimensions padded with 1, `*` replaced by the
    /// dimension's size. Dynamic dimensions stay dynamic under `*`.
    ::llvm::SmallVector<int64_t> getEffectiveBlockShape(
        ::llvm::ArrayRef<int64_t> shape) const;
    /// The contracted scale shape for `shape`: ceil(dim / block) per
    /// dimension (dynamic where the dimension is dynamic and the block is not
    /// the whole dimension).
    ::llvm::SmallVector<int64_t> getScaleShape(
        ::llvm::ArrayRef<int64_t> shape) const;
    /// The outer (second-level) scale shape for `shape`, or an empty vector
    /// when the scheme has no outer scale.
    ::llvm::SmallVector<int64_t> getOuterScaleShape(
        ::llvm::ArrayRef<int64_t> shape) const;

    /// Returns a copy with another block shape (used by layout ops, which
    /// may only change the block shape).
    SchemeAttr withBlockShape(::llvm::ArrayRef<int64_t> blockShape) const;
    /// Returns a copy with another outer scale.
    SchemeAttr withOuter(OuterScaleAttr outer) const;
    /// Returns a copy with another row tile (0: the row-major layout).
    SchemeAttr withRowTile(int64_t rowTile) const;
    /// True for the row-tiled layout (`row_tile = R`).
    bool isRowTiled() const { return getRowTile() != 0; }
  }];
}

def QuantBlock_CPUMatmulKernelAttr
    : QuantBlock_Attr<"CPUMatmulKernel", "cpu_matmul_kernel"> {
  let summary = "the CPU kernel and tile sizes chosen for a matrix product";
  let description = [{
    The strategy of `--quant-block-cpu-matmul-kernels` for one
    `quant_block.matmul`, as IREE's `lowering_config`: the kernel family, the
    register tile (activation rows x weight rows) and the blocks of K per
    iteration of the K loop. `--quant-block-cpu-select-matmul-kernels` sets
    it on each product as the discardable attribute
    `quant_block.cpu_kernel` (a pure function of the product and the target
    options, `chooseCPUMatmulKernel`); a product that already carries one
    keeps it, so a user (or a tuner) overrides the choice by writing it.
    The kernels pass emits what the attribute says, or fails with the rule
    it breaks (a family the target lacks, a tile that does not divide the
    product). Every family gives the contract's bits (docs/Numerics.md):
    the choice changes speed only, except that `partial_sums` and
    `amx_bf16` need `fastmath<reassoc>` (and give results within its bound;
    `amx_bf16` adds a term for the subnormals the tile unit flushes).

    ```mlir
    %y = quant_block.matmul %x, %w {quant_block.cpu_kernel =
        #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 2>}
        ...
    ```
  }];
  let parameters = (ins
    EnumParameter<QuantBlock_CPUMatmulKernelFamily>:$family,
    "int64_t":$tileM,
    "int64_t":$tileN,
    "int64_t":$blocksPerStep
  );
  let assemblyFormat = [{
    `<` $family `,` `tile` `=` `[` $tileM `,` $tileN `]` `,`
    `blocks_per_step` `=` $blocksPerStep `>`
  }];
  let genVerifyDecl = 1;
}

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKATTRS_TD
