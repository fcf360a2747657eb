//===- MatmulKernels.cpp - register-tiled quantized matrix products -------===//
//
// --quant-block-cpu-matmul-kernels: a quant_block.matmul with a transposed
// block-quantized weight (reassociated with f32 activations, or with int8
// activations and accumulate(i32) in any order) becomes vector code on
// tensors whose accumulators stay in registers for the whole K loop. The
// generic lowering (one linalg.generic vectorized along k) keeps its partial
// sums in memory, reads each activation once per output and multiplies and
// adds separately; this is the kernel a decode step spends its time in.
//
// Layout of the code: planKernel decides whether a product is covered and
// how it is tiled (KernelPlan); KernelEmitter::emit writes the activation
// preparation (de-interleaving for 4-bit weights, block sums of int8
// codes), the loop over weight-row tiles (scf.forall with threads), the
// loop over activation-row tiles, and the K loop whose body is emitKStep
// (float) or emitIntegerKStep (integer; its byte products come from
// emitBiasedBlockSums, generic or vpdpbusd-shaped).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "DotProducts.h"
#include "TableLookups.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Conversion/QuantBlockToLinalg/ScalarCodegen.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"
#include "quant-block/Numerics/BlockMath.h"
#include "quant-block/Numerics/FloatFormats.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <numeric>

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUMATMULKERNELS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
namespace numerics = ::quant_block::numerics;

namespace {

/// Lanes of one accumulator. Fixed (not the host's register width) because
/// the lanes are partial sums: the same IR on every host gives the same
/// bits.
constexpr int64_t kLanes = 16;
/// Weight elements per chunk: one accumulator's worth of two products.
constexpr int64_t kChunk = 2 * kLanes;
/// Chunks unrolled per iteration of the K loop (code size vs. loop overhead).
constexpr int64_t kMaxUnrolledChunks = 8;
/// The most bytes per weight row a K step prefetches for the next tile.
constexpr int64_t kMaxPrefetchBytesPerStep = 256;
/// What the integer products add to twice an E2M1 value (-12..12) to make
/// it an unsigned byte for vpdpbusd.
constexpr int64_t kE2M1TwiceBias = 12;
/// Activation rows of an AMX tile (its most rows).
constexpr int64_t kAmxRows = 16;
/// The activation codes the AMX kernel keeps in L2 (2 MiB per core on
/// Sapphire Rapids) while every weight-row tile passes over them: a chunk
/// of rows, each weight tile's codes decoded once per chunk.
constexpr int64_t kAmxChunkBytes = 1 << 20;

/// A product the kernel covers, with its tiling.
struct KernelPlan {
  /// M may be dynamic (a frontend's batch or token count).
  int64_t m, n, k;
  /// Block size along K and blocks per row.
  int64_t blockSize, numBlocks;
  /// Activation rows and weight rows of one register tile.
  int64_t tileM, tileN;
  /// With a dynamic M: after the tiles of tileM activation rows, the rows
  /// left over (M mod tileM) are one tile each.
  bool remainderRows = false;
  /// Blocks per iteration of the K loop (their scales are one vector read).
  int64_t blocksPerStep;
  unsigned storageBits;
  bool signedStorage;
  bool hasZeroPoints;
  bool signedZeroPoints;
  bool contract;
  /// accumulate(i32): int8 activations, exact block sums in i32.
  bool integer;
  /// Integer block sums with AVX512-VNNI's vpdpbusd, 64 products at once
  /// (pairs of chunks).
  bool vnni;
  /// With vnni and N a multiple of 16: one weight row per i32 lane (16
  /// rows, the packed bytes transposed once per chunk), each activation
  /// row's 4 codes broadcast, so a block sum ends in its lane with no sum
  /// across lanes.
  bool rowLanes = false;
  /// With rowLanes: every whole kAmxRows activation rows take AMX tiles,
  /// 16 x 16 block sums per tdpbssd against the tile's weight rows decoded
  /// once per chunk of activation rows into an AMX operand
  /// (decodeAmxPanel); the rows left over take the vpdpbusd tiles. Blocks
  /// of 32 to 256 codes, or of 16 8-bit codes.
  bool amx = false;
  /// f32 activations in the strict order (no reassoc): one weight row per
  /// lane as well, each output summed over k in increasing order in its
  /// lane (the contract's order; `contract` fuses each step into an FMA).
  bool orderedRows = false;
  /// The expressed type of the float path (f32, f16 or bf16): the
  /// activations' type, the type each dequantized weight is rounded to and
  /// the result's; the products and sums are f32.
  Type expressed;
  /// The accumulators have one lane per weight row (tileM vectors of
  /// tileN lanes) instead of 16 partial sums per output.
  bool lanesAreRows() const { return integer || orderedRows; }
  /// FP4 weights: E2M1 codes (MXFP4 with E8M0 scales, NVFP4 with E4M3
  /// scales and an outer scale).
  bool e2m1;
  /// A per-tensor outer scale (NVFP4's f32): each block's scale is
  /// f32(scale) * f32(outer), rounded to f32, as quant_block.dequantize
  /// does.
  bool hasOuter = false;
  /// Block scales under a second level (GGUF K-quants, IQ4_XS): blocks of
  /// scales [1, outerBlocks] share an outer scale (and, with outerMins, an
  /// outer min), and each block's scale is f32(scale) * f32(outer), rounded
  /// once, as quant_block.dequantize computes it; 0 without. A K step's
  /// blocks share one outer scale (blocksPerStep divides it).
  int64_t outerBlocks = 0;
  bool outerMins = false;
  /// Float mins instead of integer zero points: Q4_1's float zero points,
  /// or integer ones times an outer min (Q4_K, Q5_K): the weight is
  /// fma(f32(q), s, m), rounded once to the expressed type.
  bool hasMins = false;
  /// The scheme's types of the block scales and zero points (or mins): the
  /// lowered tensors hold signless integers, converted by these.
  Type scaleType, zeroPointType;
  /// 4-bit codes without zero points (E2M1, int4, uint4) decoded by a
  /// 16-entry table lookup of their f32 values (vpermps with
  /// --quant-block-cpu-x86-table-lookups) instead of integer arithmetic.
  bool lookupCodes = false;
  /// Prefetch the next tile's weight bytes during each K step.
  bool prefetch;
  /// The weight is in the row-tiled layout with tiles of kLanes rows
  /// (docs/Packing.md): a tile's chunk is one contiguous read of its words
  /// in lane order, its scales and zero points kLanes contiguous values per
  /// block. Only the kernels with one weight row per lane read it; the
  /// others get the weight repacked row-major on each call.
  bool rowTiled = false;
};

/// The largest of `candidates` (descending) that divides `value`.
int64_t largestDivisor(int64_t value, ArrayRef<int64_t> candidates) {
  for (int64_t candidate : candidates)
    if (candidate <= value && value % candidate == 0)
      return candidate;
  return 1;
}

/// Activation rows per tile where the weight-row tile does not depend on
/// them: the largest candidate dividing a static M; with a dynamic M the
/// largest, the rows left over taking tiles of one row.
int64_t chooseTileRows(KernelPlan &plan, ArrayRef<int64_t> candidates) {
  if (!ShapedType::isDynamic(plan.m))
    return largestDivisor(plan.m, candidates);
  plan.remainderRows = candidates.front() > 1;
  return candidates.front();
}

/// Why `op` has no kernel (std::nullopt when it has one); fills `plan`.
std::optional<std::string> planKernel(MatmulOp op, int64_t rows, bool vnni,
                                      bool amx, KernelPlan &plan) {
  arith::FastMathFlags flags = op.getFastmath();
  if (!op.getTransposeRhs())
    return std::string("the weight is not transposed ([N, K])");
  if (op.getPropagation() != Propagation::Inhibit)
    return std::string("the result is requantized (propagate)");
  plan.integer = op.getAccumulatorType().isInteger(32);
  if (plan.integer) {
    // The integer block sums are exact in any order and the f32 sum over
    // the blocks runs in order for each output (one lane each), so the
    // strict order is kept too.
    if (std::optional<std::string> whyNot =
            getInt8ActivationsUnsupportedReason(op.getLhs().getType()))
      return whyNot;
    plan.m = cast<QuantizedTensorType>(op.getLhs().getType()).getShape()[0];
  } else {
    plan.orderedRows =
        !arith::bitEnumContainsAll(flags, arith::FastMathFlags::reassoc);
    auto lhsType = dyn_cast<RankedTensorType>(op.getLhs().getType());
    if (!lhsType || lhsType.getRank() != 2)
      return std::string("the lhs is not a rank-2 tensor");
    plan.expressed = lhsType.getElementType();
    if (!plan.expressed.isF32() && !plan.expressed.isF16() &&
        !plan.expressed.isBF16())
      return std::string("the lhs is not f32, f16 or bf16");
    if (!op.getAccumulatorType().isF32())
      return std::string("the accumulator is not f32");
    plan.m = lhsType.getDimSize(0);
  }
  QuantizedTensorType weight = op.getRhs().getType();
  SchemeAttr scheme = weight.getScheme();
  if (weight.getRank() != 2 || !weight.hasStaticShape())
    return std::string("the weight is not a static rank-2 tensor");
  // FP4 (E2M1 codes: MXFP4, NVFP4). With int8 activations the byte dot
  // products take twice their values (docs/Numerics.md), by a table lookup.
  plan.e2m1 = isa<Float4E2M1FNType>(scheme.getStorageType());
  if (!plan.e2m1 &&
      (!scheme.hasIntegerStorage() ||
       (scheme.getStorageBitWidth() != 4 && scheme.getStorageBitWidth() != 8)))
    return std::string("the weight's storage is not a 4- or 8-bit integer "
                       "or E2M1");
  if (scheme.hasMXScale() && !plan.e2m1)
    return std::string("the weight has an MX scale and integer storage");
  // A per-tensor outer scale (NVFP4's), which multiplies each block's
  // scale: with f32 activations, or E2M1 codes with int8 ones. Blocked
  // outer scales and outer mins (K-quants) with f32 activations.
  Type scaleType = scheme.getScaleType();
  Type zeroPointType = scheme.getZeroPointType();
  plan.scaleType = scaleType;
  plan.zeroPointType = zeroPointType;
  SmallVector<int64_t> block = weight.getEffectiveBlockShape();
  int64_t n = weight.getShape()[0], k = weight.getShape()[1];
  if (OuterScaleAttr outer = scheme.getOuter()) {
    bool perTensor = outer.getBlockShape().empty() && !outer.getMinType();
    if (perTensor && (!plan.integer || plan.e2m1)) {
      plan.hasOuter = true;
    } else {
      if (plan.integer && plan.e2m1)
        return std::string("the outer scale of E2M1 codes is not one for "
                           "the tensor");
      // The parameters' shape [N, KB] (the blocks checked below).
      SmallVector<int64_t> outerBlock =
          ::quant_block::numerics::resolveBlockShape(
              outer.getBlockShape(), {n, block[1] > 0 ? k / block[1] : 1});
      if (outerBlock[0] != 1 || block[1] <= 0 || k % block[1] != 0 ||
          (k / block[1]) % outerBlock[1] != 0)
        return std::string("the outer scale's blocks are not [1, B] "
                           "dividing the blocks of a row");
      if (!scaleType.isInteger(8) && !scaleType.isF32() && !scaleType.isF16() &&
          !scaleType.isBF16())
        return std::string("the scales under an outer scale are not 8-bit "
                           "integers, f32, f16 or bf16");
      if (outer.getMinType() && !isa_and_nonnull<IntegerType>(zeroPointType))
        return std::string("the outer min does not scale integer zero "
                           "points");
      plan.outerBlocks = outerBlock[1];
      plan.outerMins = static_cast<bool>(outer.getMinType());
    }
  }
  if (plan.integer ? !scheme.getExpressedType().isF32()
                   : scheme.getExpressedType() != plan.expressed)
    return std::string("the expressed type is not f32 (or the lhs type for "
                       "float accumulation)");
  if (!scaleType.isF32() && !scaleType.isF16() && !scaleType.isBF16() &&
      !((!plan.integer || plan.e2m1) && isa<Float8E4M3FNType>(scaleType)) &&
      !(plan.e2m1 && isa<Float8E8M0FNUType>(scaleType)) &&
      !(plan.outerBlocks && scaleType.isInteger(8)))
    return std::string("the scales are not f32, f16 or bf16 (or E4M3, or "
                       "E8M0, for E2M1 codes or f32 activations, or 8-bit "
                       "integers under an outer scale)");
  // Float zero points are mins (x = fma(q, s, m)); so are integer ones
  // under an outer min. The integer products cannot apply them.
  plan.hasMins =
      plan.outerMins || (zeroPointType && !isa<IntegerType>(zeroPointType));
  if (plan.hasMins && plan.e2m1)
    return std::string("the E2M1 codes have zero points");
  if (plan.hasMins && !zeroPointType.isInteger(8) && !zeroPointType.isF32() &&
      !zeroPointType.isF16() && !zeroPointType.isBF16())
    return std::string("the mins are not f32, f16 or bf16 (or 8-bit integers "
                       "under an outer min)");
  // Blocks of 16 are half a chunk: 4-bit storage (NVFP4's), f32
  // activations (or E2M1 codes with int8 ones), or 8-bit integer storage
  // (GGUF Q6_K widened to i8), no zero points, an even number of blocks.
  bool halfChunkBlocks =
      block[1] == kChunk / 2 && !zeroPointType && k % kChunk == 0 &&
      ((scheme.getStorageBitWidth() == 4 && (!plan.integer || plan.e2m1)) ||
       (scheme.getStorageBitWidth() == 8 && !plan.e2m1));
  if (block[0] != 1 ||
      (!halfChunkBlocks && (block[1] % kChunk != 0 || k % block[1] != 0)))
    return std::string(
        "the blocks are not [1, B] with B a multiple of 32 "
        "that divides K (or [1, 16] without zero points, K a multiple of "
        "32, for 4-bit storage with f32 activations or E2M1 codes, or "
        "8-bit integer storage)");
  if (plan.orderedRows && (n % kLanes != 0 || halfChunkBlocks))
    return std::string("the sum over k is ordered (no fastmath<reassoc>), "
                       "and N is not a multiple of 16 (or the blocks are "
                       "[1, 16])");
  plan.n = n;
  plan.k = k;
  plan.blockSize = block[1];
  plan.numBlocks = k / block[1];
  plan.storageBits = scheme.getStorageBitWidth();
  // E2M1 codes are unpacked as unsigned nibbles and decoded.
  plan.signedStorage = !plan.e2m1 && scheme.isSignedStorage();
  plan.hasZeroPoints = zeroPointType != nullptr && !plan.hasMins;
  plan.signedZeroPoints =
      plan.hasZeroPoints && !cast<IntegerType>(zeroPointType).isUnsigned();
  plan.contract =
      arith::bitEnumContainsAll(flags, arith::FastMathFlags::contract);
  // At most 16 accumulators: half the registers of AVX-512, leaving room
  // for the unpacked weight chunks and the activations.
  int64_t chunksPerBlock = std::max<int64_t>(plan.blockSize / kChunk, 1);
  int64_t blocksPerChunk = std::max<int64_t>(kChunk / plan.blockSize, 1);
  // vpdpbusd takes two chunks at once: two blocks of 32, or one block of a
  // multiple of 64.
  plan.vnni =
      vnni && plan.integer &&
      (chunksPerBlock == 1 ? plan.numBlocks % 2 == 0 : chunksPerBlock % 2 == 0);
  // With vpdpbusd, decoding a weight chunk is cheap next to adding up the
  // lanes of the block sums and scaling them, which more weight rows per
  // tile amortize: 2 x 8 tiles (measured at M = 8 / 32, 4096 x 4096: 3.1 /
  // 10.6 ms cold; 4 x 4 tiles 5.0 / 14.2 ms, 1 x 8 tiles 3.6 / 12.4 ms).
  // One weight row per lane: the transposed weight chunk serves tileM
  // activation rows, and there are no sums across lanes. Measured faster
  // than the tiles below at every M (4096 x 4096, one thread, cold: M = 1
  // 0.93 -> 0.83 ms, M = 8 2.84 -> 1.34 ms, M = 32 10.8 -> 4.5 ms).
  plan.rowLanes = plan.vnni && n % kLanes == 0;
  // AMX: one tile instruction per block (two for blocks of 128, four of
  // 256), K = 16, 32 or 64 bytes each; the centered codes fit a signed byte
  // except 8-bit codes with zero points. Blocks of 16 with 8-bit codes
  // (the widened Q6_K) only: 4-bit codes are de-interleaved per chunk of
  // 32, where a block of 16 is not 16 consecutive activation bytes.
  plan.amx =
      amx && plan.rowLanes && (!halfChunkBlocks || plan.storageBits == 8) &&
      plan.blockSize <= 256 && !(plan.storageBits == 8 && plan.hasZeroPoints) &&
      (ShapedType::isDynamic(plan.m) || plan.m >= kAmxRows);
  // E2M1 codes in an integer product: the kernel with one weight row per
  // lane looks them up as bytes, the generic tiles decode them in i32
  // lanes; the VNNI tiles below do not decode them.
  if (plan.integer && halfChunkBlocks && !plan.rowLanes)
    return std::string("integer products in blocks of 16 need AVX512-VNNI "
                       "and N a multiple of 16 (one weight row per lane)");
  if (plan.integer && plan.e2m1 && !plan.rowLanes)
    plan.vnni = false;
  // Integer products with a second level of scales or with mins (the mins
  // times the activation block sums, a second term per block): the kernel
  // with one weight row per lane, which reads both as lane vectors.
  if (plan.integer && (plan.outerBlocks || plan.hasMins) && !plan.rowLanes)
    return std::string("integer products with two-level scales or mins need "
                       "AVX512-VNNI and N a multiple of 16 (one weight row "
                       "per lane)");
  // The other kernels (and other tile sizes) take the weight repacked
  // row-major at run time: the same kernel, so the same bits on every host.
  // Both read every block parameter (scales, zero points, mins, blocked
  // outer scales and mins) as one vector of the tile's rows.
  plan.rowTiled =
      scheme.getRowTile() == kLanes && (plan.rowLanes || plan.orderedRows);
  if (plan.orderedRows) {
    plan.tileM = chooseTileRows(plan, {8, 4, 2, 1});
    plan.tileN = kLanes;
    plan.blocksPerStep = 1;
    return std::nullopt;
  }
  if (plan.rowLanes) {
    plan.tileM = chooseTileRows(plan, {8, 4, 2, 1});
    plan.tileN = kLanes;
    // Blocks of 16: whole chunks per step.
    plan.blocksPerStep = largestDivisor(
        plan.numBlocks, halfChunkBlocks       ? ArrayRef<int64_t>{4, 2}
                        : chunksPerBlock == 1 ? ArrayRef<int64_t>{2, 1}
                                              : ArrayRef<int64_t>{1});
    // A step's blocks share one outer scale.
    if (plan.outerBlocks && plan.outerBlocks % plan.blocksPerStep != 0)
      return std::string("no K step of whole chunks shares one outer scale");
    return std::nullopt;
  }
  // Here the weight-row tile depends on tileM (16 accumulators in all): a
  // dynamic M gets the tiles of M = 1, what a decode step runs.
  plan.tileM =
      ShapedType::isDynamic(plan.m)
          ? 1
          : largestDivisor(plan.m, plan.vnni ? ArrayRef<int64_t>{2, 1}
                                             : ArrayRef<int64_t>{8, 4, 2, 1});
  int64_t maxTileN =
      plan.vnni
          ? std::min<int64_t>(16 / plan.tileM, 2 * std::max<int64_t>(rows, 1))
      : plan.tileM == 1 ? std::max<int64_t>(rows, 1)
                        : std::max<int64_t>(16 / plan.tileM, 1);
  SmallVector<int64_t> candidates;
  for (int64_t c = maxTileN; c >= 1; --c)
    candidates.push_back(c);
  plan.tileN = largestDivisor(n, candidates);
  SmallVector<int64_t> steps;
  for (int64_t c = std::max<int64_t>(
           kMaxUnrolledChunks * blocksPerChunk / chunksPerBlock, 1);
       c >= 1; --c)
    if ((!plan.vnni || chunksPerBlock != 1 || c % 2 == 0) &&
        c % blocksPerChunk == 0 &&
        (!plan.outerBlocks || plan.outerBlocks % c == 0))
      steps.push_back(c);
  if (steps.empty())
    return std::string("no K step of whole chunks shares one outer scale");
  plan.blocksPerStep = largestDivisor(plan.numBlocks, steps);
  return std::nullopt;
}

/// Emits the kernel of one product.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, Location loc, const KernelPlan &plan)
      : b(b), loc(loc), plan(plan) {}

