//===- MatmulKernelEmitter.h - emitting the CPU matmul kernels --*- C++ -*-===//
//
// What the files of --quant-block-cpu-matmul-kernels share: the plan of one
// product (KernelPlan: the facts of its types and the kernel chosen for it,
// see MatmulKernelSelection.h) and the emitter that writes its vector code.
// The emitter's members are defined by kernel family:
//   MatmulKernelEmitter.cpp  the loops over tiles, activation preparation,
//                            weight decoding and parameter reads they share;
//   FloatKernels.cpp         float activations: partial_sums, ordered_rows;
//   IntegerKernels.cpp       int8 activations: integer_tiles, vnni_tiles,
//                            vnni_row_lanes;
//   AmxKernels.cpp           int8 activations on AMX tiles: amx.
//   AmxBF16Kernels.cpp       bf16 activations on AMX-BF16 tiles: amx_bf16.
// MatmulKernels.cpp holds the passes: the selection, which records each
// product's kernel, and the kernels pass, which plans each product and runs
// the emitter.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_CPU_MATMULKERNELEMITTER_H
#define QUANT_BLOCK_LIB_CODEGEN_CPU_MATMULKERNELEMITTER_H

#include "quant-block/Codegen/CPU/MatmulKernelSelection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::quant_block::cpu_kernel {

/// The most bytes per weight row a K step prefetches for the next tile.
constexpr int64_t kMaxPrefetchBytesPerStep = 256;
/// What the integer products add to twice an E2M1 value (-12..12) to make
/// it an unsigned byte for vpdpbusd.
constexpr int64_t kE2M1TwiceBias = 12;
/// The activation codes the AMX kernel keeps in L2 (2 MiB per core on
/// Sapphire Rapids) while every weight-row tile passes over them: a chunk
/// of rows, each weight tile's codes decoded once per chunk.
constexpr int64_t kAmxChunkBytes = 1 << 20;
/// The packed bf16 activations the AMX-BF16 kernel takes at once while
/// the weight tiles of a group pass over them.
constexpr int64_t kAmxBF16ChunkBytes = 1 << 20;
/// The most bytes of dequantized bf16 panels of one group of weight tiles
/// (kept while every chunk of activation rows passes over the group).
constexpr int64_t kAmxBF16PanelBytes = 8 << 20;
/// The activations (f32, or int8 codes) of the rows the other kernels take
/// at once while every weight-row tile passes over them: half of the 1 MiB
/// L2 of a Zen 5 core (2 MiB on Sapphire Rapids), leaving room for the
/// weight tiles.
constexpr int64_t kRowChunkBytes = 1 << 19;

