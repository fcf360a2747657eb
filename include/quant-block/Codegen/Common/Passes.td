//===- Passes.td - target-neutral code generation passes ---*- tablegen -*-===//
//
// The passes every target pipeline runs after quant_block is lowered to
// linalg (the shared front half, and the IR clean-ups before each back
// half): fusion of elementwise consumers, exact expansion of narrow-float
// extensions, host-independent bf16 / f16 conversions, and the read-only
// marking of the runner utilities for bufferization.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_COMMON_PASSES_TD
#define QUANT_BLOCK_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwise : Pass<"quant-block-fuse-elementwise", "func::FuncOp"> {
  let summary = "Fuse elementwise consumers into quantization generics";
  let description = [{
    Fuses elementwise linalg ops with their single-use producers, moving the
    collapse of a block iteration space below its consumers (reshape
    propagation by expansion), so that a dequantization followed by a bias,
    an activation or a residual add is one generic and the dequantized tensor
    is never materialized. Unlike upstream --linalg-fuse-elementwise-ops it
    does not constant-fold generics (which would fold the signedness casts of
    unsigned constants into invalid arith.constants). A producer is fused
    only where its consumer reads it through a permutation: one read with a
    broadcast (the quantized activations of an `accumulate(i32)` matmul,
    shared by every output column) would be recomputed for every element
    along the broadcast dimensions.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ExpandNarrowFloats : Pass<"quant-block-expand-narrow-floats"> {
  let summary = "Expand extensions from FP8 / FP6 / FP4 / E8M0 values exactly";
  let description = [{
    LLVM has no FP8, FP6, FP4 or E8M0 arithmetic, and MLIR 22 lowers
    conversions from most of them nowhere (a leftover `arith.extf` fails
    only later, in the LLVM translation). This pass rewrites every scalar
    or vector `arith.extf` from f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN,
    f4E2M1FN and f8E8M0FNU into the exact integer decoding the quant_block
    lowering uses (every value of these types is exact in f32; a vector is
    decoded lane by lane with vector ops, as the CPU matmul kernels read
    E4M3 and E8M0 scales), then reports every other
    arith or math op on them (a truncation, which would need a rounding and
    saturation rule, or arithmetic) as an error at the op: such conversions
    belong in `quant_block.quantize`, whose scheme defines both. Tensor ops
    are expected in linalg form (--convert-elementwise-to-linalg first).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
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

    With `native-f16-extension`, `arith.extf` from f16 to f32 is left to
    LLVM, for targets known to have F16C (`vcvtph2ps`, one instruction per
    16 values): that conversion is exact, keeps subnormals and makes a
    signalling NaN quiet exactly as the integer expansion does, so the bits
    do not change (quant-run sets the CPU pipeline's `x86-f16c` for such
    targets). Without F16C LLVM would call a libgcc builtin, so the option
    must not be set for them.

    With `native-bf16-truncation`, an `arith.truncf` from f32 to bf16 that
    carries the unit attribute `quant_block.never_subnormal_operand` is
    left to LLVM, for targets known to have AVX512-BF16
    (`vcvtneps2bf16`, one instruction per 16 values instead of about
    eight). The instruction rounds to nearest even and makes a NaN quiet
    exactly as the integer expansion does; it differs only on subnormal
    operands (it reads them as zero), which the attribute rules out: the
    CPU kernels set it where the value is integer or E2M1 codes times one
    f16 scale, at least 2^-24 in magnitude unless zero (the CPU pipeline's
    `x86-avx512-bf16`). Without the attribute, or the option, the
    truncation is expanded as above.

    With `native-kernel-f16-truncation`, an `arith.truncf` from f32 to f16
    (to nearest even) inside a `gpu.launch` body is left to LLVM, for the
    NVVM pipeline: NVPTX's `cvt.rn.f16.f32` rounds to nearest even, keeps
    f16 subnormals and overflows to infinity as the expansion does, and
    differs only in a NaN's payload bits (the target's, as for its f16
    extension; docs/Numerics.md). Host code keeps the expansion (on the
    CPU LLVM would call a builtin), and so do f64 sources (rounded twice
    otherwise).

    ```mlir
    // --quant-block-expand-float-conversions=native-bf16-truncation=true
    %a = arith.truncf %w {quant_block.never_subnormal_operand}
           : vector<16xf32> to vector<16xbf16>   // kept
    %b = arith.truncf %x : vector<16xf32> to vector<16xbf16>  // expanded
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
  let options = [
    Option<"nativeF16Extension", "native-f16-extension", "bool",
           /*default=*/"false",
           "Leave f16 -> f32 extensions to LLVM (targets with F16C only)">,
    Option<"nativeBF16Truncation", "native-bf16-truncation", "bool",
           /*default=*/"false",
           "Leave f32 -> bf16 truncations marked "
           "quant_block.never_subnormal_operand to LLVM (targets with "
           "AVX512-BF16 only)">,
    Option<"nativeKernelF16Truncation", "native-kernel-f16-truncation",
           "bool", /*default=*/"false",
           "Leave f32 -> f16 truncations inside gpu.launch bodies to LLVM "
           "(NVPTX: cvt.rn.f16.f32)">,
  ];
}

def DeallocateAfterLastUse : Pass<"quant-block-deallocate-after-last-use",
                                   "func::FuncOp"> {
  let summary = "Move each memref.dealloc up to the last use of its buffer";
  let description = [{
    Upstream's ownership-based buffer deallocation frees the buffers a block
    allocates at the end of that block, so every temporary of a function
    lives until it returns: in a transformer layer the attention's score
    tensors (32 MiB each for 512 tokens) were still allocated during the
    feed-forward products, and each layer's output until the model's
    function returned. This pass moves each `memref.dealloc` of a
    `memref.alloc` or of a `func.call` result (the caller owns those) of the
    same block to just after the last op of that block
    that uses the buffer or anything derived from it (views, casts, pointers
    taken from it, and the results of any op that takes it, except the
    values loaded from it), uses in nested regions counting as uses by the
    op that holds them:

    ```mlir
    %a = memref.alloc() : memref<512x512xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<512x512xf32>)
    %v = memref.expand_shape %a [[0], [1, 2]] output_shape [512, 8, 64] ...
    "use"(%v) : (memref<512x8x64xf32>) -> ()
    "other work"() : () -> ()
    memref.dealloc %a : memref<512x512xf32>
    ```

    becomes

    ```mlir
    %a = memref.alloc() : memref<512x512xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<512x512xf32>)
    %v = memref.expand_shape %a [[0], [1, 2]] output_shape [512, 8, 64] ...
    "use"(%v) : (memref<512x8x64xf32>) -> ()
    memref.dealloc %a : memref<512x512xf32>
    "other work"() : () -> ()
    ```

    A buffer that a block terminator, a return or a store passes on, or
    that has a use outside the block, keeps its dealloc where it is. Run
    after the deallocations are lowered to `memref.dealloc`, on code whose
    uses of a buffer are done when the using op returns (the CPU pipeline:
    OpenMP regions join before the next op; not for asynchronous GPU
    launches).
  }];
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

def LowerStridedCopies : Pass<"quant-block-lower-strided-copies",
                              "::mlir::func::FuncOp"> {
  let summary = "Turn copies between non-contiguous views into loops";
  let description = [{
    A `memref.copy` whose source or target is not one contiguous block (a
    view with gaps between its rows, e.g. a slice of several heads of a
    head-major KV cache) lowers, in convert-memref-to-llvm, to a call of
    `memrefCopy` from MLIR's C runner utility library: a symbol the JIT
    and a linked object find only where that library is loaded, and an
    element-by-element copy. This pass rewrites such copies as
    `linalg.copy`, which the CPU pipeline lowers to loops (their innermost
    dimension contiguous, vectorized by LLVM) and the GPU pipelines to a
    kernel (the data stays on the device). Copies between contiguous views
    keep `memref.copy` (a `memcpy`).

    ```mlir
    memref.copy %a, %b : memref<2x1x64xf32>
                      to memref<2x1x64xf32, strided<[4096, 64, 1], offset: ?>>
    // becomes
    linalg.copy ins(%a : memref<2x1x64xf32>)
                outs(%b : memref<2x1x64xf32, strided<[4096, 64, 1], offset: ?>>)
    ```

    With `contiguous` (the GPU pipelines), every copy becomes a
    `linalg.copy`, a kernel there: a copy into or out of a device-resident
    buffer (a layer's result into the buffer its caller passed) cannot be
    a host `memcpy`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let options = [
    Option<"contiguous", "contiguous", "bool", /*default=*/"false",
           "Contiguous copies too">,
  ];
}

#endif // QUANT_BLOCK_CODEGEN_COMMON_PASSES_TD
