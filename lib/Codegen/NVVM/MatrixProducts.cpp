//===- MatrixProducts.cpp - bf16 warp-level matrix products as NVVM mma ---===//
//
// --quant-block-nvvm-matrix-products: see Passes.td. Upstream's
// convert-nvgpu-to-nvvm deduces the PTX types of an nvgpu.mma.sync from its
// operands and knows f16, tf32, f64 and the integers, not bf16; the bf16
// tensor-core kernel of --quant-block-gpu-matmul-kernels needs
// mma.m16n8k16 with .bf16 inputs, which nvvm.mma.sync has.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/NVVM/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_NVVMMATRIXPRODUCTS
#include "quant-block/Codegen/NVVM/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {

/// Whether `value` is a vector of `rows` x 2 `element`s.
bool isFragment(Value value, int64_t rows, Type element) {
  auto vector = dyn_cast<VectorType>(value.getType());
  return vector && vector.getShape() == ArrayRef<int64_t>{rows, 2} &&
         vector.getElementType() == element;
}

/// nvgpu.mma.sync [16, 8, 16] with bf16 factors and f32 accumulators ->
/// nvvm.mma.sync m16n8k16 (.row.col.f32.bf16.bf16.f32): each register of A
/// and B (two bf16) passed as one i32, as PTX takes them.
struct BFloat16MmaSyncToNVVM : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> shape;
    for (Attribute size : op.getMmaShape())
      shape.push_back(cast<IntegerAttr>(size).getInt());
    Type bf16 = rewriter.getBF16Type(), f32 = rewriter.getF32Type();
    if (shape != SmallVector<int64_t>{16, 8, 16} ||
        !isFragment(op.getMatrixA(), 4, bf16) ||
        !isFragment(op.getMatrixB(), 2, bf16) ||
        !isFragment(op.getMatrixC(), 2, f32) || op.getTf32Enabled())
      return rewriter.notifyMatchFailure(op, "not a bf16 m16n8k16 product");

    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto registers = [&](Value fragment, int64_t count) {
      SmallVector<Value> words;
      for (int64_t r = 0; r < count; ++r) {
        Value pair = vector::ExtractOp::create(rewriter, loc, fragment, r);
        Value word = vector::BitCastOp::create(rewriter, loc,
                                               VectorType::get({1}, i32), pair);
        words.push_back(vector::ExtractOp::create(rewriter, loc, word, 0));
      }
      return words;
    };
    SmallVector<Value> a = registers(op.getMatrixA(), 4);
    SmallVector<Value> b = registers(op.getMatrixB(), 2);
    SmallVector<Value> c;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        c.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                              ArrayRef<int64_t>{i, j}));
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    Value d = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, c, shape, /*b1Op=*/std::nullopt,
        /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> results;
    for (int64_t i = 0; i < 4; ++i)
      results.push_back(LLVM::ExtractValueOp::create(rewriter, loc, d, i));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, cast<VectorType>(op.getType()), results);
    return success();
  }
};

struct NVVMMatrixProductsPass
    : public quant_block::impl::NVVMMatrixProductsBase<NVVMMatrixProductsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BFloat16MmaSyncToNVVM>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