/// A product the kernel covers, with its tiling: the facts the kernel
/// choice reads (MatmulKernelProblem: M, negative when dynamic, a
/// frontend's batch or token count; N, K, the block size, the weight's
/// kind) and what the emitter needs besides.
struct KernelPlan : MatmulKernelProblem {
  /// Activation rows and weight rows of one register tile.
  int64_t tileM, tileN;
  /// With a dynamic M: after the tiles of tileM activation rows, the rows
  /// left over (M mod tileM) are one tile each.
  bool remainderRows = false;
  /// Blocks per iteration of the K loop (their scales are one vector read).
  int64_t blocksPerStep;
  /// With amx: the blocks per K step of the AMX tiles (blocksPerStep is the
  /// VNNI kernel's, for the rows left over).
  int64_t amxBlocksPerStep = 1;
  bool signedStorage;
  bool signedZeroPoints;
  bool contract;
  /// The kernel family of the choice; the flags below follow from it.
  CPUMatmulKernelFamily family = CPUMatmulKernelFamily::PartialSums;
  /// Integer block sums with AVX512-VNNI's vpdpbusd, 64 products at once
  /// (pairs of chunks).
  bool vnni() const {
    return family == CPUMatmulKernelFamily::VnniTiles || rowLanes();
  }
  /// With vnni and N a multiple of 16: one weight row per i32 lane (16
  /// rows, the packed bytes transposed once per chunk), each activation
  /// row's 4 codes broadcast, so a block sum ends in its lane with no sum
  /// across lanes.
  bool rowLanes() const {
    return family == CPUMatmulKernelFamily::VnniRowLanes || amx();
  }
  /// With rowLanes: every whole kAmxRows activation rows take AMX tiles,
  /// 16 x 16 block sums per tdpbssd against the tile's weight rows decoded
  /// once per chunk of activation rows into an AMX operand
  /// (decodeAmxPanel); the rows left over take the vpdpbusd tiles. Blocks
  /// of 32 to 256 codes, or of 16 8-bit codes.
  bool amx() const { return family == CPUMatmulKernelFamily::Amx; }
  /// bf16 activations on AMX-BF16 tiles: every whole kAmxRows activation
  /// rows take tdpbf16ps against the 16-row weight tile dequantized to
  /// bf16 once per chunk of activation rows (decodeAmxBF16Panel); the rows
  /// left over take the partial sums (tileM, tileN and blocksPerStep are
  /// theirs).
  bool amxBF16() const { return family == CPUMatmulKernelFamily::AmxBF16; }
  /// f32 activations in the strict order (no reassoc): one weight row per
  /// lane as well, each output summed over k in increasing order in its
  /// lane (the contract's order; `contract` fuses each step into an FMA).
  bool orderedRows() const {
    return family == CPUMatmulKernelFamily::OrderedRows;
  }
  /// The expressed type of the float path (f32, f16 or bf16): the
  /// activations' type, the type each dequantized weight is rounded to and
  /// the result's; the products and sums are f32.
  Type expressed;
  /// The accumulators have one lane per weight row (tileM vectors of
  /// tileN lanes) instead of 16 partial sums per output.
  bool lanesAreRows() const { return integer || orderedRows(); }
  /// A per-tensor outer scale (NVFP4's f32): each block's scale is
  /// f32(scale) * f32(outer), rounded to f32, as quant_block.dequantize
  /// does.
  bool hasOuter = false;
  /// With block scales under a second level (outerBlocks: GGUF K-quants,
  /// IQ4_XS), blocks of scales [1, outerBlocks] share an outer scale and,
  /// with outerMins, an outer min; each block's scale is f32(scale) *
  /// f32(outer), rounded once, as quant_block.dequantize computes it. A K
  /// step's blocks share one outer scale (blocksPerStep divides it). With
  /// hasMins (Q4_1's float zero points, or integer ones times an outer
  /// min: Q4_K, Q5_K) the weight is fma(f32(q), s, m), rounded once to the
  /// expressed type.
  bool outerMins = false;
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
  /// The scheme's row tile (0: row-major).
  int64_t rowTile = 0;
};

/// The largest of `candidates` (descending) that divides `value`.
inline int64_t largestDivisor(int64_t value, ArrayRef<int64_t> candidates) {
  for (int64_t candidate : candidates)
    if (candidate <= value && value % candidate == 0)
      return candidate;
  return 1;
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
  SmallVector<Value> decodeStep(
      ValueRange parts, Value n0, Value firstBlock, ValueRange state,
      function_ref<SmallVector<Value>(Value chunk,
                                      ArrayRef<std::pair<Value, Value>> weights,
                                      ValueRange state)>
          consume);
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
  Value roundToExpressed(Value weights, bool neverSubnormal = false);
  bool weightsNeverSubnormal() const;
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
  Value emitAmxBF16(Value lhs, Value lhsBF16, ValueRange parts, bool parallel);
  Value packAmxBF16Activations(Value lhs, Value wholeRows);
  void decodeAmxBF16Panel(ValueRange parts, Value n0, Value panel);
  Value emitAmxBF16RowTiles(Value panel, Value transposeBuffer, Value tile,
                            Value lower, Value upper, int64_t tilesAtOnce);
  Value emitAmxBF16Tile(ValueRange parts, Value n0, Value panelIndex,
                        Value tile, Value first, Value last);
  Value sliceWeightTile(Value output, Value n0);
  Value emitRowChunks(
      Value output, Value end, int64_t chunkRows, bool parallel,
      function_ref<Value(Value n0, Value tile, Value first, Value last)>
          emitChunkTile,
      Value firstTile = {}, int64_t numTiles = 0);
  Value emitWeightTileLoop(Value output, bool parallel,
                           function_ref<Value(Value n0, Value output)> emitTile,
                           Value firstTile = {}, int64_t numTiles = 0);
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
  /// the buffer its block sums pass through; amxFirstRow is the first
  /// activation row of the chunk the panel was decoded for.
  Value amxActivations, amxPanel, amxSums, amxScales, amxFirstRow;
  /// With AMX-BF16: the whole 16-row tiles of bf16 activations packed as
  /// tdpbf16ps's second operand ([M / 16, K / 32, 16, 32]).
  Value amxBF16Activations;
  /// With AMX-BF16: the dequantized panels of a group of weight tiles
  /// ([tiles, K / 32, 16, 32]), kept while every chunk of rows passes.
  Value amxBF16Panels;
  OpFoldResult getNumRows() { return getAsOpFoldResult(numRows); }
};

} // namespace mlir::quant_block::cpu_kernel

#endif // QUANT_BLOCK_LIB_CODEGEN_CPU_MATMULKERNELEMITTER_H
