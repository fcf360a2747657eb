//===- MatmulKernels.cpp - warp-per-row GPU kernels for quantized products ===//
//
// --quant-block-gpu-matmul-kernels: see Passes.td. The generic lowering of a
// reassociable quant_block.matmul splits the k sum into one partial sum per
// position within a block (one thread each) and adds them in a second
// kernel; each thread reads one packed byte per element and one scale per
// element. Here a warp of 32 threads shares one weight row: each lane reads
// whole 32-bit words of packed codes (consecutive lanes, consecutive words),
// decodes every code of a word with shifts against one scale load, keeps
// its partial sums in registers, and the warp adds its 32 partial sums in a
// fixed butterfly of shuffles (real ones on NVVM, emulated in workgroup
// memory by --quant-block-gpu-emulate-shuffles elsewhere).
//
// The kernel is emitted on tensors, before the lowering of quant_block,
// where the weight's structure (block shape, storage, parameters) is still
// visible: the operands' lowered parts become buffers
// (bufferization.to_buffer), the launch works on them, and its result
// buffer becomes a tensor again, so the GPU middle's bufferization, data
// movement and outlining treat the launch like any other.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"
#include "quant-block/Dialect/QuantBlock/Utils/LoweredParts.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/bit.h"

#include <cmath>

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUMATMULKERNELS
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {

/// Threads that share one weight row: a warp on NVIDIA GPUs. Fixed, not the
/// device's subgroup size, because it decides the order of the sum.
constexpr int64_t kLanes = 32;
/// Bits read per load of packed data.
constexpr int64_t kWordBits = 32;
/// The most activation rows one workgroup computes (partial sums in
/// registers per lane).
constexpr int64_t kMaxTileM = 8;
/// The partial sums a lane keeps (weight rows x activation rows) when the
/// weight rows per warp are chosen automatically.
constexpr int64_t kMaxSumsPerLane = 4;
/// The longest block (in weight bits) the integer kernel gives one lane.
constexpr int64_t kMaxIntegerBlockBits = 1024;
/// The warp-level int8 matrix product of the tensor-core kernel
/// (mma.m16n8k32): activation rows, weight rows and codes along K.
constexpr int64_t kMmaRows = 16, kMmaCols = 8, kMmaDepth = 32;
/// The depth of the f16 and bf16 one (mma.m16n8k16, f32 accumulators).
constexpr int64_t kMmaHalfDepth = 16;
/// The most 8-row tiles of weight rows one warp of that kernel computes
/// (each activation fragment it loads serves all of them).
constexpr int64_t kMaxMmaTilesPerWarp = 4;
/// The most 16-row activation fragments one warp of that kernel computes
/// (each weight fragment it loads, unpacks or dequantizes serves all of
/// them).
constexpr int64_t kMaxMmaFragmentsPerWarp = 4;
/// The fewest warps a launch of that kernel should have where the
/// activation fragments per warp are chosen automatically: 8 per
/// multiprocessor of a 132-multiprocessor H100 / H200, 2 per scheduler.
/// Fewer fragments per warp give more warps (less reuse of each weight
/// fragment, more latency hidden); the device check times both.
constexpr int64_t kMinTensorCoreWarps = 1024;
/// The activation fragments per warp with a dynamic M (unknown at compile
/// time): 32 rows, half the reuse of 64 and a third of its surplus rows
/// for a 16-row prompt.
constexpr int64_t kDynamicMmaFragments = 2;

/// A product the kernel covers, with its launch shape.
struct KernelPlan {
  int64_t m, n, k;
  /// Storage bits per code and codes per 32-bit word.
  int64_t bits, codesPerWord;
  /// Words per weight row, per block and per chunk (the words a lane
  /// loads at once: 4, 2 or 1, whichever divides a row).
  int64_t wordsPerRow, wordsPerBlock, wordsPerChunk;
  /// Activation rows per workgroup (a divisor of m), weight rows per warp
  /// (each activation load serves all of them) and per workgroup.
  int64_t tileM, rowsPerWarp, rowsPerGroup;
  /// Warps that share a warp's rows, each summing every splitK-th chunk
  /// (consecutive warps of the workgroup), and the threads per workgroup.
  int64_t splitK, workgroupSize;
  /// Row groups in all, and workgroups in x (at most max-workgroups).
  int64_t numGroups, gridX;
  SchemeAttr scheme;
  /// The activations', weights' (as dequantized) and result's type: f32,
  /// f16 or bf16. Products and sums are f32.
  Type expressed;
  bool hasZeroPoints, contract;
  /// accumulate(i32): i8 activations (dynamically quantized) in blocks of
  /// lhsBlock along K, exact block sums in i32, the f32 sum over the blocks
  /// in the contract's order.
  bool integer = false;
  int64_t lhsBlock = 0;
  /// The integer kernel's block sums from 4-way byte dot products (4- and
  /// 8-bit integer weights) rather than a multiply and an add per code.
  bool byteDotProducts = false;
  /// Two-level parameters (GGUF's K-quants, integer kernel only): the
  /// blocks of a row per outer scale (and outer min), 0 for a per-tensor
  /// outer scale or none. A block's effective scale is f32(s) * f32(outer),
  /// rounded once, as dequantize computes it.
  int64_t outerBlocks = 0;
  /// The weight's blocks have mins (integer kernel only): float zero points
  /// (Q4_1's) or integer zero points times an outer min (Q4_K's, m =
  /// f32(zp) * f32(outer min), rounded once). The codes enter the block
  /// sums uncentered and each block adds f32(asum) * (f32(sl) * m) after
  /// its term, asum the block's sum of activation codes (the contract's
  /// order, docs/Numerics.md).
  bool mins = false;
  /// Warp-level matrix products (16x8x32 int8 block sums for the integer
  /// kernel, 16x8x16 f16 or bf16 for f16 or bf16 activations): tiles of 16
  /// activation rows by 8 weight rows per warp.
  bool tensorCores = false;
  /// The tensor-core kernels' 16-row activation fragments per warp (tileM
  /// is 16 times as many): each weight fragment serves all of them.
  int64_t lhsFragments = 1;
  /// Why a product takes no tensor cores where they were asked for (empty
  /// otherwise), for `report`.
  std::string whyNoTensorCores;
};

/// Why the product planned in `plan` (M, activations, storage, block) takes
/// no warp-level matrix products (std::nullopt when it takes them).
std::optional<std::string> whyNoTensorCores(const KernelPlan &plan,
                                            int64_t blockSize) {
  // (A dynamic M chooses at run time: see GPUMatmulKernelsPass.)
  if (!ShapedType::isDynamic(plan.m) && plan.m < kMmaRows)
    return std::string("fewer than 16 activation rows");
  if (!plan.integer) {
    // f16 and bf16 products: the dequantized weights are f16 or bf16
    // already (the contract rounds them to the expressed type), and their
    // products (11 or 8 significant bits a factor) are exact in the f32
    // accumulators.
    if (!plan.expressed.isF16() && !plan.expressed.isBF16())
      return std::string("the activations are not f16 or bf16");
    bool e2m1 = isa<Float4E2M1FNType>(plan.scheme.getStorageType());
    if ((!plan.scheme.hasIntegerStorage() && !e2m1) ||
        (plan.bits != 4 && plan.bits != 8))
      return std::string("the weight's codes are not 4- or 8-bit integers "
                         "or E2M1");
    if (blockSize % kMmaHalfDepth != 0)
      return std::string("the blocks are not a multiple of 16 codes");
    return std::nullopt;
  }
  if (!plan.scheme.hasIntegerStorage() || (plan.bits != 4 && plan.bits != 8))
    return std::string("the weight's codes are not 4- or 8-bit integers");
  if (plan.mins)
    return std::string("the weight has mins (float zero points or an outer "
                       "min)");
  if (plan.scheme.getOuter())
    return std::string("the weight has an outer scale");
  if (blockSize % kMmaDepth != 0)
    return std::string("the blocks are not a multiple of 32 codes");
  return std::nullopt;
}

/// Why `op` has no kernel (std::nullopt when it has one); fills `plan`.
std::optional<std::string> planKernel(MatmulOp op, int64_t workgroupSize,
                                      int64_t maxWorkgroups,
                                      int64_t rowsPerWarp, int64_t splitK,
                                      int64_t chunkWords, bool byteDotProducts,
                                      bool tensorCores, int64_t tensorCoreRows,
                                      KernelPlan &plan) {
  arith::FastMathFlags flags = op.getFastmath();
  if (!op.getTransposeRhs())
    return std::string("the weight is not transposed ([N, K])");
  if (op.getPropagation() != Propagation::Inhibit)
    return std::string("the result is requantized (propagate)");
  if (op.getRhs().getType().getScheme().isRowTiled())
    return std::string("the weight is row-tiled (a CPU layout: the lowering "
                       "repacks it row-major)");
  plan.integer = op.getAccumulatorType().isInteger(32);
  Type expressed;
  int64_t lhsRows;
  if (plan.integer) {
    // Exact block sums, then the f32 sum over the blocks in the contract's
    // order (for any flags): no reassociation needed.
    if (std::optional<std::string> whyNot =
            getInt8ActivationsUnsupportedReason(op.getLhs().getType()))
      return whyNot;
    auto lhsType = cast<QuantizedTensorType>(op.getLhs().getType());
    plan.lhsBlock = lhsType.getEffectiveBlockShape()[1];
    lhsRows = lhsType.getShape()[0];
    expressed = lhsType.getScheme().getExpressedType();
  } else {
    if (!arith::bitEnumContainsAll(flags, arith::FastMathFlags::reassoc))
      return std::string("the sum over k is ordered (no fastmath<reassoc>): "
                         "one thread per output keeps the contract's order");
    if (!op.getAccumulatorType().isF32())
      return std::string("the accumulator is not f32 or i32");
    auto lhsType = dyn_cast<RankedTensorType>(op.getLhs().getType());
    if (!lhsType || lhsType.getRank() != 2 || lhsType.isDynamicDim(1))
      return std::string("the lhs is not a rank-2 tensor with a static K");
    expressed = lhsType.getElementType();
    if (!expressed.isF32() && !expressed.isF16() && !expressed.isBF16())
      return std::string("the lhs is not f32, f16 or bf16");
    lhsRows = lhsType.getDimSize(0);
  }
  QuantizedTensorType weight = op.getRhs().getType();
  SchemeAttr scheme = weight.getScheme();
  if (weight.getRank() != 2 || !weight.hasStaticShape())
    return std::string("the weight is not a static rank-2 tensor");
  if (scheme.getExpressedType() != expressed)
    return std::string("the weight's expressed type is not the lhs type");
  unsigned bits = scheme.getStorageBitWidth();
  if (bits != 2 && bits != 4 && bits != 8)
    return std::string("the storage is not 2, 4 or 8 bits wide");
  // A per-tensor f32 outer scale (NVFP4's) takes any kernel; blocked outer
  // scales and outer mins (two-level parameters) the integer one.
  OuterScaleAttr outer = scheme.getOuter();
  bool perTensorOuter = outer && outer.getBlockShape().empty() &&
                        !outer.getMinType() && outer.getScaleType().isF32();
  if (outer && !perTensorOuter && !plan.integer)
    return std::string("the outer scale is not one f32 for the tensor");
  if (isa<IntegerType>(scheme.getScaleType()) && (!outer || !plan.integer))
    return std::string("the block scales are integers (two-level scales)");
  SmallVector<int64_t> block = weight.getEffectiveBlockShape();
  int64_t n = weight.getShape()[0], k = weight.getShape()[1];
  if (block[0] != 1 || k % block[1] != 0 || (block[1] * bits) % kWordBits)
    return std::string("the blocks are not [1, B] with B dividing K and B "
                       "codes filling whole 32-bit words");
  if (outer && !perTensorOuter && !outer.getBlockShape().empty()) {
    int64_t rowBlocks = k / block[1];
    // The outer block over the [N, K / B] scales, right-aligned (a leading
    // 1 where it has one entry); -1 is a whole dimension.
    ArrayRef<int64_t> given = outer.getBlockShape();
    int64_t rowsPerOuter = given.size() == 2 ? given[0] : 1;
    int64_t blocksPerOuter = given.back() == -1 ? rowBlocks : given.back();
    if ((rowsPerOuter != 1 && !(rowsPerOuter == -1 && n == 1)) ||
        blocksPerOuter <= 0 || rowBlocks % blocksPerOuter != 0)
      return std::string("the outer blocks are not [1, B] with B dividing a "
                         "row's blocks");
    plan.outerBlocks = blocksPerOuter;
  }
  if (n == 0 || k == 0 || lhsRows == 0)
    return std::string("the product is empty");
  if (plan.integer) {
    // FP4 E2M1 codes (MXFP4) enter the block sums as twice their values.
    bool e2m1 = isa<Float4E2M1FNType>(scheme.getStorageType());
    // A per-tensor f32 outer scale (NVFP4's) multiplies each block's
    // scale, rounded once, as dequantize computes the effective scale.
    // Float zero points, and integer ones under an outer min, are mins.
    plan.mins = (outer && outer.getMinType()) ||
                (scheme.getZeroPointType() &&
                 !isa<IntegerType>(scheme.getZeroPointType()));
    if ((!e2m1 && (!scheme.hasIntegerStorage() || scheme.hasMXScale())) ||
        (e2m1 && plan.mins))
      return std::string("the weight is not an integer with plain or "
                         "two-level scales and zero points or mins, or E2M1 "
                         "(accumulate(i32))");
    // (The verifier makes both sides' blocks along K equal.)
    // One block per lane and round: its words are loaded by one thread.
    if (block[1] * bits > kMaxIntegerBlockBits)
      return std::string("the blocks are longer than 1024 bits (one lane "
                         "sums a block)");
    if (!e2m1 && (bits == 4 || bits == 8))
      plan.byteDotProducts = byteDotProducts;
  }

  plan.m = lhsRows;
  plan.n = n;
  plan.k = k;
  plan.bits = bits;
  plan.scheme = scheme;
  plan.hasZeroPoints = scheme.getZeroPointType() != nullptr;
  plan.expressed = expressed;
  if (tensorCores) {
    std::optional<std::string> whyNot = whyNoTensorCores(plan, block[1]);
    plan.tensorCores = !whyNot;
    plan.whyNoTensorCores = whyNot.value_or("");
  }
  plan.codesPerWord = kWordBits / bits;
  plan.wordsPerRow = k * bits / kWordBits;
  plan.wordsPerBlock = block[1] * bits / kWordBits;
  // The most words (up to chunk-words, 2 by default) that divide a row.
  plan.wordsPerChunk = 1;
  while (plan.wordsPerChunk * 2 <= chunkWords &&
         plan.wordsPerRow % (plan.wordsPerChunk * 2) == 0)
    plan.wordsPerChunk *= 2;
  // Up to 8 rows per workgroup; a last partial tile recomputes row M - 1
  // and stores only its own rows (no tile size that divides a prime M
  // would reread the weights once per row).
  // A dynamic M (a frontend's batch) takes tiles of 8 rows, the last one
  // partial as above.
  plan.tileM =
      ShapedType::isDynamic(plan.m) ? kMaxTileM : std::min(plan.m, kMaxTileM);
  // A lane's activations serve several weight rows: with one row per warp,
  // the activation loads (each lane reads the 32 of its chunk, lanes 128
  // bytes apart) kept the warps waiting on L1 (measured on an H100: 0.12 to
  // 0.16 of the copy bandwidth, L1 83 % busy, DRAM 11 %). Four rows per
  // warp took the int4 GEMV at 11008 x 4096 from 62 to 32 us on an H200
  // (docs/GPU.md); fewer with more activation rows, whose sums take the
  // registers. The integer kernel keeps one row per warp.
  plan.rowsPerWarp =
      plan.tensorCores
          ? kMmaCols * std::min<int64_t>(kMaxMmaTilesPerWarp,
                                         llvm::divideCeil(n, kMmaCols))
      : plan.integer ? 1
      : rowsPerWarp > 0
          ? rowsPerWarp
          : std::clamp<int64_t>(kMaxSumsPerLane / plan.tileM, 1, n);
  // Split-K: more warps per row, so that a GEMV of a few thousand rows has
  // enough loads in flight on a GPU of 100+ multiprocessors (1024 warps of
  // 4 rows for N = 4096 left an H200 at 0.18 of its copy bandwidth,
  // docs/GPU.md). Automatic: the most warps of the workgroup (a power of
  // two) that still give every lane a chunk. The integer kernel keeps the
  // contract's order, one warp per row.
  int64_t warps = workgroupSize / kLanes;
  int64_t numChunks = plan.wordsPerRow / plan.wordsPerChunk;
  if (plan.integer || plan.tensorCores) {
    plan.splitK = 1;
  } else if (splitK > 0) {
    plan.splitK = splitK;
  } else {
    plan.splitK = 1;
    while (plan.splitK * 2 <= warps && warps % (plan.splitK * 2) == 0 &&
           numChunks >= kLanes * plan.splitK * 2)
      plan.splitK *= 2;
  }
  if (plan.tensorCores) {
    // Activation fragments per warp: as asked, or the most of 4, 2 and 1
    // (no more than M needs) that still leave the launch
    // kMinTensorCoreWarps warps. Each fragment more reuses the warp's weight
    // fragments (their loads, and the f16 / bf16 kernel's dequantization) once
    // more.
    int64_t warpsAlongN = llvm::divideCeil(n, plan.rowsPerWarp);
    if (tensorCoreRows > 0) {
      plan.lhsFragments = tensorCoreRows / kMmaRows;
    } else if (ShapedType::isDynamic(plan.m)) {
      plan.lhsFragments = kDynamicMmaFragments;
    } else {
      // Powers of two only: 48-row tiles leave more surplus rows at the
      // usual M (64, 128, 512) than they save warps.
      plan.lhsFragments =
          llvm::bit_floor(static_cast<uint64_t>(std::min<int64_t>(
              kMaxMmaFragmentsPerWarp, llvm::divideCeil(plan.m, kMmaRows))));
      while (plan.lhsFragments > 1 &&
             llvm::divideCeil(plan.m, kMmaRows * plan.lhsFragments) *
                     warpsAlongN <
                 kMinTensorCoreWarps)
        plan.lhsFragments /= 2;
    }
    plan.tileM = kMmaRows * plan.lhsFragments;
  }
  plan.workgroupSize = workgroupSize;
  plan.rowsPerGroup = warps / plan.splitK * plan.rowsPerWarp;
  plan.numGroups = llvm::divideCeil(n, plan.rowsPerGroup);
  plan.gridX = std::min(plan.numGroups, maxWorkgroups);
  plan.expressed = expressed;
  plan.contract =
      arith::bitEnumContainsAll(flags, arith::FastMathFlags::contract);
  return std::nullopt;
}

/// Emits the launch of one product.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, Location loc, const KernelPlan &plan,
                bool vectorLoads, bool exactSubnormals)
      : b(b), loc(loc), plan(plan), vectorLoads(vectorLoads),
        exactSubnormals(exactSubnormals) {}

  /// The product of the lhs (`lhsParts`: the [M, K] tensor of the expressed
  /// type, or the lowered parts of the i8 activations for accumulate(i32))
  /// and the weight with lowered `parts`, as an [M, N] tensor of the
  /// expressed type. With `largeM` (a dynamic M), products of at least
  /// kMmaRows rows launch that plan's kernel instead (chosen at run time).
  Value emit(ValueRange lhsParts, ValueRange parts,
             const KernelPlan *largeM = nullptr);