  /// `lhs` is the f32 activations, or the parts (i8 codes, scales) of
  /// quantized ones.
  Value emit(ValueRange lhs, ValueRange weightParts, bool parallel);

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value a, int64_t c) {
    return c == 0 ? a : arith::AddIOp::create(b, loc, a, index(c)).getResult();
  }
  Value mul(Value a, int64_t c) {
    return c == 1 ? a : arith::MulIOp::create(b, loc, a, index(c)).getResult();
  }
  /// The row tile holding weight row `n0` (a multiple of kLanes) in the
  /// row-tiled layout.
  Value tileOf(Value n0) {
    return arith::DivUIOp::create(b, loc, n0, index(kLanes));
  }
  Value splatI32(int64_t value) {
    auto type = VectorType::get({kLanes}, b.getI32Type());
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(value)));
  }
  /// `acc + x * y`: one fused multiply-add with `contract` (math.fma is
  /// llvm.fma, fused on every host, a libcall where the host has no FMA;
  /// vector.fma would be llvm.fmuladd, which LLVM fuses or not depending on
  /// the target), else a rounded product and a rounded sum. No fast-math
  /// flags, so LLVM keeps the order.
  Value multiplyAdd(Value x, Value y, Value acc) {
    if (plan.contract)
      return math::FmaOp::create(b, loc, x, y, acc);
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  }
  Value read(Value source, VectorType type, ValueRange indices) {
    SmallVector<bool> inBounds(type.getRank(), true);
    return vector::TransferReadOp::create(b, loc, type, source, indices,
                                          /*padding=*/std::nullopt,
                                          ArrayRef<bool>(inBounds));
  }

  Value deinterleaveActivations(Value lhs);
  Value emitTile(ValueRange lhs, ValueRange parts, Value n0, Value output);
  Value emitRowTiles(ValueRange lhs, ValueRange parts, Value n0, Value tileInit,
                     Value lower, Value upper);
  SmallVector<Value> emitKStep(Value lhs, ValueRange parts, Value n0, Value m0,
                               Value firstBlock, ValueRange accumulators);
  SmallVector<Value> emitOrderedKStep(Value lhs, ValueRange parts, Value n0,
                                      Value m0, Value firstBlock,
                                      ValueRange accumulators);
  Value readLaneWords(Value data, Value n0, Value chunk);
  Value decodeWordCodes(Value words, int64_t j, Value zeroPoint);
  std::pair<Value, Value> decodeChunkCodes(Value data, Value row, Value chunk,
                                           Value zeroPoint,
                                           bool biased = false);
  Value getBias() const;
  Value sumActivationBlocks(Value codes);
  Value sumRows(ArrayRef<Value> sums, int64_t groups);
  SmallVector<SmallVector<Value>> emitBiasedBlockSums(Value lhsData, Value data,
                                                      Value n0, Value m0,
                                                      Value firstBlock);
  SmallVector<SmallVector<Value>> emitRowLaneBlockSums(Value lhsData,
                                                       Value data, Value n0,
                                                       Value m0,
                                                       Value firstBlock);
  std::pair<Value, Value> decodeChunk(Value data, Value row, Value chunk,
                                      std::pair<Value, Value> scales,
                                      Value zeroPoint, Value min = {});
  Value decodeE2M1(Value codes);
  Value lookUpCodes(Value nibbles);
  Value lookUpTwiceBiasedE2M1(Value nibbles);
  Value roundToExpressed(Value weights);
  Value parametersToF32(Value values, Type schemeType);
  SmallVector<Value> readStepScales(Value scales, Value firstRow,
                                    int64_t numRows, Value firstBlock,
                                    Type schemeType);
  Value readZeroPoint(Value zeroPoints, Value n0, int64_t r, Value block);
  Value readLaneScales(Value scales, Value n0, Value firstBlock,
                       int64_t numBlocks, Type schemeType);
  Value readOuterScale(ValueRange parts);
  /// The index among the weight's lowered parts (data, scales, [zero points
  /// or mins], [outer scales, [outer mins]]) of the outer scales.
  unsigned outerScalesIndex() const {
    return plan.hasZeroPoints || plan.hasMins ? 3 : 2;
  }
  Value outerParameter(ValueRange parts, bool min, Value n0, int64_t r,
                       Value firstBlock);
  Value outerLaneParameters(ValueRange parts, bool min, Value n0,
                            Value firstBlock);
  SmallVector<Value>
  emitIntegerKStep(Value lhsData, Value lhsScales, Value lhsSums,
                   ValueRange parts, Value n0, Value m0, Value firstBlock,
                   ValueRange accumulators,
                   ArrayRef<SmallVector<Value>> exactSums = {});
  SmallVector<Value> decodeLaneCodeBytes(Value data, Value n0, Value chunk,
                                         bool highInPlace);
  void decodeAmxPanel(ValueRange parts, Value n0, Value panel);
  SmallVector<Value> emitAmxKStep(ValueRange lhs, ValueRange parts, Value n0,
                                  Value m0, Value firstBlock,
                                  ValueRange accumulators);
  Value emitAmxTile(ValueRange lhs, ValueRange parts, Value n0, Value tile,
                    Value first, Value last);
  Value sliceWeightTile(Value output, Value n0);
  Value
  emitWeightTileLoop(Value output, bool parallel,
                     function_ref<Value(Value n0, Value output)> emitTile);
  Value toReadOnlyBuffer(Value tensor, bool unitInnerStride = false);
  Value sumLanes(Value vector);

  void prefetchNextTile(Value n0, Value firstBlock);

  OpBuilder &b;
  Location loc;
  /// A copy: the rows left over with a dynamic M are emitted with tileM 1.
  KernelPlan plan;
  /// The weight's packed data as a read-only buffer, for prefetching.
  Value weightBuffer;
  /// Row-tiled weights: the scales and zero points as read-only buffers,
  /// for prefetching.
  SmallVector<Value> blockPartBuffers;
  /// Row-tiled weights: the blocked outer scales (and outer mins) as
  /// read-only buffers, for prefetching.
  SmallVector<Value> outerPartBuffers;
  /// M (the activation rows), a constant unless dynamic.
  Value numRows;
  /// With AMX: the activation codes as a buffer (tile loads read memory),
  /// and while a tile's AMX rows are emitted, its decoded weight panel and
  /// the buffer its block sums pass through.
  Value amxActivations, amxPanel, amxSums, amxScales;
  OpFoldResult getNumRows() { return getAsOpFoldResult(numRows); }
};

} // namespace

