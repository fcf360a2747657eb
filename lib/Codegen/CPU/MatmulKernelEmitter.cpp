//===- MatmulKernelEmitter.cpp - what the CPU matmul kernels share --------===//
//
// The parts of the CPU matmul kernels every family shares: the loop over
// weight-row tiles (on threads), the loop over activation-row tiles and the
// K loop, the activations' preparation (4-bit weights: de-interleaved once
// per call), the decoding of weight chunks, the reads of block parameters
// (scales, zero points, mins, outer scales) and the prefetch of the next
// tile's weights.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernelEmitter.h"

#include "TableLookups.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockDialect.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"
#include "quant-block/Numerics/FloatFormats.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::cpu_kernel;
namespace numerics = ::quant_block::numerics;

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
/// `neverSubnormal` (weightsNeverSubnormal) marks a bf16 rounding that
/// AVX512-BF16 may do (QuantBlockDialect::getNeverSubnormalOperandAttrName).
Value KernelEmitter::roundToExpressed(Value weights, bool neverSubnormal) {
  if (!plan.expressed || plan.expressed.isF32())
    return weights;
  auto type = cast<VectorType>(weights.getType());
  auto rounded =
      arith::TruncFOp::create(b, loc, type.clone(plan.expressed), weights);
  if (neverSubnormal && plan.expressed.isBF16())
    rounded->setAttr(QuantBlockDialect::getNeverSubnormalOperandAttrName(),
                     b.getUnitAttr());
  return arith::ExtFOp::create(b, loc, type, rounded.getResult());
}

/// Whether every dequantized weight without a min is zero, at least 2^-24
/// in magnitude, infinite or NaN, never an f32 subnormal: integer codes
/// (less a zero point) or E2M1 codes (at least 0.5) times one f16 scale
/// (at least 2^-24 unless zero), exact in f32. A second level of scales or
/// a float min could make smaller values.
bool KernelEmitter::weightsNeverSubnormal() const {
  return plan.scaleType && plan.scaleType.isF16() && !plan.hasOuter &&
         !plan.outerBlocks && !plan.hasMins;
}

