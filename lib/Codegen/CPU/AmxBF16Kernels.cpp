//===- AmxBF16Kernels.cpp - the AMX-BF16 CPU matmul kernel ----------------===//
//
// The AMX-BF16 kernel (amx_bf16), for reassociated products with bf16
// activations: each 16-row weight tile is dequantized once per call into
// tdpbf16ps's first operand (bf16, rounded as quant_block.dequantize
// rounds a weight for bf16 activations), kept while every chunk of
// activation rows passes over it, the whole
// 16-row tiles of activations are packed once per call into its second
// operand, and each 16 x 16 tile of outputs (weight rows x activation rows)
// accumulates in f32 in a tile register over all of K, then is transposed
// into the result once. The rows left over take partial_sums.
//
// Why the weight is the first operand: its rows are K-contiguous, as the
// first operand's are, so dequantizing it writes each row's chunk as it is
// decoded; the second operand needs the pairs of k of 16 rows transposed,
// which costs once per call on the activations (M x K) but would cost once
// per chunk of rows on the weight (N x K).
//
//===----------------------------------------------------------------------===//

#include "MatmulKernelEmitter.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::cpu_kernel;

/// The whole 16-row tiles (rows [0, wholeRows)) of the bf16 activations
/// `lhs` ([M, K]) as tdpbf16ps's second operand, [M / 16, K / 32, 16, 32]
/// bf16: row r of tile (t, c) holds, for each activation row i of tile t,
/// its elements 32c + 2r and 32c + 2r + 1 (the pairs of k as 32-bit words,
/// transposed 16 x 16). Once per call.
Value KernelEmitter::packAmxBF16Activations(Value lhs, Value wholeRows) {
  int64_t chunks = plan.k / kChunk;
  auto type = MemRefType::get({ShapedType::kDynamic, chunks, kAmxRows, kChunk},
                              b.getBF16Type());
  Value numTiles = arith::DivUIOp::create(b, loc, wholeRows, index(kAmxRows));
  auto packed = memref::AllocOp::create(b, loc, type, ValueRange{numTiles});
  packed.setAlignment(64);
  auto chunkType = VectorType::get({kChunk}, b.getBF16Type());
  auto pairsType = VectorType::get({kLanes}, b.getI32Type());
  auto squareType = VectorType::get({kAmxRows, kLanes}, b.getI32Type());
  scf::ForOp::create(
      b, loc, index(0), numTiles, index(1), ValueRange{},
      [&](OpBuilder &, Location, Value t, ValueRange) {
        scf::ForOp::create(
            b, loc, index(0), index(chunks), index(1), ValueRange{},
            [&](OpBuilder &, Location, Value c, ValueRange) {
              Value square = arith::ConstantOp::create(
                  b, loc,
                  DenseElementsAttr::get(squareType, b.getI32IntegerAttr(0)));
              for (int64_t i = 0; i < kAmxRows; ++i) {
                Value row = read(lhs, chunkType,
                                 {add(mul(t, kAmxRows), i), mul(c, kChunk)});
                square = vector::InsertOp::create(
                    b, loc, vector::BitCastOp::create(b, loc, pairsType, row),
                    square, ArrayRef<int64_t>{i});
              }
              Value transposed = vector::TransposeOp::create(
                  b, loc, square, ArrayRef<int64_t>{1, 0});
              for (int64_t r = 0; r < kAmxRows; ++r) {
                Value pairs = vector::ExtractOp::create(b, loc, transposed,
                                                        ArrayRef<int64_t>{r});
                vector::StoreOp::create(
                    b, loc, vector::BitCastOp::create(b, loc, chunkType, pairs),
                    packed, ValueRange{t, c, index(r), index(0)});
              }
              scf::YieldOp::create(b, loc);
            });
        scf::YieldOp::create(b, loc);
      });
  return packed;
}