/// For 4-bit storage, the activations with each chunk of 32 reordered to
/// its even elements, then its odd ones: the order of the low and high
/// nibbles of the chunk's 16 packed bytes. Done once per call (M x K
/// floats), instead of interleaving every weight chunk.
Value KernelEmitter::deinterleaveActivations(Value lhs) {
  if (plan.storageBits != 4)
    return lhs;
  Type element = cast<RankedTensorType>(lhs.getType()).getElementType();
  auto chunkType = VectorType::get({kChunk}, element);
  SmallVector<int64_t> order;
  for (int64_t parity = 0; parity < 2; ++parity)
    for (int64_t l = 0; l < kLanes; ++l)
      order.push_back(2 * l + parity);
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>{getNumRows(), b.getIndexAttr(plan.k)},
      element);
  auto rowsLoop = scf::ForOp::create(
      b, loc, index(0), numRows, index(1), ValueRange{init},
      [&](OpBuilder &, Location, Value m, ValueRange rowIter) {
        auto chunksLoop = scf::ForOp::create(
            b, loc, index(0), index(plan.k), index(kChunk), rowIter,
            [&](OpBuilder &, Location, Value k, ValueRange chunkIter) {
              Value chunk = read(lhs, chunkType, {m, k});
              Value reordered =
                  vector::ShuffleOp::create(b, loc, chunk, chunk, order);
              Value written = vector::TransferWriteOp::create(
                                  b, loc, reordered, chunkIter[0],
                                  ValueRange{m, k}, ArrayRef<bool>{true})
                                  .getResult();
              scf::YieldOp::create(b, loc, written);
            });
        scf::YieldOp::create(b, loc, chunksLoop.getResults());
      });
  return rowsLoop.getResult(0);
}

/// The storage codes minus the zero point (null without one), as i32, of
/// the two halves of chunk `chunk` (an index, in chunks of 32 elements) of
/// weight row `row`: for 4-bit storage the low and high nibbles of the
/// chunk's 16 bytes (its even and odd elements), for 8-bit storage its
/// first and last 16 elements. `biased`: the codes plus 2^(w-1) for signed
/// storage instead (non-negative, which lets LLVM multiply them as 16-bit
/// integers, vpmaddwd instead of vpmulld), the zero point not subtracted.
std::pair<Value, Value> KernelEmitter::decodeChunkCodes(Value data, Value row,
                                                        Value chunk,
                                                        Value zeroPoint,
                                                        bool biased) {
  auto bytesType = VectorType::get({kLanes}, b.getI8Type());
  auto i32Type = VectorType::get({kLanes}, b.getI32Type());
  // Table lookups take the nibbles as they are (0..15).
  bool isSigned = plan.signedStorage && !biased && !plan.lookupCodes;
  auto load = [&](Value column) -> Value {
    Value bytes = read(data, bytesType, {row, column});
    if (biased && plan.signedStorage) {
      // q + 2^(w-1) of a two's-complement code is the code with its sign
      // bit flipped: 0x88 flips both nibbles' sign bits.
      int64_t flip = plan.storageBits == 4 ? 0x88 : 0x80;
      bytes = arith::XOrIOp::create(
          b, loc, bytes,
          arith::ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(bytesType,
                                     b.getIntegerAttr(b.getI8Type(), flip))));
    }
    if (isSigned)
      return arith::ExtSIOp::create(b, loc, i32Type, bytes);
    return arith::ExtUIOp::create(b, loc, i32Type, bytes);
  };
  Value first, second;
  if (plan.storageBits == 4) {
    Value bytes = load(mul(chunk, kLanes));
    if (isSigned) {
      first = arith::ShRSIOp::create(
          b, loc, arith::ShLIOp::create(b, loc, bytes, splatI32(28)),
          splatI32(28));
      second = arith::ShRSIOp::create(b, loc, bytes, splatI32(4));
    } else {
      first = arith::AndIOp::create(b, loc, bytes, splatI32(15));
      second = arith::ShRUIOp::create(b, loc, bytes, splatI32(4));
    }
  } else {
    Value offset = mul(chunk, kChunk);
    first = load(offset);
    second = load(add(offset, kLanes));
  }
  if (biased && plan.e2m1) {
    // Twice the E2M1 values, plus the bias that makes them non-negative.
    auto twiceBiased = [&](Value codes) -> Value {
      return arith::AddIOp::create(
          b, loc, mlir::quant_block::detail::emitE2M1TwiceValue(b, loc, codes),
          splatI32(kE2M1TwiceBias));
    };
    first = twiceBiased(first);
    second = twiceBiased(second);
  }
  if (zeroPoint) {
    first = arith::SubIOp::create(b, loc, first, zeroPoint);
    second = arith::SubIOp::create(b, loc, second, zeroPoint);
  }
  return {first, second};
}

/// Dequantized f32 weights rounded to the expressed type (f16 / bf16:
/// rounded once, to nearest even, and extended back exactly, as
/// quant_block.dequantize rounds them), for products in f32.
Value KernelEmitter::roundToExpressed(Value weights) {
  if (!plan.expressed || plan.expressed.isF32())
    return weights;
  auto type = cast<VectorType>(weights.getType());
  Value rounded =
      arith::TruncFOp::create(b, loc, type.clone(plan.expressed), weights);
  return arith::ExtFOp::create(b, loc, type, rounded);
}

/// 4-bit codes (nibbles in i32 lanes, 0..15) as their f32 values, by a
/// lookup in the table of the 16 values of the storage type: E2M1, or the
/// nibble as an unsigned or two's-complement integer. Exact.
Value KernelEmitter::lookUpCodes(Value nibbles) {
  float table[16];
  for (int code = 0; code < 16; ++code)
    table[code] = plan.e2m1            ? float(numerics::decodeFloat(
                                             numerics::FloatFormatKind::F4E2M1FN, code))
                  : plan.signedStorage ? float(code < 8 ? code : code - 16)
                                       : float(code);
  return buildTableLookup(b, loc, table, nibbles);
}

/// E2M1 codes (a vector<64xi8> of nibbles, 0..15) as twice their values
/// plus kE2M1TwiceBias (0..24), the unsigned bytes of an integer product,
/// by a 16-entry byte table lookup (vpshufb with
/// --quant-block-cpu-x86-table-lookups).
Value KernelEmitter::lookUpTwiceBiasedE2M1(Value nibbles) {
  int8_t table[16];
  for (int code = 0; code < 16; ++code)
    table[code] = int8_t(
        2 * numerics::decodeFloat(numerics::FloatFormatKind::F4E2M1FN, code) +
        kE2M1TwiceBias);
  return buildByteTableLookup(b, loc, table, nibbles);
}

/// E2M1 codes (in i32 lanes, 0..15) as f32, exactly, by integer
/// arithmetic: for a magnitude code m >= 2 (exponent e = m >> 1 >= 1,
/// mantissa m & 1) the f32 bits are (e + 126) << 23 | (m & 1) << 22 =
/// (m + 252) << 22; m = 1 is 0.5, m = 0 is 0; bit 3 is the sign.
Value KernelEmitter::decodeE2M1(Value codes) {
  auto i32Type = cast<VectorType>(codes.getType());
  auto splat = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i32Type, b.getI32IntegerAttr(value)));
  };
  Value magnitude = arith::AndIOp::create(b, loc, codes, splat(7));
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, codes, splat(8)), splat(28));
  Value normal = arith::ShLIOp::create(
      b, loc, arith::AddIOp::create(b, loc, magnitude, splat(252)), splat(22));
  Value isHalf = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       magnitude, splat(1));
  Value small =
      arith::SelectOp::create(b, loc, isHalf, splat(0x3F000000), splat(0));
  Value isSmall = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        magnitude, splat(2));
  Value bits = arith::OrIOp::create(
      b, loc, arith::SelectOp::create(b, loc, isSmall, small, normal), sign);
  return arith::BitcastOp::create(b, loc, i32Type.clone(b.getF32Type()), bits);
}

/// The two halves of a chunk (as decodeChunkCodes) dequantized as
/// quant_block.dequantize does: f32(q - zp) * scale, fma(f32(q), scale,
/// min) with mins, or for E2M1 codes the decoded value times the scale;
/// `scales` has a vector for each half.
std::pair<Value, Value>
KernelEmitter::decodeChunk(Value data, Value row, Value chunk,
                           std::pair<Value, Value> scales, Value zeroPoint,
                           Value min) {
  auto f32Type = VectorType::get({kLanes}, b.getF32Type());
  auto [first, second] = decodeChunkCodes(data, row, chunk, zeroPoint);
  auto dequantize = [&](Value code, Value scale) -> Value {
    Value value =
        plan.lookupCodes ? lookUpCodes(code)
        : plan.e2m1
            ? decodeE2M1(code)
            : arith::SIToFPOp::create(b, loc, f32Type, code).getResult();
    if (min)
      return roundToExpressed(
          math::FmaOp::create(b, loc, value, scale, min).getResult());
    return roundToExpressed(arith::MulFOp::create(b, loc, value, scale));
  };
  return {dequantize(first, scales.first), dequantize(second, scales.second)};
}

/// The sum of the lanes of `vector` in a fixed halving tree.
Value KernelEmitter::sumLanes(Value vector) {
  int64_t width = cast<VectorType>(vector.getType()).getNumElements();
  while (width > 1) {
    int64_t half = width / 2;
    Value low = vector::ExtractStridedSliceOp::create(
        b, loc, vector, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{half},
        ArrayRef<int64_t>{1});
    Value high = vector::ExtractStridedSliceOp::create(
        b, loc, vector, ArrayRef<int64_t>{half}, ArrayRef<int64_t>{half},
        ArrayRef<int64_t>{1});
    vector = arith::AddFOp::create(b, loc, low, high);
    width = half;
  }
  return vector::ExtractOp::create(b, loc, vector, ArrayRef<int64_t>{0});
}

/// A vector of block parameters as lowered (floats, or signless integers
/// of the scheme's integer type `schemeType`) converted exactly to f32
/// (--quant-block-expand-narrow-floats decodes E8M0 and E4M3 vectors as
/// dequantize decodes each scale).
Value KernelEmitter::parametersToF32(Value values, Type schemeType) {
  auto type = cast<VectorType>(values.getType());
  auto f32Type = type.clone(b.getF32Type());
  if (auto intType = dyn_cast<IntegerType>(schemeType)) {
    if (intType.isUnsigned())
      return arith::UIToFPOp::create(b, loc, f32Type, values);
    return arith::SIToFPOp::create(b, loc, f32Type, values);
  }
  if (type.getElementType().isF32())
    return values;
  return arith::ExtFOp::create(b, loc, f32Type, values);
}

/// The block parameters (scales, or mins, of scheme type `schemeType`) of
/// blocks [firstBlock, firstBlock + blocksPerStep) of rows [firstRow,
/// firstRow + numRows), one f32 vector per row, converted exactly.
SmallVector<Value> KernelEmitter::readStepScales(Value scales, Value firstRow,
                                                 int64_t numRows,
                                                 Value firstBlock,
                                                 Type schemeType) {
  Type scaleType = cast<RankedTensorType>(scales.getType()).getElementType();
  auto stepType = VectorType::get({plan.blocksPerStep}, scaleType);
  SmallVector<Value> result;
  for (int64_t r = 0; r < numRows; ++r)
    result.push_back(parametersToF32(
        read(scales, stepType, {add(firstRow, r), firstBlock}), schemeType));
  return result;
}

/// The outer scale (or with `min` the outer min) of weight row `n0 + r`
/// over block `firstBlock`, as an f32 scalar.
Value KernelEmitter::outerParameter(ValueRange parts, bool min, Value n0,
                                    int64_t r, Value firstBlock) {
  Value outer = parts[outerScalesIndex() + (min ? 1 : 0)];
  Value index =
      arith::DivUIOp::create(b, loc, firstBlock, this->index(plan.outerBlocks));
  Value value =
      tensor::ExtractOp::create(b, loc, outer, ValueRange{add(n0, r), index});
  if (value.getType().isF32())
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

/// The outer scales (or outer mins) of the tileN weight rows from `n0` over
/// block `firstBlock`, as one f32 vector.
Value KernelEmitter::outerLaneParameters(ValueRange parts, bool min, Value n0,
                                         Value firstBlock) {
  Value outer = parts[outerScalesIndex() + (min ? 1 : 0)];
  Value index =
      arith::DivUIOp::create(b, loc, firstBlock, this->index(plan.outerBlocks));
  return vector::ExtractOp::create(
      b, loc,
      readLaneScales(outer, n0, index, 1,
                     cast<RankedTensorType>(outer.getType()).getElementType()),
      ArrayRef<int64_t>{0});
}

/// The f32 scales of blocks [firstBlock, firstBlock + numBlocks) of the
/// tileN weight rows from `n0`, as [block][row]: one read, converted
/// exactly once (--quant-block-expand-narrow-floats decodes E8M0 and E4M3
/// vectors as dequantize decodes each scale).
Value KernelEmitter::readLaneScales(Value scales, Value n0, Value firstBlock,
                                    int64_t numBlocks, Type schemeType) {
  Type scaleType = cast<RankedTensorType>(scales.getType()).getElementType();
  auto laneType = VectorType::get({numBlocks, plan.tileN}, scaleType);
  Value result;
  if (plan.rowTiled) {
    // The tile's scales of each block are contiguous.
    result = read(scales, laneType, {tileOf(n0), firstBlock, index(0)});
  } else {
    result = read(scales, VectorType::get({plan.tileN, numBlocks}, scaleType),
                  {n0, firstBlock});
    result =
        numBlocks == 1
            ? vector::ShapeCastOp::create(b, loc, laneType, result).getResult()
            : vector::TransposeOp::create(b, loc, result,
                                          ArrayRef<int64_t>{1, 0})
                  .getResult();
  }
  return parametersToF32(result, schemeType);
}

/// The weight's per-tensor outer scale (its only element) in f32, or null
/// without one.
Value KernelEmitter::readOuterScale(ValueRange parts) {
  if (!plan.hasOuter)
    return {};
  Value outerScales = parts[outerScalesIndex()];
  SmallVector<Value> origin(
      cast<RankedTensorType>(outerScales.getType()).getRank(), index(0));
  Value outer = tensor::ExtractOp::create(b, loc, outerScales, origin);
  if (outer.getType().isF32())
    return outer;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), outer);
}

