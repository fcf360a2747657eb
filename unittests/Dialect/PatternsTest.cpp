//===- PatternsTest.cpp - the transformation patterns from C++ ------------===//
//
// An embedding compiler runs the quant_block patterns in its own driver
// (populate...Patterns + applyPatternsGreedily) rather than through
// quant-opt. These tests do exactly that on parsed IR and check the result.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::quant_block;

namespace {

class PatternsTest : public ::testing::Test {
protected:
  PatternsTest() {
    context.loadDialect<QuantBlockDialect, func::FuncDialect,
                        linalg::LinalgDialect, arith::ArithDialect,
                        tensor::TensorDialect>();
  }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  template <typename OpTy> int count(ModuleOp module) {
    int n = 0;
    module.walk([&](OpTy) { ++n; });
    return n;
  }

  MLIRContext context;
};

constexpr StringLiteral kLinear = R"mlir(
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @linear(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
)mlir";

TEST_F(PatternsTest, FusePatternsTurnMatmulOfDequantizeIntoQuantBlockMatmul) {
  OwningOpRef<ModuleOp> module = parse(kLinear);
  ASSERT_TRUE(module);
  RewritePatternSet patterns(&context);
  populateQuantBlockFusePatterns(patterns);
  ASSERT_TRUE(succeeded(applyPatternsGreedily(*module, std::move(patterns))));
  EXPECT_EQ(count<linalg::MatmulOp>(*module), 0);
  ASSERT_EQ(count<MatmulOp>(*module), 1);
  module->walk([](MatmulOp op) {
    EXPECT_TRUE(op.getTransposeRhs());
    EXPECT_TRUE(op.getAccumulatorType().isF32());
    EXPECT_EQ(op.getPropagation(), Propagation::Inhibit);
  });
}

TEST_F(PatternsTest, PropagatePatternsMoveDequantizeBelowTranspose) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @f(%w: !w) -> tensor<64x16xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %e = tensor.empty() : tensor<64x16xf32>
  %t = linalg.transpose ins(%wd : tensor<16x64xf32>) outs(%e : tensor<64x16xf32>) permutation = [1, 0]
  return %t : tensor<64x16xf32>
}
)mlir");
  ASSERT_TRUE(module);
  RewritePatternSet patterns(&context);
  populateQuantBlockPropagatePatterns(patterns);
  ASSERT_TRUE(succeeded(applyPatternsGreedily(*module, std::move(patterns))));
  EXPECT_EQ(count<linalg::TransposeOp>(*module), 0);
  ASSERT_EQ(count<TransposeOp>(*module), 1);
  module->walk([](TransposeOp op) {
    // The block shape is transposed with the data.
    EXPECT_EQ(op.getResult().getType().getEffectiveBlockShape(),
              (SmallVector<int64_t>{32, 1}));
  });
}

} // namespace
