//===- SchemeAttrTest.cpp - building and querying schemes from C++ --------===//
//
// Tests the C++ API of #quant_block.scheme and !quant_block.tensor as an
// embedding compiler uses it: building schemes, getting verifier diagnostics
// instead of crashes, the derived part types, and the textual form.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::quant_block;

namespace {

class SchemeAttrTest : public ::testing::Test {
protected:
  SchemeAttrTest() { context.getOrLoadDialect<QuantBlockDialect>(); }

  std::string print(Attribute attr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << attr;
    return text;
  }
  std::string print(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return text;
  }

  /// Runs `getChecked` and returns the diagnostic it emitted ("" if none).
  template <typename... Args> std::string diagnoseScheme(Args &&...args) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    SchemeAttr attr = SchemeAttr::getChecked(
        [&] { return emitError(UnknownLoc::get(&context)); }, &context,
        std::forward<Args>(args)...);
    EXPECT_EQ(bool(attr), message.empty());
    return message;
  }

  MLIRContext context;
  Type f32 = Float32Type::get(&context);
  Type f16 = Float16Type::get(&context);
  Type bf16 = BFloat16Type::get(&context);
  Type i4 = IntegerType::get(&context, 4);
  Type ui4 = IntegerType::get(&context, 4, IntegerType::Unsigned);
  Type i8 = IntegerType::get(&context, 8);
  Type e8m0 = Float8E8M0FNUType::get(&context);
  Type fp4 = Float4E2M1FNType::get(&context);
};

TEST_F(SchemeAttrTest, BuildsInt4GroupScheme) {
  SchemeAttr scheme = SchemeAttr::get(i4, bf16, {32}, f16, i4);
  EXPECT_EQ(scheme.getStorageType(), i4);
  EXPECT_EQ(scheme.getExpressedType(), bf16);
  EXPECT_EQ(scheme.getScaleType(), f16);
  EXPECT_EQ(scheme.getZeroPointDomain(), ZeroPointDomain::Int);
  EXPECT_EQ(scheme.getQmin(), -8);
  EXPECT_EQ(scheme.getQmax(), 7);
  EXPECT_EQ(scheme.getRounding(), RoundingMode::HalfToEven);
  EXPECT_TRUE(scheme.getSaturate());
  EXPECT_TRUE(scheme.isSignedStorage());
  EXPECT_EQ(scheme.getStorageBitWidth(), 4u);
  EXPECT_EQ(print(scheme), "#quant_block.scheme<i4 : bf16, block = [32], "
                           "scale = f16, zero_point = i4>");
}

TEST_F(SchemeAttrTest, ZeroPointDomains) {
  EXPECT_EQ(SchemeAttr::get(i8, f32, {}, f32).getZeroPointDomain(),
            ZeroPointDomain::None);
  EXPECT_EQ(SchemeAttr::get(ui4, f32, {32}, f16, f16).getZeroPointDomain(),
            ZeroPointDomain::Float);
  EXPECT_EQ(SchemeAttr::get(ui4, f32, {32}, f16, ui4).getZeroPointDomain(),
            ZeroPointDomain::Int);
}

TEST_F(SchemeAttrTest, NamedSchemesRoundTrip) {
  for (StringRef name : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2",
                         "mxfp4", "mxint8", "nvfp4"}) {
    SchemeAttr scheme = SchemeAttr::getNamed(&context, name, bf16);
    ASSERT_TRUE(scheme) << name.str();
    EXPECT_EQ(scheme.getStandardName(), std::optional<StringRef>(name));
    std::string text = print(scheme);
    EXPECT_EQ(text, "#quant_block.scheme<" + name.str() + " : bf16>");
    EXPECT_EQ(parseAttribute(text, &context), scheme) << text;
  }
  EXPECT_FALSE(SchemeAttr::getNamed(&context, "mxfp5", f32));
}

TEST_F(SchemeAttrTest, NamedSchemeFields) {
  SchemeAttr mxfp4 = SchemeAttr::getNamed(&context, "mxfp4", f32);
  EXPECT_EQ(mxfp4.getStorageType(), fp4);
  EXPECT_EQ(mxfp4.getScaleType(), e8m0);
  EXPECT_TRUE(mxfp4.hasMXScale());
  EXPECT_EQ(mxfp4.getBlockShape(), ArrayRef<int64_t>{32});
  EXPECT_FALSE(mxfp4.getOuter());

  SchemeAttr nvfp4 = SchemeAttr::getNamed(&context, "nvfp4", f32);
  EXPECT_EQ(nvfp4.getBlockShape(), ArrayRef<int64_t>{16});
  EXPECT_TRUE(isa<Float8E4M3FNType>(nvfp4.getScaleType()));
  ASSERT_TRUE(nvfp4.getOuter());
  EXPECT_EQ(nvfp4.getOuter().getScaleType(), f32);
  EXPECT_TRUE(nvfp4.getOuter().getBlockShape().empty());

  // Changing any field makes it a custom scheme.
  SchemeAttr custom = mxfp4.withBlockShape({32, 1});
  EXPECT_FALSE(custom.getStandardName());
}