/// The zero point of `block` of weight row `n0 + r`, extended to i32 (read
/// as a scalar: sub-byte zero points are one per byte in memory, which
/// vector transfers would read bit-packed).
Value KernelEmitter::readZeroPoint(Value zeroPoints, Value n0, int64_t r,
                                   Value block) {
  SmallVector<Value> indices = {add(n0, r), block};
  if (plan.rowTiled)
    indices = {tileOf(n0), block, index(r)};
  Value zp = tensor::ExtractOp::create(b, loc, zeroPoints, indices);
  if (plan.signedZeroPoints)
    return arith::ExtSIOp::create(b, loc, b.getI32Type(), zp);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), zp);
}

/// Prefetches (into L2) the bytes that the next tile of weight rows will
/// read in this K step: the kernels stream the weight from DRAM once, and
/// the hardware prefetchers alone left the cold kernels at half the read
/// bandwidth. Rows past the last are clamped to it.
void KernelEmitter::prefetchNextTile(Value n0, Value firstBlock) {
  int64_t blockBytes = plan.blockSize * plan.storageBits / 8;
  int64_t stepBytes = plan.blocksPerStep * blockBytes;
  // A step of one huge block (per-channel scales: all of K) would issue all
  // of a row's prefetches at once, more than the line fill buffers take:
  // measured slower hot and cold, so such products go without.
  if (!weightBuffer || stepBytes > kMaxPrefetchBytesPerStep)
    return;
  Value start = mul(firstBlock, blockBytes);
  if (plan.rowTiled) {
    // The next tile's words of the step are contiguous: a line per word
    // index (the tile's 16 rows x 4 bytes), into L2. Measured (4096 x 4096
    // int4 x int8, cold, one thread, min of 20 calls, 3-4 runs each) against
    // prefetching the same stream 1, 2 or 4 KiB ahead (0.75-0.83,
    // 0.72-0.79, 0.77-0.79 ms against 0.70-0.74), 2 or 4 tiles ahead
    // (0.68-0.71, 0.69-0.72 against 0.64-0.72), into L1 (0.80-0.84), every
    // other line (0.82-0.87), none (0.94-0.97).
    Value nextTile = arith::MinUIOp::create(b, loc, add(tileOf(n0), 1),
                                            index(plan.n / kLanes - 1));
    Value firstWord = mul(firstBlock, blockBytes / 4);
    for (int64_t word = 0; word < stepBytes / 4; ++word)
      memref::PrefetchOp::create(
          b, loc, weightBuffer,
          ValueRange{nextTile, add(firstWord, word), index(0), index(0)},
          /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
    // The next tile's scales (and zero points) of the step: each block's
    // kLanes values are contiguous, a line holds those of 64 / (kLanes x
    // bytes) blocks. The hardware prefetchers restart on every 4 KiB page of
    // this second stream, a page per tile with f16 scales of 128 blocks.
    // Measured (4096 x 4096 int4 x int8, f16 scales, cold, the kernel
    // compiled ahead of time and called from C, alternating with the same
    // kernel without these prefetches in one process, 4 times, median over
    // 200 calls of the call's read ratio to a read pass right after it):
    // 0.884-0.899 against 0.859-0.874 with one thread; no different with
    // two. (Measured earlier as min of 20 calls, without a paired read, the
    // 1-3 % were lost in this VM's noise: 0.67-0.71 against 0.65-0.68 ms.)
    for (Value buffer : blockPartBuffers) {
      int64_t valueBytes = std::max<int64_t>(
          1, cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() / 8);
      int64_t blocksPerLine = std::max<int64_t>(1, 64 / (kLanes * valueBytes));
      for (int64_t block = 0; block < plan.blocksPerStep;
           block += blocksPerLine)
        memref::PrefetchOp::create(
            b, loc, buffer,
            ValueRange{nextTile, add(firstBlock, block), index(0)},
            /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
    }
    // The next tile's blocked outer scales (and outer mins) of the step.
    if (!outerPartBuffers.empty()) {
      Value outerBlock =
          arith::DivUIOp::create(b, loc, firstBlock, index(plan.outerBlocks));
      for (Value buffer : outerPartBuffers)
        memref::PrefetchOp::create(
            b, loc, buffer, ValueRange{nextTile, outerBlock, index(0)},
            /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
    }
    return;
  }
  Value lastRow = index(plan.n - 1);
  for (int64_t r = 0; r < plan.tileN; ++r) {
    Value row =
        arith::MinUIOp::create(b, loc, add(n0, plan.tileN + r), lastRow);
    for (int64_t offset = 0; offset < stepBytes; offset += 64)
      memref::PrefetchOp::create(b, loc, weightBuffer,
                                 ValueRange{row, add(start, offset)},
                                 /*isWrite=*/false, /*localityHint=*/2,
                                 /*isDataCache=*/true);
  }
}

/// One iteration of the K loop: `blocksPerStep` blocks starting at
/// `firstBlock`, for the tile at weight row `n0` and activation row `m0`.
/// `accumulators` holds tileM x tileN vectors, activation row major.
SmallVector<Value> KernelEmitter::emitKStep(Value lhs, ValueRange parts,
                                            Value n0, Value m0,
                                            Value firstBlock,
                                            ValueRange accumulators) {
  Value data = parts[0], scales = parts[1];
  Value zeroPoints = plan.hasZeroPoints ? parts[2] : Value();
  auto f32Vector = VectorType::get({kLanes}, b.getF32Type());
  SmallVector<Value> stepScales =
      readStepScales(scales, n0, plan.tileN, firstBlock, plan.scaleType);
  SmallVector<Value> stepMins;
  if (plan.hasMins)
    stepMins = readStepScales(parts[2], n0, plan.tileN, firstBlock,
                              plan.zeroPointType);
  if (plan.outerBlocks) {
    // The step's blocks share their outer parameters: s_eff = f32(scale) *
    // f32(outer) and m_eff = f32(zero point) * f32(outer min), each
    // rounded once (docs/Numerics.md).
    auto stepF32 = VectorType::get({plan.blocksPerStep}, b.getF32Type());
    for (int64_t r = 0; r < plan.tileN; ++r) {
      stepScales[r] = arith::MulFOp::create(
          b, loc, stepScales[r],
          vector::BroadcastOp::create(
              b, loc, stepF32,
              outerParameter(parts, /*min=*/false, n0, r, firstBlock)));
      if (plan.outerMins)
        stepMins[r] = arith::MulFOp::create(
            b, loc, stepMins[r],
            vector::BroadcastOp::create(
                b, loc, stepF32,
                outerParameter(parts, /*min=*/true, n0, r, firstBlock)));
    }
  }
  if (Value outer = readOuterScale(parts)) {
    // s_eff = f32(scale) * outer, rounded once (docs/Numerics.md).
    outer = vector::BroadcastOp::create(
        b, loc, cast<VectorType>(stepScales.front().getType()), outer);
    for (Value &s : stepScales)
      s = arith::MulFOp::create(b, loc, s, outer);
  }
  prefetchNextTile(n0, firstBlock);
  SmallVector<Value> acc(accumulators.begin(), accumulators.end());
  // The products of chunk `chunk` with the decoded weights of the tile's
  // rows, into the accumulators.
  auto accumulateChunk = [&](Value chunk,
                             ArrayRef<std::pair<Value, Value>> weights) {
    Value k0 = mul(chunk, kChunk);
    for (int64_t i = 0; i < plan.tileM; ++i) {
      Value m = add(m0, i);
      Value x0 = read(lhs, f32Vector, {m, k0});
      Value x1 = read(lhs, f32Vector, {m, add(k0, kLanes)});
      for (int64_t r = 0; r < plan.tileN; ++r) {
        Value &a = acc[i * plan.tileN + r];
        a = multiplyAdd(x0, weights[r].first, a);
        a = multiplyAdd(x1, weights[r].second, a);
      }
    }
  };
  if (plan.blockSize < kChunk) {
    // Blocks of 16 with 4-bit storage: both halves of chunk c (its even and
    // its odd elements) have block 2c in lanes 0-7 and block 2c + 1 in
    // lanes 8-15. With 8-bit storage the halves are the chunk's elements
    // 0-15 (block 2c) and 16-31 (block 2c + 1).
    Value firstChunk = arith::DivUIOp::create(b, loc, firstBlock, index(2));
    for (int64_t c = 0; c < plan.blocksPerStep / 2; ++c) {
      SmallVector<int64_t> lanes(kLanes / 2, 2 * c);
      lanes.append(kLanes / 2, 2 * c + 1);
      Value chunk = add(firstChunk, c);
      SmallVector<std::pair<Value, Value>> weights;
      for (int64_t r = 0; r < plan.tileN; ++r) {
        std::pair<Value, Value> scales;
        if (plan.storageBits == 8) {
          auto broadcastBlock = [&](int64_t j) -> Value {
            Value s = vector::ExtractOp::create(b, loc, stepScales[r],
                                                ArrayRef<int64_t>{j});
            return vector::BroadcastOp::create(b, loc, f32Vector, s);
          };
          scales = {broadcastBlock(2 * c), broadcastBlock(2 * c + 1)};
        } else {
          Value scale = vector::ShuffleOp::create(b, loc, stepScales[r],
                                                  stepScales[r], lanes);
          scales = {scale, scale};
        }
        weights.push_back(
            decodeChunk(data, add(n0, r), chunk, scales, Value()));
      }
      accumulateChunk(chunk, weights);
    }
    return acc;
  }
  int64_t chunksPerBlock = plan.blockSize / kChunk;
  for (int64_t j = 0; j < plan.blocksPerStep; ++j) {
    Value block = add(firstBlock, j);
    SmallVector<Value> scale, zeroPoint, min(plan.tileN);
    for (int64_t r = 0; r < plan.tileN; ++r) {
      Value s = vector::ExtractOp::create(b, loc, stepScales[r],
                                          ArrayRef<int64_t>{j});
      scale.push_back(vector::BroadcastOp::create(b, loc, f32Vector, s));
      if (plan.hasMins)
        min[r] = vector::BroadcastOp::create(
            b, loc, f32Vector,
            vector::ExtractOp::create(b, loc, stepMins[r],
                                      ArrayRef<int64_t>{j}));
      zeroPoint.push_back(
          zeroPoints ? vector::BroadcastOp::create(
                           b, loc, VectorType::get({kLanes}, b.getI32Type()),
                           readZeroPoint(zeroPoints, n0, r, block))
                     : Value());
    }
    auto addChunk = [&](Value chunk) {
      SmallVector<std::pair<Value, Value>> weights;
      for (int64_t r = 0; r < plan.tileN; ++r)
        weights.push_back(decodeChunk(data, add(n0, r), chunk,
                                      {scale[r], scale[r]}, zeroPoint[r],
                                      min[r]));
      accumulateChunk(chunk, weights);
    };
    Value firstChunk = mul(block, chunksPerBlock);
    if (chunksPerBlock <= kMaxUnrolledChunks) {
      for (int64_t c = 0; c < chunksPerBlock; ++c)
        addChunk(add(firstChunk, c));
      continue;
    }
    // Long blocks (per-channel: all of K) loop over groups of chunks
    // instead of unrolling them all; the order is the same.
    int64_t unroll = largestDivisor(chunksPerBlock, {8, 4, 2, 1});
    auto loop = scf::ForOp::create(
        b, loc, firstChunk, add(firstChunk, chunksPerBlock), index(unroll), acc,
        [&](OpBuilder &, Location, Value chunk, ValueRange iter) {
          acc.assign(iter.begin(), iter.end());
          for (int64_t c = 0; c < unroll; ++c)
            addChunk(add(chunk, c));
          scf::YieldOp::create(b, loc, acc);
        });
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  return acc;
}

/// The sums of each block of the activation codes `codes` ([M, K] i8), as
/// an [M, KB] i32 tensor: with them, a block sum of the codes times the
/// biased weight codes becomes the block sum of the centered codes.
Value KernelEmitter::sumActivationBlocks(Value codes) {
  auto blockType = VectorType::get({plan.blockSize}, b.getI8Type());
  auto wideType = VectorType::get({plan.blockSize}, b.getI32Type());
  Value init = tensor::EmptyOp::create(
      b, loc,
      ArrayRef<OpFoldResult>{getNumRows(), b.getIndexAttr(plan.numBlocks)},
      b.getI32Type());
  auto rowsLoop = scf::ForOp::create(
      b, loc, index(0), numRows, index(1), ValueRange{init},
      [&](OpBuilder &, Location, Value m, ValueRange rowIter) {
        auto blocksLoop = scf::ForOp::create(
            b, loc, index(0), index(plan.numBlocks), index(1), rowIter,
            [&](OpBuilder &, Location, Value block, ValueRange blockIter) {
              Value wide = arith::ExtSIOp::create(
                  b, loc, wideType,
                  read(codes, blockType, {m, mul(block, plan.blockSize)}));
              Value sum = vector::ReductionOp::create(
                  b, loc, vector::CombiningKind::ADD, wide);
              Value written = tensor::InsertOp::create(
                  b, loc, sum, blockIter[0], ValueRange{m, block});
              scf::YieldOp::create(b, loc, written);
            });
        scf::YieldOp::create(b, loc, blocksLoop.getResults());
      });
  return rowsLoop.getResult(0);
}

/// What biased weight codes add to the stored ones (0 for unsigned
/// storage; for E2M1, 12 to twice the code's value), as an i32 constant.
Value KernelEmitter::getBias() const {
  int64_t bias = plan.e2m1            ? kE2M1TwiceBias
                 : plan.signedStorage ? int64_t(1) << (plan.storageBits - 1)
                                      : 0;
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(bias));
}

/// The lane sums of `sums` (16-lane i32 vectors, one per weight row of the
/// tile, each made of `groups` contiguous groups of lanes, one per block)
/// as one vector with a lane per (row, group), row-major. Integer sums are
/// exact in any order; for a power-of-two count the vectors are added
/// pairwise with their halves interleaved (a transposed tree), fewer
/// operations than one horizontal sum each.
Value KernelEmitter::sumRows(ArrayRef<Value> sums, int64_t groups) {
  int64_t rows = sums.size();
  auto rowType = VectorType::get({rows * groups}, b.getI32Type());
  if (rows == 1 || !llvm::isPowerOf2_64(rows) || rows * groups > kLanes) {
    int64_t group = kLanes / groups;
    SmallVector<Value> scalars;
    for (Value sum : sums)
      for (int64_t g = 0; g < groups; ++g) {
        Value part = sum;
        if (groups > 1)
          part = vector::ExtractStridedSliceOp::create(
              b, loc, sum, ArrayRef<int64_t>{g * group},
              ArrayRef<int64_t>{group}, ArrayRef<int64_t>{1});
        scalars.push_back(vector::ReductionOp::create(
            b, loc, vector::CombiningKind::ADD, part));
      }
    return vector::FromElementsOp::create(b, loc, rowType, scalars);
  }
  // Each vector holds `groups` groups of `kLanes / groups` lanes.
  SmallVector<Value> level(sums.begin(), sums.end());
  while (level.size() > 1) {
    int64_t group = kLanes / groups, half = group / 2;
    SmallVector<int64_t> low, high;
    for (int64_t source = 0; source < 2; ++source)
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t t = 0; t < half; ++t) {
          low.push_back(source * kLanes + g * group + t);
          high.push_back(source * kLanes + g * group + half + t);
        }
    SmallVector<Value> next;
    for (size_t i = 0; i < level.size(); i += 2) {
      Value l = vector::ShuffleOp::create(b, loc, level[i], level[i + 1], low);
      Value h = vector::ShuffleOp::create(b, loc, level[i], level[i + 1], high);
      next.push_back(arith::AddIOp::create(b, loc, l, h));
    }
    level = std::move(next);
    groups *= 2;
  }
  // One vector of `groups` groups: halve them down to one lane each.
  Value v = level[0];
  int64_t width = kLanes;
  while (width > groups) {
    int64_t group = width / groups, half = group / 2;
    SmallVector<int64_t> low, high;
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t t = 0; t < half; ++t) {
        low.push_back(g * group + t);
        high.push_back(g * group + half + t);
      }
    Value l = vector::ShuffleOp::create(b, loc, v, v, low);
    Value h = vector::ShuffleOp::create(b, loc, v, v, high);
    v = arith::AddIOp::create(b, loc, l, h);
    width /= 2;
  }
  return v;
}

/// The biased block sums of one K step: for block j of the step and
/// activation row i, sum(x * (q + bias)) of each weight row of the tile, as
/// a vector with a lane per row ([j][i]).
SmallVector<SmallVector<Value>>
KernelEmitter::emitBiasedBlockSums(Value lhsData, Value data, Value n0,
                                   Value m0, Value firstBlock) {
  if (plan.rowLanes)
    return emitRowLaneBlockSums(lhsData, data, n0, m0, firstBlock);
  auto i32Vector = VectorType::get({kLanes}, b.getI32Type());
  auto bytesType = VectorType::get({kLanes}, b.getI8Type());
  Value zeroSum = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(i32Vector, b.getI32IntegerAttr(0)));
  SmallVector<SmallVector<Value>> result(plan.blocksPerStep);
  if (plan.vnni) {
    // 64 code products per vpdpbusd: the biased weight codes (unsigned
    // bytes) times the activation codes (signed bytes), 4 per i32 lane.
    auto wideBytes = VectorType::get({2 * kChunk}, b.getI8Type());
    auto pairBytes = VectorType::get({kChunk}, b.getI8Type());
    auto decodePair = [&](Value row, Value pair) -> Value {
      if (plan.storageBits == 8) {
        Value bytes = read(data, wideBytes, {row, mul(pair, 2 * kChunk)});
        if (plan.signedStorage)
          bytes = arith::XOrIOp::create(
              b, loc, bytes,
              arith::ConstantOp::create(
                  b, loc,
                  DenseElementsAttr::get(
                      wideBytes, b.getIntegerAttr(b.getI8Type(), 0x80))));
        return bytes;
      }
      // The 32 bytes of two chunks; each chunk's low nibbles (its even
      // elements), then its high nibbles (odd elements), as the
      // activations are de-interleaved.
      Value bytes = read(data, pairBytes, {row, mul(pair, kChunk)});
      auto splat = [&](int64_t value) -> Value {
        return arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(pairBytes,
                                   b.getIntegerAttr(b.getI8Type(), value)));
      };
      if (plan.signedStorage)
        bytes = arith::XOrIOp::create(b, loc, bytes, splat(0x88));
      Value low = arith::AndIOp::create(b, loc, bytes, splat(15));
      Value high = arith::ShRUIOp::create(b, loc, bytes, splat(4));
      SmallVector<int64_t> order;
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t half = 0; half < 2; ++half)
          for (int64_t l = 0; l < kLanes; ++l)
            order.push_back(half * kChunk + c * kLanes + l);
      return vector::ShuffleOp::create(b, loc, low, high, order);
    };
    // acc[l] += sum over t < 4 of zext(w[4l + t]) * sext(x[4l + t]): the
    // semantics of vpdpbusd, as a vector.contract that
    // --quant-block-cpu-x86-dot-products turns into the instruction after
    // bufferization (llvm.call_intrinsic has unknown memory effects, which
    // buffer deallocation refuses).
    auto dot = [&](Value acc, Value weights, Value activations) -> Value {
      return buildUnsignedBySignedDot(b, loc, acc, weights, activations);
    };
    // The tile's weight rows, and one activation row, of a pair of chunks.
    auto decodeRows = [&](Value pair) {
      SmallVector<Value> weights;
      for (int64_t r = 0; r < plan.tileN; ++r)
        weights.push_back(decodePair(add(n0, r), pair));
      return weights;
    };
    auto readActivations = [&](int64_t i, Value pair) {
      return read(lhsData, wideBytes, {add(m0, i), mul(pair, 2 * kChunk)});
    };
    int64_t chunksPerBlock = plan.blockSize / kChunk;
    if (chunksPerBlock == 1) {
      // A pair of chunks is two blocks: lanes 0-7 and 8-15.
      for (int64_t j = 0; j < plan.blocksPerStep; j += 2) {
        Value pair =
            arith::DivUIOp::create(b, loc, add(firstBlock, j), index(2));
        SmallVector<Value> weights = decodeRows(pair);
        for (int64_t i = 0; i < plan.tileM; ++i) {
          Value x = readActivations(i, pair);
          SmallVector<Value> sums;
          for (int64_t r = 0; r < plan.tileN; ++r)
            sums.push_back(dot(zeroSum, weights[r], x));
          Value both = sumRows(sums, 2);
          for (int64_t g = 0; g < 2; ++g) {
            SmallVector<int64_t> lanes;
            for (int64_t r = 0; r < plan.tileN; ++r)
              lanes.push_back(r * 2 + g);
            result[j + g].push_back(
                vector::ShuffleOp::create(b, loc, both, both, lanes));
          }
        }
      }
      return result;
    }
    int64_t pairsPerBlock = chunksPerBlock / 2;
    for (int64_t j = 0; j < plan.blocksPerStep; ++j) {
      SmallVector<Value> sums(plan.tileM * plan.tileN, zeroSum);
      for (int64_t p = 0; p < pairsPerBlock; ++p) {
        Value pair = add(mul(add(firstBlock, j), pairsPerBlock), p);
        SmallVector<Value> weights = decodeRows(pair);
        for (int64_t i = 0; i < plan.tileM; ++i) {
          Value x = readActivations(i, pair);
          for (int64_t r = 0; r < plan.tileN; ++r) {
            Value &sum = sums[i * plan.tileN + r];
            sum = dot(sum, weights[r], x);
          }
        }
      }
      for (int64_t i = 0; i < plan.tileM; ++i)
        result[j].push_back(
            sumRows(ArrayRef(sums).slice(i * plan.tileN, plan.tileN), 1));
    }
    return result;
  }
  int64_t chunksPerBlock = plan.blockSize / kChunk;
  for (int64_t j = 0; j < plan.blocksPerStep; ++j) {
    Value block = add(firstBlock, j);
    SmallVector<Value> sums(plan.tileM * plan.tileN, zeroSum);
    for (int64_t c = 0; c < chunksPerBlock; ++c) {
      Value chunk = add(mul(block, chunksPerBlock), c);
      SmallVector<std::pair<Value, Value>> codes;
      for (int64_t r = 0; r < plan.tileN; ++r)
        codes.push_back(decodeChunkCodes(data, add(n0, r), chunk, Value(),
                                         /*biased=*/true));
      Value k0 = mul(chunk, kChunk);
      for (int64_t i = 0; i < plan.tileM; ++i) {
        Value m = add(m0, i);
        Value x0 = arith::ExtSIOp::create(b, loc, i32Vector,
                                          read(lhsData, bytesType, {m, k0}));
        Value x1 = arith::ExtSIOp::create(
            b, loc, i32Vector, read(lhsData, bytesType, {m, add(k0, kLanes)}));
        for (int64_t r = 0; r < plan.tileN; ++r) {
          Value &sum = sums[i * plan.tileN + r];
          sum = arith::AddIOp::create(
              b, loc, sum, arith::MulIOp::create(b, loc, x0, codes[r].first));
          sum = arith::AddIOp::create(
              b, loc, sum, arith::MulIOp::create(b, loc, x1, codes[r].second));
        }
      }
    }
    for (int64_t i = 0; i < plan.tileM; ++i)
      result[j].push_back(
          sumRows(ArrayRef(sums).slice(i * plan.tileN, plan.tileN), 1));
  }
  return result;
}