private:
  /// The buffers a launch reads and writes, made before it on the host.
  struct Buffers {
    Value lhs, lhsScales, words, scales, zeroPoints, outerScales, outerMins,
        result;
    /// M, on the host.
    Value rows;
  };
  /// The launch of the plan's kernel on `buffers`.
  void emitLaunch(const Buffers &buffers);

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value i32Constant(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  /// A read-only identity-layout buffer of the tensor `value`.
  Value toBuffer(Value value);
  /// Integer zero points narrower than 8 bits (ONNX's uint4) as i8: no
  /// target loads sub-byte buffers. An elementwise extension of the
  /// [N, K / B] tensor (folded for constant weights).
  Value widenZeroPoints(Value zeroPoints);
  /// The packed data [N, K * bits / 8] (i8 or FP8) as i32 words [N, W].
  Value toWords(Value data);
  /// Inside the kernel: the last activation row, M - 1 (read from the
  /// activations' buffer where M is dynamic).
  Value lastRow;
  /// Inside the kernel, with two-level parameters: the outer scales and
  /// outer mins [N, blocks / plan.outerBlocks] (null where absent).
  Value blockedOuterScales, outerMins;
  /// Integer block scales or zero points narrower than 8 bits (K-quants'
  /// 6-bit ones) as bytes, as widenZeroPoints does.
  Value widenIntegers(Value values, bool isUnsigned);
  /// The integer kernel's parameters of weight row `n`'s block `block`:
  /// its effective scale in f32 (times `outer`, the per-tensor outer scale
  /// where not null, or its outer block's scale), and with plan.mins its
  /// min in f32.
  std::pair<Value, Value> emitBlockParameters(Value n, Value block,
                                              Value scales, Value zeroPoints,
                                              Value outer);
  /// The lanes' partial sums for the weight rows `rows`, row-major [row,
  /// activation row of the tile]: `lane` (0 .. 32 splitK - 1: the warp's
  /// slice of K, times 32, plus its lane) sums chunks lane, lane + 32
  /// splitK, ... in increasing order.
  SmallVector<Value> emitPartialSums(Value lane, ArrayRef<Value> rows, Value m0,
                                     Value lhs, Value words, Value scales,
                                     Value zeroPoints, Value outer);
  /// Whether the last tile of activation rows may be partial.
  bool hasPartialTile() const {
    return ShapedType::isDynamic(plan.m) || plan.m % plan.tileM != 0;
  }
  /// Activation row `m0 + mi`, clamped to the last row (M - 1, `lastRow`)
  /// in a last partial tile (whose surplus rows are computed and not
  /// stored).
  Value activationRow(Value m0, int64_t mi) {
    Value m = arith::AddIOp::create(b, loc, m0, index(mi));
    if (!hasPartialTile())
      return m;
    return arith::MinUIOp::create(b, loc, m, lastRow);
  }
  /// The 32-bit `word` of `bits`-bit codes shifted right so that code `j`
  /// (bits [j * bits, (j + 1) * bits), little-endian as the packed byte
  /// stream) is in its lowest bits; the bits above it are not cleared.
  Value shiftToCode(Value word, int64_t j, unsigned bits) {
    if (j == 0)
      return word;
    return arith::ShRUIOp::create(b, loc, word, i32Constant(j * bits));
  }
  /// Code `j` of the 32-bit `word` of `bits`-bit codes as an i8,
  /// sign-extended within it when `isSigned`.
  Value extractCode(Value word, int64_t j, unsigned bits, bool isSigned) {
    return quant_block::detail::narrowToCode(b, loc, shiftToCode(word, j, bits),
                                             bits, isSigned);
  }
  /// Code `j` of the 32-bit `word` of `bits`-bit integer codes as its exact
  /// f32 value, built from its bits: with `u` the code (offset by
  /// 2^(bits-1) when signed, which flips its sign bit), `0x4B000000 | u` is
  /// the f32 2^23 + u, and subtracting 2^23 (and the offset) is exact. A
  /// shift, two bitwise ops and an add, where `sitofp` is a conversion that
  /// NVIDIA GPUs issue at a fraction of the FP32 rate.
  Value codeValue(Value word, int64_t j, unsigned bits, bool isSigned) {
    Value bitsOfCode = shiftToCode(word, j, bits);
    if (j * bits + bits < kWordBits)
      bitsOfCode = arith::AndIOp::create(b, loc, bitsOfCode,
                                         i32Constant((1 << bits) - 1));
    int64_t offset = isSigned ? int64_t(1) << (bits - 1) : 0;
    if (isSigned)
      bitsOfCode =
          arith::XOrIOp::create(b, loc, bitsOfCode, i32Constant(offset));
    Value pattern =
        arith::OrIOp::create(b, loc, bitsOfCode, i32Constant(0x4B000000));
    Value shifted = arith::BitcastOp::create(b, loc, b.getF32Type(), pattern);
    return arith::SubFOp::create(
        b, loc, shifted,
        arith::ConstantOp::create(b, loc,
                                  b.getF32FloatAttr(8388608.0f + offset)));
  }
  /// E2M1 code `j` of the 32-bit `word` as its exact f32 value: its
  /// magnitude bits `e1 e0 m` placed at f32 bits 24..22 are the f32
  /// 2^(e - 127) (1 + m / 2), or for e = 0 the subnormal m 2^-127, so one
  /// multiplication by 2^126 (exact, on targets whose arithmetic keeps
  /// subnormals) gives every value, and its sign bit goes to bit 31.
  Value e2m1Value(Value word, int64_t j) {
    Value code = shiftToCode(word, j, 4);
    Value magnitude = arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, code, i32Constant(7)),
        i32Constant(22));
    Value sign = arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, code, i32Constant(8)),
        i32Constant(28));
    Value bits = arith::OrIOp::create(b, loc, magnitude, sign);
    return arith::MulFOp::create(
        b, loc, arith::BitcastOp::create(b, loc, b.getF32Type(), bits),
        arith::ConstantOp::create(b, loc,
                                  b.getF32FloatAttr(std::ldexp(1.0f, 126))));
  }
  /// `value` (f32, f16 or bf16) extended exactly to f32.
  Value toF32(Value value) {
    if (value.getType().isF32())
      return value;
    return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  }
  /// A vector of `size` elements of `buffer` (rank 2) from `indices`, with
  /// the alignment its start has.
  Value loadVector(Value buffer, ValueRange indices, int64_t size,
                   Type elementType);
  /// accumulate(i32): lane l sums blocks l, l + 32, ... exactly in i32
  /// (the i8 activations read as words too), and lane 0 adds the terms
  /// f32(isum) * (f32(sl) * f32(sr)) of all blocks in increasing order (the
  /// contract's order, whatever the flags); `outer` (or null) is the
  /// weight's per-tensor outer scale, which multiplies sr. Returns lane 0's
  /// totals.
  SmallVector<Value> emitOrderedIntegerSums(Value lane, Value n, Value m0,
                                            Value lhsWords, Value lhsScales,
                                            Value words, Value scales,
                                            Value zeroPoints, Value outer);
  /// The block's exact i32 sums `sum (ql) * (qr - zr)`, one per activation
  /// row, from 4-way byte dot products (plan.byteDotProducts): `blockWords` the
  /// weight's words of the block, `lhsBlockWords` each activation row's,
  /// `zeroPoint` the block's (i32) or null.
  SmallVector<Value> emitDotProductBlockSums(Value blockWords,
                                             ArrayRef<Value> lhsBlockWords,
                                             Value zeroPoint, bool isSigned);
  /// The same sums code by code: each code extracted, extended (E2M1: twice
  /// its value), less the zero point, multiplied by its activation and
  /// added.
  SmallVector<Value> emitCodeByCodeBlockSums(Value blockWords,
                                             ArrayRef<Value> lhsBlockWords,
                                             Value zeroPoint, bool isSigned,
                                             bool e2m1);
  /// `acc` plus the dot product of the 4 bytes `weightBytes` (signed or
  /// unsigned) and the 4 signed bytes `lhsBytes`: the target-neutral form
  /// that --quant-block-nvvm-dot-products and
  /// --quant-block-spirv-dot-products make one instruction.
  Value dotAccumulate(Value weightBytes, bool weightSigned, Value lhsBytes,
                      Value acc);
  /// The i32 `word` as its 4 bytes (vector<4xi8>, little-endian).
  Value asBytes(Value word);
  /// Adds `x * weight` for code `j` of a word to weight row `r`'s sum of
  /// each activation row (`activations`: the word's, one vector per
  /// activation row): a rounded product and a rounded sum, or an FMA with
  /// `contract`.
  void accumulate(int64_t r, Value weight, ArrayRef<Value> activations,
                  int64_t j, MutableArrayRef<Value> sums) {
    for (int64_t mi = 0; mi < plan.tileM; ++mi) {
      Value &sum = sums[r * plan.tileM + mi];
      Value x = toF32(vector::ExtractOp::create(b, loc, activations[mi], j));
      if (plan.contract) {
        sum = math::FmaOp::create(b, loc, x, weight, sum);
        continue;
      }
      Value product = arith::MulFOp::create(b, loc, x, weight);
      sum = arith::AddFOp::create(b, loc, sum, product);
    }
  }
  /// Adds the 32 splitK lanes' `sums` (one per activation row) in a fixed
  /// tree, each warp's first, then the warps'; every lane gets the totals.
  SmallVector<Value> reduceLanes(ArrayRef<Value> sums);
  /// The tensor-core kernel's warp (plan.tensorCores): the plan.tileM
  /// activation rows from `m0` (plan.lhsFragments fragments of 16) by the
  /// plan.rowsPerWarp weight rows from `firstRow`,
  /// block sums from nvgpu.mma.sync, the f32 sums over the blocks in the
  /// contract's order, stored into `result` (rows of M, of N only).
  /// The other kernels' warp: the totals of its plan.rowsPerWarp weight
  /// rows from `firstRow` for the activation rows of the tile from `m0`,
  /// which lane 0 stores into `result`.
  void emitWarpRowTotals(Value lane, Value firstRow, Value m0, Value kernelRows,
                         Value lhsBuffer, Value lhsScales, Value words,
                         Value scales, Value zeroPoints, Value outer,
                         Value result);
  /// Where a warp's tiles of the tensor-core kernels lie, per lane.
  struct TileGeometry {
    /// t and 2 t (the lane's place in its quad).
    Value quad, twiceQuad;
    /// Activation rows g and g + 8 of each fragment ([fragment][i]; raw:
    /// before the clamp to M - 1), B's weight row per tile, the results' two
    /// weight rows per tile (raw: before the clamp to N - 1).
    SmallVector<Value> rawLhsRows, lhsRows, weightRows, rawResultRows,
        resultRows;
  };
  TileGeometry getTileGeometry(Value lane, Value firstRow, Value m0);
  /// Where a lane's result of activation fragment `f`, weight tile `r`, row
  /// `g + 8 i` of the fragment and column `2 t + j` of the tile lies among
  /// its totals ([fragment][tile][i][j]).
  int64_t getTotalIndex(int64_t f, int64_t r, int64_t i, int64_t j) const {
    return ((f * (plan.rowsPerWarp / kMmaCols) + r) * 2 + i) * 2 + j;
  }
  /// Stores each lane's `totals` ([fragment][tile][i][j], f32) that lie in
  /// [M, N], rounded once to the result type.
  void storeTileResults(const TileGeometry &tile, ValueRange totals,
                        Value kernelRows, Value result);
  /// The f16 / bf16 tensor-core kernel's warp (plan.tensorCores, f16 or
  /// bf16 activations): per step of 16 codes, each tile's 4 weights per
  /// lane dequantized (rounded to f16 or bf16 as dequantize does) into B
  /// of one nvgpu.mma.sync [16, 8, 16] per activation fragment, with f32
  /// accumulators over all of K.
  void emitHalfTensorCoreTiles(Value lane, Value firstRow, Value m0,
                               Value kernelRows, Value lhs, Value words,
                               Value scales, Value zeroPoints, Value outer,
                               Value result);
  void emitTensorCoreTiles(Value lane, Value firstRow, Value m0,
                           Value kernelRows, Value lhsWords, Value lhsScales,
                           Value words, Value scales, Value zeroPoints,
                           Value result);

  OpBuilder &b;
  Location loc;
  const KernelPlan &plan;
  bool vectorLoads, exactSubnormals;
};

} // namespace

