//===- MatmulKernels.cpp - register-tiled quantized matrix products -------===//
//
// --quant-block-cpu-matmul-kernels: a reassociated quant_block.matmul with a
// transposed block-quantized weight becomes vector code on tensors whose
// accumulators stay in registers for the whole K loop. The generic lowering
// (one linalg.generic vectorized along k) keeps its partial sums in memory,
// reads each activation once per output and multiplies and adds separately;
// this is the kernel a decode step spends its time in.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUMATMULKERNELS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {

/// Lanes of one accumulator. Fixed (not the host's register width) because
/// the lanes are partial sums: the same IR on every host gives the same
/// bits.
constexpr int64_t kLanes = 16;
/// Weight elements per chunk: one accumulator's worth of two products.
constexpr int64_t kChunk = 2 * kLanes;
/// Chunks unrolled per iteration of the K loop (code size vs. loop overhead).
constexpr int64_t kMaxUnrolledChunks = 8;

/// A product the kernel covers, with its tiling.
struct KernelPlan {
  int64_t m, n, k;
  /// Block size along K and blocks per row.
  int64_t blockSize, numBlocks;
  /// Activation rows and weight rows of one register tile.
  int64_t tileM, tileN;
  /// Blocks per iteration of the K loop (their scales are one vector read).
  int64_t blocksPerStep;
  unsigned storageBits;
  bool signedStorage;
  bool hasZeroPoints;
  bool signedZeroPoints;
  bool contract;
};

/// The largest of `candidates` (descending) that divides `value`.
int64_t largestDivisor(int64_t value, ArrayRef<int64_t> candidates) {
  for (int64_t candidate : candidates)
    if (candidate <= value && value % candidate == 0)
      return candidate;
  return 1;
}

/// Why `op` has no kernel (std::nullopt when it has one); fills `plan`.
std::optional<std::string> planKernel(MatmulOp op, int64_t rows,
                                      KernelPlan &plan) {
  arith::FastMathFlags flags = op.getFastmath();
  if (!arith::bitEnumContainsAll(flags, arith::FastMathFlags::reassoc))
    return std::string("the sum over k is ordered (no fastmath<reassoc>)");
  if (!op.getTransposeRhs())
    return std::string("the weight is not transposed ([N, K])");
  if (op.getPropagation() != Propagation::Inhibit)
    return std::string("the result is requantized (propagate)");
  auto lhsType = dyn_cast<RankedTensorType>(op.getLhs().getType());
  if (!lhsType || lhsType.getRank() != 2 || !lhsType.hasStaticShape() ||
      !lhsType.getElementType().isF32())
    return std::string("the lhs is not a static rank-2 f32 tensor");
  if (!op.getAccumulatorType().isF32())
    return std::string("the accumulator is not f32");
  QuantizedTensorType weight = op.getRhs().getType();
  SchemeAttr scheme = weight.getScheme();
  if (weight.getRank() != 2 || !weight.hasStaticShape())
    return std::string("the weight is not a static rank-2 tensor");
  if (!scheme.hasIntegerStorage() ||
      (scheme.getStorageBitWidth() != 4 && scheme.getStorageBitWidth() != 8))
    return std::string("the weight's storage is not a 4- or 8-bit integer");
  if (scheme.hasMXScale() || scheme.getOuter())
    return std::string("the weight has an MX or outer scale");
  if (!scheme.getExpressedType().isF32())
    return std::string("the expressed type is not f32");
  Type scaleType = scheme.getScaleType();
  if (!scaleType.isF32() && !scaleType.isF16() && !scaleType.isBF16())
    return std::string("the scales are not f32, f16 or bf16");
  Type zeroPointType = scheme.getZeroPointType();
  if (zeroPointType && !isa<IntegerType>(zeroPointType))
    return std::string("the zero points are floats");
  SmallVector<int64_t> block = weight.getEffectiveBlockShape();
  int64_t n = weight.getShape()[0], k = weight.getShape()[1];
  if (block[0] != 1 || block[1] % kChunk != 0 || k % block[1] != 0)
    return std::string("the blocks are not [1, B] with B a multiple of 32 "
                       "that divides K");
  plan.m = lhsType.getDimSize(0);
  plan.n = n;
  plan.k = k;
  plan.blockSize = block[1];
  plan.numBlocks = k / block[1];
  plan.storageBits = scheme.getStorageBitWidth();
  plan.signedStorage = scheme.isSignedStorage();
  plan.hasZeroPoints = zeroPointType != nullptr;
  plan.signedZeroPoints =
      zeroPointType && !cast<IntegerType>(zeroPointType).isUnsigned();
  plan.contract =
      arith::bitEnumContainsAll(flags, arith::FastMathFlags::contract);
  // At most 16 accumulators: half the registers of AVX-512, leaving room
  // for the unpacked weight chunks and the activations.
  plan.tileM = largestDivisor(plan.m, {8, 4, 2, 1});
  int64_t maxTileN = plan.tileM == 1 ? std::max<int64_t>(rows, 1)
                                     : std::max<int64_t>(16 / plan.tileM, 1);
  SmallVector<int64_t> candidates;
  for (int64_t c = maxTileN; c >= 1; --c)
    candidates.push_back(c);
  plan.tileN = largestDivisor(n, candidates);
  int64_t chunksPerBlock = plan.blockSize / kChunk;
  SmallVector<int64_t> steps;
  for (int64_t c = std::max<int64_t>(kMaxUnrolledChunks / chunksPerBlock, 1);
       c >= 1; --c)
    steps.push_back(c);
  plan.blocksPerStep = largestDivisor(plan.numBlocks, steps);
  return std::nullopt;
}

