//===- AmxKernels.cpp - the AMX CPU matmul kernel -------------------------===//
//
// The AMX kernel (amx): each 16-row weight tile decoded once per chunk of
// activation rows into an AMX operand, 16 x 16 exact block sums per
// tdpbssd, scaled and added in block order like the VNNI kernels' (the rows
// left over take vnni_row_lanes, with the same bits).
//
//===----------------------------------------------------------------------===//

#include "MatmulKernelEmitter.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::cpu_kernel;

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
      b, loc, index(0), index(plan.numBlocks()), index(1), ValueRange{},
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
  // The next weight tile's bytes of this step, once per chunk of rows (in
  // its first row tile's pass): the panel decoder then reads them from L2.
  // Without, each tile's decoding waited on DRAM while no tile's sums
  // overlapped it (35-40 % of a 4096 x 4096 call at M = 32, one thread).
  if (weightBuffer) {
    Value firstPass = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            m0, amxFirstRow);
    scf::IfOp::create(b, loc, firstPass, [&](OpBuilder &, Location) {
      prefetchNextTile(n0, firstBlock);
      scf::YieldOp::create(b, loc);
    });
  }
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
  // registers, with the two operands'): the choice's step.
  int64_t tileM = plan.tileM, blocksPerStep = plan.blocksPerStep;
  plan.tileM = kAmxRows;
  plan.blocksPerStep = plan.amxBlocksPerStep;
  amxSums = allocate(
      MemRefType::get({plan.blocksPerStep * kAmxRows, kLanes}, b.getI32Type()));
  amxScales =
      allocate(MemRefType::get({plan.numBlocks(), kLanes}, b.getF32Type()));
  decodeAmxPanel(parts, n0, amxPanel);
  amxFirstRow = first;
  tile = emitRowTiles(lhs, parts, n0, tile, first, last);
  amxPanel = amxSums = amxScales = amxFirstRow = Value();
  plan.tileM = tileM;
  plan.blocksPerStep = blocksPerStep;
  return tile;
}
