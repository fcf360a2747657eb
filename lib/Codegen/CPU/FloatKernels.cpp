//===- FloatKernels.cpp - float-activation CPU matmul kernels -------------===//
//
// The K steps of the float-activation kernels: partial_sums (16 partial
// sums per output, reassociated; emitKStep) and ordered_rows (one weight
// row per lane, each output summed over k in increasing order, the
// contract's order; emitOrderedKStep).
//
//===----------------------------------------------------------------------===//

#include "MatmulKernelEmitter.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::cpu_kernel;

/// One iteration of the K loop: `blocksPerStep` blocks starting at
/// `firstBlock`, for the tile at weight row `n0` and activation row `m0`.
/// `accumulators` holds tileM x tileN vectors, activation row major.
SmallVector<Value> KernelEmitter::emitKStep(Value lhs, ValueRange parts,
                                            Value n0, Value m0,
                                            Value firstBlock,
                                            ValueRange accumulators) {
  auto f32Vector = VectorType::get({kLanes}, b.getF32Type());
  // The products of chunk `chunk` with the decoded weights of the tile's
  // rows, into the accumulators.
  auto accumulateChunk = [&](Value chunk,
                             ArrayRef<std::pair<Value, Value>> weights,
                             ValueRange accumulators) {
    SmallVector<Value> acc(accumulators.begin(), accumulators.end());
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
    return acc;
  };
  return decodeStep(parts, n0, firstBlock, accumulators, accumulateChunk);
}

/// Decodes the weights of `blocksPerStep` blocks from `firstBlock` of the
/// tileN weight rows from `n0`, a chunk of 32 elements at a time, as
/// decodeChunk does (f32, rounded to the expressed type), and passes each
/// chunk's rows to `consume` with the values it carries (`state`, its
/// result for the previous chunk), in increasing k.
SmallVector<Value> KernelEmitter::decodeStep(
    ValueRange parts, Value n0, Value firstBlock, ValueRange state,
    function_ref<SmallVector<Value>(Value chunk,
                                    ArrayRef<std::pair<Value, Value>> weights,
                                    ValueRange state)>
        consume) {
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
  SmallVector<Value> acc(state.begin(), state.end());
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
      acc = consume(chunk, weights, acc);
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
      acc = consume(chunk, weights, acc);
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
                    : arith::MulFOp::create(b, loc, code, scale).getResult(),
                !min && weightsNeverSubnormal());
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
