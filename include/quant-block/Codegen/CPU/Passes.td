//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// The CPU back half of --quant-block-cpu-pipeline, between the fused linalg
// form and the LLVM dialect: tiling to register-sized tiles and vectorization
// on tensors, the report of what stayed scalar, flattening of the vectors after bufferization, and the lowering
// of reductions that keeps float sums ordered. The tile sizes come from the
// pure function in TileSizeSelection.h.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_CPU_PASSES_TD
#define QUANT_BLOCK_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    order (bench/README.md has what this gained).

    The expanded block iteration space of --convert-quant-block-to-linalg is
    what makes this work for quantized ops: scales are read once per block
    and broadcast, packed bytes once per byte.

    Ops the vectorizer refuses stay as they are (they become loops later).

    Float products that are sums of outer products (the body is
    `acc + a * b`; the innermost output dimension is the innermost one of
    `b` and absent from `a`; a static parallel loop of `a` and the output
    that `b` lacks gives the rows) take a register tile instead
    (chooseCPUOuterProductTileSizes): up to 4 vectors of columns times as
    many rows as the accumulator registers allow (24 with 512-bit vectors,
    12 below), the reduction loops innermost, the row tiles inside the
    column tiles (so they reuse one panel of `b` from the cache), and the
    threads on the outermost loop. The accumulators become vector iter_args
    of the reduction loops. Each output still adds its terms in increasing
    reduction index; with `contract` in the body each term is a `math.fma`
    (one rounding on every host). A matrix product:

    ```mlir
    %c = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>)
                       outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
    ```

    becomes, with `vector-bits=512`:

    ```mlir
    scf.for %n = %c0 to %c256 step %c64 ... {
      scf.for %m = %c0 to %c64 step %c4 ... {
        %init = vector.transfer_read %out[%m, %n] ... : vector<4x64xf32>
        %sum = scf.for %k = %c0 to %c128 step %c1
            iter_args(%acc = %init) -> (vector<4x64xf32>) {
          // 4 elements of a broadcast, 4 vectors of b, 16 multiply-adds
          %t = arith.mulf %a_k, %b_k : vector<4x64xf32>
          %s = arith.addf %acc, %t : vector<4x64xf32>
          scf.yield %s : vector<4x64xf32>
        }
        vector.transfer_write %sum, %out[%m, %n] ...
      }
    }
    ```

    With `parallel`, the tiles of one parallel loop of each large op (at
    least `parallel-min-iterations` iterations) become the iterations of an
    `scf.forall` around the `scf.for` nest of the other loops; the CPU
    pipeline lowers it to OpenMP (`omp.parallel` + `omp.wsloop`), so that
    `OMP_NUM_THREADS` sets the thread count. The loop is the largest parallel
    loop tiled into at least two tiles (the output rows N of a matmul, on
    ties the outermost; chooseCPUParallelLoop), never a reduction, so every
    output is summed in the same order whatever the thread count. The tile
    sizes stay those of the sequential code.
  }];
  let dependentDialects = [
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "Width of one vector register of the target, in bits">,
    Option<"registers", "registers", "int64_t", /*default=*/"8",
           "How many vector registers one tile may fill">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Tile one parallel loop of each large op with scf.forall, to run "
           "its tiles on several threads">,
    Option<"parallelMinIterations", "parallel-min-iterations", "int64_t",
           /*default=*/"65536",
           "Ops with fewer iterations (the product of their loop sizes) stay "
           "on one thread">,
  ];
}