Value KernelEmitter::toBuffer(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), value,
      /*read_only=*/true);
}

Value KernelEmitter::widenZeroPoints(Value zeroPoints) {
  return widenIntegers(zeroPoints,
                       quant_block::detail::hasUnsignedZeroPoints(plan.scheme));
}

Value KernelEmitter::widenIntegers(Value values, bool isUnsigned) {
  auto type = cast<RankedTensorType>(values.getType());
  auto intType = dyn_cast<IntegerType>(type.getElementType());
  if (!intType || intType.getWidth() >= 8)
    return values;
  auto wide = RankedTensorType::get(type.getShape(), b.getI8Type());
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, wide, values);
  return arith::ExtSIOp::create(b, loc, wide, values);
}

std::pair<Value, Value> KernelEmitter::emitBlockParameters(Value n, Value block,
                                                           Value scales,
                                                           Value zeroPoints,
                                                           Value outer) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  // An integer parameter of scheme type `type` as its exact f32 value.
  auto integerToF32 = [&](Value stored, Type type) -> Value {
    Value wide = quant_block::detail::extendInteger(
        b, loc, stored, i32, !cast<IntegerType>(type).isUnsigned());
    return arith::SIToFPOp::create(b, loc, f32, wide);
  };
  Type scaleType = plan.scheme.getScaleType();
  Value storedScale =
      memref::LoadOp::create(b, loc, scales, ValueRange{n, block});
  Value scale = isa<IntegerType>(scaleType)
                    ? integerToF32(storedScale, scaleType)
                    : quant_block::detail::emitScaleToF32(b, loc, storedScale);
  // The effective scale: times the outer scale, rounded once.
  Value outerBlock;
  if (plan.outerBlocks > 0) {
    outerBlock = arith::DivUIOp::create(b, loc, block, index(plan.outerBlocks));
    Value storedOuter = memref::LoadOp::create(b, loc, blockedOuterScales,
                                               ValueRange{n, outerBlock});
    outer = quant_block::detail::convertFloat(b, loc, storedOuter, f32);
  }
  if (outer)
    scale = arith::MulFOp::create(b, loc, scale, outer);
  if (!plan.mins)
    return {scale, Value()};
  Type zeroPointType = plan.scheme.getZeroPointType();
  Value storedMin =
      memref::LoadOp::create(b, loc, zeroPoints, ValueRange{n, block});
  if (!isa<IntegerType>(zeroPointType))
    return {scale, quant_block::detail::convertFloat(b, loc, storedMin, f32)};
  // An integer zero point times the outer min, rounded once.
  Value min = integerToF32(storedMin, zeroPointType);
  Value storedOuterMin =
      memref::LoadOp::create(b, loc, outerMins, ValueRange{n, outerBlock});
  Value outerMin =
      quant_block::detail::convertFloat(b, loc, storedOuterMin, f32);
  return {scale, arith::MulFOp::create(b, loc, min, outerMin)};
}