/// Dequantizes the 16 weight rows from `n0` into `panel` ([K / 32, 16, 32]
/// bf16, tdpbf16ps's first operand for each chunk of 32): each weight
/// exactly as the partial sums decode it (f32, rounded once to bf16), in
/// increasing k. Done once per call, by the first chunk of activation rows.
void KernelEmitter::decodeAmxBF16Panel(ValueRange parts, Value n0,
                                       Value panel) {
  int64_t tileN = plan.tileN;
  bool lookupCodes = plan.lookupCodes;
  plan.tileN = kLanes;
  // No vpermps table lookups: they are llvm.call_intrinsic ops, which have
  // no memory effects interface, and where one ends up directly in the
  // memref.alloca_scope that convert-scf-to-openmp puts around each
  // thread's iteration (a K of one step of blocks, whose loop folds away),
  // canonicalization keeps the scope and convert-scf-to-cf then fails on
  // its multi-block body. The panel is decoded once per call, and every
  // weight gets the same bits either way.
  plan.lookupCodes = false;
  auto wordsType = VectorType::get({kLanes}, b.getI32Type());
  auto halfType = VectorType::get({kLanes}, b.getI16Type());
  auto chunkType = VectorType::get({kChunk}, b.getBF16Type());
  // The bf16 bits of f32 values that are bf16 already: their top half.
  auto toBF16Bits = [&](Value values) -> Value {
    Value words = arith::BitcastOp::create(b, loc, wordsType, values);
    return arith::TruncIOp::create(
        b, loc, halfType, arith::ShRUIOp::create(b, loc, words, splatI32(16)));
  };
  SmallVector<int64_t> concatenation;
  for (int64_t i = 0; i < kChunk; ++i)
    concatenation.push_back(i);
  auto storeChunk = [&](Value chunk, ArrayRef<std::pair<Value, Value>> weights,
                        ValueRange) {
    for (int64_t r = 0; r < kLanes; ++r) {
      Value first = toBF16Bits(weights[r].first);
      Value second = toBF16Bits(weights[r].second);
      // 4-bit storage decodes a chunk's even and odd elements, 8-bit
      // storage its first and last 16.
      Value natural =
          plan.storageBits == 4
              ? vector::InterleaveOp::create(b, loc, first, second).getResult()
              : vector::ShuffleOp::create(b, loc, first, second, concatenation)
                    .getResult();
      vector::StoreOp::create(
          b, loc, vector::BitCastOp::create(b, loc, chunkType, natural), panel,
          ValueRange{chunk, index(r), index(0)});
    }
    return SmallVector<Value>();
  };
  scf::ForOp::create(b, loc, index(0), index(plan.numBlocks()),
                     index(plan.blocksPerStep), ValueRange{},
                     [&](OpBuilder &, Location, Value block, ValueRange) {
                       decodeStep(parts, n0, block, ValueRange{}, storeChunk);
                       scf::YieldOp::create(b, loc);
                     });
  plan.tileN = tileN;
  plan.lookupCodes = lookupCodes;
}