/// The biased codes of chunk `chunk` (32 elements) of the 16 weight rows
/// from `n0`, as 8 vectors of 4 bytes per lane (one weight row per lane),
/// in the order of the chunk's positions / 4 (the activations' order:
/// de-interleaved for 4 bits): the codes plus 2^(w-1) for signed storage
/// (getBias), E2M1 codes as twice their value plus 12. `highInPlace`
/// (4-bit integer codes): vectors 4-7 hold the high nibbles where they are
/// (16 x the biased code).
SmallVector<Value> KernelEmitter::decodeLaneCodeBytes(Value data, Value n0,
                                                      Value chunk,
                                                      bool highInPlace) {
  auto dotBytes = VectorType::get({4 * kLanes}, b.getI8Type());
  Value columns = readLaneWords(data, n0, chunk);
  auto columnsType = cast<VectorType>(columns.getType());
  // The codes plus 2^(w-1) (signed storage): every code's sign bit
  // flipped, after the mask for 4-bit codes (one vpternlogd with it).
  auto flipSigns = [&](Value codeBytes, uint32_t flip) {
    if (!plan.signedStorage)
      return codeBytes;
    return arith::XOrIOp::create(b, loc, codeBytes, splatI32(int32_t(flip)))
        .getResult();
  };
  // Byte vectors of 4 codes per lane, in the order of the chunk's
  // positions / 4 (the activations' order: de-interleaved for 4 bits).
  SmallVector<Value> codes(8);
  for (int64_t d = 0; d < columnsType.getNumElements() / kLanes; ++d) {
    Value column = vector::ExtractStridedSliceOp::create(
        b, loc, columns, ArrayRef<int64_t>{d * kLanes},
        ArrayRef<int64_t>{kLanes}, ArrayRef<int64_t>{1});
    if (plan.storageBits == 8) {
      codes[d] = vector::BitCastOp::create(b, loc, dotBytes,
                                           flipSigns(column, 0x80808080u));
      continue;
    }
    // Nibbles (0..15 per byte) as the bytes of the dot product: E2M1
    // codes looked up as twice their value plus 12 (vpshufb), integer
    // codes with their sign bits flipped.
    auto nibbleBytes = [&](Value nibbles) -> Value {
      Value bytes = vector::BitCastOp::create(b, loc, dotBytes,
                                              flipSigns(nibbles, 0x08080808u));
      return plan.e2m1 ? lookUpTwiceBiasedE2M1(bytes) : bytes;
    };
    Value low = arith::AndIOp::create(b, loc, column, splatI32(0x0F0F0F0F));
    codes[d] = nibbleBytes(low);
    if (highInPlace) {
      Value high =
          arith::AndIOp::create(b, loc, column, splatI32(int32_t(0xF0F0F0F0u)));
      codes[4 + d] = vector::BitCastOp::create(b, loc, dotBytes,
                                               flipSigns(high, 0x80808080u));
      continue;
    }
    Value high = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, column, splatI32(4)),
        splatI32(0x0F0F0F0F));
    codes[4 + d] = nibbleBytes(high);
  }
  return codes;
}

