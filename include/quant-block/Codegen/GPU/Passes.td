//===- Passes.td - GPU code generation passes --------------*- tablegen -*-===//
//
// The target-neutral GPU passes of --quant-block-spirv-pipeline and
// --quant-block-nvvm-pipeline, between bufferized loops and outlined kernels:
// the matmul kernels, mapping of the parallel loops onto workgroups and
// threads, sinking of what the kernels compute from into them, and the
// host/device data movement (the ABI of docs/GPU.md). The passes of one
// target are in Codegen/SPIRV and Codegen/NVVM.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_GPU_PASSES_TD
#define QUANT_BLOCK_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUMatmulKernels : Pass<"quant-block-gpu-matmul-kernels",
                             "func::FuncOp"> {
  let summary = "GPU kernels for reassociable quantized matrix products "
                "(GEMV and small-M GEMM)";
  let description = [{
    Runs on tensors, after fusion and before --convert-quant-block-to-linalg
    (as --quant-block-cpu-matmul-kernels does for the CPU). Each
    `quant_block.matmul` with `fastmath<reassoc>` that a kernel covers
    becomes a `gpu.launch` on buffers of its operands' lowered parts
    (`bufferization.to_buffer`; the result is a new buffer returned with
    `bufferization.to_tensor`):
    * a warp of 32 threads per `rows-per-warp` weight rows (output
      columns `n`; by default 4 / the activation rows of a tile, at least
      1 and at most N: a GEMV's warp takes 4 rows, and each activation it
      loads serves all of them), `workgroup-size / 32` warps per workgroup,
      the activation rows split into tiles of up to 8 over the y
      workgroups; above `max-workgroups` groups of rows each workgroup
      takes several in turn. M may be
      dynamic (a frontend's batch; K must be static): tiles of 8, the grid
      computed on the host, no launch for M = 0, and the kernel reads M
      from the activations' buffer (SPIR-V kernels take no scalars);
    * the packed data is read as 32-bit words (a view of the i8 buffer made
      on the host, so every target sees an i32 buffer) in chunks of `V` = 4
      words (2 or 1 where a row is not a multiple of 4 words): lane `l`
      reads chunks `l, l + 32, ...` of its row, a warp 512 consecutive
      bytes per step (coalesced; one 16-byte load per lane with
      `vector-loads`), and unpacks the 8 (4-bit), 4 (8-bit) or 16 (2-bit)
      codes of a word with shifts (FP8 codes are loaded a byte each). A
      word lies in one block: its scale (and zero point) is read once per
      block within the chunk, and each code is dequantized exactly as
      `quant_block.dequantize` does;
    * each lane keeps one f32 partial sum per activation row: +0.0, then
      for each of its chunks in increasing order, each word of the chunk
      and each code of the word in increasing `k`,
      `acc = acc + x[m, k] * w[n, k]` (one FMA with `contract`, a rounded
      product and a rounded sum without);
    * the 32 partial sums of a row (for each of the warp's rows) are added
      by a butterfly of
      `gpu.shuffle xor` (offsets 16, 8, 4, 2, 1: lane `l` adds lane
      `l ^ s`'s sum to its own), so the order is fixed by the compiled code,
      never by the device or the thread count. On NVVM these are warp
      shuffles; targets whose subgroups need not be 32 wide (Vulkan) get
      the same exchanges through workgroup memory from
      --quant-block-gpu-emulate-shuffles, with the same bits;
    * split-K (`split-k = S > 1`, float kernels): `S` consecutive warps of
      a workgroup share the same rows; lane `l` of the `s`-th reads chunks
      `32 s + l`, `32 s + l + 32 S`, ... (the warps together read `512 S`
      consecutive bytes per step), each warp adds its lanes as above, then
      the warps' totals are added by shuffles of width `32 S` at offsets
      32, 64, ..., 16 S (neighbours first), which
      --quant-block-gpu-emulate-shuffles exchanges in workgroup memory: the
      order depends on `S` (an option of the compiled kernel), never on
      the device. Automatic (`split-k=0`): the largest power of two
      dividing the workgroup's warps with at least `32 S` chunks per row,
      so that every lane has one. The integer kernel keeps one warp per
      row (its order is the contract's).

    Covered: `transpose_rhs`, `inhibit`, `accumulate(f32)` with `reassoc`,
    an f32, f16 or bf16 lhs of static rank-2 shape (the weight's expressed
    type: each dequantized weight is rounded to it and extended, the
    activations are extended, products and sums are f32 and the result is
    rounded once), a static rank-2 weight with blocks
    `[1, B]` (or one block along K), 2-, 4- or 8-bit storage (integers,
    E2M1, FP8) whose blocks and rows fill whole 32-bit words (`B * bits`
    and `K * bits` multiples of 32), scales of any stored type (MX E8M0,
    E4M3, f16, bf16, f32), integer zero points (narrower than 8 bits, as
    ONNX's uint4, they are extended to i8 on tensors first: no target loads
    sub-byte buffers) or float zero points, and a per-tensor f32 outer
    scale (NVFP4).

    `accumulate(i32)` with i8 activations (dynamically quantized: signed
    i8, f32 / f16 / bf16 scales, no zero points) against integer weights
    (2-, 4-, 8-bit, integer zero points, two-level scales and mins as
    below) or FP4 E2M1 weights without an outer scale (MXFP4: twice their values, each block sum halved) with
    blocks of at most 1024 bits:
    any flags, because the order is the contract's. Both sides are read as
    i32 words; in round `r` lane `l` computes the exact i32 sum of block
    `32 r + l` (`sum (ql) * (qr - zr)`), and lane 0 then adds the 32 terms
    `f32(isum) * (f32(sl) * f32(sr))` in block order (it takes lane `i`'s
    values with a shuffle by xor `i`; one FMA per block with `contract`):
    the same bits as the CPU pipeline.

    The integer kernel also takes GGUF's two-level weights: integer block
    scales under an outer scale per group of `G` blocks of a row (Q4_K,
    Q6_K widened), whose effective scale `f32(s) * f32(d[b / G])` each
    lane computes (rounded once, as dequantize), and mins (float zero
    points as Q4_1's, or integer zero points times an outer min as Q4_K's,
    `f32(m) * f32(dmin[b / G])`): the codes are summed uncentered, each lane
    also sums its block's activation codes (a byte dot product with ones),
    and after each block's term lane 0 adds `f32(asum) * (f32(sl) * min)`:

    ```mlir
    // Before: Q4_K with 6-bit scales and mins, f16 super-scales per 8 blocks.
    %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit
           : !quant_block.tensor<1x512, #quant_block.scheme<i8 : f32, block = [1, 32]>>,
             !quant_block.tensor<4x512, #quant_block.scheme<ui4 : f32, block = [32],
               scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>
             -> tensor<1x4xf32>
    // After, in the kernel (lane l's block %b = 32 r + l of row %n; the
    // 6-bit parameters widened to bytes on the host; the min likewise):
    %sv = memref.load %scales[%n, %b] : memref<4x16xi8>
    %sw = arith.extui %sv : i8 to i32
    %sf = arith.sitofp %sw : i32 to f32
    %g = arith.divui %b, %c8 : index
    %dv = memref.load %outer_scales[%n, %g] : memref<4x2xf16>
    %df = arith.extf %dv : f16 to f32
    %sr = arith.mulf %sf, %df : f32
    ```

    With `byte-dot-products` (set by the NVVM pipeline, and by the SPIR-V
    pipeline's `int8-dot-products`), the integer kernel sums 4- and 8-bit
    integer codes as 4-way byte dot products instead of a multiply and an
    add per code, in a target-neutral form that
    --quant-block-nvvm-dot-products (PTX `dp4a`) and
    --quant-block-spirv-dot-products (`SDot` / `SUDot`) make one
    instruction each (elsewhere it is lowered element by element): a word
    of 8-bit codes is its 4 bytes; a word of 4-bit codes gives the bytes
    of its even codes and of its odd codes by a mask (signed codes in the
    high nibble, 16 times their value, the block's sum shifted right by 4
    at its end), and the activations' two words are shuffled into the same
    order (one `prmt` each on NVIDIA GPUs). With zero points the block's
    sum is `sum(ql * qr) - zr * sum(ql)`, `sum(ql)` a dot product with
    ones. Integer sums are exact in any order: the same bits as without.
    E2M1 and 2-bit codes keep the code-by-code sums. A word of 8 signed
    4-bit codes `%w` against the activations' words `%a0`, `%a1` (as
    vector<4xi8>):
    ```mlir
    %hi = arith.shli %w, %c4_i32 : i32
    %even = arith.andi %hi, %c-252645136_i32 : i32      // 0xF0F0F0F0
    %odd = arith.andi %w, %c-252645136_i32 : i32
    // ... each as vector<4xi8> (vector.bitcast): %ev, %od
    %ae = vector.shuffle %a0, %a1 [0, 2, 4, 6] : vector<4xi8>, vector<4xi8>
    %ao = vector.shuffle %a0, %a1 [1, 3, 5, 7] : vector<4xi8>, vector<4xi8>
    %e32 = arith.extsi %ev : vector<4xi8> to vector<4xi32>
    %x32 = arith.extsi %ae : vector<4xi8> to vector<4xi32>
    %p = arith.muli %e32, %x32 : vector<4xi32>
    %s1 = vector.reduction <add>, %p, %s0 : vector<4xi32> into i32
    // ... the odd codes likewise, then the block's other words
    %sum = arith.shrsi %s8, %c4_i32 : i32
    ```

    With `tensor-cores` (set by the NVVM pipeline from sm_80 on), an
    integer product of at least 16 activation rows against 4-
    or 8-bit integer weights (signed or unsigned, integer zero points or
    none, no outer scale), in blocks of a multiple of 32 codes, takes
    warp-level matrix products instead: each
    warp computes 16 activation rows by 8 weight rows per
    `nvgpu.mma.sync` of shape [16, 8, 32] (PTX
    `mma.sync.m16n8k32.s32.s8.s8.s32`), up to 4 such tiles of weight rows
    (32 rows) per warp by 1 to 4 fragments of 16 activation rows
    (`tensor-core-rows`: each tile's weight fragment, loaded and unpacked
    once, serves all of them), the workgroup's warps side by side along N
    and the y workgroups along M. The 32 codes of one step enter the product in an
    order of the kernel's choosing (the lanes of a quad hold words 0-3 of
    the step; a word's even 4-bit codes fill one register, 16 times their
    value in the high nibbles, its odd codes the other, the activations'
    bytes shuffled to match): integer sums are exact in any order.
    Unsigned codes `q` enter as `q - o` (`o = 2^(bits - 1)`, their top bit
    flipped), and a block's sum `sum(x (q - z))` is taken as
    `sum(x (q - o)) + (o - z) sum(x)`, the activations' sums from one more
    product per step against ones. Each
    lane then owns 4 results per tile (rows `g`, `g + 8` of the 16 by
    weight rows `2 t`, `2 t + 1` of the 8, `g = lane / 4`, `t = lane % 4`)
    and adds `f32(isum) * (f32(sl) * f32(sr))` block by block in block
    order: the contract's order, so the same bits as the kernel above and
    as the CPU. A last partial tile of activation (or weight) rows
    recomputes the last row and stores only its own. With a dynamic M both
    kernels are emitted and the host launches the tensor-core one for 16
    rows or more, the warp kernel for fewer (a decode step), none for 0.
    --quant-block-gpu-emulate-warp-matrix-products performs the same
    products through workgroup memory (Vulkan; the tests on lavapipe).

    The same option gives a reassociable f16 or bf16 product (f16 or bf16
    activations, `fastmath<reassoc>`) of at least 16 rows against 4- or
    8-bit integer or E2M1 weights (any zero points, NVFP4's outer scale),
    in blocks of a multiple of 16 codes, the f16 / bf16 kernel: per step
    of 16 codes each lane loads 4 activations of rows `g` and `g + 8`
    (codes `4 t` to `4 t + 3` of the step) and dequantizes the 4 weights of
    each tile's row `g` in registers, rounded to f16 or bf16 as dequantize
    rounds them, into an `nvgpu.mma.sync` of shape [16, 8, 16]
    (`mma.m16n8k16`, f32 accumulators over all of K) per activation
    fragment of the warp (the dequantized weights serve all of them; each
    result's sum is the same for any number of fragments); the results are
    rounded to the activations' type once. An f16 or bf16 product is exact
    in f32; the sums are the tensor cores' (within docs/Numerics.md's
    reassoc bound, not the warp kernel's bits). Upstream's
    `convert-nvgpu-to-nvvm` lowers only the f16 products; the NVVM
    pipeline's --quant-block-nvvm-matrix-products lowers the bf16 ones.

    Other products (strict-order float sums, longer integer blocks) are
    left to the generic lowering; `report` explains why at the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"128",
           "Threads per workgroup (a multiple of 32: whole warps)">,
    Option<"maxWorkgroups", "max-workgroups", "int64_t", /*default=*/"65535",
           "Most workgroups of one launch in x">,
    Option<"rowsPerWarp", "rows-per-warp", "int64_t", /*default=*/"0",
           "Weight rows per warp of the float kernels (0: 4 / the activation "
           "rows of a tile, at least 1; the integer kernel takes 1)">,
    Option<"chunkWords", "chunk-words", "int64_t", /*default=*/"2",
           "Most 32-bit words a lane loads at once from a weight row (1, "
           "2 or 4; fewer where they do not divide the row)">,
    Option<"splitK", "split-k", "int64_t", /*default=*/"0",
           "Warps that share a warp's weight rows, each summing every "
           "split-k-th chunk of K (a power of two dividing the warps of a "
           "workgroup; 0: the most that give every lane a chunk; the "
           "integer kernel takes 1)">,
    Option<"vectorLoads", "vector-loads", "bool", /*default=*/"true",
           "Load each lane's words and each word's activations with one "
           "aligned vector.load (off: scalar loads, for SPIR-V)">,
    Option<"exactSubnormals", "exact-subnormals", "bool",
           /*default=*/"false",
           "The target's f32 multiplications keep subnormals (NVVM: "
           "mul.rn.f32 without .ftz): E2M1 codes are then decoded by "
           "scaling their bits by 2^126 (Vulkan may flush subnormals)">,
    Option<"byteDotProducts", "byte-dot-products", "bool",
           /*default=*/"false",
           "The integer kernel sums 4- and 8-bit codes as 4-way byte dot "
           "products (for targets that have them: dp4a, SDot)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"false",
           "Integer and reassociable f16 / bf16 products of 16 or more "
           "activation rows take warp-level matrix products "
           "(nvgpu.mma.sync 16x8x32 int8 / 16x8x16 f16 or bf16: tensor "
           "cores from sm_80 on)">,
    Option<"tensorCoreRows", "tensor-core-rows", "int64_t",
           /*default=*/"0",
           "Activation rows per warp of the tensor-core kernels (16, 32, 48 "
           "or 64: 1 to 4 fragments of 16 rows, each weight fragment "
           "serving all of them; 0: the most of 64, 32 and 16, no more than M "
           "needs, that leave the launch 1024 warps; 32 for a dynamic M)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark at each matmul left to the generic lowering, with why">,
  ];
}

def GPUEmulateShuffles : Pass<"quant-block-gpu-emulate-shuffles",
                               "func::FuncOp"> {
  let summary = "Exchange the values of gpu.shuffle xor through workgroup "
                "memory";
  let description = [{
    Runs on buffers, on `gpu.launch` bodies (before outlining). Each
    `gpu.shuffle xor %value, %offset, %width` with a 32-bit value and
    constant `offset < width`, `width` a power of two dividing the launch's
    constant workgroup size (one-dimensional), becomes: store the value at
    the thread's slot of a workgroup buffer, `gpu.barrier`, load the slot of
    thread `t ^ offset`, `gpu.barrier` (the buffer is reused). The
    "subgroups" are then `width` consecutive threads, as NVIDIA's warps
    are, whatever the device's subgroup size (lavapipe's is 8): kernels
    written for warps of 32 (--quant-block-gpu-matmul-kernels) run with the
    same bits on any Vulkan device. The `valid` result is `true` (the
    partner is always within the width). Consecutive shuffles of a block
    with the same width whose values all exist at the first of them (one
    step of a butterfly over several sums; lane 0 of the integer matmul
    kernel gathering every lane's terms by offsets 1, 2, ..., 31) are one
    exchange: each distinct value has its own slots of the buffer, all are
    stored at the first shuffle, one barrier follows, each shuffle loads
    its partner's slot where it was, and one barrier follows the last load.
    (A pair of barriers per shuffle made lavapipe's compiler take minutes
    over an integer kernel of 8 activation rows: 496 barriers, each a
    coroutine suspension.)

    With `native-width=W` (the device's subgroup size), the xor shuffles
    whose offset is below `W` are left to the target, with their width
    made `W` (subgroups are `W` consecutive threads, so the partner is in
    the same one; convert-gpu-to-spirv lowers only shuffles of the
    target's subgroup width): NVVM's `W = 32` keeps a warp's butterfly,
    the SPIR-V pipeline's `subgroup-size=8` its offsets 4, 2, 1, while 16
    and 8 go through workgroup memory. Other shuffles at most `W` wide are
    left to the target too. Only the rest, which exchange values between
    subgroups (the split-K sums of --quant-block-gpu-matmul-kernels), go
    through workgroup memory. Every shuffle gives the same value either
    way, so the sums keep their order and their bits.

    Barriers need every thread of the workgroup: a shuffle nested in
    anything but `scf.for` loops with workgroup-uniform bounds (constants,
    workgroup ids and sizes, values from outside the launch) is an error,
    as are other modes and non-constant operands. The buffer is a
    workgroup attribution (`workgroup-memory=attribution`) or a
    `memref.alloc` in memory space 3 (`alloc`, for convert-gpu-to-spirv),
    as in --quant-block-gpu-map-reductions.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
  let options = [
    Option<"workgroupMemory", "workgroup-memory", "std::string",
           /*default=*/"\"attribution\"",
           "How the workgroup buffer is made: attribution or alloc">,
    Option<"nativeWidth", "native-width", "int64_t", /*default=*/"0",
           "The target's subgroup size: shuffles within its subgroups are "
           "left to it (0: every shuffle is emulated)">,
  ];
}

def GPUEmulateWarpMatrixProducts
    : Pass<"quant-block-gpu-emulate-warp-matrix-products", "func::FuncOp"> {
  let summary = "Perform nvgpu.mma.sync int8, f16 and bf16 products "
                "through workgroup memory";
  let description = [{
    Runs on buffers, on `gpu.launch` bodies (before outlining), for targets
    without NVIDIA's warp-level matrix instructions (Vulkan: the tests of
    the tensor-core kernel of --quant-block-gpu-matmul-kernels run on
    lavapipe through it). Each `nvgpu.mma.sync` of shape [16, 8, 32] with
    `vector<4x4xi8>`, `vector<2x4xi8>` and `vector<2x2xi32>` operands (the
    fragments of PTX's `mma.m16n8k32` with `.s8` inputs and `.s32`
    accumulators, whose layout this pass encodes: for lane `l`, `g = l / 4`
    and `t = l % 4`, register `r` of A holds row `g + 8 (r % 2)`, columns
    `4 t + 16 (r / 2)` to `+ 3`; register `r` of B column `g`, rows
    `4 t + 16 r` to `+ 3`; element `[i, j]` of C row `g + 8 i`, column
    `2 t + j`), and each of shape [16, 8, 16] with `vector<4x2xf16>`,
    `vector<2x2xf16>` and `vector<2x2xf32>` operands, or the same with bf16
    factors (`mma.m16n8k16`, f16 or bf16 inputs, f32 accumulators: the same
    registers, each two values of consecutive k, `2 t + 8 (r / 2)` for A
    and `2 t + 8 r` for B, the products exact in f32 and added in k order),
    becomes: each thread stores its 6 registers (as i32 words)
    at its slots of a workgroup buffer, `gpu.barrier`, each thread adds to
    each of its 4 accumulators the 32 products of its row of A and its
    column of B (signed bytes, exact i32 arithmetic: the instruction's
    result wherever it does not overflow, where `.satfinite` would clamp),
    reading the warp's registers from the buffer, `gpu.barrier` (the
    buffer is reused). Warps are 32 consecutive threads of a
    one-dimensional workgroup of constant size, as on NVIDIA GPUs.

    Barriers need every thread of the workgroup: a product nested in
    anything but `scf.for` loops with workgroup-uniform bounds is an error,
    as are other shapes and types. `workgroup-memory` is as in
    --quant-block-gpu-emulate-shuffles.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"workgroupMemory", "workgroup-memory", "std::string",
           /*default=*/"\"attribution\"",
           "How the workgroup buffer is made: attribution or alloc">,
  ];
}

def GPUFuseParallelLoops : Pass<"quant-block-gpu-fuse-parallel-loops",
                                "func::FuncOp"> {
  let summary = "Fuse adjacent scf.parallel loops over the same elements";
  let description = [{
    Runs on host functions after `convert-linalg-to-parallel-loops`, before
    the loops become kernels (each outermost `scf.parallel`, one launch):
    two adjacent loops (only side-effect-free ops between them) with the
    same bounds and steps, no results and no nested `scf.parallel` become
    one, each iteration running the first body then the second, where no
    element is touched by both in different iterations: every store of the
    first loop and every load or store of the second (and every store of
    the second and load of the first) are either the same buffer at the
    same indices of the same iteration or buffers that alias analysis says
    cannot alias; their bodies access memory only by `memref.load` /
    `memref.store`. This fuses a fill and the reduction over its buffer,
    elementwise chains, a quantization's scales and the block statistics
    they are computed from; upstream's `scf-parallel-loop-fusion` checks
    reads after writes in the same way but not writes after writes. Each
    element's arithmetic is unchanged, so are the results' bits. Before
    fusing, each `memref.alloc` that
    bufferization placed between two such loops (the second loop's
    result), and that depends on nothing computed after the first loop,
    moves before the first loop, so that the loops are adjacent.

    Upstream's alias analysis lets any two function arguments alias. Here,
    as in LLVM, an argument marked `llvm.noalias` shares no memory with
    another argument during the call: views of two different arguments, one
    of them so marked, cannot alias (quant_block.llama marks the buffers a
    layer writes, so that its K and V caches' stores share a kernel).

    Loops whose leading dimensions have the same bounds and steps, one of
    them with more (trailing) dimensions, become one loop over the shared
    dimensions, the deeper loop's extra dimensions run by a nest of
    `scf.for` inside each iteration (the first body, then the second), when
    those extra dimensions have a constant trip count no larger than
    `max-serial-iterations` nor than the longest nest of `scf.for` the
    other loop already runs in each iteration, and when every element that
    one loop writes and the other reads or writes is an element of the
    same shared iteration: for each shared dimension some index position
    holds that dimension's iteration variable in both accesses. Each thread
    then does at most about twice its work in sequence and a launch is
    saved: a quantization's codes join its block statistics (the scales'
    loop already reduces each block in sequence), a softmax's elementwise
    steps join its row reductions.
    ```mlir
    // Before: block statistics, then the codes of each block's elements.
    scf.parallel (%b) = (%c0) to (%c8) step (%c1) {
      scf.for %e = %c0 to %c32 step %c1 { ... max |x[%b, %e]| ... }
      memref.store %scale, %scales[%b] : memref<8xf32>
    }
    scf.parallel (%b, %e) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
      %s = memref.load %scales[%b] : memref<8xf32>
      ...
      memref.store %code, %codes[%b, %e] : memref<8x32xi8>
    }
    // After: one loop over the blocks (one kernel).
    scf.parallel (%b) = (%c0) to (%c8) step (%c1) {
      scf.for %e = %c0 to %c32 step %c1 { ... }
      memref.store %scale, %scales[%b] : memref<8xf32>
      scf.for %e = %c0 to %c32 step %c1 {
        %s = memref.load %scales[%b] : memref<8xf32>
        ...
      }
    }
    ```
    ```mlir
    // Before: a fill, then a reduction into a new buffer (two kernels).
    %sums = memref.alloc() : memref<4xf32>
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      memref.store %zero, %sums[%i] : memref<4xf32>
    }
    %out = memref.alloc() : memref<4xf32>
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      %init = memref.load %sums[%i] : memref<4xf32>
      ...
    }
    // After: both allocations first, one loop (one kernel).
    ```
  }];
  let options = [
    Option<"maxSerialIterations", "max-serial-iterations", "int64_t",
           /*default=*/"256",
           "The most iterations of a loop's extra dimensions that a fusion "
           "runs in sequence in each iteration of the other loop">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GPUMapParallelLoops : Pass<"quant-block-gpu-map-parallel-loops",
                               "func::FuncOp"> {
  let summary = "Map outermost scf.parallel loops to workgroups and threads";
  let description = [{
    Prepares every outermost `scf.parallel` of a host function for
    `--convert-parallel-loops-to-gpu`: its dimensions are collapsed into one
    (row-major, so consecutive threads touch consecutive elements of the
    innermost dimension: coalesced accesses), the collapsed loop is tiled by
    `workgroup-size` (a constant workgroup size, as SPIR-V entry points need)
    with a bounds guard instead of min/max bounds, and the tile loop is
    mapped to `block_x`, the loop within a tile to `thread_x`. When the
    number of workgroups is static (the product of every dimension's trip
    count, taken before the collapse) and above `max-workgroups`, every
    thread handles several elements, one workgroup-wide chunk after the
    other, so that a launch never has more than `max-workgroups` workgroups.
    Only `block_x` is used: the default 65535 is Vulkan's guaranteed limit
    in x and below CUDA's (2^31 - 1 in x). Loops with a dynamic trip count
    get no such cap.
    Loops nested in a mapped loop run sequentially in its threads (the
    reduction loops of linalg ops are `scf.for`, so sums keep their order).
    Packed bytes are read once: when the innermost dimension has at most 8
    iterations and the body loads an i8 whose address does not depend on
    it (the byte of a packed group of sub-byte codes, as the lowering of
    dequantize reads it), that dimension becomes a loop inside each thread
    and the loads and computations independent of it are hoisted before
    that loop (loads only when every buffer the body writes is a distinct
    allocation): one thread per packed byte instead of one per code.
    A loop that loads or stores memrefs of sub-byte elements (i4, f4E2M1FN:
    MLIR does not pack them, SPIR-V has no such types) stays on the host;
    the quant_block lowering reads packed data as i8, so this only concerns
    IR that builds packed tensors from sub-byte constants.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"64",
           "Threads per workgroup (one dimension)">,
    Option<"maxWorkgroups", "max-workgroups", "int64_t", /*default=*/"65535",
           "Most workgroups of one launch (Vulkan guarantees 65535 in x)">,
  ];
}

def GPUMapReductions : Pass<"quant-block-gpu-map-reductions",
                             "func::FuncOp"> {
  let summary = "Map reassociable linalg reductions to one workgroup per "
                "output element";
  let description = [{
    Runs on buffers, before `convert-linalg-to-parallel-loops`. A
    `linalg.generic` whose innermost loop is a reduction, whose body
    combines into its single output with an `arith.addf` carrying
    `reassoc` or with an op that is associative and commutative exactly
    (`arith.addi`; the max / min ops `maximumf`, `minimumf`, `maxnumf`,
    `minnumf`, `maxsi`, `minsi`, `maxui`, `minui`: a softmax's row max, a
    tensor's max |x|), and whose reduction dimensions
    hold at least `min-reduction-size` iterations (static; for max and min
    at least `min-extremum-reduction-size`, 1024 by default: a block's
    max |x| of a quantization stays a loop beside its scale and codes, one
    kernel, where a tree would add launches) becomes a
    `gpu.launch`:
    * one workgroup per output element (the parallel dimensions collapsed,
      row-major); above `max-workgroups` each workgroup handles several
      output elements in turn;
    * the reduction dimensions collapsed to one (row-major), strided over
      the workgroup's threads with stride `workgroup-size`, so consecutive
      threads read consecutive elements of the innermost dimension
      (coalesced); each thread combines its iterations in order, starting
      from the neutral element (-0.0 for addf, 0 for addi, -inf / +inf for
      maximumf / minimumf, NaN for maxnumf / minnumf, the type's extremes
      for the integer max / min), with the op's body;
    * the per-thread partial sums are added in workgroup memory by a binary
      tree whose shape depends only on `workgroup-size` (the order is fixed
      by the compiled code, never by the device), separated by
      `gpu.barrier`s;
    * with `subgroup-size=S` (the target's subgroup size; 0 by default,
      NVVM 32, SPIR-V its pipeline's option), a power-of-two workgroup of
      whole subgroups and 32-bit values, the tree's last `log2(S)` steps,
      where the values left are those of threads `0 .. S-1`, are xor
      shuffles of width `S` (thread `t < h` takes the value of
      `t ^ h = t + h`: the same additions, the same bits) instead of a
      store and a barrier each;
    * thread 0 adds the total to the output's initial value with the op's
      combiner and stores it.
    Strict-order float sums (`arith.addf` without `reassoc`) and every other
    op are left alone. The workgroup buffer is a workgroup attribution of
    the launch (`workgroup-memory=attribution`, lowered by
    `convert-gpu-to-nvvm` to shared memory) or a `memref.alloc` in memory
    space 3 (`workgroup-memory=alloc`, which `convert-gpu-to-spirv` lowers
    to a `Workgroup` variable; it lowers neither attributions nor allocs in
    `#gpu.address_space<workgroup>`).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"64",
           "Threads per workgroup">,
    Option<"maxWorkgroups", "max-workgroups", "int64_t", /*default=*/"65535",
           "Most workgroups of one launch (Vulkan guarantees 65535 in x)">,
    Option<"minReductionSize", "min-reduction-size", "int64_t",
           /*default=*/"64",
           "Fewest reduction iterations per output element to map">,
    Option<"minExtremumReductionSize", "min-extremum-reduction-size",
           "int64_t", /*default=*/"1024",
           "Fewest reduction iterations per output element to map a max or "
           "min">,
    Option<"workgroupMemory", "workgroup-memory", "std::string",
           /*default=*/"\"attribution\"",
           "How the workgroup buffer is made: attribution or alloc">,
    Option<"subgroupSize", "subgroup-size", "int64_t", /*default=*/"0",
           "The target's subgroup size: the tree's steps within a subgroup "
           "by shuffles (0: all in workgroup memory)">,
  ];
}

def GPUReductionsInnermost : Pass<"quant-block-gpu-reductions-innermost",
                                   "func::FuncOp"> {
  let summary = "Order a linalg op's loops so that its reductions come last";
  let description = [{
    Runs on buffers, after `--quant-block-gpu-map-reductions` and before
    `convert-linalg-to-parallel-loops`. That conversion makes the loops
    before an op's first reduction loop one `scf.parallel` (the kernel's
    threads), the reduction an `scf.for` inside each thread, and the
    parallel loops after it an inner `scf.parallel` that each thread runs
    in sequence. An attention's weighted sum of values (`out[h, d] +=
    p[h, c] * v[c, d]`, its reduction over the cache positions `c` before
    the head dimension `d`) thus ran on one thread per head, each doing
    every product of its head. Here each `linalg.generic` whose reduction
    loops are not all after its parallel loops is interchanged
    (`linalg::interchangeGenericOp`) so that the parallel loops come first,
    in their order, then the reduction loops, in theirs: every output
    element is one thread's, its reduction in the same order as before, so
    the bits are unchanged. A reduction that
    `--quant-block-gpu-map-reductions` maps (innermost already) is a
    `gpu.launch` by now and not touched.
    ```mlir
    // Before: (h, c, d) with c a reduction: threads over h only.
    linalg.generic {indexing_maps = [affine_map<(h, c, d) -> (h, c)>, ...],
                    iterator_types = ["parallel", "reduction", "parallel"]}
    // After: (h, d, c): threads over h and d, each summing over c in order.
    linalg.generic {indexing_maps = [affine_map<(h, d, c) -> (h, c)>, ...],
                    iterator_types = ["parallel", "parallel", "reduction"]}
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
  ];
}

def GPUSinkIntoLaunch : Pass<"quant-block-gpu-sink-into-launch",
                             "func::FuncOp"> {
  let summary = "Move the scalars and memref views a gpu.launch uses into it";
  let description = [{
    Clones into each `gpu.launch` body the side-effect-free operations that
    compute values it uses from outside: constants (vector ones too),
    scalar arithmetic and memref views (`memref.expand_shape`, `collapse_shape`, `subview`, `cast`,
    `reinterpret_cast`), transitively. A scalar the kernel still uses from
    outside (a value loaded on the host, a function argument) is stored into
    a one-element host buffer (`memref.alloca`) before the launch and loaded
    from it in the kernel: index as i32, i1 as i8. After outlining, kernels
    then take root buffers only (function arguments, allocations, globals):
    SPIR-V kernels get every argument as a storage buffer, and the data
    movement sees whole buffers.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUDataMovement : Pass<"quant-block-gpu-data-movement", "ModuleOp"> {
  let summary = "Allocate device buffers and copy host memrefs around launches";
  let description = [{
    Runs after `gpu-kernel-outlining`. Host memory stays the owner of every
    buffer the host code can see; kernels only ever see device buffers
    (`gpu.alloc`):
    * a `memref.alloc` whose every use (through views) is a
      `gpu.launch_func` operand or a `memref.dealloc` becomes a `gpu.alloc`
      (and its deallocations `gpu.dealloc`) with no copies;
    * every other memref operand of a `gpu.launch_func` (function
      arguments, host allocations, `memref.get_global`, call results) gets a
      device buffer of the same type before the launch, a `gpu.memcpy` host
      to device when the kernel may read or write it (a kernel may write
      only a slice of a buffer, and the copy back must not clobber the
      rest; but not for a `memref.alloc` of the same block that nothing
      accessed before the launch, whose contents are undefined), a
      `gpu.memcpy` device to host after the launch when the kernel may
      write it, and a `gpu.dealloc`. Consecutive launches of one block
      share these device copies: a buffer is copied in at its first launch
      that accesses it, and copied back (if a kernel wrote it) and freed
      only where host code may touch it (an op that uses it or a view of
      it other than for its shape, an op with unknown memory effects or
      with regions, the block's terminator), so that an intermediate
      result of one kernel reaches the next without a round trip through
      the host.
      Reads and writes are found by walking the kernel's uses of the
      argument (through views); an unknown use counts as both.
    A view operand is rebuilt on the device copy of the buffer it views
    (the whole buffer is copied). A view of a host buffer with a
    non-identity layout (which cannot be copied whole) is an error.

    The launches of a block, their copies and the device allocations and
    frees between them form one chain of async tokens (one stream, in
    program order). The host waits for the chain (`gpu.wait`) only where it
    settles the copies, at an op that may touch their buffers or depend on
    device work (a call, an op with regions or unknown effects, another GPU
    op, the terminator), so it reads results only after the kernels ran,
    and a decode step synchronizes with the device once per function, not
    once per kernel. A device allocation or free outside the blocks with
    launches waits for itself.

    A function argument marked `quant_block.device_resident` is a device
    buffer the caller owns (weights uploaded once, a KV cache kept on the
    device): kernels get it, or views of it, as it is, with no copies and
    no allocation. Host code may take its shape (`memref.dim`, views) and
    pass it to a function of the module whose argument is device-resident
    too (a model's layer function), but nothing else; any other host use
    is an error at that use. A buffer that only kernels and such calls use
    lives on the device only; passing any other (host) buffer to a
    device-resident argument is an error at the call. The device
    allocations and frees of such buffers between launches join the chain
    and keep the device copies of host buffers live.

    ```mlir
    // Before (after gpu-kernel-outlining):
    func.func @gemv(%x: memref<1x64xf32>,
                    %w: memref<5x32xi8> {quant_block.device_resident}) {
      gpu.launch_func @kernels::@k blocks in (...) threads in (...)
          args(%x : memref<1x64xf32>, %w : memref<5x32xi8>)
    // After: %x gets gpu.alloc + gpu.memcpy (host to device) + gpu.dealloc
    // around the launch; %w goes to the launch unchanged.
    ```

    With `ordered-queue` (the default), the runtime is taken to run every
    chain of a host thread in one in-order queue, as both of quant-block's
    runtimes do (upstream's `mgpu*` wrappers, one stream per chain, do
    not). Device work then need not be waited for where no host buffer
    depends on it: at a call of a function defined in the module, and at
    the return of a private function that only calls reach, a chain
    whose live device copies were not written by a kernel frees them in
    the chain and goes on (at a call) or ends (at the return) without a
    `gpu.wait`. The caller's later work queues behind the callee's, and a
    public function (what the host calls) still waits before it returns,
    so a caller sees every effect of a call when it returns. A LLaMA
    decode step whose layers are private functions on device-resident
    buffers then synchronizes once, for its logits, instead of once per
    function.

    ```mlir
    func.func private @layer(%x: memref<64xf32> {quant_block.device_resident}) {
      gpu.launch_func @kernels::@k ... args(%x : memref<64xf32>)
      return
    }
    // After: %t = gpu.wait async
    //        %u = gpu.launch_func async [%t] @kernels::@k ...
    //        return  (no gpu.wait: the caller's chain comes after %u)
    ```
  }];
  let options = [
    Option<"orderedQueue", "ordered-queue", "bool", /*default=*/"true",
           "Leave device work unwaited at calls of the module's functions "
           "and returns of private ones when no host buffer depends on it "
           "(the runtime runs a host thread's chains in one in-order "
           "queue)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // QUANT_BLOCK_CODEGEN_GPU_PASSES_TD
