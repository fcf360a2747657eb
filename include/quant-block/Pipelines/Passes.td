//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// The code generation passes that --quant-block-cpu-pipeline runs between the
// linalg form and the LLVM dialect: tiling to register-sized tiles and
// vectorization on tensors, then flattening of the vectors after
// bufferization.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_PIPELINES_PASSES_TD
#define QUANT_BLOCK_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPUFuseElementwise : Pass<"quant-block-cpu-fuse-elementwise",
                              "func::FuncOp"> {
  let summary = "Fuse elementwise consumers into quantization generics";
  let description = [{
    Fuses elementwise linalg ops with their single-use producers, moving the
    collapse of a block iteration space below its consumers (reshape
    propagation by expansion), so that a dequantization followed by a bias,
    an activation or a residual add is one generic and the dequantized tensor
    is never materialized. Unlike upstream --linalg-fuse-elementwise-ops it
    does not constant-fold generics (which would fold the signedness casts of
    unsigned constants into invalid arith.constants).
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def CPUVectorize : Pass<"quant-block-cpu-vectorize", "func::FuncOp"> {
  let summary = "Tile linalg ops to register-sized tiles and vectorize them";
  let description = [{
    Tiles every linalg op on tensors with `scf.for` loops so that one tile
    holds a few vector registers' worth of elements, then vectorizes the tile
    with the upstream linalg vectorizer. Tile sizes are chosen from the
    innermost loop outwards: a static loop is kept whole while it fits the
    budget, the first one that does not fit is tiled by its largest divisor
    that does, and every loop outside it by 1. Tiles therefore have static
    shapes and need no masks; dynamic loops are tiled by 1. The budget is
    `vector-bits * registers / widest element bits` elements.

    Float sums over reduction loops are ordered (the numerics contract of
    quant_block.matmul adds the terms of each output one after the other,
    and a vector.contract would fuse multiply-adds), so a vector along k is
    one dependent chain. For such ops the innermost static parallel loop
    (the outputs) first gets `vector-bits / widest element bits` elements,
    one chain per lane, and the reduction loops share the rest of the
    budget; the multi-reduction then adds whole vectors of outputs in k
    order. This made the int4 matrix-vector product 2.4x faster.

    The expanded block iteration space of --convert-quant-block-to-linalg is
    what makes this work for quantized ops: scales are read once per block
    and broadcast, packed bytes once per byte.

    Ops the vectorizer refuses stay as they are (they become loops later).
  }];
  let dependentDialects = [
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "Width of one vector register of the target, in bits">,
    Option<"registers", "registers", "int64_t", /*default=*/"8",
           "How many vector registers one tile may fill">,
  ];
}

def CPUFlattenVectors : Pass<"quant-block-cpu-flatten-vectors",
                             "func::FuncOp"> {
  let summary = "Turn n-D vector code on contiguous memory into 1-D vectors";
  let description = [{
    After bufferization, the vectors of the tiled block iteration space are
    n-D (e.g. `vector<16x2xf32>` for 16 packed bytes of two int4 each).
    Lowered as they are, each row would become its own tiny LLVM vector.
    This pass drops unit dimensions, flattens transfers over contiguous
    memory into 1-D transfers and linearizes the elementwise ops between
    them, so that LLVM sees whole-register vectors.
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CPULowerReductions : Pass<"quant-block-cpu-lower-reductions",
                               "func::FuncOp"> {
  let summary = "Lower vector.multi_reduction, keeping float sums ordered";
  let description = [{
    Lowers each `vector.multi_reduction` with the strategy its combining
    kind allows. Float `add` and `mul` must add the terms of each output in
    order (the numerics contract), so they are lowered inner-parallel: whole
    vectors of outputs are combined one reduction index after the other.
    Every other kind (integer arithmetic and bit operations, float minimum
    and maximum) gives the same bits in any order, so it is lowered
    inner-reduction: a `vector.reduction`, which LLVM computes as a tree
    inside the registers. (Upstream --lower-vector-multi-reduction applies
    one strategy to all; inner-parallel made the max |x| of
    quantize_dynamic a chain of scalar maximums.)
  }];
  let dependentDialects = [
    "::mlir::vector::VectorDialect",
  ];
}

def MarkRunnerUtilsReadOnly : Pass<"quant-block-mark-runner-utils-read-only",
                                   "ModuleOp"> {
  let summary = "Tell bufferization that the runner utilities only read";
  let description = [{
    Gives the tensor arguments of external declarations of the MLIR runner
    utilities that only read their memrefs (`printMemref*`, `verifyMemRef*`)
    the `bufferization.access = "read"` attribute, unless they have one.
    Without it, One-Shot Bufferize must assume that an external function
    writes its arguments, and a `main` that prints a tensor through a cast to
    an unranked tensor and then uses the tensor again fails to bufferize
    ("cannot avoid RaW conflict": an unranked copy cannot be allocated).
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
  ];
}

def ExpandFloatConversions : Pass<"quant-block-expand-float-conversions",
                                  "func::FuncOp"> {
  let summary = "Round to and from bf16 and f16 with integer arithmetic";
  let description = [{
    Makes every bf16 and f16 result independent of the host CPU. LLVM lowers
    `fptrunc` to bf16 to `vcvtneps2bf16` on CPUs with AVX512-BF16, and that
    instruction flushes subnormals to zero (the numerics contract rounds them
    to nearest even like any other value); elsewhere it calls a builtin. f16
    conversions use F16C where the host has it and libgcc elsewhere, and
    f16 arithmetic is native on AVX512-FP16 hosts (so an f16 fused
    multiply-add rounds once there and twice elsewhere).

    The CPU pipeline first runs upstream `arith-emulate-unsupported-floats`
    for bf16 and f16, so every `arith` op on those types is computed in f32
    and rounded once to its type (for add, sub, mul and div f32 is wide
    enough that this equals the exact operation in the narrow type). This
    pass then lowers what is left, the conversions:
    * `arith.truncf` from f32 or f64 to bf16 or f16 becomes integer
      arithmetic on the bit pattern: round to nearest, ties to even,
      subnormals kept, overflow to infinity, NaN kept quiet with its sign and
      the top bits of its payload. An f64 is first rounded to f32 *to odd*,
      so the value is rounded once (f32 carries more than two extra bits for
      either type, and the same exponent range as bf16);
    * `arith.extf` from bf16 or f16 becomes integer arithmetic (bf16: a
      shift; f16: rebiasing, subnormals scaled exactly, a signalling NaN made
      quiet).

    A `truncf` with an explicit rounding mode other than to-nearest-even is
    left alone. It runs on scalars and vectors (after bufferization and
    vectorization) as well as on tensors.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

#endif // QUANT_BLOCK_PIPELINES_PASSES_TD