Value KernelEmitter::toWords(Value data) {
  Value bytes = toBuffer(data);
  // memref.view reinterprets i8 buffers only, and no bufferizable op
  // reinterprets FP8 tensors as i8 without a copy: FP8 codes are loaded
  // one byte (one code) each, four per "word".
  if (!cast<MemRefType>(bytes.getType()).getElementType().isInteger(8))
    return bytes;
  Value flat = memref::CollapseShapeOp::create(
      b, loc, bytes, ArrayRef<ReassociationIndices>{{0, 1}});
  // A view made on the host: kernels get an i32 buffer, which every target
  // loads as whole words (little-endian: code j of a word is bits
  // [j * bits, (j + 1) * bits), as in the packed byte stream).
  ArrayRef<int64_t> shape = cast<MemRefType>(bytes.getType()).getShape();
  SmallVector<Value> sizes;
  if (ShapedType::isDynamic(shape[0]))
    sizes.push_back(memref::DimOp::create(b, loc, bytes, 0));
  return memref::ViewOp::create(
      b, loc, MemRefType::get({shape[0], shape[1] / 4}, b.getI32Type()), flat,
      index(0), sizes);
}

SmallVector<Value>
KernelEmitter::emitPartialSums(Value lane, ArrayRef<Value> rows, Value m0,
                               Value lhs, Value words, Value scales,
                               Value zeroPoints, Value outer) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  int64_t numRows = rows.size();
  SmallVector<Value> inits(numRows * plan.tileM, zero);
  int64_t chunkWords = plan.wordsPerChunk;
  int64_t numChunks = plan.wordsPerRow / chunkWords;
  auto loop = scf::ForOp::create(b, loc, lane, index(numChunks),
                                 index(kLanes * plan.splitK), inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value firstWord =
      arith::MulIOp::create(b, loc, loop.getInductionVar(), index(chunkWords));
  bool wordLoads =
      cast<MemRefType>(words.getType()).getElementType().isInteger(32);
  // One load of each row's chunk: 16 bytes per lane for 4 words (the chunk
  // is aligned to its size: rows are whole chunks and device buffers are at
  // least 256-byte aligned). All rows' loads first: more in flight.
  SmallVector<Value> chunks(numRows);
  if (wordLoads)
    for (int64_t r = 0; r < numRows; ++r)
      chunks[r] =
          loadVector(words, {rows[r], firstWord}, chunkWords, b.getI32Type());
  bool isSigned =
      plan.scheme.hasIntegerStorage() && plan.scheme.isSignedStorage();
  // Integer codes without zero points become f32 values from their bits;
  // so do E2M1 codes where subnormal arithmetic is exact.
  bool integerCodeValues =
      plan.scheme.hasIntegerStorage() &&
      plan.scheme.getZeroPointDomain() == ZeroPointDomain::None;
  bool e2m1CodeValues =
      exactSubnormals && isa<Float4E2M1FNType>(plan.scheme.getStorageType());
  SmallVector<Value> sums(loop.getRegionIterArgs());
  SmallVector<Value> rowScales(numRows), rowZeroPoints(numRows);
  for (int64_t v = 0; v < chunkWords; ++v) {
    Value word = arith::AddIOp::create(b, loc, firstWord, index(v));
    // The word's block parameters: read once per block within the chunk.
    // A chunk starts at a multiple of chunkWords, so a block starts at word
    // v of every chunk only when the block length divides the chunk (at
    // v % wordsPerBlock == 0) and never inside one when the chunk length
    // divides the block; otherwise (blocks of 3 or 6 words in chunks of 4)
    // every word reads its own.
    int64_t wordsPerBlock = plan.wordsPerBlock;
    bool newBlock =
        v == 0 || (wordsPerBlock % chunkWords != 0 &&
                   (chunkWords % wordsPerBlock != 0 || v % wordsPerBlock == 0));
    if (newBlock) {
      Value blockIndex =
          arith::DivUIOp::create(b, loc, word, index(plan.wordsPerBlock));
      for (int64_t r = 0; r < numRows; ++r) {
        rowScales[r] = memref::LoadOp::create(b, loc, scales,
                                              ValueRange{rows[r], blockIndex});
        if (zeroPoints)
          rowZeroPoints[r] = memref::LoadOp::create(
              b, loc, zeroPoints, ValueRange{rows[r], blockIndex});
      }
    }
    Value firstK =
        arith::MulIOp::create(b, loc, word, index(plan.codesPerWord));
    // The word's activations, one vector per activation row, for every
    // weight row.
    SmallVector<Value> activations;
    for (int64_t mi = 0; mi < plan.tileM; ++mi) {
      Value m = activationRow(m0, mi);
      activations.push_back(
          loadVector(lhs, {m, firstK}, plan.codesPerWord, plan.expressed));
    }
    for (int64_t r = 0; r < numRows; ++r) {
      Value packed;
      if (wordLoads)
        packed = vector::ExtractOp::create(b, loc, chunks[r], v);
      for (int64_t j = 0; j < plan.codesPerWord; ++j) {
        if (packed && (integerCodeValues || e2m1CodeValues)) {
          // The same value as dequantize's, from the code's bits.
          Value value = integerCodeValues
                            ? codeValue(packed, j, plan.bits, isSigned)
                            : e2m1Value(packed, j);
          Value weight = toF32(quant_block::detail::emitDequantizeCodeValue(
              b, loc, plan.scheme, value, rowScales[r], outer));
          accumulate(r, weight, activations, j, sums);
          continue;
        }
        Value code;
        if (packed) {
          code = extractCode(packed, j, plan.bits, isSigned);
        } else {
          // FP8: the byte of code j is the code (scalar loads, which the
          // SPIR-V path retypes to i8 storage).
          Value k = arith::AddIOp::create(b, loc, firstK, index(j));
          Value byte =
              memref::LoadOp::create(b, loc, words, ValueRange{rows[r], k});
          code = arith::BitcastOp::create(b, loc, b.getI8Type(), byte);
        }
        // Rounded to the expressed type (as dequantize does), then exact in
        // f32.
        Value weight = toF32(quant_block::detail::emitDequantize(
            b, loc, plan.scheme, code, rowScales[r], rowZeroPoints[r], outer));
        accumulate(r, weight, activations, j, sums);
      }
    }
  }
  scf::YieldOp::create(b, loc, sums);
  return SmallVector<Value>(loop.getResults());
}

Value KernelEmitter::loadVector(Value buffer, ValueRange indices, int64_t size,
                                Type elementType) {
  auto type = VectorType::get({size}, elementType);
  if (!vectorLoads) {
    // Scalar loads (SPIR-V's vectors have at most 4 elements, and
    // memref-to-spirv lowers no vector.load), assembled into the vector.
    Value vector = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
    for (int64_t i = 0; i < size; ++i) {
      Value column = arith::AddIOp::create(b, loc, indices[1], index(i));
      Value element = memref::LoadOp::create(b, loc, buffer,
                                             ValueRange{indices[0], column});
      vector = vector::InsertOp::create(b, loc, element, vector, i);
    }
    return vector;
  }
  auto load = vector::LoadOp::create(b, loc, type, buffer, indices);
  // The start is a multiple of `size` elements (rows are whole vectors) in
  // a device buffer of its own (aligned to at least 256 bytes): aligned to
  // the largest power of two dividing the vector's bytes, which lets LLVM
  // use wide loads (ld.global.v4 on NVPTX).
  uint64_t bytes = size * elementType.getIntOrFloatBitWidth() / 8;
  load.setAlignment(bytes & (~bytes + 1));
  return load;
}

SmallVector<Value> KernelEmitter::reduceLanes(ArrayRef<Value> sums) {
  // Butterfly: at the step with offset s, lane l adds lane l ^ s's sum to
  // its own; lane 0 ends with the fixed tree (l < s adds l + s). Targets
  // whose subgroups are not 32 wide get the same exchanges through
  // workgroup memory (--quant-block-gpu-emulate-shuffles).
  SmallVector<Value> totals(sums);
  auto exchange = [&](int64_t offset, int64_t lanes) {
    Value shift = i32Constant(offset);
    Value width = i32Constant(lanes);
    for (Value &total : totals) {
      Value theirs = gpu::ShuffleOp::create(b, loc, total, shift, width,
                                            gpu::ShuffleMode::XOR)
                         .getShuffleResult();
      total = arith::AddFOp::create(b, loc, total, theirs);
    }
  };
  for (int64_t offset = kLanes / 2; offset >= 1; offset /= 2)
    exchange(offset, kLanes);
  // Split-K: the warps of a row share their totals by wider shuffles
  // (offsets 32, 64, ...: neighbours first), which
  // --quant-block-gpu-emulate-shuffles exchanges in workgroup memory.
  for (int64_t offset = kLanes; offset < kLanes * plan.splitK; offset *= 2)
    exchange(offset, kLanes * plan.splitK);
  return totals;
}

Value KernelEmitter::asBytes(Value word) {
  Value single = vector::FromElementsOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), word);
  return vector::BitCastOp::create(b, loc, VectorType::get({4}, b.getI8Type()),
                                   single);
}

Value KernelEmitter::dotAccumulate(Value weightBytes, bool weightSigned,
                                   Value lhsBytes, Value acc) {
  auto wideType = VectorType::get({4}, b.getI32Type());
  Value weight =
      weightSigned
          ? arith::ExtSIOp::create(b, loc, wideType, weightBytes).getResult()
          : arith::ExtUIOp::create(b, loc, wideType, weightBytes).getResult();
  Value lhs = arith::ExtSIOp::create(b, loc, wideType, lhsBytes);
  Value products = arith::MulIOp::create(b, loc, weight, lhs);
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                     products, acc);
}

