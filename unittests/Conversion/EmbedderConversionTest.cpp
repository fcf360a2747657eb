//===- EmbedderConversionTest.cpp - quant_block to linalg in a host driver ===//
//
// Another compiler lowers quant_block in its own conversion driver, with its
// own type converter and its own conversion target, from the public pieces
// of QuantBlockToLinalg.h. It must get what --convert-quant-block-to-linalg
// gets: a complete lowering (signedness casts included) and, for what the
// lowering does not handle, the clear error at the op rather than "failed to
// legalize".
//
//===----------------------------------------------------------------------===//

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::quant_block;

namespace {

/// The embedder's type converter: ours, plus a conversion of its own that
/// counts how often the patterns ask it (so the test sees that they use the
/// caller's converter rather than a private one).
class HostTypeConverter : public QuantBlockTypeConverter {
public:
  HostTypeConverter() {
    addConversion(
        [this](QuantizedTensorType type,
               SmallVectorImpl<Type> &results) -> std::optional<LogicalResult> {
          ++quantizedConversions;
          return std::nullopt; // Fall through to QuantBlockTypeConverter's.
        });
  }
  mutable int quantizedConversions = 0;
};

class EmbedderConversionTest : public ::testing::Test {
protected:
  EmbedderConversionTest() {
    context.loadDialect<QuantBlockDialect, func::FuncDialect,
                        linalg::LinalgDialect, arith::ArithDialect,
                        math::MathDialect, tensor::TensorDialect>();
  }

  /// The host's driver: the support check, then a partial conversion with
  /// the host's converter. Returns the diagnostics it produced.
  LogicalResult lower(ModuleOp module, HostTypeConverter &converter,
                      std::vector<std::string> &errors) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
      errors.push_back(diagnostic.str());
      return success();
    });
    if (failed(checkQuantBlockToLinalgSupport(module)))
      return failure();
    ConversionTarget target(context);
    configureQuantBlockToLinalgConversionTarget(target, converter);
    RewritePatternSet patterns(&context);
    populateQuantBlockToLinalgConversionPatterns(converter, patterns);
    return applyPartialConversion(module, target, std::move(patterns));
  }

  template <typename OpTy> int count(ModuleOp module) {
    int n = 0;
    module.walk([&](OpTy) { ++n; });
    return n;
  }

  MLIRContext context;
};

TEST_F(EmbedderConversionTest, LowersWithTheHostsTypeConverter) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
!w = !quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = ui4>>
func.func @dequant(%w: !w) -> tensor<4x64xf32> {
  %x = quant_block.dequantize %w : !w -> tensor<4x64xf32>
  return %x : tensor<4x64xf32>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  HostTypeConverter converter;
  std::vector<std::string> errors;
  ASSERT_TRUE(succeeded(lower(*module, converter, errors)));
  EXPECT_TRUE(errors.empty());
  EXPECT_GT(converter.quantizedConversions, 0);
  bool quantBlockLeft = false;
  module->walk([&](Operation *op) {
    quantBlockLeft |= isa<QuantBlockDialect>(op->getDialect());
  });
  EXPECT_FALSE(quantBlockLeft);
  EXPECT_GT(count<linalg::GenericOp>(*module), 0);
  // data, scales, zero points: three signless parts.
  auto function = *module->getOps<func::FuncOp>().begin();
  ASSERT_EQ(function.getNumArguments(), 3u);
  for (Type type : function.getArgumentTypes())
    EXPECT_TRUE(
        cast<RankedTensorType>(type).getElementType().isSignlessIntOrFloat());
}

TEST_F(EmbedderConversionTest, SignednessCastsAreLowered) {
  // What --quant-block-raise leaves for a frontend's uint8 tensors.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
!q = !quant_block.tensor<8, #quant_block.scheme<ui8 : f32>>
func.func @f(%d: tensor<8xi8>, %s: tensor<1xf32>) -> tensor<8xf32> {
  %u = tensor.bitcast %d : tensor<8xi8> to tensor<8xui8>
  %q = quant_block.pack %u scales(%s : tensor<1xf32>) : tensor<8xui8> -> !q
  %x = quant_block.dequantize %q : !q -> tensor<8xf32>
  return %x : tensor<8xf32>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  HostTypeConverter converter;
  std::vector<std::string> errors;
  ASSERT_TRUE(succeeded(lower(*module, converter, errors)));
  EXPECT_EQ(count<tensor::BitcastOp>(*module), 0);
}

TEST_F(EmbedderConversionTest, UnsupportedOpIsAClearErrorAtTheOp) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
!q = !quant_block.tensor<4, #quant_block.scheme<i12 : f32>>
func.func @f(%q: !q) -> tensor<4xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4xf32>
  return %x : tensor<4xf32>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  HostTypeConverter converter;
  std::vector<std::string> errors;
  EXPECT_TRUE(failed(lower(*module, converter, errors)));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "cannot lower to linalg: storage of 12 bits is not "
                       "lowered (only 2- to 8-, 16- and 32-bit storage is)");
  module->walk([](DequantizeOp op) {
    EXPECT_EQ(getQuantBlockToLinalgUnsupportedReason(op),
              std::optional<std::string>(
                  "storage of 12 bits is not lowered (only 2- to 8-, 16- and "
                  "32-bit storage is)"));
  });
}

} // namespace