/// The biased block sums of one K step (as emitBiasedBlockSums) with one
/// weight row per lane: per chunk, the 16 rows' packed bytes are read as
/// dwords and transposed (dword d of every row in one vector). With 8-bit
/// storage dword d holds the codes at positions 4d..4d+3; with 4-bit
/// storage its nibbles are split, which in the activations' de-interleaved
/// order are the codes at positions 4d..4d+3 (low nibbles) and
/// 16+4d..16+4d+3 (high nibbles) of the chunk. Each activation row's four
/// codes at those positions are broadcast to every lane, and one byte dot
/// product per 4 positions adds them to the row's lanes.
SmallVector<SmallVector<Value>>
KernelEmitter::emitRowLaneBlockSums(Value lhsData, Value data, Value n0,
                                    Value m0, Value firstBlock) {
  auto groupBytes = VectorType::get({4}, b.getI8Type());
  auto laneGroups = VectorType::get({kLanes, 4}, b.getI8Type());
  auto dotBytes = VectorType::get({4 * kLanes}, b.getI8Type());
  Value zeroSum = splatI32(0);
  int64_t chunksPerBlock = plan.blockSize / kChunk;
  // 4-bit codes in short blocks: the high nibbles multiplied where they are
  // (16 x the code, masked, no shift), into partial sums of their own that
  // are divided by 16 once per block (exact: a sum of multiples of 16).
  // Saves a shift per 16 words, instructions that only port 0 runs, as it
  // runs vpdpbusd (llvm-mca, Sapphire Rapids, the tiled 4096 x 4096 GEMV's
  // K step: 33 -> 29 cycles). The high products are 16x larger: a block's
  // sum of them is at most B / 2 * 240 * 128 in magnitude, within i32 for
  // B < 139810; blocks of at most 64 are far from it.
  bool highInPlace = plan.storageBits == 4 && chunksPerBlock <= 2 && !plan.e2m1;
  // Independent partial sums per activation row, added at the end of the
  // block (i32: exact in any order): one chain of 8 dependent vpdpbusd per
  // chunk would leave the kernel waiting on their latency when few rows
  // share the weight loads. With highInPlace, the first half of them takes
  // the low nibbles' products, the second half the high ones'.
  int64_t partials = std::max<int64_t>(4 / plan.tileM, highInPlace ? 2 : 1);
  // Blocks of 16: a chunk holds two blocks. E2M1 codes: words 0-1 and 2-3,
  // so the groups of 4 positions g and g + 4 (low and high nibbles of word
  // g) add to block (g % 4) / 2; 8-bit codes: words 0-3 and 4-7, group g to
  // block g / 4. One partial sum per block.
  bool halfChunk = plan.blockSize < kChunk;
  if (halfChunk)
    partials = 2;
  SmallVector<SmallVector<Value>> result(plan.blocksPerStep);
  // The products of chunk `chunk` added to `sums` (row i's partial p at
  // i * partials + p).
  auto addChunk = [&](Value chunk, SmallVector<Value> &sums) {
    SmallVector<Value> codes =
        decodeLaneCodeBytes(data, n0, chunk, highInPlace);
    Value k0 = mul(chunk, kChunk);
    for (int64_t i = 0; i < plan.tileM; ++i) {
      Value m = add(m0, i);
      for (int64_t g = 0; g < 8; ++g) {
        Value x = read(lhsData, groupBytes, {m, add(k0, 4 * g)});
        x = vector::ShapeCastOp::create(
            b, loc, dotBytes,
            vector::BroadcastOp::create(b, loc, laneGroups, x));
        int64_t partial = g % partials;
        if (highInPlace)
          partial = g / 4 * (partials / 2) + g % (partials / 2);
        if (halfChunk)
          partial = plan.storageBits == 8 ? g / 4 : (g % 4) / 2;
        Value &sum = sums[i * partials + partial];
        sum = buildUnsignedBySignedDot(b, loc, sum, codes[g], x);
      }
    }
  };
  if (halfChunk) {
    Value firstChunk = arith::DivUIOp::create(b, loc, firstBlock, index(2));
    for (int64_t c = 0; c < plan.blocksPerStep / 2; ++c) {
      SmallVector<Value> sums(plan.tileM * partials, zeroSum);
      addChunk(add(firstChunk, c), sums);
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t i = 0; i < plan.tileM; ++i)
          result[2 * c + half].push_back(sums[i * partials + half]);
    }
    return result;
  }
  for (int64_t j = 0; j < plan.blocksPerStep; ++j) {
    SmallVector<Value> sums(plan.tileM * partials, zeroSum);
    Value firstChunk = mul(add(firstBlock, j), chunksPerBlock);
    if (chunksPerBlock <= 2) {
      for (int64_t c = 0; c < chunksPerBlock; ++c)
        addChunk(add(firstChunk, c), sums);
    } else {
      // Long blocks (per-channel: all of K) in a loop, not unrolled.
      auto loop = scf::ForOp::create(
          b, loc, firstChunk, add(firstChunk, chunksPerBlock), index(1), sums,
          [&](OpBuilder &, Location, Value chunk, ValueRange iter) {
            SmallVector<Value> chunkSums(iter.begin(), iter.end());
            addChunk(chunk, chunkSums);
            scf::YieldOp::create(b, loc, chunkSums);
          });
      sums.assign(loop.getResults().begin(), loop.getResults().end());
    }
    // Pairwise: (p0 + p1) + (p2 + p3).
    auto addPairwise = [&](ArrayRef<Value> partialSums) {
      SmallVector<Value> level(partialSums.begin(), partialSums.end());
      while (level.size() > 1) {
        SmallVector<Value> halves;
        for (size_t p = 0; p + 1 < level.size(); p += 2)
          halves.push_back(
              arith::AddIOp::create(b, loc, level[p], level[p + 1]));
        level = std::move(halves);
      }
      return level.front();
    };
    for (int64_t i = 0; i < plan.tileM; ++i) {
      ArrayRef<Value> row = ArrayRef(sums).slice(i * partials, partials);
      if (!highInPlace) {
        result[j].push_back(addPairwise(row));
        continue;
      }
      Value high = arith::ShRSIOp::create(
          b, loc, addPairwise(row.drop_front(partials / 2)), splatI32(4));
      result[j].push_back(arith::AddIOp::create(
          b, loc, addPairwise(row.take_front(partials / 2)), high));
    }
  }
  return result;
}

/// One iteration of the K loop of an accumulate(i32) product: for each
/// block, the exact i32 block sums of the tile (emitBiasedBlockSums, minus
/// (bias + zero point) times the activation block sum), then, with one lane
/// per weight row, `acc += f32(isum) * (f32(lhs scale) * f32(weight
/// scale))` in block order (docs/Numerics.md). `accumulators` holds tileM
/// vectors of tileN lanes. `exactSums` ([j][i], from AMX tiles): the block
/// sums of the centered codes already, nothing to subtract.
SmallVector<Value>
KernelEmitter::emitIntegerKStep(Value lhsData, Value lhsScales, Value lhsSums,
                                ValueRange parts, Value n0, Value m0,
                                Value firstBlock, ValueRange accumulators,
                                ArrayRef<SmallVector<Value>> exactSums) {
  bool exact = !exactSums.empty();
  Value data = parts[0], scales = parts[1];
  Value zeroPoints = plan.hasZeroPoints && !exact ? parts[2] : Value();
  auto rowF32 = VectorType::get({plan.tileN}, b.getF32Type());
  auto rowI32 = VectorType::get({plan.tileN}, b.getI32Type());
  // With AMX the tile's scales were converted once, with its panel.
  Value stepScales = exact ? Value()
                           : readLaneScales(scales, n0, firstBlock,
                                            plan.blocksPerStep, plan.scaleType);
  Value outer = readOuterScale(parts);
  // Two-level scales (the AMX panel's are converted with it) and mins:
  // the step's blocks share one outer scale and outer min.
  Value outerScales =
      plan.outerBlocks && !exact
          ? outerLaneParameters(parts, /*min=*/false, n0, firstBlock)
          : Value();
  Value stepMins;
  Value outerMins =
      plan.outerMins ? outerLaneParameters(parts, /*min=*/true, n0, firstBlock)
                     : Value();
  if (plan.hasMins)
    stepMins = readLaneScales(parts[2], n0, firstBlock, plan.blocksPerStep,
                              plan.zeroPointType);
  SmallVector<Value> activationScales =
      readStepScales(lhsScales, m0, plan.tileM, firstBlock,
                     getElementTypeOrSelf(lhsScales.getType()));
  Value bias = getBias();
  SmallVector<Value> acc(accumulators.begin(), accumulators.end());
  SmallVector<SmallVector<Value>> biasedSums;
  if (!exact) {
    biasedSums = emitBiasedBlockSums(lhsData, data, n0, m0, firstBlock);
    prefetchNextTile(n0, firstBlock);
  }
  for (int64_t j = 0; j < plan.blocksPerStep; ++j) {
    Value block = add(firstBlock, j);
    // bias + zero point of each row, the multiplier of the activation
    // block sum that the biased product over-counts.
    Value offsets = vector::BroadcastOp::create(b, loc, rowI32, bias);
    if (zeroPoints) {
      SmallVector<Value> points;
      for (int64_t r = 0; r < plan.tileN; ++r)
        points.push_back(readZeroPoint(zeroPoints, n0, r, block));
      offsets = arith::AddIOp::create(
          b, loc, offsets,
          vector::FromElementsOp::create(b, loc, rowI32, points));
    }
    Value rowScales = exact
                          ? vector::LoadOp::create(b, loc, rowF32, amxScales,
                                                   ValueRange{block, index(0)})
                                .getResult()
                          : vector::ExtractOp::create(b, loc, stepScales,
                                                      ArrayRef<int64_t>{j})
                                .getResult();
    // s_eff = f32(scale) * outer, rounded once (NVFP4; docs/Numerics.md).
    if (outer)
      rowScales = arith::MulFOp::create(
          b, loc, rowScales,
          vector::BroadcastOp::create(b, loc, rowF32, outer));
    if (outerScales)
      rowScales = arith::MulFOp::create(b, loc, rowScales, outerScales);
    // m_eff = f32(zero point) * f32(outer min), rounded once.
    Value rowMins;
    if (stepMins) {
      rowMins =
          vector::ExtractOp::create(b, loc, stepMins, ArrayRef<int64_t>{j});
      if (outerMins)
        rowMins = arith::MulFOp::create(b, loc, rowMins, outerMins);
    }
    for (int64_t i = 0; i < plan.tileM; ++i) {
      Value blockSums;
      if (exact) {
        blockSums = exactSums[j][i];
      } else {
        Value activationSum = vector::BroadcastOp::create(
            b, loc, rowI32,
            tensor::ExtractOp::create(b, loc, lhsSums,
                                      ValueRange{add(m0, i), block}));
        blockSums = arith::SubIOp::create(
            b, loc, biasedSums[j][i],
            arith::MulIOp::create(b, loc, offsets, activationSum));
      }
      Value blockSumsF32 = mlir::quant_block::detail::emitBlockSumToF32(
          b, loc, blockSums, plan.e2m1);
      Value activationScale = vector::BroadcastOp::create(
          b, loc, rowF32,
          vector::ExtractOp::create(b, loc, activationScales[i],
                                    ArrayRef<int64_t>{j}));
      Value scale = arith::MulFOp::create(b, loc, activationScale, rowScales);
      acc[i] = multiplyAdd(blockSumsF32, scale, acc[i]);
      // The mins' term: the activation codes' block sum times f32(activation
      // scale) * m_eff, after the block's sum (docs/Numerics.md).
      if (rowMins) {
        Value activationSum = arith::SIToFPOp::create(
            b, loc, b.getF32Type(),
            tensor::ExtractOp::create(b, loc, lhsSums,
                                      ValueRange{add(m0, i), block}));
        Value minScale =
            arith::MulFOp::create(b, loc, activationScale, rowMins);
        acc[i] = multiplyAdd(
            vector::BroadcastOp::create(b, loc, rowF32, activationSum),
            minScale, acc[i]);
      }
    }
  }
  return acc;
}