TEST_F(SchemeAttrTest, VerifierDiagnosticsInsteadOfCrashes) {
  auto full = [&](Type storage, Type expressed, ArrayRef<int64_t> block,
                  Type scale, Type zp, int64_t qmin, int64_t qmax,
                  bool saturate = true) {
    return diagnoseScheme(storage, expressed, block, scale, zp, qmin, qmax,
                          RoundingMode::HalfToEven, saturate,
                          ScaleRoundingMode::Floor, OuterScaleAttr(),
                          /*rowTile=*/int64_t(0));
  };
  EXPECT_EQ(full(i4, f32, {32}, f16, Type(), -8, 7), "");
  EXPECT_EQ(full(i4, f32, {32}, f16, Type(), -8, 8),
            "range [-8, 8] is outside the storage range [-8, 7] of 'i4'");
  EXPECT_EQ(full(fp4, f32, {16}, e8m0, Type(), 0, 0),
            "an f8E8M0FNU (MX) scale needs a block of exactly 32 elements "
            "along one dimension (OCP MX v1.0), but the block is [16]");
  EXPECT_EQ(full(f16, f32, {}, f32, Type(), 0, 0),
            "storage type 'f16' is not supported; expected a 2..32-bit "
            "integer (iN or uiN) or one of f8E4M3FN, f8E5M2, f6E2M3FN, "
            "f6E3M2FN, f4E2M1FN");
  EXPECT_EQ(full(fp4, f32, {32}, f32, i8, 0, 0),
            "zero point type 'i8' needs integer storage, but the storage "
            "type is 'f4E2M1FN'");
  EXPECT_EQ(full(fp4, f32, {32}, f32, Type(), 0, 0, /*saturate=*/false),
            "saturate = false needs a storage type that encodes Inf or NaN "
            "(f8E4M3FN, f8E5M2), not 'f4E2M1FN'");
  EXPECT_EQ(full(i8, f32, {0}, f32, Type(), -128, 127),
            "block size 0 at position 0 must be positive or '*'");
}

TEST_F(SchemeAttrTest, PartTypesStayContracted) {
  // A [7, 10] tensor in blocks of 4 along the last dimension: the last block
  // is ragged, so there are ceil(10 / 4) = 3 scales per row.
  SchemeAttr scheme = SchemeAttr::get(i4, f32, {4}, f16, i4);
  auto type = QuantizedTensorType::get(&context, {7, 10}, scheme);
  EXPECT_EQ(type.getEffectiveBlockShape(), (SmallVector<int64_t>{1, 4}));
  EXPECT_EQ(print(type.getDataType()), "tensor<7x10xi4>");
  EXPECT_EQ(print(type.getScalesType()), "tensor<7x3xf16>");
  EXPECT_EQ(print(type.getZeroPointsType()), "tensor<7x3xi4>");
  EXPECT_FALSE(type.getOuterScalesType());
  EXPECT_EQ(type.getPartTypes().size(), 3u);
  EXPECT_EQ(print(type.getExpressedTensorType()), "tensor<7x10xf32>");
}

TEST_F(SchemeAttrTest, WholeDimensionAndDynamicBlocks) {
  SchemeAttr perRow =
      SchemeAttr::get(i8, f32, {1, SchemeAttr::kWholeDimension}, f32);
  auto type = QuantizedTensorType::get(
      &context, {ShapedType::kDynamic, ShapedType::kDynamic}, perRow);
  EXPECT_EQ(print(type.getScalesType()), "tensor<?x1xf32>");
  SchemeAttr perTensor = SchemeAttr::get(i8, f32, {}, f32);
  auto tensorType = QuantizedTensorType::get(&context, {3, 2, 5}, perTensor);
  EXPECT_EQ(print(tensorType.getScalesType()), "tensor<1x1x1xf32>");
  EXPECT_EQ(print(perRow), "#quant_block.scheme<i8 : f32, block = [1, *]>");
}

TEST_F(SchemeAttrTest, TwoLevelScales) {
  Type ui6 = IntegerType::get(&context, 6, IntegerType::Unsigned);
  auto outer = OuterScaleAttr::get(&context, f16, {8}, f16);
  SchemeAttr q4k = SchemeAttr::get(&context, ui4, f32, {32}, ui6, ui6, 0, 15,
                                   RoundingMode::HalfToEven, true,
                                   ScaleRoundingMode::Floor, outer,
                                   /*rowTile=*/int64_t(0));
  auto type = QuantizedTensorType::get(&context, {4, 256}, q4k);
  EXPECT_EQ(q4k.getZeroPointDomain(), ZeroPointDomain::Float);
  EXPECT_EQ(print(type.getScalesType()), "tensor<4x8xui6>");
  EXPECT_EQ(print(type.getOuterScalesType()), "tensor<4x1xf16>");
  EXPECT_EQ(print(type.getOuterMinsType()), "tensor<4x1xf16>");
  EXPECT_EQ(type.getPartTypes().size(), 5u);
}

TEST_F(SchemeAttrTest, ParsesAndPrintsTypes) {
  const char *text = "!quant_block.tensor<?x4096, #quant_block.scheme<mxfp4 : "
                     "bf16>>";
  Type type = parseType(text, &context);
  ASSERT_TRUE(type);
  EXPECT_EQ(print(type), text);
  auto quantized = cast<QuantizedTensorType>(type);
  EXPECT_EQ(print(quantized.getScalesType()), "tensor<?x128xf8E8M0FNU>");
}

TEST_F(SchemeAttrTest, ParserReportsBadSchemes) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_FALSE(parseAttribute("#quant_block.scheme<i4 : f32, range = [-8, 8]>",
                              &context));
  EXPECT_EQ(message,
            "range [-8, 8] is outside the storage range [-8, 7] of 'i4'");
  EXPECT_FALSE(
      parseAttribute("#quant_block.scheme<i4 : f32, blocks = [32]>", &context));
  EXPECT_NE(message.find("unknown scheme field 'blocks'"), std::string::npos);
}

} // namespace