def CPUReportUnvectorized : Pass<"quant-block-cpu-report-unvectorized",
                                  "func::FuncOp"> {
  let summary = "Remark on every linalg op that stays scalar";
  let description = [{
    Emits a remark on every linalg op still in the function, with the reason
    it was not vectorized. Run after --quant-block-cpu-vectorize (the
    `report-unvectorized` option of --quant-block-cpu-pipeline runs it right
    after the vectorizer and its clean-up), every linalg op left is one that
    will become scalar loops, so no op stays scalar silently. The reasons are
    the vectorizer's own rules (sub-byte elements in memory, indexing maps
    that are not projected permutations, gathers from slices) and the
    upstream linalg vectorizer's preconditions (dynamic shape, element types
    vectors cannot hold, reductions without a recognized combiner, op kinds
    it does not vectorize); an op that meets all of them is reported as such
    (tiling or vectorization failed).

    ```mlir
    // remark: not vectorized: it reads or writes i4 elements in memory, which
    // vector transfers would access bit-packed where the scalar code stores
    // one per byte
    %0 = linalg.generic ... ins(%a : tensor<8xi4>) ...
    ```

    The pass changes nothing; with no remark, every linalg op of the input
    was vectorized.
  }];
}

def CPUSelectMatmulKernels : Pass<"quant-block-cpu-select-matmul-kernels",
                                   "func::FuncOp"> {
  let summary = "Record the CPU kernel of each quantized matrix product";
  let description = [{
    Sets `quant_block.cpu_kernel`, a `#quant_block.cpu_matmul_kernel`, on
    every `quant_block.matmul` that --quant-block-cpu-matmul-kernels covers
    on the target of the options: the kernel family and its tiles, as
    `chooseCPUMatmulKernel` (MatmulKernelSelection.h, a pure function of the
    product and the target) picks them. A product that already has the
    attribute keeps it: a user or a tuner overrides the choice by writing
    it, and the kernels pass emits what it says or fails with the rule it
    breaks. The CPU pipeline runs this pass just before the kernels pass,
    with the same target options. Which family computes what, and their
    limits: docs/CPU.md.

    ```mlir
    // quant-opt --quant-block-cpu-select-matmul-kernels="x86-avx512-vnni=true x86-amx=true"
    %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) : ...
    // becomes
    %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32)
        {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx,
            tile = [16, 16], blocks_per_step = 4>} : ...
    ```
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"4",
           "Weight rows (outputs along N) per register tile when M = 1">,
    Option<"x86Vnni", "x86-avx512-vnni", "bool", /*default=*/"false",
           "The target has AVX512-VNNI (see --quant-block-cpu-matmul-kernels)">,
    Option<"x86Amx", "x86-amx", "bool", /*default=*/"false",
           "The target has AMX-INT8 (see --quant-block-cpu-matmul-kernels)">,
    Option<"x86AmxBF16", "x86-amx-bf16", "bool", /*default=*/"false",
           "The target has AMX-BF16 (see --quant-block-cpu-matmul-kernels)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the reason on every quant_block.matmul that "
           "gets no kernel">,
  ];
}

def CPUTileConstantWeights : Pass<"quant-block-cpu-tile-constant-weights",
                                   "func::FuncOp"> {
  let summary = "Give constant weights the row-tiled layout their kernels "
                "read";
  let description = [{
    Runs after --quant-block-cpu-select-matmul-kernels. A `quant_block.matmul`
    whose kernel reads tiles of 16 weight rows directly (`vnni_row_lanes`,
    `amx`, `ordered_rows`: one weight row per 32-bit lane) and whose
    `transpose_rhs` weight is a `quant_block.pack` of constants gets the
    same pack with `row_tile = 16` (docs/Packing.md, "The row-tiled
    layout"): its kernel then reads each chunk of 16 rows with one load
    instead of transposing the rows' bytes at every K step, and the
    lowering tiles the constant parts at compile time (no copy per call).
    The same values and the same bits: only the layout changes. Weights
    that are function arguments keep their layout (a caller's buffers), as
    do types the layout does not take (rows not a multiple of 16, blocks of
    partial 32-bit words) and products whose kernel reads row-major weights.

    ```mlir
    %w = quant_block.pack %data scales(%scales : tensor<4096x128xf16>)
        : tensor<4096x4096xi4> -> !quant_block.tensor<4096x4096,
            #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
    %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32)
        {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes,
            tile = [8, 16], blocks_per_step = 2>} : ...
    // becomes (%data and %scales constants)
    %w = quant_block.pack %data scales(%scales : tensor<4096x128xf16>)
        : tensor<4096x4096xi4> -> !quant_block.tensor<4096x4096,
            #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16,
                                row_tile = 16>>
    ```
  }];
}

def CPURepackWeights : Pass<"quant-block-cpu-repack-weights",
                             "func::FuncOp"> {
  let summary = "Repack non-constant weights of long products into the "
                "row-tiled layout once per call";
  let description = [{
    Runs after --quant-block-cpu-tile-constant-weights. A
    `quant_block.matmul` whose kernel reads tiles of 16 weight rows directly
    (`vnni_row_lanes`, `amx`, `ordered_rows`), whose `transpose_rhs` weight
    is row-major and not a pack of constants (a function argument: the
    caller's buffer), and whose left operand has at least `min-rows` rows
    (static: every dimension but the last) gets its weight through a
    `quant_block.repack` to `row_tile = 16` (docs/Packing.md), one per
    weight, right after the weight's definition. The kernel then reads each
    chunk of 16 rows with one load instead of transposing its bytes at
    every K step for every tile of rows; the repack is one pass over the
    weight per call, which pays from about 128 rows (measured in
    bench/README.md, "Weight arguments repacked once per call").
    The same values and the same bits: only the layout changes. Dynamic
    row counts, types the layout does not take and products whose kernel
    reads row-major weights are left alone.

    ```mlir
    %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32)
        {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes,
            tile = [8, 16], blocks_per_step = 2>}
        : !quant_block.tensor<512x4096, ...>, !quant_block.tensor<4096x4096,
            #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>> -> ...
    // becomes
    %t = quant_block.repack %w : !quant_block.tensor<4096x4096, ...>
        -> !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32,
               block = [1, 32], scale = f16, row_tile = 16>>
    %y = quant_block.matmul %x, %t transpose_rhs accumulate(i32) {...} : ...
    ```
  }];
  let options = [
    Option<"minRows", "min-rows", "int64_t", /*default=*/"128",
           "Fewest rows of a product whose weight is repacked">,
  ];
}

def CPUMatmulKernels : Pass<"quant-block-cpu-matmul-kernels",
                             "func::FuncOp"> {
  let summary = "Register-tiled vector kernels for quantized matrix "
                "products";
  let description = [{
    Rewrites each `quant_block.matmul` that may reassociate its sum
    (`fastmath<reassoc>`) and that a kernel covers into vector code on
    tensors, before --convert-quant-block-to-linalg: a tile of `rows` weight
    rows (N) and up to 8 activation rows (M) keeps one `vector<16xf32>`
    accumulator per output in registers across the whole K loop; each
    32-element chunk of a weight row is loaded once (16 packed bytes for
    4-bit storage, unpacked with shifts), its block's scale is read once per
    block, and the dequantized chunk is multiplied into every activation row
    of the tile, fused into one multiply-add with `contract`. The packed
    bytes of a 4-bit row hold the even elements in the low nibbles and the
    odd ones in the high nibbles, so the activations are de-interleaved once
    per call (their even elements first in each chunk of 32) instead of
    interleaving every weight chunk.

    Products without `reassoc` (the strict order of the contract) with f32
    activations, 4- or 8-bit storage in blocks of a multiple of 32 and N a
    multiple of 16 get a kernel with one weight row per lane: each chunk's
    packed bytes of 16 rows are transposed once as 32-bit words, element k
    of all 16 rows is shifted out of them, dequantized (f32(q - zp) *
    scale) and, for each of up to 8 activation rows, `acc = acc + x[m, k] *
    w` with `x[m, k]` broadcast: every output is summed in its own lane over
    k in increasing order, a rounded product and a rounded sum (one FMA with
    `contract`), which is the contract's order, so the bits equal the
    generic lowering's.

    Numerics (docs/Numerics.md): each weight element is dequantized exactly
    as `quant_block.dequantize` does; lane `l` of an accumulator sums the
    products of the elements `k` with `k mod 32` in `{l, l + 16}` (4-bit:
    the even / odd elements of the chunk) in increasing chunk order, and the
    16 lanes are added in a fixed halving tree. The code carries no
    fast-math flags, so LLVM keeps this order: the bits depend on neither the
    host's vector width nor the thread count.

    With `prefetch` (default), each K step also prefetches the weight bytes
    that the next tile of rows reads in the same step (the last row is
    clamped; steps of more than 256 bytes per row, i.e. per-channel blocks,
    are not prefetched): the weights stream from DRAM once per call, and
    the hardware prefetchers alone leave a cold kernel well below the read
    bandwidth (bench/README.md, "Prefetching the next tile; exp per lane").

    With `parallel`, the weight-row tiles of a product with at least
    `parallel-min-iterations` multiply-adds are the iterations of an
    `scf.forall` (OpenMP threads in the CPU pipeline); every output is summed
    by one thread in the order above.

    Covered: `transpose_rhs` with a rank-2 weight of static shape, 4- or
    8-bit integer storage (signed or unsigned) in blocks `[1, B]` with `B` a
    multiple of 32 that divides K, f32 / f16 / bf16 scales, no or integer
    zero points, `inhibit`, and either an f32, f16 or bf16 lhs of rank 2
    (the weight's expressed type) with `accumulate(f32)` and `reassoc` (or
    without, below), or an i8 lhs (dynamically quantized activations,
    expressed type f32, blocks of the same size) with `accumulate(i32)` and
    any flags. The lhs rows M may be dynamic (a frontend's batch or token
    count; K must be static): the kernels with one weight row per lane keep
    their tiles of up to 8 activation rows and take the M mod 8 rows left
    over one at a time, the others use the tiles of M = 1 for every row;
    each output is summed in the same order as with a static M, so the bits
    are the same. f16 / bf16 activations are extended to f32 once per call,
    each dequantized weight is rounded to the expressed type (as dequantize
    does) and extended back, and the f32 results are rounded once to the
    expressed type. With a float lhs also: FP4 E2M1 weights (codes decoded
    with integer arithmetic) with E8M0 scales (MXFP4) or any of the scale
    types below; f8E4M3FN scales and a per-tensor outer scale (each
    block's scale times the outer one, rounded once, as dequantize does);
    8-bit integer, f32, f16 or bf16 scales under a blocked outer scale
    `[1, B]` (GGUF's K-quants and IQ4_XS: a K step's blocks share one outer
    scale, read once per row and step); mins (each weight `fma(f32(q),
    s, m)`, as dequantize computes it): float zero points (Q4_1) or 8-bit
    integer ones under an outer min (Q4_K: `m = f32(zp) * f32(outer
    min)`, rounded once), read as one vector per row and step like the
    scales;
    and 4-bit weights in blocks `[1, 16]` without zero points (NVFP4's
    blocks: the two blocks of a chunk of 32 fill lanes 0-7 and 8-15 of
    both of its halves), and 8-bit integer weights in blocks `[1, 16]`
    without zero points (GGUF Q6_K widened to i8: the two blocks of a chunk
    are its two halves). `accumulate(i32)`
    products keep exact i32 block sums (the weight codes plus 2^(w-1),
    non-negative, times the activation codes, minus 2^(w-1) + zero point
    times the activation block sum; FP4 E2M1 weights (MXFP4, NVFP4) as twice
    their values plus 12, each block sum halved exactly, NVFP4's block
    scales times its outer scale) and the f32 sum over the blocks in order,
    one lane per weight row, so their bits are the contract's. E2M1 weights
    in blocks of 16 (NVFP4) take the VNNI kernel only (one weight row per
    lane: a chunk's words 0-1 and 2-3 are its two blocks). With
    `x86-avx512-vnni` and N a multiple of 16, the block sums are computed
    with one weight row per i32 lane as well: each chunk's packed bytes of
    16 rows are transposed once (as dwords; 4-bit codes are then split
    into nibbles), and every activation row's codes are broadcast, four at a
    time, into one `vpdpbusd` each, so no sums across lanes are needed
    (otherwise the lanes of 64-byte dot products are added with a
    transposed tree of shuffles). E2M1 nibbles are then looked up in a
    16-byte table (`vpshufb` with `x86-avx512`); without VNNI, or with N
    not a multiple of 16, the generic tiles decode them in i32 lanes.
    With `x86-amx` as well, those products (blocks of 32 to 256 codes, not
    8-bit codes with zero points) take AMX tiles for every whole 16
    activation rows: each 16-row weight tile is decoded once per chunk of
    activation rows into an AMX operand (the exact signed `q - zero point`
    bytes, 4 consecutive codes of each row per dword) and, per K step, up
    to 4 blocks' 16 x 16 block sums are computed, stored and added in block
    order as above; the rows left over take the VNNI tiles:

    ```mlir
    %t0 = amx.tile_zero : !amx.tile<16x16xi32>
    %x = amx.tile_load %codes[%m0, %k] : memref<35x128xi8, strided<[?, 1], offset: ?>> into !amx.tile<16x32xi8>
    %w = amx.tile_load %panel[%k4, %c0] : memref<32x64xi8> into !amx.tile<8x64xi8>
    %t = amx.tile_muli %x, %w, %t0 : !amx.tile<16x32xi8>, !amx.tile<8x64xi8>, !amx.tile<16x16xi32>
    amx.tile_store %sums[%c0, %c0], %t : memref<64x16xi32>, !amx.tile<16x16xi32>
    %row = vector.load %sums[%c0, %c0] : memref<64x16xi32>, vector<16xi32>
    ```
    Integer products of 6-bit codes (GGUF Q6_K's: 4 codes per 24 bits,
    the lowest first) take only the one-row-per-lane kernels as well: each
    row's 6 words of a chunk are unpacked to a code per byte (each group of
    4 codes' 24 bits taken from one word or funnel-shifted from two, then
    spread by 3 shifts and masks), in the positions' order, as 8-bit codes
    (blocks of 16: the two halves of a chunk), biased by 32.
    Integer products whose weight has two-level scales or mins (GGUF's
    Q4_K, Q4_1, IQ4_XS) take only these one-row-per-lane kernels (VNNI,
    AMX): the step's scales and mins are read as [blocks, rows] vectors,
    each row's outer scale and outer min as one lane vector (the step's
    blocks share them), and after each block's term the activation block
    sum times f32(activation scale) * m_eff is added (docs/Numerics.md).
    Other products keep the generic lowering (--convert-quant-block-to-linalg,
    then --quant-block-cpu-vectorize); `report` says why for each.

    A product with a `quant_block.cpu_kernel` attribute
    (--quant-block-cpu-select-matmul-kernels, or written by a user) gets
    that kernel family with those tiles; one the target or the product
    cannot take is an error naming the rule. Without the attribute the pass
    chooses as the selection pass would.
  }];
  let dependentDialects = [
    "::mlir::amx::AMXDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"4",
           "Weight rows (outputs along N) per register tile when M = 1">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Run the weight-row tiles of large products on several threads "
           "(scf.forall)">,
    Option<"parallelMinIterations", "parallel-min-iterations", "int64_t",
           /*default=*/"65536",
           "Products with fewer multiply-adds (M * N * K) stay on one "
           "thread">,
    Option<"x86Vnni", "x86-avx512-vnni", "bool", /*default=*/"false",
           "accumulate(i32) products: sum the int8 code products 64 at a "
           "time as unsigned-by-signed byte contractions, which "
           "--quant-block-cpu-x86-dot-products makes AVX512-VNNI's vpdpbusd "
           "(the code then runs only on hosts with AVX512-VNNI and "
           "AVX512BW). The block sums are exact either way, so the bits do "
           "not change">,
    Option<"x86Amx", "x86-amx", "bool", /*default=*/"false",
           "With x86-avx512-vnni: accumulate(i32) products with N a "
           "multiple of 16 and blocks of 32 to 256 codes take AMX tiles "
           "for every whole 16 activation rows (tdpbssd, 16 x 16 block "
           "sums at once; the code then runs only on hosts with AMX-TILE "
           "and AMX-INT8 whose process asked the kernel for the tile data "
           "state, as quant-run and the runner API do). The block sums are "
           "exact either way, so the bits do not change">,
    Option<"x86AmxBF16", "x86-amx-bf16", "bool", /*default=*/"false",
           "Reassociated products with bf16 activations, 4- or 8-bit "
           "weights in blocks of a multiple of 32 and N a multiple of 16 "
           "take AMX-BF16 tiles (tdpbf16ps) for every whole 16 activation "
           "rows, against the weight dequantized to bf16 once per call "
           "(the code then runs only on hosts with AMX-TILE and "
           "AMX-BF16 whose process asked for the tile data state). The "
           "tile unit flushes subnormal inputs and sums to zero: the "
           "results are within the reassociation bound plus that term "
           "(docs/Numerics.md)">,
    Option<"x86Avx512", "x86-avx512", "bool", /*default=*/"false",
           "FP4 E2M1 weights: decode the codes by a 16-entry table lookup "
           "(a vector.gather from a constant table, which "
           "--quant-block-cpu-x86-table-lookups makes AVX-512's vpermps; "
           "the code then runs only on hosts with AVX512F) instead of "
           "integer arithmetic. The table holds the exact values, so the "
           "bits do not change">,
    Option<"prefetch", "prefetch", "bool", /*default=*/"true",
           "In each K step, prefetch (memref.prefetch, into L2) the weight "
           "bytes the next tile of rows will read in that step">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the reason on every quant_block.matmul that "
           "gets no kernel">,
  ];
}

def CPUX86DotProducts : Pass<"quant-block-cpu-x86-dot-products",
                              "func::FuncOp"> {
  let summary = "Turn byte dot products into AVX512-VNNI vpdpbusd";
  let description = [{
    Rewrites every `vector.contract` that adds, to each lane of a
    `vector<16xi32>` accumulator, the sum of four products of zero-extended
    bytes (`arith.extui` of `vector<16x4xi8>`) and sign-extended bytes
    (`arith.extsi`), into `llvm.call_intrinsic
    "llvm.x86.avx512.vpdpbusd.512"`, which LLVM does not form by itself.
    The sums of four byte products fit in i32, so the result is exactly the
    contraction's. The code then needs a host with AVX512-VNNI and
    AVX512BW. --quant-block-cpu-matmul-kernels emits such contractions with
    `x86-avx512-vnni`; the CPU pipeline runs this pass after bufferization
    (buffer deallocation refuses llvm.call_intrinsic, whose memory effects
    are unknown).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
  ];
}

def CPUX86SixBitSpreads : Pass<"quant-block-cpu-x86-six-bit-spreads",
                                "func::FuncOp"> {
  let summary = "Spread 6-bit codes to bytes with AVX512-VBMI vpmultishiftqb";
  let description = [{
    Rewrites every spread of four 6-bit codes to a byte each,

    ```mlir
    // (d & 63) | (d << 2 & 63 << 8) | (d << 4 & 63 << 16) | (d << 6 & 63 << 24)
    %lo = arith.andi %d, %c63 : vector<16xi32>
    %s1 = arith.shli %d, %c2 : vector<16xi32>
    %m1 = arith.andi %s1, %c16128 : vector<16xi32>
    %o1 = arith.ori %lo, %m1 : vector<16xi32>
    ...
    ```

    which --quant-block-cpu-matmul-kernels emits for each group of 4 codes
    of GGUF Q6_K's 6-bit storage (about 7 shifts and masks), into one
    `llvm.call_intrinsic "llvm.x86.avx512.pmultishift.qb.512"` and a mask:
    vpmultishiftqb copies to each byte of a qword the 8 bits of that qword
    from a bit offset of its own, so the offsets 0, 6, 12, 18 (and 32 more
    for the qword's upper lane) give each lane's 4 codes. Where `%d` is a
    logical right shift of a word by at most 8, the shift goes into the
    offsets. The bytes are exactly the spread's, so the results do not
    change; the code then needs a host with AVX512-VBMI. The CPU pipeline
    runs this pass after bufferization with `x86-avx512-vbmi`.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CPUX86TableLookups : Pass<"quant-block-cpu-x86-table-lookups",
                               "func::FuncOp"> {
  let summary = "Turn 16-entry table lookups into AVX-512 vpermps / vpshufb";
  let description = [{
    Rewrites every `vector.gather` of a `vector<16xf32>` from a constant
    16-element f32 global (`memref.get_global`), at offset 0, with an
    all-true mask and `vector<16xi32>` indices, into `llvm.call_intrinsic
    "llvm.x86.avx512.permvar.sf.512"` on the table as a constant vector:
    one `vpermps` instead of a gather, which LLVM does not form by itself.
    `vpermps` reads the low four bits of each index; the rewrite is exact
    for indices 0 to 15, the only ones the gather may have (a larger index
    would read past the table). Likewise a `vector<64xi8>` gather with
    `vector<64xi8>` indices from a 16-element i8 global becomes
    `llvm.x86.avx512.pshuf.b.512` (`vpshufb`, AVX512BW) on the table
    repeated in each 128-bit lane (it reads the low four bits of an index
    whose top bit is clear). The code then needs a host with AVX512F (and
    AVX512BW for bytes). --quant-block-cpu-matmul-kernels emits such
    lookups with `x86-avx512` (E2M1 codes: to f32 values, or to bytes for
    `accumulate(i32)`); the CPU pipeline runs this pass after bufferization
    (buffer deallocation refuses llvm.call_intrinsic, whose memory effects
    are unknown).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
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

def CPUPolynomialExp : Pass<"quant-block-cpu-polynomial-exp",
                             "func::FuncOp"> {
  let summary = "Compute f32 math.exp with a polynomial instead of libm";
  let description = [{
    LLVM has no vector exp on x86: a `math.exp` of a vector becomes one call
    of libm's `expf` per lane. Softmax and SiLU evaluate millions of them
    per prefill (a LLaMA-7B layer of 512 tokens: 8.4 M in the attention and
    5.6 M in the feed-forward: bench/README.md, "Prefetching the next tile;
    exp per lane"). This
    pass rewrites every f32 `math.exp` (scalar or vector) into upstream's
    polynomial approximation (`populateMathPolynomialApproximationPatterns`:
    a range reduction to 2^k * exp(r) and a polynomial in r), which
    vectorizes:

    ```mlir
    %e = math.exp %x : vector<16xf32>
    ```

    becomes arithmetic on `vector<16xf32>` (`math.fma`, `arith.mulf`,
    `arith.select`, ... and a bit cast for 2^k), no call. The error is a few
    ulp (test/Integration/polynomial-exp.mlir bounds it over the whole f32
    range), and the bits are the same on every host: the arithmetic is
    exactly rounded and its fused multiply-adds are `math.fma`, where libm's
    `expf` picks an implementation by the host's instructions.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CPULegalizeBF16Vectors : Pass<"quant-block-cpu-legalize-bf16-vectors",
                                   "::mlir::ModuleOp"> {
  let summary = "Load and store bf16 vectors as i16 vectors in LLVM IR";
  let description = [{
    In the LLVM dialect, loads a vector of `bf16` as the vector of `i16`
    with the same bits, bitcast after the load, and stores a `bf16` vector
    as its `i16` bitcast; the bitcast pairs this creates then fold away. The
    pipeline computes nothing in `bf16` (arithmetic is emulated in f32 and
    conversions work on the bits), so its `bf16` vectors are only loaded,
    stored and bitcast, and after this pass most of them are gone. LLVM 22's
    X86 back end cannot legalize a `bf16` vector of an odd length (e.g. 9
    lanes) that lives across basic blocks on hosts with AVX512-FP16 ("Do not
    know how to soft promote this operator's operand!", a crash); `i16`
    vectors of any length are legal everywhere, so no result or crash
    depends on the host.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPUThreadSchedule : Pass<"quant-block-cpu-thread-schedule"> {
  let summary = "Choose how the iterations of the threads' loops are "
                "handed out";
  let description = [{
    Sets the schedule of every `omp.wsloop` (the threads' loops that
    convert-scf-to-openmp made of the kernels' and the vectorizer's
    `scf.forall`) that has none. `static` (OpenMP's default) gives each
    thread one contiguous share, fixed before the loop starts: when the
    threads do not advance at the same speed (two threads that share one
    memory bus do not), the first to finish waits at the loop's barrier for
    the other. `dynamic` hands out `chunk` iterations at a time to whichever
    thread asks first, with the `nonmonotonic` modifier, which lets libomp
    start each thread on its static share and steal from the others' ends
    (libomp's static_steal: the same contiguous streams as `static`, and no
    waiting at the end). `guided` hands out shares that shrink as the loop
    ends; `runtime` takes the schedule from `OMP_SCHEDULE` at run time (for
    experiments). Every iteration is still run by one thread and its outputs
    written once, so the results are the same bits whatever the schedule.

    ```mlir
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c1) { ... }
    }
    // --quant-block-cpu-thread-schedule="schedule=dynamic chunk=2"
    omp.wsloop schedule(dynamic = %c2 : i64, nonmonotonic) {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c1) { ... }
    }
    ```
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"static\"",
           "static, dynamic, guided or runtime">,
    Option<"chunk", "chunk", "int64_t", /*default=*/"1",
           "Iterations handed out at a time by dynamic and guided (the "
           "smallest share for guided)">,
  ];
  let dependentDialects = ["::mlir::omp::OpenMPDialect",
                           "::mlir::arith::ArithDialect"];
}

def CPURecordTarget : Pass<"quant-block-cpu-record-target",
                            "::mlir::ModuleOp"> {
  let summary = "Record the CPU and features the code was compiled for on "
                "its LLVM functions";
  let description = [{
    Resolves `cpu` (`host`, a processor LLVM knows for this process's
    triple, or empty) and `features` (`+name` / `-name`, comma-separated)
    against LLVM's tables (for `host`: the host's name and its own feature
    flags) and sets `target_cpu` and `target_features` on every
    `llvm.func` definition. mlir-translate turns them into the functions'
    `"target-cpu"` / `"target-features"`, so llc and the JIT generate code
    for that CPU whatever their own `-mcpu`, and quant-run, the C runner API
    and the Python package refuse a module whose recorded features their
    target lacks (an error, not a SIGILL). Unknown names are errors here
    (LLVM only warns). The CPU pipeline runs it last when given
    `target-cpu` or `target-features`.

    ```mlir
    llvm.func @f(...)
    // --quant-block-cpu-record-target="cpu=icelake-server"
    llvm.func @f(...) attributes {target_cpu = "icelake-server"}
    ```
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "The processor: host, a name LLVM knows, or empty">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Features added or removed: +a,-b">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // QUANT_BLOCK_CODEGEN_CPU_PASSES_TD