/// Decodes the 16 weight rows from `n0` into `panel` ([K / 4, 64] bytes),
/// the layout of an AMX rhs tile: row r holds, for each weight row n (64
/// bytes = 16 rows of 4), its codes at the 4 positions 4r..4r+3 of K in the
/// activations' order (de-interleaved for 4 bits), each the exact signed
/// integer q - zero point (2 x the value for E2M1): the biased bytes of
/// decodeLaneCodeBytes minus (bias + zero point), in i8 lanes (4-bit codes
/// and their zero points stay within [-15, 15]; unsigned 8-bit codes, which
/// have no zero point here, stay as they are and are multiplied unsigned).
/// Done once per weight-row tile, for every activation tile of the call,
/// as is the conversion of the rows' scales to f32 ([block][row], in
/// amxScales).
void KernelEmitter::decodeAmxPanel(ValueRange parts, Value n0, Value panel) {
  Value data = parts[0];
  Value zeroPoints = plan.hasZeroPoints ? parts[2] : Value();
  auto dotBytes = VectorType::get({4 * kLanes}, b.getI8Type());
  auto rowI32 = VectorType::get({kLanes}, b.getI32Type());
  int64_t chunksPerBlock = std::max<int64_t>(plan.blockSize / kChunk, 1);
  Value bias = getBias();
  scf::ForOp::create(
      b, loc, index(0), index(plan.k / kChunk), index(1), ValueRange{},
      [&](OpBuilder &, Location, Value chunk, ValueRange) {
        SmallVector<Value> codes =
            decodeLaneCodeBytes(data, n0, chunk, /*highInPlace=*/false);
        // (bias + zero point) of each row, in every byte of its lane.
        Value offsets = vector::BroadcastOp::create(b, loc, rowI32, bias);
        if (zeroPoints) {
          Value block =
              arith::DivUIOp::create(b, loc, chunk, index(chunksPerBlock));
          SmallVector<Value> points;
          for (int64_t r = 0; r < kLanes; ++r)
            points.push_back(readZeroPoint(zeroPoints, n0, r, block));
          offsets = arith::AddIOp::create(
              b, loc, offsets,
              vector::FromElementsOp::create(b, loc, rowI32, points));
        }
        offsets = vector::BitCastOp::create(
            b, loc, dotBytes,
            arith::MulIOp::create(b, loc, offsets, splatI32(0x01010101)));
        for (int64_t g = 0; g < 8; ++g) {
          Value centered = arith::SubIOp::create(b, loc, codes[g], offsets);
          vector::StoreOp::create(b, loc, centered, panel,
                                  ValueRange{add(mul(chunk, 8), g), index(0)});
        }
        scf::YieldOp::create(b, loc);
      });
  auto rowF32 = VectorType::get({kLanes}, b.getF32Type());
  scf::ForOp::create(
      b, loc, index(0), index(plan.numBlocks), index(1), ValueRange{},
      [&](OpBuilder &, Location, Value block, ValueRange) {
        Value rowScales = vector::ShapeCastOp::create(
            b, loc, rowF32,
            readLaneScales(parts[1], n0, block, 1, plan.scaleType));
        // s_eff = f32(scale) * f32(outer), rounded once.
        if (plan.outerBlocks)
          rowScales = arith::MulFOp::create(
              b, loc, rowScales,
              outerLaneParameters(parts, /*min=*/false, n0, block));
        vector::StoreOp::create(b, loc, rowScales, amxScales,
                                ValueRange{block, index(0)});
        scf::YieldOp::create(b, loc);
      });
}

/// One iteration of the K loop with AMX tiles, for the kAmxRows activation
/// rows from `m0`: each block's 16 x 16 exact i32 sums by tdpbssd (tdpbsud
/// for unsigned 8-bit codes) of the activation codes (read in place, a row
/// stride of K) and the decoded panel (amxPanel), K = 16, 32 or 64 per
/// instruction, stored to amxSums and read back a row of 16 weight rows at a
/// time; then the f32 accumulation of emitIntegerKStep, in the same order.
SmallVector<Value> KernelEmitter::emitAmxKStep(ValueRange lhs, ValueRange parts,
                                               Value n0, Value m0,
                                               Value firstBlock,
                                               ValueRange accumulators) {
  int64_t depth = plan.blockSize % 64 == 0   ? 64
                  : plan.blockSize % 32 == 0 ? 32
                                             : 16;
  auto lhsTile = amx::TileType::get({kAmxRows, depth}, b.getI8Type());
  auto rhsTile = amx::TileType::get({depth / 4, 4 * kLanes}, b.getI8Type());
  auto sumTile = amx::TileType::get({kAmxRows, kLanes}, b.getI32Type());
  auto rowI32 = VectorType::get({kLanes}, b.getI32Type());
  bool unsignedWeights = plan.storageBits == 8 && !plan.signedStorage;
  // Every block's tile first, then their stores: the blocks' sums are
  // independent tile registers (blocksPerStep + 2 of the 8), so the tile
  // unit overlaps them instead of waiting for each store to drain.
  SmallVector<Value> tiles;
  for (int64_t j = 0; j < plan.blocksPerStep; ++j) {
    Value k0 = mul(add(firstBlock, j), plan.blockSize);
    Value tile = amx::TileZeroOp::create(b, loc, sumTile);
    for (int64_t d = 0; d < plan.blockSize / depth; ++d) {
      Value k = add(k0, d * depth);
      Value x = amx::TileLoadOp::create(b, loc, lhsTile, amxActivations,
                                        ValueRange{m0, k});
      Value w = amx::TileLoadOp::create(
          b, loc, rhsTile, amxPanel,
          ValueRange{arith::DivUIOp::create(b, loc, k, index(4)), index(0)});
      tile = amx::TileMulIOp::create(b, loc, sumTile, x, w, tile,
                                     /*isZextLhs=*/false,
                                     /*isZextRhs=*/unsignedWeights);
    }
    tiles.push_back(tile);
  }
  for (int64_t j = 0; j < plan.blocksPerStep; ++j)
    amx::TileStoreOp::create(
        b, loc, amxSums, ValueRange{index(j * kAmxRows), index(0)}, tiles[j]);
  SmallVector<SmallVector<Value>> exactSums(plan.blocksPerStep);
  for (int64_t j = 0; j < plan.blocksPerStep; ++j)
    for (int64_t i = 0; i < kAmxRows; ++i)
      exactSums[j].push_back(vector::LoadOp::create(
          b, loc, rowI32, amxSums,
          ValueRange{index(j * kAmxRows + i), index(0)}));
  return emitIntegerKStep(lhs[0], lhs[1], lhs[2], parts, n0, m0, firstBlock,
                          accumulators, exactSums);
}

/// The packed bytes of chunk `chunk` (32 elements) of the 16 weight rows
/// from `n0`, as 32-bit words in lane order: a vector<Dx16xi32> flattened,
/// D = 4 (4-bit) or 8 (8-bit storage), whose lane r of word column d is
/// word d of row r, i.e. the elements 32 / w * d ... of the chunk, the
/// first in the lowest bits. Row-major weights are transposed into that
/// order with a shuffle; row-tiled ones are stored in it.
Value KernelEmitter::readLaneWords(Value data, Value n0, Value chunk) {
  int64_t chunkBytes = kChunk * plan.storageBits / 8;
  int64_t words = chunkBytes / 4;
  if (plan.rowTiled) {
    // Stored in this order: one contiguous read, no shuffle.
    Value tile = read(data, VectorType::get({words, kLanes, 4}, b.getI8Type()),
                      {tileOf(n0), mul(chunk, words), index(0), index(0)});
    tile = vector::ShapeCastOp::create(
        b, loc, VectorType::get({words * kLanes * 4}, b.getI8Type()), tile);
    return vector::BitCastOp::create(
        b, loc, VectorType::get({words * kLanes}, b.getI32Type()), tile);
  }
  Value bytes = read(data, VectorType::get({kLanes, chunkBytes}, b.getI8Type()),
                     {n0, mul(chunk, chunkBytes)});
  bytes = vector::ShapeCastOp::create(
      b, loc, VectorType::get({kLanes * chunkBytes}, b.getI8Type()), bytes);
  auto flatWords = VectorType::get({kLanes * words}, b.getI32Type());
  Value dwords = vector::BitCastOp::create(b, loc, flatWords, bytes);
  SmallVector<int64_t> transpose;
  for (int64_t d = 0; d < words; ++d)
    for (int64_t r = 0; r < kLanes; ++r)
      transpose.push_back(r * words + d);
  return vector::ShuffleOp::create(b, loc, dwords, dwords, transpose);
}

/// One K step (one block) of the ordered kernel: for each element k of the
/// block in increasing order, the 16 rows' weights at k dequantized as
/// quant_block.dequantize does (one lane per row), and for each
/// activation row `acc = acc + x[m, k] * w` (one FMA with `contract`): the
/// contract's order for every output. `accumulators` holds tileM vectors
/// of 16 lanes.
SmallVector<Value> KernelEmitter::emitOrderedKStep(Value lhs, ValueRange parts,
                                                   Value n0, Value m0,
                                                   Value firstBlock,
                                                   ValueRange accumulators) {
  Value data = parts[0], scales = parts[1];
  Value zeroPoints = plan.hasZeroPoints ? parts[2] : Value();
  auto f32Vector = VectorType::get({kLanes}, b.getF32Type());
  auto i32Vector = VectorType::get({kLanes}, b.getI32Type());
  // The 16 rows' scales of this block, as one vector.
  Value scale = vector::ExtractOp::create(
      b, loc, readLaneScales(scales, n0, firstBlock, 1, plan.scaleType),
      ArrayRef<int64_t>{0});
  Value min;
  if (plan.hasMins)
    min = vector::ExtractOp::create(
        b, loc, readLaneScales(parts[2], n0, firstBlock, 1, plan.zeroPointType),
        ArrayRef<int64_t>{0});
  if (plan.outerBlocks) {
    // s_eff = f32(scale) * f32(outer), m_eff = f32(zero point) * f32(outer
    // min), each rounded once (docs/Numerics.md).
    scale = arith::MulFOp::create(
        b, loc, scale,
        outerLaneParameters(parts, /*min=*/false, n0, firstBlock));
    if (plan.outerMins)
      min = arith::MulFOp::create(
          b, loc, min,
          outerLaneParameters(parts, /*min=*/true, n0, firstBlock));
  }
  if (Value outer = readOuterScale(parts))
    scale = arith::MulFOp::create(
        b, loc, scale, vector::BroadcastOp::create(b, loc, f32Vector, outer));
  Value zeroPoint;
  if (zeroPoints) {
    SmallVector<Value> points;
    for (int64_t r = 0; r < kLanes; ++r)
      points.push_back(readZeroPoint(zeroPoints, n0, r, firstBlock));
    zeroPoint = vector::FromElementsOp::create(b, loc, i32Vector, points);
  }
  prefetchNextTile(n0, firstBlock);
  SmallVector<Value> acc(accumulators.begin(), accumulators.end());
  int64_t perWord = 32 / plan.storageBits;
  int64_t words = kChunk / perWord;
  // The chunks of the block in a loop (a per-channel block is all of K).
  int64_t chunksPerBlock = plan.blockSize / kChunk;
  Value firstChunk = mul(firstBlock, chunksPerBlock);
  auto chunkLoop = scf::ForOp::create(
      b, loc, firstChunk, add(firstChunk, chunksPerBlock), index(1), acc,
      [&](OpBuilder &, Location, Value chunk, ValueRange chunkAcc) {
        SmallVector<Value> acc(chunkAcc.begin(), chunkAcc.end());
        Value columns = readLaneWords(data, n0, chunk);
        for (int64_t d = 0; d < words; ++d) {
          Value column = vector::ExtractStridedSliceOp::create(
              b, loc, columns, ArrayRef<int64_t>{d * kLanes},
              ArrayRef<int64_t>{kLanes}, ArrayRef<int64_t>{1});
          for (int64_t j = 0; j < perWord; ++j) {
            Value code = decodeWordCodes(column, j, zeroPoint);
            Value w = roundToExpressed(
                min ? math::FmaOp::create(b, loc, code, scale, min).getResult()
                    : arith::MulFOp::create(b, loc, code, scale).getResult());
            Value k = add(mul(chunk, kChunk), d * perWord + j);
            for (int64_t i = 0; i < plan.tileM; ++i) {
              Value x = vector::BroadcastOp::create(
                  b, loc, f32Vector,
                  tensor::ExtractOp::create(b, loc, lhs,
                                            ValueRange{add(m0, i), k}));
              acc[i] = multiplyAdd(x, w, acc[i]);
            }
          }
        }
        scf::YieldOp::create(b, loc, acc);
      });
  return SmallVector<Value>(chunkLoop.getResults());
}

/// Element j of each lane's 32-bit word of packed codes (bits w * j up),
/// dequantized without its scale: f32(q - zp) (zp a vector of i32, or
/// null), or the E2M1 value; exact.
Value KernelEmitter::decodeWordCodes(Value words, int64_t j, Value zeroPoint) {
  auto f32Vector = VectorType::get({kLanes}, b.getF32Type());
  unsigned bits = plan.storageBits;
  Value mask = splatI32((1 << bits) - 1);
  if (plan.lookupCodes || plan.e2m1 || (!plan.signedStorage && !zeroPoint)) {
    Value code = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, words, splatI32(bits * j)),
        mask);
    if (plan.lookupCodes)
      return lookUpCodes(code);
    if (plan.e2m1)
      return decodeE2M1(code);
    return arith::SIToFPOp::create(b, loc, f32Vector, code);
  }
  // The code extended as stored (signed: its sign from its top bit), minus
  // the zero point.
  Value code;
  if (plan.signedStorage)
    code = arith::ShRSIOp::create(
        b, loc,
        arith::ShLIOp::create(b, loc, words, splatI32(32 - bits * (j + 1))),
        splatI32(32 - bits));
  else
    code = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, words, splatI32(bits * j)),
        mask);
  if (zeroPoint)
    code = arith::SubIOp::create(b, loc, code, zeroPoint);
  return arith::SIToFPOp::create(b, loc, f32Vector, code);
}