SmallVector<Value>
KernelEmitter::emitDotProductBlockSums(Value blockWords,
                                       ArrayRef<Value> lhsBlockWords,
                                       Value zeroPoint, bool isSigned) {
  auto mask = [&](Value word, int64_t bits) -> Value {
    return arith::AndIOp::create(b, loc, word, i32Constant(bits));
  };
  SmallVector<Value> sums(plan.tileM, i32Constant(0));
  // With zero points: sum (ql) (qr - zr) = sum ql qr - zr sum ql.
  SmallVector<Value> lhsSums(plan.tileM, i32Constant(0));
  Value ones;
  if (zeroPoint)
    ones = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(VectorType::get({4}, b.getI8Type()),
                               b.getI8IntegerAttr(1)));
  for (int64_t v = 0; v < plan.wordsPerBlock; ++v) {
    Value packed = vector::ExtractOp::create(b, loc, blockWords, v);
    // The word's codes as bytes, in groups of 4 that pair with the
    // activations' bytes below. 4-bit codes: the even ones (k = 0, 2, 4, 6
    // of the word) and the odd ones; signed codes in the high nibble of
    // their byte (16 times their value, the sum shifted back at the end),
    // unsigned ones in the low.
    SmallVector<Value> weightBytes;
    if (plan.bits == 8) {
      weightBytes.push_back(asBytes(packed));
    } else if (isSigned) {
      weightBytes.push_back(asBytes(mask(
          arith::ShLIOp::create(b, loc, packed, i32Constant(4)), 0xF0F0F0F0)));
      weightBytes.push_back(asBytes(mask(packed, 0xF0F0F0F0)));
    } else {
      weightBytes.push_back(asBytes(mask(packed, 0x0F0F0F0F)));
      weightBytes.push_back(asBytes(mask(
          arith::ShRUIOp::create(b, loc, packed, i32Constant(4)), 0x0F0F0F0F)));
    }
    for (int64_t mi = 0; mi < plan.tileM; ++mi) {
      SmallVector<Value> lhsBytes;
      for (int64_t t = 0; t < plan.codesPerWord / 4; ++t)
        lhsBytes.push_back(asBytes(vector::ExtractOp::create(
            b, loc, lhsBlockWords[mi], v * (plan.codesPerWord / 4) + t)));
      SmallVector<Value> pairedBytes = lhsBytes;
      if (plan.bits == 4) {
        pairedBytes = {
            vector::ShuffleOp::create(b, loc, lhsBytes[0], lhsBytes[1],
                                      ArrayRef<int64_t>{0, 2, 4, 6}),
            vector::ShuffleOp::create(b, loc, lhsBytes[0], lhsBytes[1],
                                      ArrayRef<int64_t>{1, 3, 5, 7})};
      }
      for (auto [weight, lhs] : llvm::zip_equal(weightBytes, pairedBytes))
        sums[mi] = dotAccumulate(weight, isSigned, lhs, sums[mi]);
      if (zeroPoint)
        for (Value lhs : lhsBytes)
          lhsSums[mi] =
              dotAccumulate(ones, /*weightSigned=*/false, lhs, lhsSums[mi]);
    }
  }
  for (int64_t mi = 0; mi < plan.tileM; ++mi) {
    // Exact: every term was a multiple of 16.
    if (plan.bits == 4 && isSigned)
      sums[mi] = arith::ShRSIOp::create(b, loc, sums[mi], i32Constant(4));
    if (zeroPoint)
      sums[mi] = arith::SubIOp::create(
          b, loc, sums[mi],
          arith::MulIOp::create(b, loc, zeroPoint, lhsSums[mi]));
  }
  return sums;
}

SmallVector<Value> KernelEmitter::emitCodeByCodeBlockSums(
    Value blockWords, ArrayRef<Value> lhsBlockWords, Value zeroPoint,
    bool isSigned, bool e2m1) {
  Type i32 = b.getI32Type();
  SmallVector<Value> blockSums(plan.tileM, i32Constant(0));
  int64_t lhsWordsPerWord = plan.codesPerWord / 4;
  for (int64_t v = 0; v < plan.wordsPerBlock; ++v) {
    Value packed = vector::ExtractOp::create(b, loc, blockWords, v);
    for (int64_t mi = 0; mi < plan.tileM; ++mi) {
      // The activation codes of the word's k.
      SmallVector<Value> lhsCodes;
      for (int64_t t = 0; t < lhsWordsPerWord; ++t) {
        Value lhsWord = vector::ExtractOp::create(b, loc, lhsBlockWords[mi],
                                                  v * lhsWordsPerWord + t);
        for (int64_t byte = 0; byte < 4; ++byte)
          lhsCodes.push_back(arith::ExtSIOp::create(
              b, loc, i32, extractCode(lhsWord, byte, 8, /*isSigned=*/true)));
      }
      for (int64_t j = 0; j < plan.codesPerWord; ++j) {
        Value code = extractCode(packed, j, plan.bits, isSigned);
        code = e2m1 ? quant_block::detail::emitE2M1TwiceValue(b, loc, code)
                    : quant_block::detail::extendInteger(b, loc, code, i32,
                                                         isSigned);
        if (zeroPoint)
          code = arith::SubIOp::create(b, loc, code, zeroPoint);
        blockSums[mi] = arith::AddIOp::create(
            b, loc, blockSums[mi],
            arith::MulIOp::create(b, loc, lhsCodes[j], code));
      }
    }
  }
  return blockSums;
}

SmallVector<Value> KernelEmitter::emitOrderedIntegerSums(
    Value lane, Value n, Value m0, Value lhsWords, Value lhsScales, Value words,
    Value scales, Value zeroPoints, Value outer) {
  Type i32 = b.getI32Type();
  int64_t blockSize = plan.lhsBlock;
  int64_t numBlocks = plan.k / blockSize;
  int64_t rounds = llvm::divideCeil(numBlocks, kLanes);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> inits(plan.tileM, zero);
  // Round r: lane l sums block 32 r + l. Every lane runs every round (the
  // shuffles need them all); lanes past the last block add zero terms.
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(rounds), index(1), inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value rawBlock = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, loop.getInductionVar(), index(kLanes)),
      lane);
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      rawBlock, index(numBlocks));
  Value block = arith::MinUIOp::create(b, loc, rawBlock, index(numBlocks - 1));
  auto [weightScale, weightMin] =
      emitBlockParameters(n, block, scales, zeroPoints, outer);
  // Integer zero points center the codes; mins are added per block below.
  Value zeroPoint;
  if (zeroPoints && !plan.mins)
    zeroPoint = quant_block::detail::extendInteger(
        b, loc,
        memref::LoadOp::create(b, loc, zeroPoints, ValueRange{n, block}), i32,
        !quant_block::detail::hasUnsignedZeroPoints(plan.scheme));
  bool isSigned = plan.scheme.isSignedStorage();
  bool e2m1 = isa<Float4E2M1FNType>(plan.scheme.getStorageType());
  // The block's words, and each activation row's (4 codes a word), each
  // with one (vector) load.
  Value firstWord =
      arith::MulIOp::create(b, loc, block, index(plan.wordsPerBlock));
  Value blockWords = loadVector(words, {n, firstWord}, plan.wordsPerBlock, i32);
  int64_t lhsWordsPerBlock = blockSize / 4;
  Value firstLhsWord =
      arith::MulIOp::create(b, loc, block, index(lhsWordsPerBlock));
  SmallVector<Value> lhsBlockWords;
  for (int64_t mi = 0; mi < plan.tileM; ++mi) {
    Value m = activationRow(m0, mi);
    lhsBlockWords.push_back(
        loadVector(lhsWords, {m, firstLhsWord}, lhsWordsPerBlock, i32));
  }
  // The block's exact integer sums, one per activation row.
  SmallVector<Value> blockSums =
      plan.byteDotProducts ? emitDotProductBlockSums(blockWords, lhsBlockWords,
                                                     zeroPoint, isSigned)
                           : emitCodeByCodeBlockSums(blockWords, lhsBlockWords,
                                                     zeroPoint, isSigned, e2m1);
  // With mins: each activation row's sum of the block's codes (exact), by
  // byte dot products with ones.
  SmallVector<Value> activationSums;
  if (plan.mins) {
    Value ones = asBytes(i32Constant(0x01010101));
    for (int64_t mi = 0; mi < plan.tileM; ++mi) {
      Value sum = i32Constant(0);
      for (int64_t w = 0; w < lhsWordsPerBlock; ++w)
        sum = dotAccumulate(
            ones, /*weightSigned=*/false,
            asBytes(vector::ExtractOp::create(b, loc, lhsBlockWords[mi], w)),
            sum);
      activationSums.push_back(sum);
    }
  }
  // The terms f32(isum) * (f32(sl) * f32(sr)) (zero past the last block),
  // each followed with mins by f32(asum) * (f32(sl) * m), added in block
  // order: lane 0 takes lane i's values with a shuffle by xor i, for i =
  // 0, 1, ..., 31. Without `contract` each lane rounds its own products
  // (the same operation lane 0 would do) and lane 0 takes those: one
  // shuffle a term instead of two, half the code.
  Value width = i32Constant(kLanes);
  SmallVector<Value> sums(loop.getRegionIterArgs());
  // Lane 0's own product goes through a shuffle too (xor 0) where it is
  // added unfused: a product and a sum that a driver sees side by side it
  // may fuse into an FMA (SPIR-V has no contraction unless NoContraction
  // says so, and lavapipe fused them: 2 of 64 Q4_K results differed from
  // the CPU's by an ulp); through a shuffle it sees neither.
  auto shuffle = [&](Value value, int64_t i, bool always = false) -> Value {
    if (i == 0 && !always)
      return value;
    return gpu::ShuffleOp::create(b, loc, value, i32Constant(i), width,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  // A term of lane 0's sum: its factors (with `contract`, one FMA) or
  // their product, rounded in the lane that computed the factors.
  struct Term {
    Value blockSum, scale, product;
  };
  auto makeTerm = [&](Value blockSum, Value scale) {
    Term term{blockSum, scale, Value()};
    if (!plan.contract)
      term.product = arith::MulFOp::create(b, loc, blockSum, scale);
    return term;
  };
  auto addTerm = [&](Value &sum, const Term &term, int64_t i) {
    if (plan.contract) {
      Value blockSum = shuffle(term.blockSum, i);
      Value scale = shuffle(term.scale, i);
      sum = math::FmaOp::create(b, loc, blockSum, scale, sum);
      return;
    }
    Value product = shuffle(term.product, i, /*always=*/true);
    sum = arith::AddFOp::create(b, loc, sum, product);
  };
  // Every row's terms first, then their shuffles: where shuffles are
  // emulated, all of them are then one exchange through workgroup memory
  // with one pair of barriers (lavapipe took 50-110 s to compile a Q4_K
  // kernel of 8 activation rows with a pair per row and lane).
  SmallVector<SmallVector<Term>> rowTerms;
  for (int64_t mi = 0; mi < plan.tileM; ++mi) {
    Value m = activationRow(m0, mi);
    Value lhsScale = quant_block::detail::emitScaleToF32(
        b, loc,
        memref::LoadOp::create(b, loc, lhsScales, ValueRange{m, block}));
    Value scale = arith::MulFOp::create(b, loc, lhsScale, weightScale);
    Value blockSum =
        quant_block::detail::emitBlockSumToF32(b, loc, blockSums[mi], e2m1);
    scale = arith::SelectOp::create(b, loc, valid, scale, zero);
    blockSum = arith::SelectOp::create(b, loc, valid, blockSum, zero);
    SmallVector<Term> terms = {makeTerm(blockSum, scale)};
    if (plan.mins) {
      Value minScale = arith::MulFOp::create(b, loc, lhsScale, weightMin);
      minScale = arith::SelectOp::create(b, loc, valid, minScale, zero);
      Value activationSum =
          arith::SIToFPOp::create(b, loc, b.getF32Type(), activationSums[mi]);
      activationSum =
          arith::SelectOp::create(b, loc, valid, activationSum, zero);
      terms.push_back(makeTerm(activationSum, minScale));
    }
    rowTerms.push_back(std::move(terms));
  }
  for (int64_t mi = 0; mi < plan.tileM; ++mi)
    for (int64_t i = 0; i < kLanes; ++i)
      for (const Term &term : rowTerms[mi])
        addTerm(sums[mi], term, i);
  scf::YieldOp::create(b, loc, sums);
  return SmallVector<Value>(loop.getResults());
}

KernelEmitter::TileGeometry
KernelEmitter::getTileGeometry(Value lane, Value firstRow, Value m0) {
  TileGeometry tile;
  // The fragments of mma.m16n8k32 and m16n8k16: lane l = 4 g + t holds
  // rows g and g + 8 of A (activations), column g of B (weight row g of
  // the tile) and the results of rows g, g + 8 by columns 2 t, 2 t + 1.
  Value group = arith::DivUIOp::create(b, loc, lane, index(4));
  tile.quad = arith::RemUIOp::create(b, loc, lane, index(4));
  // (Ops are built one per statement where several feed one op: the IR's
  // order must not depend on the compiler's order of evaluating
  // arguments.)
  tile.twiceQuad = arith::MulIOp::create(b, loc, tile.quad, index(2));
  // Rows g and g + 8 of each of the warp's activation fragments.
  for (int64_t i = 0; i < 2 * plan.lhsFragments; ++i) {
    Value inTile = arith::AddIOp::create(b, loc, group, index(8 * i));
    tile.rawLhsRows.push_back(arith::AddIOp::create(b, loc, m0, inTile));
    tile.lhsRows.push_back(
        hasPartialTile()
            ? arith::MinUIOp::create(b, loc, tile.rawLhsRows.back(), lastRow)
                  .getResult()
            : tile.rawLhsRows.back());
  }
  // Weight rows: of B (one per tile), of the results (two per tile). The
  // last group's surplus rows are row N - 1 again, computed, not stored.
  Value lastWeightRow = index(plan.n - 1);
  for (int64_t r = 0; r < plan.rowsPerWarp / kMmaCols; ++r) {
    Value tileRow =
        arith::AddIOp::create(b, loc, firstRow, index(kMmaCols * r));
    Value weightRow = arith::AddIOp::create(b, loc, tileRow, group);
    tile.weightRows.push_back(
        arith::MinUIOp::create(b, loc, weightRow, lastWeightRow));
    for (int64_t j = 0; j < 2; ++j) {
      Value column = arith::AddIOp::create(b, loc, tile.twiceQuad, index(j));
      tile.rawResultRows.push_back(
          arith::AddIOp::create(b, loc, tileRow, column));
      tile.resultRows.push_back(arith::MinUIOp::create(
          b, loc, tile.rawResultRows.back(), lastWeightRow));
    }
  }
  return tile;
}

void KernelEmitter::storeTileResults(const TileGeometry &tile,
                                     ValueRange totals, Value kernelRows,
                                     Value result) {
  // Each lane stores its results that lie in [M, N].
  int64_t tiles = plan.rowsPerWarp / kMmaCols;
  for (int64_t f = 0; f < plan.lhsFragments; ++f) {
    for (int64_t r = 0; r < tiles; ++r) {
      for (int64_t j = 0; j < 2; ++j) {
        for (int64_t i = 0; i < 2; ++i) {
          OpBuilder::InsertionGuard guard(b);
          Value lhsRow = tile.rawLhsRows[2 * f + i];
          Value own = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            tile.rawResultRows[2 * r + j],
                                            index(plan.n));
          if (hasPartialTile()) {
            Value ownRow = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, lhsRow, kernelRows);
            own = arith::AndIOp::create(b, loc, own, ownRow);
          }
          auto store = scf::IfOp::create(b, loc, own);
          b.setInsertionPointToStart(store.thenBlock());
          // The f32 sum rounded once to the result type.
          Value total = totals[getTotalIndex(f, r, i, j)];
          if (!plan.expressed.isF32())
            total = arith::TruncFOp::create(b, loc, plan.expressed, total);
          memref::StoreOp::create(
              b, loc, total, result,
              ValueRange{lhsRow, tile.rawResultRows[2 * r + j]});
        }
      }
    }
  }
}

