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
// --quant-block-cpu-select-matmul-kernels records the kernel of each
// product as a #quant_block.cpu_matmul_kernel attribute.
//
// Layout of the code: describeProduct takes what the kernels depend on from
// the op's types (KernelPlan's facts, MatmulKernelProblem);
// chooseCPUMatmulKernel (MatmulKernelSelection.cpp) picks the family and
// tiles, or checkCPUMatmulKernel vets the op's attribute; KernelEmitter
// (MatmulKernelEmitter.h, one file per family) writes the code.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/CPU/Passes.h"

#include "MatmulKernelEmitter.h"

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockOps.h"
#include "quant-block/Dialect/QuantBlock/Utils/LoweredParts.h"
#include "quant-block/Numerics/BlockMath.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_CPUMATMULKERNELS
#define GEN_PASS_DEF_CPUSELECTMATMULKERNELS
#include "quant-block/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::cpu_kernel;
namespace numerics = ::quant_block::numerics;

namespace {

/// Why no kernel covers `op` on any target (std::nullopt when one may):
/// fills the facts of `plan` from the op's types and flags (its
/// MatmulKernelProblem is what the choice of kernel depends on).
std::optional<std::string> describeProduct(MatmulOp op, KernelPlan &plan) {
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
    int64_t rows =
        cast<QuantizedTensorType>(op.getLhs().getType()).getShape()[0];
    // The problem's dynamic M is negative.
    plan.m = ShapedType::isDynamic(rows) ? -1 : rows;
  } else {
    plan.strictOrder =
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
    plan.m = lhsType.isDynamicDim(0) ? -1 : lhsType.getDimSize(0);
  }
  QuantizedTensorType weight = op.getRhs().getType();
  SchemeAttr scheme = weight.getScheme();
  if (weight.getRank() != 2 || !weight.hasStaticShape())
    return std::string("the weight is not a static rank-2 tensor");
  // FP4 (E2M1 codes: MXFP4, NVFP4). With int8 activations the byte dot
  // products take twice their values (docs/Numerics.md), by a table lookup.
  plan.e2m1 = isa<Float4E2M1FNType>(scheme.getStorageType());
  unsigned storageBits = scheme.getStorageBitWidth();
  if (!plan.e2m1 &&
      (!scheme.hasIntegerStorage() ||
       (storageBits != 4 && storageBits != 6 && storageBits != 8)))
    return std::string("the weight's storage is not a 4-, 6- or 8-bit "
                       "integer or E2M1");
  // 6-bit codes (GGUF Q6_K's) are unpacked to bytes for vpdpbusd only.
  if (storageBits == 6 && !plan.integer)
    return std::string("6-bit codes take int8 activations only "
                       "(accumulate(i32))");
  if (storageBits == 6 && scheme.getZeroPointType())
    return std::string("6-bit codes have zero points");
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
  // activations (or E2M1 codes with int8 ones), or 6- or 8-bit integer
  // storage (GGUF Q6_K, or it widened to i8), no zero points, an even
  // number of blocks.
  bool halfChunkBlocks = block[1] == kChunk / 2 && !zeroPointType &&
                         k % kChunk == 0 &&
                         ((storageBits == 4 && (!plan.integer || plan.e2m1)) ||
                          (storageBits >= 6 && !plan.e2m1));
  if (block[0] != 1 ||
      (!halfChunkBlocks && (block[1] % kChunk != 0 || k % block[1] != 0)))
    return std::string(
        "the blocks are not [1, B] with B a multiple of 32 "
        "that divides K (or [1, 16] without zero points, K a multiple of "
        "32, for 4-bit storage with f32 activations or E2M1 codes, or "
        "6- or 8-bit integer storage)");
  plan.n = n;
  plan.k = k;
  plan.blockSize = block[1];
  plan.storageBits = scheme.getStorageBitWidth();
  // E2M1 codes are unpacked as unsigned nibbles and decoded.
  plan.signedStorage = !plan.e2m1 && scheme.isSignedStorage();
  plan.hasZeroPoints = zeroPointType != nullptr && !plan.hasMins;
  plan.signedZeroPoints =
      plan.hasZeroPoints && !cast<IntegerType>(zeroPointType).isUnsigned();
  plan.contract =
      arith::bitEnumContainsAll(flags, arith::FastMathFlags::contract);
  plan.rowTile = scheme.getRowTile();
  plan.bf16Activations = !plan.integer && plan.expressed.isBF16();
  return std::nullopt;
}