/// The [M, tileN] outputs of the weight rows starting at `n0`, written into
/// that slice of `output` (so that bufferization writes them in place).
Value KernelEmitter::emitTile(ValueRange lhs, ValueRange parts, Value n0,
                              Value output) {
  Value tile = sliceWeightTile(output, n0);
  if (!plan.remainderRows)
    return emitRowTiles(lhs, parts, n0, tile, index(0), numRows);
  // A dynamic M: whole tiles, then the rows left over one at a time. Every
  // output is summed in the same order either way.
  Value wholeRows = arith::SubIOp::create(
      b, loc, numRows,
      arith::RemUIOp::create(b, loc, numRows, index(plan.tileM)));
  tile = emitRowTiles(lhs, parts, n0, tile, index(0), wholeRows);
  int64_t tileM = plan.tileM;
  plan.tileM = 1;
  tile = emitRowTiles(lhs, parts, n0, tile, wholeRows, numRows);
  plan.tileM = tileM;
  return tile;
}

/// The outputs of activation rows [first, last) (whole AMX tiles) and of
/// the weight rows from `n0`, written into `tile`, with AMX: the rows'
/// panel decoded once for them.
Value KernelEmitter::emitAmxTile(ValueRange lhs, ValueRange parts, Value n0,
                                 Value tile, Value first, Value last) {
  auto allocate = [&](MemRefType type) -> Value {
    auto alloc = memref::AllocOp::create(b, loc, type);
    alloc.setAlignment(64);
    return alloc;
  };
  amxPanel = allocate(MemRefType::get({plan.k / 4, 4 * kLanes}, b.getI8Type()));
  // Up to 4 blocks' tiles in flight per K step (4 of the 8 tile
  // registers, with the two operands').
  int64_t tileM = plan.tileM, blocksPerStep = plan.blocksPerStep;
  plan.tileM = kAmxRows;
  plan.blocksPerStep = largestDivisor(
      std::gcd(plan.numBlocks,
               plan.outerBlocks ? plan.outerBlocks : plan.numBlocks),
      {4, 2, 1});
  amxSums = allocate(
      MemRefType::get({plan.blocksPerStep * kAmxRows, kLanes}, b.getI32Type()));
  amxScales =
      allocate(MemRefType::get({plan.numBlocks, kLanes}, b.getF32Type()));
  decodeAmxPanel(parts, n0, amxPanel);
  tile = emitRowTiles(lhs, parts, n0, tile, first, last);
  amxPanel = amxSums = amxScales = Value();
  plan.tileM = tileM;
  plan.blocksPerStep = blocksPerStep;
  return tile;
}

/// `tensor` as a read-only buffer of any layout (`unitInnerStride`: with
/// contiguous rows, as AMX tile loads require).
Value KernelEmitter::toReadOnlyBuffer(Value tensor, bool unitInnerStride) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  if (unitInnerStride)
    strides.back() = 1;
  auto layout =
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides);
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType(), layout),
      tensor,
      /*read_only=*/true);
}

/// The outputs of activation rows [lower, upper) (a multiple of tileM
/// rows) and of the weight rows starting at `n0`, written into `tile`.
Value KernelEmitter::emitRowTiles(ValueRange lhs, ValueRange parts, Value n0,
                                  Value tileInit, Value lower, Value upper) {
  auto f32Vector = VectorType::get({kLanes}, b.getF32Type());
  auto mLoop = scf::ForOp::create(
      b, loc, lower, upper, index(plan.tileM), ValueRange{tileInit},
      [&](OpBuilder &, Location, Value m0, ValueRange tileIter) {
        // Float products: 16-lane partial sums per output, added across
        // the lanes at the end. Integer products: one lane per weight row.
        auto accType = plan.lanesAreRows()
                           ? VectorType::get({plan.tileN}, b.getF32Type())
                           : f32Vector;
        Value zero = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
        SmallVector<Value> init(
            plan.lanesAreRows() ? plan.tileM : plan.tileM * plan.tileN, zero);
        auto kLoop = scf::ForOp::create(
            b, loc, index(0), index(plan.numBlocks), index(plan.blocksPerStep),
            init, [&](OpBuilder &, Location, Value block, ValueRange accIter) {
              scf::YieldOp::create(
                  b, loc,
                  amxPanel ? emitAmxKStep(lhs, parts, n0, m0, block, accIter)
                  : plan.integer
                      ? emitIntegerKStep(lhs[0], lhs[1], lhs[2], parts, n0, m0,
                                         block, accIter)
                  : plan.orderedRows
                      ? emitOrderedKStep(lhs[0], parts, n0, m0, block, accIter)
                      : emitKStep(lhs[0], parts, n0, m0, block, accIter));
            });
        Value tile = tileIter[0];
        for (int64_t i = 0; i < plan.tileM; ++i) {
          Value row = kLoop.getResult(i);
          if (!plan.lanesAreRows()) {
            SmallVector<Value> sums;
            for (int64_t r = 0; r < plan.tileN; ++r)
              sums.push_back(sumLanes(kLoop.getResult(i * plan.tileN + r)));
            row = vector::FromElementsOp::create(
                b, loc, VectorType::get({plan.tileN}, b.getF32Type()), sums);
          }
          tile = vector::TransferWriteOp::create(
                     b, loc, row, tile, ValueRange{add(m0, i), index(0)},
                     ArrayRef<bool>{true})
                     .getResult();
        }
        scf::YieldOp::create(b, loc, tile);
      });
  return mLoop.getResult(0);
}

Value KernelEmitter::emit(ValueRange lhs, ValueRange weightParts,
                          bool parallel) {
  numRows = ShapedType::isDynamic(plan.m)
                ? tensor::DimOp::create(b, loc, lhs[0], 0).getResult()
                : index(plan.m);
  if (plan.prefetch) {
    weightBuffer = toReadOnlyBuffer(weightParts[0]);
    if (plan.rowTiled) {
      blockPartBuffers.push_back(toReadOnlyBuffer(weightParts[1]));
      if (plan.hasZeroPoints || plan.hasMins)
        blockPartBuffers.push_back(toReadOnlyBuffer(weightParts[2]));
      if (plan.outerBlocks) {
        outerPartBuffers.push_back(
            toReadOnlyBuffer(weightParts[outerScalesIndex()]));
        if (plan.outerMins)
          outerPartBuffers.push_back(
              toReadOnlyBuffer(weightParts[outerScalesIndex() + 1]));
      }
    }
  }
  // The ordered kernel reads the activations in their own order.
  SmallVector<Value> activations = {
      plan.orderedRows ? lhs[0] : deinterleaveActivations(lhs[0])};
  // The activation block sums correct the vpdpbusd kernel's biased sums
  // and multiply the weight's mins; the AMX tiles' sums are exact, so with
  // only whole AMX tiles and no mins nothing reads them.
  bool onlyAmxRows = plan.amx && !ShapedType::isDynamic(plan.m) &&
                     plan.m % kAmxRows == 0 && !plan.hasMins;
  if (plan.integer) {
    activations.push_back(lhs[1]);
    activations.push_back(onlyAmxRows ? Value() : sumActivationBlocks(lhs[0]));
  }
  if (plan.amx)
    amxActivations = toReadOnlyBuffer(activations[0], /*unitInnerStride=*/true);
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>{getNumRows(), b.getIndexAttr(plan.n)},
      b.getF32Type());
  auto tiles = [&](Value output, auto emitTile) {
    return emitWeightTileLoop(output, parallel, emitTile);
  };
  if (!plan.amx)
    return tiles(init, [&](Value n0, Value output) {
      return emitTile(activations, weightParts, n0, output);
    });
  // AMX: the whole 16-row tiles in chunks of rows whose codes stay in L2
  // while every weight-row tile passes over them (each tile's panel is
  // decoded once per chunk), then the rows left over.
  Value wholeRows = arith::SubIOp::create(
      b, loc, numRows,
      arith::RemUIOp::create(b, loc, numRows, index(kAmxRows)));
  int64_t chunkRows =
      std::max<int64_t>(kAmxChunkBytes / plan.k / kAmxRows, 1) * kAmxRows;
  auto chunks = scf::ForOp::create(
      b, loc, index(0), wholeRows, index(chunkRows), ValueRange{init},
      [&](OpBuilder &, Location, Value first, ValueRange iter) {
        Value last =
            arith::MinUIOp::create(b, loc, add(first, chunkRows), wholeRows);
        scf::YieldOp::create(
            b, loc, tiles(iter[0], [&](Value n0, Value output) {
              return emitAmxTile(activations, weightParts, n0,
                                 sliceWeightTile(output, n0), first, last);
            }));
      });
  Value result = chunks.getResult(0);
  if (onlyAmxRows)
    return result;
  // The rows left over: one at a time with a dynamic M, else the largest
  // tile dividing them, with vpdpbusd (the same exact block sums, so the
  // same bits).
  int64_t tileM = plan.tileM;
  plan.tileM = ShapedType::isDynamic(plan.m)
                   ? 1
                   : largestDivisor(plan.m % kAmxRows, {8, 4, 2, 1});
  result = tiles(result, [&](Value n0, Value output) {
    return emitRowTiles(activations, weightParts, n0,
                        sliceWeightTile(output, n0), wholeRows, numRows);
  });
  plan.tileM = tileM;
  return result;
}

/// The outputs of weight-row tile `n0` (all activation rows): a slice of
/// `output`.
Value KernelEmitter::sliceWeightTile(Value output, Value n0) {
  return tensor::ExtractSliceOp::create(
      b, loc, output, ArrayRef<OpFoldResult>{b.getIndexAttr(0), n0},
      ArrayRef<OpFoldResult>{getNumRows(), b.getIndexAttr(plan.tileN)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

/// `output` with every weight-row tile's outputs replaced by what
/// `emitTile(n0, output)` returns for it, the tiles on threads
/// (scf.forall) with `parallel`.
Value KernelEmitter::emitWeightTileLoop(
    Value output, bool parallel,
    function_ref<Value(Value n0, Value output)> emitTile) {
  int64_t numTiles = plan.n / plan.tileN;
  SmallVector<OpFoldResult> sizes = {getNumRows(), b.getIndexAttr(plan.tileN)};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
  if (parallel) {
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(numTiles)},
        ValueRange{output}, std::nullopt);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forall.getTerminator());
    Value n0 = mul(forall.getInductionVars()[0], plan.tileN);
    Value tile = emitTile(n0, forall.getRegionIterArgs()[0]);
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        b, loc, tile, forall.getRegionIterArgs()[0],
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), n0}, sizes, strides);
    return forall.getResult(0);
  }
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(numTiles), index(1), ValueRange{output},
      [&](OpBuilder &, Location, Value t, ValueRange iter) {
        Value n0 = mul(t, plan.tileN);
        Value tile = emitTile(n0, iter[0]);
        Value result = tensor::InsertSliceOp::create(
            b, loc, tile, iter[0],
            ArrayRef<OpFoldResult>{b.getIndexAttr(0), n0}, sizes, strides);
        scf::YieldOp::create(b, loc, result);
      });
  return loop.getResult(0);
}

namespace {

struct CPUMatmulKernelsPass
    : public mlir::quant_block::impl::CPUMatmulKernelsBase<
          CPUMatmulKernelsPass> {
  using CPUMatmulKernelsBase::CPUMatmulKernelsBase;

  void runOnOperation() override {
    SmallVector<MatmulOp> products;
    getOperation().walk([&](MatmulOp op) { products.push_back(op); });
    for (MatmulOp op : products) {
      KernelPlan plan;
      plan.prefetch = prefetch;
      if (std::optional<std::string> whyNot =
              planKernel(op, rows, x86Vnni, x86Amx, plan)) {
        if (report)
          op.emitRemark() << "no register-tiled kernel: " << *whyNot;
        continue;
      }
      plan.lookupCodes = x86Avx512 && plan.storageBits == 4 && !plan.integer &&
                         !plan.hasZeroPoints;
      OpBuilder b(op);
      Location loc = op.getLoc();
      FailureOr<SmallVector<Value>> parts =
          materializeLoweredParts(b, loc, op.getRhs());
      if (failed(parts))
        continue;
      QuantizedTensorType weightType = op.getRhs().getType();
      if (weightType.getScheme().isRowTiled() && !plan.rowTiled) {
        if (report)
          op.emitRemark() << "the row-tiled weight is repacked row-major on "
                             "every call: this kernel does not read tiles of "
                          << weightType.getScheme().getRowTile() << " rows";
        *parts = untileLoweredParts(b, loc, weightType, *parts);
      }
      // A dynamic M counts as one row (a decode step).
      int64_t minRows = ShapedType::isDynamic(plan.m) ? 1 : plan.m;
      bool runParallel = parallel &&
                         minRows * plan.n * plan.k >= parallelMinIterations &&
                         plan.n / plan.tileN > 1;
      SmallVector<Value> lhs = {op.getLhs()};
      if (plan.integer) {
        FailureOr<SmallVector<Value>> lhsParts =
            materializeLoweredParts(b, loc, op.getLhs());
        if (failed(lhsParts))
          continue;
        lhs = *lhsParts;
      }
      // A dynamic K takes the weight's.
      if (!plan.integer)
        lhs[0] = castToWeightDepth(b, loc, op, lhs[0]);
      // f16 / bf16 activations: extended exactly once per call, the f32
      // sums rounded once to the result type at the end.
      bool narrow = !plan.integer && !plan.expressed.isF32();
      if (narrow)
        lhs[0] = arith::ExtFOp::create(
            b, loc, RankedTensorType::get({plan.m, plan.k}, b.getF32Type()),
            lhs[0]);
      KernelEmitter emitter(b, loc, plan);
      Value result = emitter.emit(lhs, *parts, runParallel);
      if (narrow)
        result =
            arith::TruncFOp::create(b, loc, op.getResult().getType(), result);
      op.getResult().replaceAllUsesWith(result);
      op.erase();
    }
  }
};

} // namespace