void KernelEmitter::emitTensorCoreTiles(Value lane, Value firstRow, Value m0,
                                        Value kernelRows, Value lhsWords,
                                        Value lhsScales, Value words,
                                        Value scales, Value zeroPoints,
                                        Value result) {
  Type i32 = b.getI32Type();
  Type i8 = b.getI8Type();
  int64_t tiles = plan.rowsPerWarp / kMmaCols;
  int64_t blockSize = plan.lhsBlock;
  int64_t numBlocks = plan.k / blockSize;
  int64_t steps = blockSize / kMmaDepth;
  // A step's 32 codes are 8 activation words; its weight words.
  int64_t lhsWordsPerStep = kMmaDepth / 4;
  int64_t wordsPerStep = kMmaDepth / plan.codesPerWord;
  // The products take signed bytes: unsigned codes q enter as q - o (o =
  // 2^(bits - 1): their top bit flipped), and a block's sum
  // sum(x (q - z)) is sum(x (q - o)) + (o - z) sum(x), z the zero point (0
  // without). sum(x), per activation row and block, is one more product
  // per step, against ones.
  bool isSigned = plan.scheme.isSignedStorage();
  int64_t offset = isSigned ? 0 : int64_t(1) << (plan.bits - 1);
  bool activationSums = !isSigned || zeroPoints;
  TileGeometry tile = getTileGeometry(lane, firstRow, m0);
  Value quad = tile.quad, twiceQuad = tile.twiceQuad;
  ArrayRef<Value> lhsRows = tile.lhsRows, weightRows = tile.weightRows,
                  resultRows = tile.resultRows;

  // The sums, [fragment][tile][i][j], over the blocks in order.
  int64_t fragments = plan.lhsFragments;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> inits(fragments * tiles * 4, zero);
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(numBlocks), index(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value block = loop.getInductionVar();
    auto fragmentType = [&](int64_t registers) {
      return VectorType::get({registers, 4}, i8);
    };
    auto accType = VectorType::get({2, 2}, i32);
    Value zeroSums = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));
    // The block's sums, [fragment][tile], and each fragment's activation
    // sums.
    SmallVector<Value> blockSums(fragments * tiles, zeroSums);
    SmallVector<Value> lhsSums(fragments, zeroSums);
    Value onesFragment;
    if (activationSums) {
      Value ones = asBytes(i32Constant(0x01010101));
      onesFragment =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(fragmentType(2)));
      onesFragment = vector::InsertOp::create(b, loc, ones, onesFragment, 0);
      onesFragment = vector::InsertOp::create(b, loc, ones, onesFragment, 1);
    }
    Value firstLhsWord =
        arith::MulIOp::create(b, loc, block, index(blockSize / 4));
    Value firstWord =
        arith::MulIOp::create(b, loc, block, index(plan.wordsPerBlock));
    for (int64_t s = 0; s < steps; ++s) {
      // Lane t of a quad takes the step's codes 8 t .. 8 t + 7: the
      // activations' words 2 t and 2 t + 1 (one 8-byte load per row). The
      // codes' order within the step is the kernel's: any order gives the
      // same exact sum, as long as A and B agree.
      Value lhsStep = arith::AddIOp::create(b, loc, firstLhsWord,
                                            index(s * lhsWordsPerStep));
      Value lhsWord = arith::AddIOp::create(b, loc, lhsStep, twiceQuad);
      Value step =
          arith::AddIOp::create(b, loc, firstWord, index(s * wordsPerStep));
      SmallVector<Value> aFragments;
      for (int64_t f = 0; f < fragments; ++f) {
        Value a =
            arith::ConstantOp::create(b, loc, b.getZeroAttr(fragmentType(4)));
        for (int64_t i = 0; i < 2; ++i) {
          Value pair =
              loadVector(lhsWords, {lhsRows[2 * f + i], lhsWord}, 2, i32);
          Value low = asBytes(vector::ExtractOp::create(b, loc, pair, 0));
          Value high = asBytes(vector::ExtractOp::create(b, loc, pair, 1));
          Value first = low, second = high;
          if (plan.bits == 4) {
            // Even codes with the weight's even nibbles, odd with odd.
            first = vector::ShuffleOp::create(b, loc, low, high,
                                              ArrayRef<int64_t>{0, 2, 4, 6});
            second = vector::ShuffleOp::create(b, loc, low, high,
                                               ArrayRef<int64_t>{1, 3, 5, 7});
          }
          // Registers i and 2 + i: row g + 8 i, k slots 4 t.. and 16 +
          // 4 t...
          a = vector::InsertOp::create(b, loc, first, a, i);
          a = vector::InsertOp::create(b, loc, second, a, 2 + i);
        }
        aFragments.push_back(a);
        if (activationSums)
          lhsSums[f] = nvgpu::MmaSyncOp::create(
              b, loc, a, onesFragment, lhsSums[f],
              ArrayRef<int64_t>{kMmaRows, kMmaCols, kMmaDepth});
      }
      for (int64_t r = 0; r < tiles; ++r) {
        Value bFragment =
            arith::ConstantOp::create(b, loc, b.getZeroAttr(fragmentType(2)));
        Value first, second;
        if (plan.bits == 4) {
          // Word t of the step: its even codes (16 times their value, in
          // the high nibbles) and its odd codes; the sums are shifted back
          // by 4 below.
          Value column = arith::AddIOp::create(b, loc, step, quad);
          Value word = memref::LoadOp::create(
              b, loc, words, ValueRange{weightRows[r], column});
          if (!isSigned)
            word = arith::XOrIOp::create(b, loc, word, i32Constant(0x88888888));
          Value highNibbles = i32Constant(0xF0F0F0F0);
          first = asBytes(arith::AndIOp::create(
              b, loc, arith::ShLIOp::create(b, loc, word, i32Constant(4)),
              highNibbles));
          second = asBytes(arith::AndIOp::create(b, loc, word, highNibbles));
        } else {
          Value column = arith::AddIOp::create(b, loc, step, twiceQuad);
          Value pair = loadVector(words, {weightRows[r], column}, 2, i32);
          SmallVector<Value> halves;
          for (int64_t h = 0; h < 2; ++h) {
            Value half = vector::ExtractOp::create(b, loc, pair, h);
            if (!isSigned)
              half =
                  arith::XOrIOp::create(b, loc, half, i32Constant(0x80808080));
            halves.push_back(asBytes(half));
          }
          first = halves[0];
          second = halves[1];
        }
        bFragment = vector::InsertOp::create(b, loc, first, bFragment, 0);
        bFragment = vector::InsertOp::create(b, loc, second, bFragment, 1);
        // The tile's weights, loaded and unpacked once, serve every
        // activation fragment of the warp.
        for (int64_t f = 0; f < fragments; ++f)
          blockSums[f * tiles + r] = nvgpu::MmaSyncOp::create(
              b, loc, aFragments[f], bFragment, blockSums[f * tiles + r],
              ArrayRef<int64_t>{kMmaRows, kMmaCols, kMmaDepth});
      }
    }
    // The terms f32(isum) * (f32(sl) * f32(sr)), added in block order.
    SmallVector<Value> lhsScaleValues;
    for (Value lhsRow : lhsRows)
      lhsScaleValues.push_back(quant_block::detail::emitScaleToF32(
          b, loc,
          memref::LoadOp::create(b, loc, lhsScales,
                                 ValueRange{lhsRow, block})));
    SmallVector<Value> sums(loop.getRegionIterArgs());
    // Each activation row's sum (every column of the product with ones),
    // [fragment][i].
    SmallVector<Value> lhsSumValues;
    if (activationSums)
      for (int64_t f = 0; f < fragments; ++f)
        for (int64_t i = 0; i < 2; ++i)
          lhsSumValues.push_back(vector::ExtractOp::create(
              b, loc, lhsSums[f], ArrayRef<int64_t>{i, 0}));
    for (int64_t r = 0; r < tiles; ++r) {
      for (int64_t j = 0; j < 2; ++j) {
        Value weightScale = quant_block::detail::emitScaleToF32(
            b, loc,
            memref::LoadOp::create(b, loc, scales,
                                   ValueRange{resultRows[2 * r + j], block}));
        // o - z, the factor of the activations' sum.
        Value correction;
        if (activationSums) {
          correction = i32Constant(offset);
          if (zeroPoints) {
            Value stored = memref::LoadOp::create(
                b, loc, zeroPoints, ValueRange{resultRows[2 * r + j], block});
            Value zeroPoint = quant_block::detail::extendInteger(
                b, loc, stored, i32,
                !quant_block::detail::hasUnsignedZeroPoints(plan.scheme));
            correction = arith::SubIOp::create(b, loc, correction, zeroPoint);
          }
        }
        for (int64_t f = 0; f < fragments; ++f) {
          for (int64_t i = 0; i < 2; ++i) {
            Value isum = vector::ExtractOp::create(
                b, loc, blockSums[f * tiles + r], ArrayRef<int64_t>{i, j});
            // Exact: every term of a 4-bit sum was a multiple of 16.
            if (plan.bits == 4)
              isum = arith::ShRSIOp::create(b, loc, isum, i32Constant(4));
            if (activationSums) {
              Value corrected = arith::MulIOp::create(b, loc, correction,
                                                      lhsSumValues[2 * f + i]);
              isum = arith::AddIOp::create(b, loc, isum, corrected);
            }
            Value blockSum = quant_block::detail::emitBlockSumToF32(
                b, loc, isum, /*e2m1=*/false);
            Value scale = arith::MulFOp::create(
                b, loc, lhsScaleValues[2 * f + i], weightScale);
            Value &sum = sums[getTotalIndex(f, r, i, j)];
            if (plan.contract)
              sum = math::FmaOp::create(b, loc, blockSum, scale, sum);
            else
              sum = arith::AddFOp::create(
                  b, loc, sum, arith::MulFOp::create(b, loc, blockSum, scale));
          }
        }
      }
    }
    scf::YieldOp::create(b, loc, sums);
  }

  storeTileResults(tile, loop.getResults(), kernelRows, result);
}