/// `plan` with the kernel of `choice` (which checkCPUMatmulKernel accepts):
/// the family's flags, its tiles, and what follows from them.
void applyChoice(const MatmulKernelChoice &choice, KernelPlan &plan) {
  const MatmulKernelProblem &problem = plan;
  using Family = CPUMatmulKernelFamily;
  plan.family = choice.family;
  plan.tileM = choice.tileM;
  plan.tileN = choice.tileN;
  plan.blocksPerStep = choice.blocksPerStep;
  if (plan.amx()) {
    // The rows left over take the VNNI kernel, with its step (their tile
    // rows are chosen when they are emitted).
    plan.amxBlocksPerStep = choice.blocksPerStep;
    plan.blocksPerStep =
        *chooseCPUMatmulBlocksPerStep(problem, Family::VnniRowLanes);
    plan.tileM = 1;
  }
  if (plan.amxBF16()) {
    // The rows left over take partial_sums with one-row tiles of up to 4
    // weight rows (the choice's step, which the weight's decoding shares).
    plan.tileM = 1;
    plan.tileN = largestDivisor(problem.n, {4, 3, 2, 1});
  }
  // With one weight row per lane and a dynamic M, the M mod tileM rows
  // left over take tiles of one row.
  plan.remainderRows = problem.dynamicM() && plan.lanesAreRows() &&
                       !plan.amx() && plan.tileM > 1;
  // The other kernels (and other tile sizes) take the weight repacked
  // row-major at run time: the same kernel, so the same bits on every host.
  // Both read every block parameter (scales, zero points, mins, blocked
  // outer scales and mins) as one vector of the tile's rows.
  plan.rowTiled =
      plan.rowTile == kLanes && (plan.rowLanes() || plan.orderedRows());
}

MatmulKernelChoice toChoice(CPUMatmulKernelAttr attr) {
  return {attr.getFamily(), attr.getTileM(), attr.getTileN(),
          attr.getBlocksPerStep()};
}

CPUMatmulKernelAttr toAttr(MLIRContext *context,
                           const MatmulKernelChoice &choice) {
  return CPUMatmulKernelAttr::get(context, choice.family, choice.tileM,
                                  choice.tileN, choice.blocksPerStep);
}

struct CPUSelectMatmulKernelsPass
    : public mlir::quant_block::impl::CPUSelectMatmulKernelsBase<
          CPUSelectMatmulKernelsPass> {
  using CPUSelectMatmulKernelsBase::CPUSelectMatmulKernelsBase;

  void runOnOperation() override {
    StringRef name = QuantBlockDialect::getCPUKernelAttrName();
    MatmulKernelTarget target{x86Vnni, x86Amx, x86AmxBF16, rows};
    getOperation().walk([&](MatmulOp op) {
      // A choice already made (a user's, a tuner's) stands; the kernels
      // pass checks it.
      if (op->hasAttr(name))
        return;
      KernelPlan plan;
      MatmulKernelChoice choice;
      std::optional<std::string> whyNot = describeProduct(op, plan);
      if (!whyNot)
        whyNot = chooseCPUMatmulKernel(plan, target, choice);
      if (whyNot) {
        if (report)
          op.emitRemark() << "no register-tiled kernel: " << *whyNot;
        return;
      }
      op->setAttr(name, toAttr(op.getContext(), choice));
    });
  }
};

struct CPUMatmulKernelsPass
    : public mlir::quant_block::impl::CPUMatmulKernelsBase<
          CPUMatmulKernelsPass> {
  using CPUMatmulKernelsBase::CPUMatmulKernelsBase;

  void runOnOperation() override {
    StringRef name = QuantBlockDialect::getCPUKernelAttrName();
    MatmulKernelTarget target{x86Vnni, x86Amx, x86AmxBF16, rows};
    SmallVector<MatmulOp> products;
    getOperation().walk([&](MatmulOp op) { products.push_back(op); });
    for (MatmulOp op : products) {
      KernelPlan plan;
      plan.prefetch = prefetch;
      MatmulKernelChoice choice;
      auto chosen = op->getAttrOfType<CPUMatmulKernelAttr>(name);
      if (std::optional<std::string> whyNot = describeProduct(op, plan)) {
        // A kernel asked for by name and not emitted is an error, not a
        // silent fallback to the generic lowering.
        if (chosen) {
          op.emitOpError() << "has '" << name << "' = " << chosen
                           << ", but no register-tiled kernel covers it: "
                           << *whyNot;
          return signalPassFailure();
        }
        if (report)
          op.emitRemark() << "no register-tiled kernel: " << *whyNot;
        continue;
      }
      if (chosen) {
        choice = toChoice(chosen);
        if (std::optional<std::string> whyNot =
                checkCPUMatmulKernel(plan, target, choice)) {
          op.emitOpError() << "cannot emit '" << name << "' = " << chosen
                           << ": " << *whyNot;
          return signalPassFailure();
        }
      } else if (std::optional<std::string> whyNot =
                     chooseCPUMatmulKernel(plan, target, choice)) {
        if (report)
          op.emitRemark() << "no register-tiled kernel: " << *whyNot;
        continue;
      }
      applyChoice(choice, plan);
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
      int64_t minRows = plan.dynamicM() ? 1 : plan.m;
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
      if (narrow) {
        // The AMX-BF16 tiles read the bf16 activations themselves.
        if (plan.amxBF16())
          lhs.push_back(lhs[0]);
        lhs[0] = arith::ExtFOp::create(
            b, loc,
            RankedTensorType::get(
                {plan.dynamicM() ? ShapedType::kDynamic : plan.m, plan.k},
                b.getF32Type()),
            lhs[0]);
      }
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