/// The outputs of activation rows [lower, upper) (a multiple of
/// `tilesAtOnce` x 16 rows) and of the weight rows whose panel is `panel`,
/// written into `tile`: `tilesAtOnce` 16 x 16 f32 tiles in tile registers
/// at once, each chunk of the panel loaded once for them; each tile
/// (weight rows x activation rows) passes through `transposeBuffer` into
/// the rows of the result.
Value KernelEmitter::emitAmxBF16RowTiles(Value panel, Value transposeBuffer,
                                         Value tile, Value lower, Value upper,
                                         int64_t tilesAtOnce) {
  auto sumType = amx::TileType::get({kAmxRows, kLanes}, b.getF32Type());
  auto operandType = amx::TileType::get({kAmxRows, kChunk}, b.getBF16Type());
  auto rowType = VectorType::get({kLanes}, b.getF32Type());
  auto squareType = VectorType::get({kAmxRows, kLanes}, b.getF32Type());
  auto rowLoop = scf::ForOp::create(
      b, loc, lower, upper, index(tilesAtOnce * kAmxRows), ValueRange{tile},
      [&](OpBuilder &, Location, Value m0, ValueRange tileIter) {
        Value firstTile = arith::DivUIOp::create(b, loc, m0, index(kAmxRows));
        SmallVector<Value> zeros;
        for (int64_t g = 0; g < tilesAtOnce; ++g)
          zeros.push_back(amx::TileZeroOp::create(b, loc, sumType));
        auto kLoop = scf::ForOp::create(
            b, loc, index(0), index(plan.k / kChunk), index(1), zeros,
            [&](OpBuilder &, Location, Value c, ValueRange sums) {
              Value weights =
                  amx::TileLoadOp::create(b, loc, operandType, panel,
                                          ValueRange{c, index(0), index(0)});
              SmallVector<Value> next;
              for (int64_t g = 0; g < tilesAtOnce; ++g) {
                Value x = amx::TileLoadOp::create(
                    b, loc, operandType, amxBF16Activations,
                    ValueRange{add(firstTile, g), c, index(0), index(0)});
                next.push_back(amx::TileMulFOp::create(b, loc, sumType, weights,
                                                       x, sums[g]));
              }
              scf::YieldOp::create(b, loc, next);
            });
        Value result = tileIter[0];
        for (int64_t g = 0; g < tilesAtOnce; ++g) {
          amx::TileStoreOp::create(b, loc, transposeBuffer,
                                   ValueRange{index(0), index(0)},
                                   kLoop.getResult(g));
          Value square = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(squareType, b.getF32FloatAttr(0)));
          for (int64_t r = 0; r < kAmxRows; ++r)
            square = vector::InsertOp::create(
                b, loc,
                vector::LoadOp::create(b, loc, rowType, transposeBuffer,
                                       ValueRange{index(r), index(0)}),
                square, ArrayRef<int64_t>{r});
          Value transposed = vector::TransposeOp::create(
              b, loc, square, ArrayRef<int64_t>{1, 0});
          for (int64_t i = 0; i < kAmxRows; ++i)
            result =
                vector::TransferWriteOp::create(
                    b, loc,
                    vector::ExtractOp::create(b, loc, transposed,
                                              ArrayRef<int64_t>{i}),
                    result, ValueRange{add(m0, g * kAmxRows + i), index(0)},
                    ArrayRef<bool>{true})
                    .getResult();
        }
        scf::YieldOp::create(b, loc, result);
      });
  return rowLoop.getResult(0);
}

/// The outputs of activation rows [first, last) (whole 16-row tiles) and of
/// the 16 weight rows from `n0`, written into `tile`: the rows' panel (slot
/// `panelIndex` of the group's panels) dequantized by the first chunk of
/// rows and read back by the others, then 4 activation tiles at a time (4
/// of the 8 tile registers hold sums, one the weights, one the activations)
/// and the tiles left over one at a time.
Value KernelEmitter::emitAmxBF16Tile(ValueRange parts, Value n0,
                                     Value panelIndex, Value tile, Value first,
                                     Value last) {
  int64_t chunks = plan.k / kChunk;
  auto transposeBuffer = memref::AllocOp::create(
      b, loc, MemRefType::get({kAmxRows, kLanes}, b.getF32Type()));
  transposeBuffer.setAlignment(64);
  auto panelType = MemRefType::get(
      {chunks, kAmxRows, kChunk}, b.getBF16Type(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                             {kAmxRows * kChunk, kChunk, 1}));
  SmallVector<OpFoldResult> offsets = {panelIndex, b.getIndexAttr(0),
                                       b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(chunks),
                                     b.getIndexAttr(kAmxRows),
                                     b.getIndexAttr(kChunk)};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  Value panel = memref::SubViewOp::create(b, loc, panelType, amxBF16Panels,
                                          offsets, sizes, strides);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first, index(0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &, Location) {
    decodeAmxBF16Panel(parts, n0, panel);
    scf::YieldOp::create(b, loc);
  });
  constexpr int64_t kTilesAtOnce = 4;
  int64_t groupRows = kTilesAtOnce * kAmxRows;
  Value span = arith::SubIOp::create(b, loc, last, first);
  Value groupsEnd = arith::AddIOp::create(
      b, loc, first,
      arith::SubIOp::create(
          b, loc, span,
          arith::RemUIOp::create(b, loc, span, index(groupRows))));
  tile = emitAmxBF16RowTiles(panel, transposeBuffer, tile, first, groupsEnd,
                             kTilesAtOnce);
  return emitAmxBF16RowTiles(panel, transposeBuffer, tile, groupsEnd, last, 1);
}