void KernelEmitter::emitHalfTensorCoreTiles(Value lane, Value firstRow,
                                            Value m0, Value kernelRows,
                                            Value lhs, Value words,
                                            Value scales, Value zeroPoints,
                                            Value outer, Value result) {
  // f16 or bf16: the activations' and the dequantized weights' type.
  Type half = plan.expressed, i32 = b.getI32Type();
  int64_t tiles = plan.rowsPerWarp / kMmaCols;
  int64_t steps = plan.k / kMmaHalfDepth;
  int64_t codesPerStep = kMmaHalfDepth;
  TileGeometry tile = getTileGeometry(lane, firstRow, m0);
  // Lane t of a quad takes the step's codes 4 t .. 4 t + 3 (in the
  // products' k slots 2 t, 2 t + 1, 8 + 2 t, 8 + 2 t + 1: the order within
  // a step is the kernel's, as long as A and B agree).
  Value firstCode = arith::MulIOp::create(b, loc, tile.quad, index(4));
  bool isSigned =
      plan.scheme.hasIntegerStorage() && plan.scheme.isSignedStorage();
  bool integerCodeValues =
      plan.scheme.hasIntegerStorage() &&
      plan.scheme.getZeroPointDomain() == ZeroPointDomain::None;
  bool e2m1CodeValues =
      exactSubnormals && isa<Float4E2M1FNType>(plan.scheme.getStorageType());
  // A 4-bit lane's four codes are half of a word: the low half for even t,
  // the high half for odd t.
  Value codeShift;
  if (plan.bits == 4) {
    Value odd = arith::RemUIOp::create(b, loc, tile.quad, index(2));
    Value oddBits = arith::MulIOp::create(b, loc, odd, index(16));
    codeShift = arith::IndexCastOp::create(b, loc, i32, oddBits);
  }
  // The accumulators as scalars ([tile][i][j]) between steps: a target
  // without the products (their emulation on Vulkan) has no 2-D vectors.
  auto accType = VectorType::get({2, 2}, b.getF32Type());
  int64_t fragments = plan.lhsFragments;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> inits(fragments * tiles * 4, zero);
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(steps), index(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value stepK = arith::MulIOp::create(b, loc, loop.getInductionVar(),
                                        index(codesPerStep));
    Value k = arith::AddIOp::create(b, loc, stepK, firstCode);
    // A, per fragment: the 4 activations of rows g and g + 8 (one 8-byte
    // load each); registers i and 2 + i hold their first and last two.
    SmallVector<Value> aFragments;
    for (int64_t f = 0; f < fragments; ++f) {
      Value a = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(VectorType::get({4, 2}, half)));
      for (int64_t i = 0; i < 2; ++i) {
        Value four = loadVector(lhs, {tile.lhsRows[2 * f + i], k}, 4, half);
        Value first = vector::ShuffleOp::create(b, loc, four, four,
                                                ArrayRef<int64_t>{0, 1});
        Value second = vector::ShuffleOp::create(b, loc, four, four,
                                                 ArrayRef<int64_t>{2, 3});
        a = vector::InsertOp::create(b, loc, first, a, i);
        a = vector::InsertOp::create(b, loc, second, a, 2 + i);
      }
      aFragments.push_back(a);
    }
    Value block = arith::DivUIOp::create(
        b, loc, stepK, index(plan.wordsPerBlock * plan.codesPerWord));
    SmallVector<Value> sums(loop.getRegionIterArgs());
    for (int64_t r = 0; r < tiles; ++r) {
      Value weightRow = tile.weightRows[r];
      Value scale =
          memref::LoadOp::create(b, loc, scales, ValueRange{weightRow, block});
      Value zeroPoint;
      if (zeroPoints)
        zeroPoint = memref::LoadOp::create(b, loc, zeroPoints,
                                           ValueRange{weightRow, block});
      Value wordIndex =
          arith::DivUIOp::create(b, loc, k, index(plan.codesPerWord));
      Value word = memref::LoadOp::create(b, loc, words,
                                          ValueRange{weightRow, wordIndex});
      if (codeShift)
        word = arith::ShRUIOp::create(b, loc, word, codeShift);
      // The four weights, each dequantized and rounded to f16 or bf16 as
      // dequantize does.
      SmallVector<Value> weights;
      for (int64_t j = 0; j < 4; ++j) {
        if (integerCodeValues || e2m1CodeValues) {
          Value value = integerCodeValues
                            ? codeValue(word, j, plan.bits, isSigned)
                            : e2m1Value(word, j);
          weights.push_back(quant_block::detail::emitDequantizeCodeValue(
              b, loc, plan.scheme, value, scale, outer));
          continue;
        }
        Value code = extractCode(word, j, plan.bits, isSigned);
        weights.push_back(quant_block::detail::emitDequantize(
            b, loc, plan.scheme, code, scale, zeroPoint, outer));
      }
      Value bFragment = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(VectorType::get({2, 2}, half)));
      for (int64_t h = 0; h < 2; ++h) {
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, half),
            ValueRange{weights[2 * h], weights[2 * h + 1]});
        bFragment = vector::InsertOp::create(b, loc, pair, bFragment, h);
      }
      // The tile's weights, dequantized once, serve every activation
      // fragment of the warp.
      for (int64_t f = 0; f < fragments; ++f) {
        auto tileSums =
            ArrayRef<Value>(sums).slice(getTotalIndex(f, r, 0, 0), 4);
        Value c = vector::FromElementsOp::create(b, loc, accType, tileSums);
        Value d = nvgpu::MmaSyncOp::create(
            b, loc, aFragments[f], bFragment, c,
            ArrayRef<int64_t>{kMmaRows, kMmaCols, kMmaHalfDepth});
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 2; ++j)
            sums[getTotalIndex(f, r, i, j)] =
                vector::ExtractOp::create(b, loc, d, ArrayRef<int64_t>{i, j});
      }
    }
    scf::YieldOp::create(b, loc, sums);
  }
  storeTileResults(tile, loop.getResults(), kernelRows, result);
}

