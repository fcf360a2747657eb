//===- IntegerKernels.cpp - int8-activation CPU matmul kernels ------------===//
//
// The K steps of the int8-activation kernels (accumulate(i32)): exact i32
// block sums of biased weight codes times activation codes, corrected by
// the activation block sums, scaled and added in block order. The generic
// tiles (integer_tiles), vpdpbusd tiles that add lanes with a shuffle tree
// (vnni_tiles) and vpdpbusd with one weight row per lane (vnni_row_lanes).
//
//===----------------------------------------------------------------------===//

#include "MatmulKernelEmitter.h"

#include "DotProducts.h"

#include "mlir/IR/TypeUtilities.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::cpu_kernel;

/// The sums of each block of the activation codes `codes` ([M, K] i8), as
/// an [M, KB] i32 tensor: with them, a block sum of the codes times the
/// biased weight codes becomes the block sum of the centered codes.
Value KernelEmitter::sumActivationBlocks(Value codes) {
  auto blockType = VectorType::get({plan.blockSize}, b.getI8Type());
  auto wideType = VectorType::get({plan.blockSize}, b.getI32Type());
  Value init = tensor::EmptyOp::create(
      b, loc,
      ArrayRef<OpFoldResult>{getNumRows(), b.getIndexAttr(plan.numBlocks())},
      b.getI32Type());
  auto rowsLoop = scf::ForOp::create(
      b, loc, index(0), numRows, index(1), ValueRange{init},
      [&](OpBuilder &, Location, Value m, ValueRange rowIter) {
        auto blocksLoop = scf::ForOp::create(
            b, loc, index(0), index(plan.numBlocks()), index(1), rowIter,
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
  if (plan.rowLanes())
    return emitRowLaneBlockSums(lhsData, data, n0, m0, firstBlock);
  auto i32Vector = VectorType::get({kLanes}, b.getI32Type());
  auto bytesType = VectorType::get({kLanes}, b.getI8Type());
  Value zeroSum = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(i32Vector, b.getI32IntegerAttr(0)));
  SmallVector<SmallVector<Value>> result(plan.blocksPerStep);
  if (plan.vnni()) {
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
  auto column = [&](int64_t d) -> Value {
    return vector::ExtractStridedSliceOp::create(
        b, loc, columns, ArrayRef<int64_t>{d * kLanes},
        ArrayRef<int64_t>{kLanes}, ArrayRef<int64_t>{1});
  };
  if (plan.storageBits == 6) {
    // A row's chunk is 6 words of 6-bit codes, the first in the lowest
    // bits: the 4 codes at positions 4g..4g+3 are the 24 bits from bit 24g,
    // taken from one word or funnel-shifted from two, and spread to a code
    // per byte, (d & 63) | (d << 2 & 63 << 8) | (d << 4 & 63 << 16) |
    // (d << 6 & 63 << 24): in the positions' order, as 8-bit codes.
    SmallVector<Value> words;
    for (int64_t d = 0; d < 6; ++d)
      words.push_back(column(d));
    for (int64_t g = 0; g < 8; ++g) {
      int64_t word = 24 * g / 32, offset = 24 * g % 32;
      Value bits = words[word];
      if (offset)
        bits = arith::ShRUIOp::create(b, loc, bits, splatI32(offset));
      if (offset > 8)
        bits =
            arith::OrIOp::create(b, loc, bits,
                                 arith::ShLIOp::create(b, loc, words[word + 1],
                                                       splatI32(32 - offset)));
      Value spread =
          arith::AndIOp::create(b, loc, bits, splatI32(0x3F)).getResult();
      for (int64_t j = 1; j < 4; ++j)
        spread = arith::OrIOp::create(
            b, loc, spread,
            arith::AndIOp::create(
                b, loc, arith::ShLIOp::create(b, loc, bits, splatI32(2 * j)),
                splatI32(int32_t(0x3Fu << (8 * j)))));
      codes[g] = vector::BitCastOp::create(b, loc, dotBytes,
                                           flipSigns(spread, 0x20202020u));
    }
    return codes;
  }
  for (int64_t d = 0; d < columnsType.getNumElements() / kLanes; ++d) {
    Value word = column(d);
    if (plan.storageBits == 8) {
      codes[d] = vector::BitCastOp::create(b, loc, dotBytes,
                                           flipSigns(word, 0x80808080u));
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
    Value low = arith::AndIOp::create(b, loc, word, splatI32(0x0F0F0F0F));
    codes[d] = nibbleBytes(low);
    if (highInPlace) {
      Value high =
          arith::AndIOp::create(b, loc, word, splatI32(int32_t(0xF0F0F0F0u)));
      codes[4 + d] = vector::BitCastOp::create(b, loc, dotBytes,
                                               flipSigns(high, 0x80808080u));
      continue;
    }
    Value high = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, word, splatI32(4)),
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
          partial = plan.storageBits != 4 ? g / 4 : (g % 4) / 2;
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
