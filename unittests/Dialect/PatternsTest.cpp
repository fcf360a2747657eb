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
#include "mlir/Dialect/Quant/IR/Quant.h"
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
                        tensor::TensorDialect, quant::QuantDialect>();
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

// Two inputs an embedder might meet in one module: upstream quant casts on a
// !quant.uniform sub-channel type, and a WebNN-style (cast(q) - zp) * s with
// the parameters repeated by expand_shape + broadcast + collapse_shape.
constexpr StringLiteral kUpstreamAndWebNN = R"mlir(
!u = tensor<2x64x!quant.uniform<i8:f32:{1:32}, {{0.5:1, 0.25:2}}>>
func.func @upstream(%q: tensor<2x64xi8>) -> tensor<2x64xf32> {
  %0 = quant.scast %q : tensor<2x64xi8> to !u
  %1 = quant.dcast %0 : !u to tensor<2x64xf32>
  return %1 : tensor<2x64xf32>
}
func.func @webnn(%q: tensor<8x128xi8>, %s: tensor<32xf32>, %zp: tensor<32xi8>) -> tensor<8x128xf32> {
  %s2 = tensor.expand_shape %s [[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s2 : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %z2 = tensor.expand_shape %zp [[0, 1]] output_shape [8, 4] : tensor<32xi8> into tensor<8x4xi8>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%z2 : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zf : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}
)mlir";

/// kUpstreamAndWebNN after one family of --quant-block-raise's patterns, run
/// as the pass runs them: without folding, which would fold
/// quant.dcast(quant.qcast(x)) to x.
class RaiseFamilyTest : public PatternsTest {
protected:
  OwningOpRef<ModuleOp> raiseWith(void (*populate)(RewritePatternSet &)) {
    OwningOpRef<ModuleOp> module = parse(kUpstreamAndWebNN);
    if (!module)
      return nullptr;
    RewritePatternSet patterns(&context);
    populate(patterns);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(*module, std::move(patterns), config)))
      return nullptr;
    return module;
  }

  /// The functions holding a quant_block.dequantize, one entry per op.
  SmallVector<StringRef> getRaisedFunctions(ModuleOp module) {
    SmallVector<StringRef> names;
    module.walk([&](DequantizeOp op) {
      names.push_back(op->getParentOfType<func::FuncOp>().getSymName());
    });
    return names;
  }
};

TEST_F(RaiseFamilyTest, UpstreamQuantPatternsRaiseOnlyQuantCasts) {
  OwningOpRef<ModuleOp> module =
      raiseWith(populateQuantBlockRaiseUpstreamQuantPatterns);
  ASSERT_TRUE(module);
  EXPECT_EQ(getRaisedFunctions(*module), SmallVector<StringRef>{"upstream"});
  EXPECT_EQ(count<quant::DequantizeCastOp>(*module), 0);
  EXPECT_EQ(count<quant::StorageCastOp>(*module), 0);
  module->walk([](DequantizeOp op) {
    EXPECT_EQ(op.getInput().getType().getEffectiveBlockShape(),
              (SmallVector<int64_t>{2, 32}));
  });
  // The decomposition is another family's: left as it was.
  EXPECT_EQ(count<arith::SubFOp>(*module), 1);
  EXPECT_EQ(count<arith::MulFOp>(*module), 1);
  EXPECT_EQ(count<linalg::BroadcastOp>(*module), 2);
}

TEST_F(RaiseFamilyTest, DequantizePatternsLeaveQuantCastsAlone) {
  OwningOpRef<ModuleOp> module =
      raiseWith(populateQuantBlockRaiseDequantizePatterns);
  ASSERT_TRUE(module);
  EXPECT_EQ(getRaisedFunctions(*module), SmallVector<StringRef>{"webnn"});
  // The quant casts are another family's: left as they were.
  EXPECT_EQ(count<quant::DequantizeCastOp>(*module), 1);
  EXPECT_EQ(count<quant::StorageCastOp>(*module), 1);
  EXPECT_EQ(count<arith::MulFOp>(*module), 0);
}

} // namespace