/// The product with AMX-BF16 tiles for the whole 16-row tiles of
/// activations, then partial_sums for the rows left over (`lhs` the f32
/// activations, `lhsBF16` the bf16 ones). The weight tiles go in groups
/// whose dequantized panels take at most kAmxBF16PanelBytes; for each group
/// the activation rows go in chunks that stay in L2 (kAmxBF16ChunkBytes of
/// packed activations), every tile of the group passing over each chunk
/// (the tiles on threads). Each panel is dequantized once per call, by the
/// first chunk, and read back (from L2 or L3) by the others: dequantizing
/// it again for each chunk took a third of the time at M = 512, and one
/// buffer for all the panels (88 MiB for 11008 x 4096) costs the page
/// faults of a fresh mapping on every call (about 50 ms here).
Value KernelEmitter::emitAmxBF16(Value lhs, Value lhsBF16, ValueRange parts,
                                 bool parallel) {
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>{getNumRows(), b.getIndexAttr(plan.n)},
      b.getF32Type());
  Value wholeRows = arith::SubIOp::create(
      b, loc, numRows,
      arith::RemUIOp::create(b, loc, numRows, index(kAmxRows)));
  amxBF16Activations = packAmxBF16Activations(lhsBF16, wholeRows);
  int64_t chunkRows =
      std::max<int64_t>(kAmxBF16ChunkBytes / (2 * plan.k) / kAmxRows, 1) *
      kAmxRows;
  int64_t panelBytes = plan.k / kChunk * kAmxRows * kChunk * 2;
  int64_t numTiles = plan.n / kLanes;
  // The most tiles whose panels fit, dividing the tiles.
  int64_t groupTiles = 1;
  for (int64_t t = std::max<int64_t>(kAmxBF16PanelBytes / panelBytes, 1);
       t >= 1; --t)
    if (numTiles % t == 0) {
      groupTiles = t;
      break;
    }
  auto panels = memref::AllocOp::create(
      b, loc,
      MemRefType::get({groupTiles, plan.k / kChunk, kAmxRows, kChunk},
                      b.getBF16Type()));
  panels.setAlignment(64);
  amxBF16Panels = panels;
  int64_t tileN = plan.tileN;
  plan.tileN = kLanes;
  auto groups = scf::ForOp::create(
      b, loc, index(0), index(numTiles), index(groupTiles), ValueRange{init},
      [&](OpBuilder &, Location, Value firstTile, ValueRange groupIter) {
        scf::YieldOp::create(
            b, loc,
            emitRowChunks(
                groupIter[0], wholeRows, chunkRows, parallel,
                [&](Value n0, Value tile, Value first, Value last) {
                  Value panelIndex =
                      arith::SubIOp::create(b, loc, tileOf(n0), firstTile);
                  return emitAmxBF16Tile(parts, n0, panelIndex, tile, first,
                                         last);
                },
                firstTile, groupTiles));
      });
  Value result = groups.getResult(0);
  plan.tileN = tileN;
  amxBF16Activations = amxBF16Panels = Value();
  if (!plan.dynamicM() && plan.m % kAmxRows == 0)
    return result;
  Value activations = deinterleaveActivations(lhs);
  return emitWeightTileLoop(result, parallel, [&](Value n0, Value output) {
    return emitRowTiles(activations, parts, n0, sliceWeightTile(output, n0),
                        wholeRows, numRows);
  });
}