/// Emits the kernel of one product.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, Location loc, const KernelPlan &plan)
      : b(b), loc(loc), plan(plan) {}

  Value emit(Value lhs, ValueRange weightParts, bool parallel);

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
  Value splatI32(int64_t value) {
    auto type = VectorType::get({kLanes}, b.getI32Type());
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(value)));
  }
  Value read(Value source, VectorType type, ValueRange indices) {
    return vector::TransferReadOp::create(b, loc, type, source, indices,
                                          /*padding=*/std::nullopt,
                                          ArrayRef<bool>{true});
  }

  Value deinterleaveActivations(Value lhs);
  Value emitTile(Value lhs, ValueRange parts, Value n0, Value output);
  SmallVector<Value> emitKStep(Value lhs, ValueRange parts, Value n0, Value m0,
                               Value firstBlock, ValueRange accumulators);
  std::pair<Value, Value> decodeChunk(Value data, Value row, Value chunk,
                                      Value scale, Value zeroPoint);
  Value sumLanes(Value vector);

  OpBuilder &b;
  Location loc;
  const KernelPlan &plan;
};

} // namespace

/// For 4-bit storage, the activations with each chunk of 32 reordered to
/// its even elements, then its odd ones: the order of the low and high
/// nibbles of the chunk's 16 packed bytes. Done once per call (M x K
/// floats), instead of interleaving every weight chunk.
Value KernelEmitter::deinterleaveActivations(Value lhs) {
  if (plan.storageBits != 4)
    return lhs;
  auto chunkType = VectorType::get({kChunk}, b.getF32Type());
  SmallVector<int64_t> order;
  for (int64_t parity = 0; parity < 2; ++parity)
    for (int64_t l = 0; l < kLanes; ++l)
      order.push_back(2 * l + parity);
  Value init =
      tensor::EmptyOp::create(b, loc, {plan.m, plan.k}, b.getF32Type());
  auto rowsLoop = scf::ForOp::create(
      b, loc, index(0), index(plan.m), index(1), ValueRange{init},
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

/// The two halves of chunk `chunk` (an index, in chunks of 32 elements) of
/// weight row `row`, dequantized as quant_block.dequantize does: f32(q -
/// zp) * scale. For 4-bit storage the halves are the low and high nibbles
/// of the chunk's 16 bytes (its even and odd elements), for 8-bit storage
/// its first and last 16 elements.
std::pair<Value, Value> KernelEmitter::decodeChunk(Value data, Value row,
                                                   Value chunk, Value scale,
                                                   Value zeroPoint) {
  auto bytesType = VectorType::get({kLanes}, b.getI8Type());
  auto i32Type = VectorType::get({kLanes}, b.getI32Type());
  auto f32Type = VectorType::get({kLanes}, b.getF32Type());
  auto extend = [&](Value bytes) -> Value {
    if (plan.signedStorage)
      return arith::ExtSIOp::create(b, loc, i32Type, bytes);
    return arith::ExtUIOp::create(b, loc, i32Type, bytes);
  };
  Value first, second;
  if (plan.storageBits == 4) {
    Value bytes = extend(read(data, bytesType, {row, mul(chunk, kLanes)}));
    if (plan.signedStorage) {
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
    first = extend(read(data, bytesType, {row, offset}));
    second = extend(read(data, bytesType, {row, add(offset, kLanes)}));
  }
  auto dequantize = [&](Value code) -> Value {
    if (zeroPoint)
      code = arith::SubIOp::create(b, loc, code, zeroPoint);
    Value value = arith::SIToFPOp::create(b, loc, f32Type, code);
    return arith::MulFOp::create(b, loc, value, scale);
  };
  return {dequantize(first), dequantize(second)};
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
  auto i32Vector = VectorType::get({kLanes}, b.getI32Type());
  auto lhsChunkType = VectorType::get({kLanes}, b.getF32Type());
  Type scaleType = cast<RankedTensorType>(scales.getType()).getElementType();
  auto stepScalesType = VectorType::get({plan.blocksPerStep}, scaleType);
  auto stepScalesF32 = VectorType::get({plan.blocksPerStep}, b.getF32Type());

  SmallVector<Value> rows, stepScales;
  for (int64_t r = 0; r < plan.tileN; ++r) {
    rows.push_back(add(n0, r));
    Value s = read(scales, stepScalesType, {rows.back(), firstBlock});
    if (!scaleType.isF32())
      s = arith::ExtFOp::create(b, loc, stepScalesF32, s);
    stepScales.push_back(s);
  }
  SmallVector<Value> acc(accumulators.begin(), accumulators.end());
  int64_t chunksPerBlock = plan.blockSize / kChunk;
  for (int64_t j = 0; j < plan.blocksPerStep; ++j) {
    Value block = add(firstBlock, j);
    SmallVector<Value> scale, zeroPoint;
    for (int64_t r = 0; r < plan.tileN; ++r) {
      Value s = vector::ExtractOp::create(b, loc, stepScales[r],
                                          ArrayRef<int64_t>{j});
      scale.push_back(vector::BroadcastOp::create(b, loc, f32Vector, s));
      if (!zeroPoints) {
        zeroPoint.push_back(Value());
        continue;
      }
      Value zp = tensor::ExtractOp::create(b, loc, zeroPoints,
                                           ValueRange{rows[r], block});
      zp = plan.signedZeroPoints
               ? arith::ExtSIOp::create(b, loc, b.getI32Type(), zp).getResult()
               : arith::ExtUIOp::create(b, loc, b.getI32Type(), zp).getResult();
      zeroPoint.push_back(vector::BroadcastOp::create(b, loc, i32Vector, zp));
    }
    for (int64_t c = 0; c < chunksPerBlock; ++c) {
      Value chunk = add(mul(block, chunksPerBlock), c);
      SmallVector<std::pair<Value, Value>> weights;
      for (int64_t r = 0; r < plan.tileN; ++r)
        weights.push_back(
            decodeChunk(data, rows[r], chunk, scale[r], zeroPoint[r]));
      Value k0 = mul(chunk, kChunk);
      for (int64_t i = 0; i < plan.tileM; ++i) {
        Value m = add(m0, i);
        Value x0 = read(lhs, lhsChunkType, {m, k0});
        Value x1 = read(lhs, lhsChunkType, {m, add(k0, kLanes)});
        for (int64_t r = 0; r < plan.tileN; ++r) {
          Value &a = acc[i * plan.tileN + r];
          for (auto [x, w] : {std::pair(x0, weights[r].first),
                              std::pair(x1, weights[r].second)}) {
            if (plan.contract) {
              // math.fma is llvm.fma, fused on every host (a libcall where
              // the host has no FMA); vector.fma would be llvm.fmuladd,
              // which LLVM fuses or not depending on the target.
              a = math::FmaOp::create(b, loc, x, w, a);
            } else {
              Value product = arith::MulFOp::create(b, loc, x, w);
              a = arith::AddFOp::create(b, loc, a, product);
            }
          }
        }
      }
    }
  }
  return acc;
}

/// The [M, tileN] outputs of the weight rows starting at `n0`, written into
/// that slice of `output` (so that bufferization writes them in place).
Value KernelEmitter::emitTile(Value lhs, ValueRange parts, Value n0,
                              Value output) {
  auto f32Vector = VectorType::get({kLanes}, b.getF32Type());
  Value tileInit = tensor::ExtractSliceOp::create(
      b, loc, output, ArrayRef<OpFoldResult>{b.getIndexAttr(0), n0},
      ArrayRef<OpFoldResult>{b.getIndexAttr(plan.m),
                             b.getIndexAttr(plan.tileN)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  auto mLoop = scf::ForOp::create(
      b, loc, index(0), index(plan.m), index(plan.tileM), ValueRange{tileInit},
      [&](OpBuilder &, Location, Value m0, ValueRange tileIter) {
        Value zero = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(f32Vector, b.getF32FloatAttr(0)));
        SmallVector<Value> init(plan.tileM * plan.tileN, zero);
        auto kLoop = scf::ForOp::create(
            b, loc, index(0), index(plan.numBlocks), index(plan.blocksPerStep),
            init, [&](OpBuilder &, Location, Value block, ValueRange accIter) {
              scf::YieldOp::create(
                  b, loc, emitKStep(lhs, parts, n0, m0, block, accIter));
            });
        Value tile = tileIter[0];
        for (int64_t i = 0; i < plan.tileM; ++i) {
          SmallVector<Value> sums;
          for (int64_t r = 0; r < plan.tileN; ++r)
            sums.push_back(sumLanes(kLoop.getResult(i * plan.tileN + r)));
          Value row = vector::FromElementsOp::create(
              b, loc, VectorType::get({plan.tileN}, b.getF32Type()), sums);
          tile = vector::TransferWriteOp::create(
                     b, loc, row, tile, ValueRange{add(m0, i), index(0)},
                     ArrayRef<bool>{true})
                     .getResult();
        }
        scf::YieldOp::create(b, loc, tile);
      });
  return mLoop.getResult(0);
}

Value KernelEmitter::emit(Value lhs, ValueRange weightParts, bool parallel) {
  Value activations = deinterleaveActivations(lhs);
  Value init =
      tensor::EmptyOp::create(b, loc, {plan.m, plan.n}, b.getF32Type());
  int64_t numTiles = plan.n / plan.tileN;
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(plan.m),
                                     b.getIndexAttr(plan.tileN)};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
  if (parallel) {
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(numTiles)},
        ValueRange{init}, std::nullopt);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forall.getTerminator());
    Value n0 = mul(forall.getInductionVars()[0], plan.tileN);
    Value tile =
        emitTile(activations, weightParts, n0, forall.getRegionIterArgs()[0]);
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        b, loc, tile, forall.getRegionIterArgs()[0],
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), n0}, sizes, strides);
    return forall.getResult(0);
  }
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(numTiles), index(1), ValueRange{init},
      [&](OpBuilder &, Location, Value t, ValueRange iter) {
        Value n0 = mul(t, plan.tileN);
        Value tile = emitTile(activations, weightParts, n0, iter[0]);
        Value result = tensor::InsertSliceOp::create(
            b, loc, tile, iter[0],
            ArrayRef<OpFoldResult>{b.getIndexAttr(0), n0}, sizes, strides);
        scf::YieldOp::create(b, loc, result);
      });
  return loop.getResult(0);
}