Value KernelEmitter::emit(ValueRange lhsParts, ValueRange parts,
                          const KernelPlan *largeM) {
  Buffers buffers;
  if (plan.integer) {
    buffers.lhs = toWords(lhsParts[0]);
    buffers.lhsScales = toBuffer(lhsParts[1]);
  } else {
    buffers.lhs = toBuffer(lhsParts[0]);
  }
  buffers.words = toWords(parts[0]);
  Type scaleType = plan.scheme.getScaleType();
  buffers.scales = toBuffer(
      isa<IntegerType>(scaleType)
          ? widenIntegers(parts[1], cast<IntegerType>(scaleType).isUnsigned())
          : parts[1]);
  if (plan.hasZeroPoints)
    buffers.zeroPoints = toBuffer(widenZeroPoints(parts[2]));
  if (Value outer = quant_block::detail::getOuterScalesPart(plan.scheme, parts))
    buffers.outerScales = toBuffer(outer);
  // The outer mins follow the outer scales (the last part).
  if (OuterScaleAttr outer = plan.scheme.getOuter();
      outer && outer.getMinType())
    buffers.outerMins = toBuffer(parts.back());
  auto resultType = MemRefType::get({plan.m, plan.n}, plan.expressed);
  bool dynamicRows = ShapedType::isDynamic(plan.m);
  Value numRows =
      dynamicRows ? memref::DimOp::create(b, loc, buffers.lhs, 0).getResult()
                  : index(plan.m);
  buffers.result = memref::AllocOp::create(
      b, loc, resultType, dynamicRows ? ValueRange{numRows} : ValueRange());
  buffers.rows = numRows;

  {
    OpBuilder::InsertionGuard launchGuard(b);
    if (dynamicRows) {
      // No launch for no rows: an empty grid is an error on CUDA.
      auto anyRows = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, numRows,
                                index(0)));
      b.setInsertionPointToStart(anyRows.thenBlock());
    }
    if (largeM) {
      // At least kMmaRows rows: the tensor-core kernel; fewer (a decode
      // step's one): the warp kernel, which computes no surplus rows.
      Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          numRows, index(kMmaRows));
      auto choice = scf::IfOp::create(b, loc, large, /*withElseRegion=*/true);
      b.setInsertionPointToStart(choice.thenBlock());
      KernelEmitter(b, loc, *largeM, vectorLoads, exactSubnormals)
          .emitLaunch(buffers);
      b.setInsertionPointToStart(choice.elseBlock());
    }
    emitLaunch(buffers);
  }
  return bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get({plan.m, plan.n}, plan.expressed),
      buffers.result, /*restrict=*/true, /*writable=*/true);
}

void KernelEmitter::emitLaunch(const Buffers &buffers) {
  Value lhsBuffer = buffers.lhs, lhsScales = buffers.lhsScales;
  Value words = buffers.words, scales = buffers.scales;
  Value zeroPoints = buffers.zeroPoints, outerScales = buffers.outerScales;
  Value result = buffers.result;
  // A blocked outer scale is read per block; a per-tensor one once below.
  blockedOuterScales = plan.outerBlocks > 0 ? outerScales : Value();
  outerMins = buffers.outerMins;
  if (blockedOuterScales)
    outerScales = Value();
  bool dynamicRows = ShapedType::isDynamic(plan.m);
  Value numRows = buffers.rows;
  int64_t workgroupSize = plan.workgroupSize;
  Value one = index(1);
  Value gridY =
      dynamicRows
          ? arith::DivUIOp::create(
                b, loc,
                arith::AddIOp::create(b, loc, numRows, index(plan.tileM - 1)),
                index(plan.tileM))
                .getResult()
          : index(llvm::divideCeil(plan.m, plan.tileM));
  auto launch = gpu::LaunchOp::create(b, loc, index(plan.gridX), gridY, one,
                                      index(workgroupSize), one, one);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    // M from the buffer inside the kernel: a value captured from the host
    // would be a scalar kernel argument, which SPIR-V kernels do not take.
    Value kernelRows =
        dynamicRows ? memref::DimOp::create(b, loc, lhsBuffer, 0).getResult()
                    : index(plan.m);
    lastRow =
        dynamicRows
            ? arith::SubIOp::create(b, loc, kernelRows, index(1)).getResult()
            : index(plan.m - 1);
    Value thread = launch.getThreadIds().x;
    // Thread = (warp's row slot * splitK + its slice of K) * 32 + lane;
    // `lane` below counts within the row slot's splitK warps.
    int64_t rowThreads = kLanes * plan.splitK;
    Value lane = arith::RemUIOp::create(b, loc, thread, index(rowThreads));
    Value warp = arith::DivUIOp::create(b, loc, thread, index(rowThreads));
    Value m0 = arith::MulIOp::create(b, loc, launch.getBlockIds().y,
                                     index(plan.tileM));
    Value outer;
    if (outerScales) {
      SmallVector<Value> origin(
          cast<MemRefType>(outerScales.getType()).getRank(), index(0));
      outer = memref::LoadOp::create(b, loc, outerScales, origin);
    }
    // Every thread of a workgroup runs the same row groups (the trip count
    // depends on the workgroup only): the shuffles below are reached by all
    // of them, which their emulation with barriers needs.
    auto groups = scf::ForOp::create(b, loc, launch.getBlockIds().x,
                                     index(plan.numGroups), index(plan.gridX));
    b.setInsertionPointToStart(groups.getBody());
    Value firstRow = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, groups.getInductionVar(),
                              index(plan.rowsPerGroup)),
        arith::MulIOp::create(b, loc, warp, index(plan.rowsPerWarp)));
    if (plan.tensorCores && !plan.integer)
      emitHalfTensorCoreTiles(lane, firstRow, m0, kernelRows, lhsBuffer, words,
                              scales, zeroPoints, outer, result);
    else if (plan.tensorCores)
      emitTensorCoreTiles(lane, firstRow, m0, kernelRows, lhsBuffer, lhsScales,
                          words, scales, zeroPoints, result);
    else
      emitWarpRowTotals(lane, firstRow, m0, kernelRows, lhsBuffer, lhsScales,
                        words, scales, zeroPoints, outer, result);
    b.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
  }
  b.setInsertionPointAfter(launch);
}

void KernelEmitter::emitWarpRowTotals(Value lane, Value firstRow, Value m0,
                                      Value kernelRows, Value lhsBuffer,
                                      Value lhsScales, Value words,
                                      Value scales, Value zeroPoints,
                                      Value outer, Value result) {
  // The warp's weight rows. The last group's surplus rows are row N - 1
  // again (so that their warps take part in the shuffles) and store
  // nothing.
  SmallVector<Value> rawRows, rows;
  for (int64_t r = 0; r < plan.rowsPerWarp; ++r) {
    rawRows.push_back(arith::AddIOp::create(b, loc, firstRow, index(r)));
    rows.push_back(
        arith::MinUIOp::create(b, loc, rawRows.back(), index(plan.n - 1)));
  }
  SmallVector<Value> totals =
      plan.integer
          ? emitOrderedIntegerSums(lane, rows.front(), m0, lhsBuffer, lhsScales,
                                   words, scales, zeroPoints, outer)
          : reduceLanes(emitPartialSums(lane, rows, m0, lhsBuffer, words,
                                        scales, zeroPoints, outer));
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
  for (int64_t r = 0; r < plan.rowsPerWarp; ++r) {
    OpBuilder::InsertionGuard storeGuard(b);
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          rawRows[r], index(plan.n));
    auto store = scf::IfOp::create(
        b, loc, arith::AndIOp::create(b, loc, first, inRange));
    b.setInsertionPointToStart(store.thenBlock());
    for (int64_t mi = 0; mi < plan.tileM; ++mi) {
      OpBuilder::InsertionGuard rowGuard(b);
      Value total = totals[r * plan.tileM + mi];
      Value m = arith::AddIOp::create(b, loc, m0, index(mi));
      if (hasPartialTile()) {
        auto ownRow = scf::IfOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, m,
                                  kernelRows));
        b.setInsertionPointToStart(ownRow.thenBlock());
      }
      // The f32 sum rounded once to the result type.
      if (!plan.expressed.isF32())
        total = arith::TruncFOp::create(b, loc, plan.expressed, total);
      memref::StoreOp::create(b, loc, total, result, ValueRange{m, rows[r]});
    }
  }
}

namespace {

struct GPUMatmulKernelsPass
    : public quant_block::impl::GPUMatmulKernelsBase<GPUMatmulKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (workgroupSize <= 0 || workgroupSize % kLanes != 0 ||
        maxWorkgroups <= 0 || rowsPerWarp < 0) {
      getOperation().emitError()
          << "workgroup-size must be a positive multiple of " << kLanes
          << " (warps of weight rows), not " << workgroupSize.getValue()
          << ", max-workgroups positive and rows-per-warp not negative";
      return signalPassFailure();
    }
    int64_t warps = workgroupSize / kLanes;
    if (chunkWords != 1 && chunkWords != 2 && chunkWords != 4) {
      getOperation().emitError()
          << "chunk-words must be 1, 2 or 4, not " << chunkWords.getValue();
      return signalPassFailure();
    }
    if (splitK < 0 ||
        (splitK > 0 && (!llvm::isPowerOf2_64(splitK) || warps % splitK != 0))) {
      getOperation().emitError()
          << "split-k must be 0 (automatic) or a power of two dividing the "
          << warps << " warps of a workgroup, not " << splitK.getValue();
      return signalPassFailure();
    }
    if (tensorCoreRows < 0 || tensorCoreRows % kMmaRows != 0 ||
        tensorCoreRows > kMmaRows * kMaxMmaFragmentsPerWarp) {
      getOperation().emitError()
          << "tensor-core-rows must be 0 (automatic), 16, 32, 48 or 64, not "
          << tensorCoreRows.getValue();
      return signalPassFailure();
    }
    SmallVector<MatmulOp> products;
    getOperation().walk([&](MatmulOp op) { products.push_back(op); });
    for (MatmulOp op : products) {
      KernelPlan plan;
      if (std::optional<std::string> whyNot = planKernel(
              op, workgroupSize, maxWorkgroups, rowsPerWarp, splitK, chunkWords,
              byteDotProducts, tensorCores, tensorCoreRows, plan)) {
        if (report)
          op.emitRemark() << "no GPU matmul kernel: " << *whyNot;
        continue;
      }
      if (report && !plan.whyNoTensorCores.empty())
        op.emitRemark() << "no tensor cores: " << plan.whyNoTensorCores;
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> lhsParts = {op.getLhs()};
      if (plan.integer) {
        FailureOr<SmallVector<Value>> parts =
            materializeLoweredParts(b, loc, op.getLhs());
        if (failed(parts))
          continue;
        lhsParts = *parts;
      }
      FailureOr<SmallVector<Value>> parts =
          materializeLoweredParts(b, loc, op.getRhs());
      if (failed(parts))
        continue;
      // A dynamic M with tensor cores: the warp kernel for fewer than 16
      // rows (a decode step), the tensor-core one from 16 on, chosen at
      // run time.
      KernelPlan warpPlan;
      bool choose = plan.tensorCores && ShapedType::isDynamic(plan.m);
      if (choose) {
        std::optional<std::string> whyNot =
            planKernel(op, workgroupSize, maxWorkgroups, rowsPerWarp, splitK,
                       chunkWords, byteDotProducts, /*tensorCores=*/false,
                       /*tensorCoreRows=*/0, warpPlan);
        assert(!whyNot && "the warp kernel covers what the tensor cores do");
        (void)whyNot;
      }
      KernelEmitter emitter(b, loc, choose ? warpPlan : plan, vectorLoads,
                            exactSubnormals);
      Value result = emitter.emit(lhsParts, *parts, choose ? &plan : nullptr);
      op.getResult().replaceAllUsesWith(result);
      op.erase();
    }
  }
};

} // namespace