/// 4-bit codes (nibbles in i32 lanes, 0..15) as their f32 values, by a
/// lookup in the table of the 16 values of the storage type: E2M1, or the
/// nibble as an unsigned or two's-complement integer. Exact.
Value KernelEmitter::lookUpCodes(Value nibbles) {
  float table[16];
  for (int code = 0; code < 16; ++code) {
    if (plan.e2m1)
      table[code] = float(
          numerics::decodeFloat(numerics::FloatFormatKind::F4E2M1FN, code));
    else if (plan.signedStorage)
      table[code] = float(code < 8 ? code : code - 16);
    else
      table[code] = float(code);
  }
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
    return roundToExpressed(arith::MulFOp::create(b, loc, value, scale),
                            weightsNeverSubnormal());
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
            b, loc, index(0), index(plan.numBlocks()),
            index(plan.blocksPerStep), init,
            [&](OpBuilder &, Location, Value block, ValueRange accIter) {
              scf::YieldOp::create(
                  b, loc,
                  amxPanel ? emitAmxKStep(lhs, parts, n0, m0, block, accIter)
                  : plan.integer
                      ? emitIntegerKStep(lhs[0], lhs[1], lhs[2], parts, n0, m0,
                                         block, accIter)
                  : plan.orderedRows()
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
  numRows = plan.dynamicM()
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
  if (plan.amxBF16())
    return emitAmxBF16(lhs[0], lhs[1], weightParts, parallel);
  // The ordered kernel reads the activations in their own order.
  SmallVector<Value> activations = {
      plan.orderedRows() ? lhs[0] : deinterleaveActivations(lhs[0])};
  // The activation block sums correct the vpdpbusd kernel's biased sums
  // and multiply the weight's mins; the AMX tiles' sums are exact, so with
  // only whole AMX tiles and no mins nothing reads them.
  bool onlyAmxRows =
      plan.amx() && !plan.dynamicM() && plan.m % kAmxRows == 0 && !plan.hasMins;
  if (plan.integer) {
    activations.push_back(lhs[1]);
    activations.push_back(onlyAmxRows ? Value() : sumActivationBlocks(lhs[0]));
  }
  if (plan.amx())
    amxActivations = toReadOnlyBuffer(activations[0], /*unitInnerStride=*/true);
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<OpFoldResult>{getNumRows(), b.getIndexAttr(plan.n)},
      b.getF32Type());
  auto tiles = [&](Value output, auto emitTile) {
    return emitWeightTileLoop(output, parallel, emitTile);
  };
  if (!plan.amx()) {
    // A static M of more rows than a chunk whose activations stay in L2:
    // the chunks in turn, every weight-row tile passing over each (the
    // weights stream once per chunk, the activations from L2 instead of L3
    // or DRAM). Each output is summed in the same order either way.
    int64_t rowBytes = plan.k * (plan.integer ? 1 : 4);
    int64_t chunkRows =
        std::max<int64_t>(kRowChunkBytes / rowBytes / plan.tileM, 1) *
        plan.tileM;
    if (plan.dynamicM() || chunkRows >= plan.m)
      return tiles(init, [&](Value n0, Value output) {
        return emitTile(activations, weightParts, n0, output);
      });
    return emitRowChunks(init, numRows, chunkRows, parallel,
                         [&](Value n0, Value tile, Value first, Value last) {
                           return emitRowTiles(activations, weightParts, n0,
                                               tile, first, last);
                         });
  }
  // AMX: the whole 16-row tiles in chunks of rows whose codes stay in L2
  // while every weight-row tile passes over them (each tile's panel is
  // decoded once per chunk), then the rows left over.
  Value wholeRows = arith::SubIOp::create(
      b, loc, numRows,
      arith::RemUIOp::create(b, loc, numRows, index(kAmxRows)));
  int64_t chunkRows =
      std::max<int64_t>(kAmxChunkBytes / plan.k / kAmxRows, 1) * kAmxRows;
  Value result = emitRowChunks(
      init, wholeRows, chunkRows, parallel,
      [&](Value n0, Value tile, Value first, Value last) {
        return emitAmxTile(activations, weightParts, n0, tile, first, last);
      });
  if (onlyAmxRows)
    return result;
  // The rows left over: one at a time with a dynamic M, else the largest
  // tile dividing them, with vpdpbusd (the same exact block sums, so the
  // same bits).
  int64_t tileM = plan.tileM;
  plan.tileM =
      plan.dynamicM() ? 1 : largestDivisor(plan.m % kAmxRows, {8, 4, 2, 1});
  result = tiles(result, [&](Value n0, Value output) {
    return emitRowTiles(activations, weightParts, n0,
                        sliceWeightTile(output, n0), wholeRows, numRows);
  });
  plan.tileM = tileM;
  return result;
}

/// `output` with the outputs of activation rows [0, `end`) computed
/// `chunkRows` rows at a time: for each chunk [first, last), every
/// weight-row tile's outputs are what `emitChunkTile(n0, tile, first,
/// last)` returns for its slice `tile` (the tiles on threads with
/// `parallel`), so that the chunk's activations stay in cache while all
/// the weight tiles pass over them; with `firstTile`, only the `numTiles`
/// tiles from that one.
Value KernelEmitter::emitRowChunks(
    Value output, Value end, int64_t chunkRows, bool parallel,
    function_ref<Value(Value n0, Value tile, Value first, Value last)>
        emitChunkTile,
    Value firstTile, int64_t numTiles) {
  auto chunks = scf::ForOp::create(
      b, loc, index(0), end, index(chunkRows), ValueRange{output},
      [&](OpBuilder &, Location, Value first, ValueRange iter) {
        Value last = arith::MinUIOp::create(b, loc, add(first, chunkRows), end);
        scf::YieldOp::create(b, loc,
                             emitWeightTileLoop(
                                 iter[0], parallel,
                                 [&](Value n0, Value tiles) {
                                   return emitChunkTile(
                                       n0, sliceWeightTile(tiles, n0), first,
                                       last);
                                 },
                                 firstTile, numTiles));
      });
  return chunks.getResult(0);
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
/// (scf.forall) with `parallel`; with `firstTile`, only the `numTiles`
/// tiles from that one.
Value KernelEmitter::emitWeightTileLoop(
    Value output, bool parallel,
    function_ref<Value(Value n0, Value output)> emitTile, Value firstTile,
    int64_t numTiles) {
  if (!firstTile) {
    firstTile = index(0);
    numTiles = plan.n / plan.tileN;
  }
  SmallVector<OpFoldResult> sizes = {getNumRows(), b.getIndexAttr(plan.tileN)};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
  if (parallel) {
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(numTiles)},
        ValueRange{output}, std::nullopt);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forall.getTerminator());
    Value n0 = mul(
        arith::AddIOp::create(b, loc, firstTile, forall.getInductionVars()[0]),
        plan.tileN);
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
        Value n0 = mul(arith::AddIOp::create(b, loc, firstTile, t), plan.tileN);
        Value tile = emitTile(n0, iter[0]);
        Value result = tensor::InsertSliceOp::create(
            b, loc, tile, iter[0],
            ArrayRef<OpFoldResult>{b.getIndexAttr(0), n0}, sizes, strides);
        scf::YieldOp::create(b, loc, result);
      });
  return loop.getResult(0);
}