namespace {

struct CPUMatmulKernelsPass
    : public quant_block::impl::CPUMatmulKernelsBase<CPUMatmulKernelsPass> {
  using CPUMatmulKernelsBase::CPUMatmulKernelsBase;

  void runOnOperation() override {
    SmallVector<MatmulOp> products;
    getOperation().walk([&](MatmulOp op) { products.push_back(op); });
    QuantBlockTypeConverter converter;
    for (MatmulOp op : products) {
      KernelPlan plan;
      if (std::optional<std::string> whyNot = planKernel(op, rows, plan)) {
        if (report)
          op.emitRemark() << "no register-tiled kernel: " << *whyNot;
        continue;
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Type> partTypes;
      if (failed(converter.convertType(op.getRhs().getType(), partTypes)))
        continue;
      // The lowering of quant_block resolves this cast to the weight's
      // lowered parts (docs/Packing.md, "Lowered tensors").
      auto parts =
          UnrealizedConversionCastOp::create(b, loc, partTypes, op.getRhs());
      bool runParallel = parallel &&
                         plan.m * plan.n * plan.k >= parallelMinIterations &&
                         plan.n / plan.tileN > 1;
      KernelEmitter emitter(b, loc, plan);
      Value result = emitter.emit(op.getLhs(), parts.getResults(), runParallel);
      op.getResult().replaceAllUsesWith(result);
      op.erase();
    }
  }
};

} // namespace
