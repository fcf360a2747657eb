//===- MXTest.cpp - Tests for Numerics/MX.h -------------------------------===//
//
// Drives every MX block example of test/Conformance/vectors/mx_formats.json
// through mxQuantizeBlock (one parameterized test per JSON case, so a new case
// there is a new test here with no new code), honouring each case's element
// format, scale width, block layout, rounding and match rule. Then the rules
// the vectors do not pin: scale rounding modes, the exponent clamp, E8M0
// codes, the NaN/Inf block rule and MXINT8's symmetric range.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/MX.h"

#include "ConformanceJSON.h"
#include "TestUtils.h"

#include "gtest/gtest.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

using namespace quant_block::numerics;
using namespace quant_block::numerics::testing;
using llvm::json::Array;
using llvm::json::Object;

namespace {

constexpr ScaleRoundingMode kFloor = ScaleRoundingMode::Floor;
constexpr ScaleRoundingMode kCeil = ScaleRoundingMode::Ceil;
constexpr ScaleRoundingMode kScaleEven = ScaleRoundingMode::HalfToEven;

using K = FloatFormatKind;

const Object *mxDocument() {
  const llvm::json::Value *doc = loadConformanceFile("mx_formats.json");
  return doc ? doc->getAsObject() : nullptr;
}

const Array *blockExamples() {
  const Object *doc = mxDocument();
  return doc ? doc->getArray("block_examples") : nullptr;
}

/// microxcaling rounding names (mx_formats.json "round") to ours.
std::optional<RoundingMode> roundingFromMXName(llvm::StringRef name) {
  if (name == "nearest")
    return RoundingMode::HalfAwayFromZero;
  if (name == "even")
    return RoundingMode::HalfToEven;
  if (name == "floor")
    return RoundingMode::TowardZero;
  return std::nullopt;
}

/// The scale format a case asks for: OCP E8M0 (this library's rule) for
/// 8 bits; any other width is microxcaling's own scale, whose documented
/// rule (case notes) is that an exponent above the range makes the block NaN.
MXScaleFormat scaleFormatFor(unsigned scaleBits) {
  if (scaleBits == 8)
    return kE8M0ScaleFormat;
  return MXScaleFormat{scaleBits, ScaleOverflow::NaN};
}

//===----------------------------------------------------------------------===//
// JSON-driven block examples
//===----------------------------------------------------------------------===//

class MXBlockExampleTest : public ::testing::TestWithParam<size_t> {};

TEST_P(MXBlockExampleTest, MatchesConformance) {
  const Array *examples = blockExamples();
  ASSERT_NE(examples, nullptr);
  ASSERT_LT(GetParam(), examples->size());
  const Object &c = *(*examples)[GetParam()].getAsObject();
  SCOPED_TRACE(c.getString("name")->str());
  ASSERT_EQ(c.getString("op"), llvm::StringRef("mx_quantize_dequantize"));
  ASSERT_EQ(c.getBoolean("valid"), true);

  const Object &attrs = *c.getObject("attrs");
  std::optional<MXElementType> element =
      mxElementFromMXName(*attrs.getString("elem_format"));
  ASSERT_TRUE(element) << "unknown elem_format";
  std::optional<RoundingMode> mode =
      roundingFromMXName(*attrs.getString("round"));
  ASSERT_TRUE(mode) << "unknown round";
  std::optional<int64_t> scaleBits = attrs.getInteger("scale_bits");
  ASSERT_TRUE(scaleBits && *scaleBits >= 2 && *scaleBits <= 10);
  MXScaleFormat scale = scaleFormatFor(static_cast<unsigned>(*scaleBits));

  const Object &input = *c.getObject("input");
  ASSERT_EQ(*input.getString("dtype"), "float32");
  std::vector<int64_t> shape = tensorShape(input);
  std::vector<double> x = jsonNumbers(input.getArray("data"));
  ASSERT_EQ(elementCount(shape), static_cast<int64_t>(x.size()));
  // The sources run in float32: round the decimals to float32 first.
  for (double &v : x)
    v = static_cast<float>(v);
  const Object &expectedTensor = *c.getObject("expected");
  EXPECT_EQ(tensorShape(expectedTensor), shape);
  std::vector<double> expected = jsonNumbers(expectedTensor.getArray("data"));
  ASSERT_EQ(expected.size(), x.size());

  // Blocks of block_size consecutive elements along `axis` (0 = the whole
  // axis); a ragged last block is quantized as is (microxcaling pads it with
  // zeros, which cannot change max|x|).
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t axis = *attrs.getInteger("axis");
  axis = (axis % rank + rank) % rank;
  int64_t axisSize = shape[axis];
  int64_t blockSize = *attrs.getInteger("block_size");
  if (blockSize == 0)
    blockSize = axisSize;
  int64_t stride = 1;
  for (int64_t d = axis + 1; d < rank; ++d)
    stride *= shape[d];
  int64_t outer = static_cast<int64_t>(x.size()) / (axisSize * stride);

  std::vector<double> got(x.size(), kNaN);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t inner = 0; inner < stride; ++inner) {
      for (int64_t start = 0; start < axisSize; start += blockSize) {
        std::vector<size_t> indices;
        std::vector<double> block;
        for (int64_t a = start; a < std::min(start + blockSize, axisSize);
             ++a) {
          indices.push_back((o * axisSize + a) * stride + inner);
          block.push_back(x[indices.back()]);
        }
        MXBlockResult r = mxQuantizeBlock(block, *element, *mode,
                                          ScaleRoundingMode::Floor, scale);
        ASSERT_EQ(r.dequantized.size(), block.size());
        for (size_t i = 0; i < block.size(); ++i) {
          got[indices[i]] = r.dequantized[i];
          // The codes must say the same as the dequantized values.
          double fromCode =
              mxDequantizeElement(r.codes[i], *element, r.sharedExponent);
          EXPECT_TRUE((std::isnan(fromCode) && std::isnan(r.dequantized[i])) ||
                      fromCode == r.dequantized[i]);
        }
      }
    }
  }

  llvm::StringRef match = c.getString("match").value_or("");
  ASSERT_TRUE(match == "exact" || match == "non_finite_positions")
      << "unknown match rule " << match.str();
  for (size_t i = 0; i < x.size(); ++i) {
    SCOPED_TRACE(i);
    if (match == "non_finite_positions") {
      // The source accepts NaN or Inf at the marked positions.
      EXPECT_EQ(std::isfinite(got[i]), std::isfinite(expected[i]));
      if (std::isfinite(expected[i])) {
        EXPECT_EQ(got[i], expected[i]) << "input " << x[i];
      }
    } else if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else {
      EXPECT_EQ(got[i], expected[i]) << "input " << x[i];
    }
  }
}

std::vector<size_t> blockExampleIndices() {
  std::vector<size_t> indices;
  if (const Array *examples = blockExamples())
    for (size_t i = 0; i < examples->size(); ++i)
      indices.push_back(i);
  return indices;
}

std::string blockExampleName(const ::testing::TestParamInfo<size_t> &info) {
  std::string name = std::to_string(info.param) + "_";
  const Array *examples = blockExamples();
  if (const Object *c = (*examples)[info.param].getAsObject())
    if (std::optional<llvm::StringRef> caseName = c->getString("name"))
      for (char ch : *caseName)
        name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(MXFormatsJSON, MXBlockExampleTest,
                         ::testing::ValuesIn(blockExampleIndices()),
                         blockExampleName);

TEST(MXTest, ConformanceBlockExamplesArePresent) {
  // Guards the parameterized suite above against an unreadable file, which
  // would otherwise just produce zero tests.
  const Array *examples = blockExamples();
  ASSERT_NE(examples, nullptr);
  EXPECT_GE(examples->size(), 16u);
}

//===----------------------------------------------------------------------===//
// Facts from mx_formats.json
//===----------------------------------------------------------------------===//

TEST(MXTest, ElementFactsMatchConformance) {
  ASSERT_NE(mxDocument(), nullptr);
  const Object *formats = mxDocument()->getObject("element_formats");
  ASSERT_NE(formats, nullptr);
  for (const auto &[key, value] : *formats) {
    SCOPED_TRACE(key.str());
    const Object &entry = *value.getAsObject();
    std::optional<MXElementType> element = mxElementFromMXName(key);
    ASSERT_TRUE(element) << "unknown MX element format";
    EXPECT_EQ(entry.getInteger("emax"), int64_t(element->getEmax()));
    EXPECT_EQ(entry.getNumber("max_normal"), element->getMaxNormal());
    bool hasInf = !element->isInteger() &&
                  getFloatFormatInfo(element->getFloatKind()).hasInf;
    EXPECT_EQ(entry.getBoolean("has_inf"), hasInf);
    if (!element->isInteger())
      continue;
    // MXINT8: element k * 2^-6 with k in [-127, 127].
    EXPECT_EQ(entry.getInteger("exponent_bits"), 0);
    EXPECT_EQ(entry.getInteger("mantissa_bits_including_sign"),
              int64_t(element->getBitWidth()));
    EXPECT_EQ(entry.getNumber("min_nonzero"),
              std::ldexp(1.0, 2 - int(element->getBitWidth())));
    std::vector<int64_t> kRange =
        jsonIntegers(entry.getArray("k_range_used_by_source"));
    ASSERT_EQ(kRange.size(), 2u);
    // Inputs beyond both ends of the element range (shared exponent 0).
    double beyond = 1.99;
    MXBlockResult extremes = mxQuantizeBlock({-beyond, beyond}, *element, kEven,
                                             kFloor, kE8M0ScaleFormat);
    EXPECT_EQ(extremes.sharedExponent, 0);
    // Under the shared exponent N - 2 an element's value is k itself.
    std::vector<double> k;
    for (uint32_t code : extremes.codes)
      k.push_back(
          mxDequantizeElement(code, *element, int(element->getBitWidth()) - 2));
    EXPECT_EQ(k, (std::vector<double>{double(kRange[0]), double(kRange[1])}));
  }
}

TEST(MXTest, AlgorithmRoundingModesAreAllKnown) {
  ASSERT_NE(mxDocument(), nullptr);
  const Object *algorithm = mxDocument()->getObject("mx_algorithm_in_source");
  ASSERT_NE(algorithm, nullptr);
  const Object *modes = algorithm->getObject("rounding_modes");
  ASSERT_NE(modes, nullptr);
  EXPECT_EQ(modes->size(), 3u);
  for (const auto &entry : *modes)
    EXPECT_TRUE(roundingFromMXName(entry.first).has_value())
        << entry.first.str();
}

TEST(MXTest, E8M0CodecMatchesConformance) {
  ASSERT_NE(mxDocument(), nullptr);
  const Object *e8m0 = mxDocument()->getObject("e8m0_scale");
  ASSERT_NE(e8m0, nullptr);
  for (const llvm::json::Value &exampleValue : *e8m0->getArray("examples")) {
    const Object &example = *exampleValue.getAsObject();
    uint32_t code = parseHexCode(*example.get("code"));
    double value = jsonNumber(*example.get("value"));
    SCOPED_TRACE(code);
    double decoded = decodeE8M0(static_cast<uint8_t>(code));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(decoded));
      EXPECT_EQ(encodeE8M0(std::optional<int>()), code);
    } else {
      EXPECT_EQ(decoded, value);
      EXPECT_EQ(encodeE8M0(int(code) - 127), code);
    }
  }
  for (int e = -127; e <= 127; ++e) {
    EXPECT_EQ(encodeE8M0(e), e + 127);
    EXPECT_EQ(decodeE8M0(encodeE8M0(e)), std::ldexp(1.0, e));
    EXPECT_EQ(decodeE8M0(encodeE8M0(e)),
              decodeFloat(K::F8E8M0FNU, encodeE8M0(e)));
  }
}

//===----------------------------------------------------------------------===//
// Shared exponent rules
//===----------------------------------------------------------------------===//

TEST(MXTest, SharedExponentFloorIsOCP) {
  // floor(log2(maxAbs)) - emax.
  EXPECT_EQ(mxSharedExponent(485.0, K::F8E4M3FN, kFloor), 0);
  EXPECT_EQ(mxSharedExponent(448.0, K::F8E4M3FN, kFloor), 0);
  EXPECT_EQ(mxSharedExponent(512.0, K::F8E4M3FN, kFloor), 1);
  EXPECT_EQ(mxSharedExponent(2.66, K::F8E4M3FN, kFloor), -7);
  EXPECT_EQ(mxSharedExponent(6.0, K::F4E2M1FN, kFloor), 0);
  EXPECT_EQ(mxSharedExponent(7.9, K::F4E2M1FN, kFloor), 0);
  EXPECT_EQ(mxSharedExponent(8.0, K::F4E2M1FN, kFloor), 1);
  EXPECT_EQ(mxSharedExponent(57344.0, K::F8E5M2, kFloor), 0);
  EXPECT_EQ(mxSharedExponent(1.0, K::F6E3M2FN, kFloor), -4);
  EXPECT_EQ(mxSharedExponent(1.0, K::F6E2M3FN, kFloor), -2);
  EXPECT_EQ(mxSharedExponentInt8(1.9921875, kFloor), 0);
  EXPECT_EQ(mxSharedExponentInt8(2.0, kFloor), 1);
  EXPECT_EQ(mxSharedExponentInt8(0.01, kFloor), -7);
}

TEST(MXTest, SharedExponentCeilNeverSaturates) {
  EXPECT_EQ(mxSharedExponent(448.0, K::F8E4M3FN, kCeil), 0);
  EXPECT_EQ(mxSharedExponent(449.0, K::F8E4M3FN, kCeil), 1);
  EXPECT_EQ(mxSharedExponent(6.0, K::F4E2M1FN, kCeil), 0);
  EXPECT_EQ(mxSharedExponent(6.5, K::F4E2M1FN, kCeil), 1);
  EXPECT_EQ(mxSharedExponent(3.0, K::F4E2M1FN, kCeil), -1);
  EXPECT_EQ(mxSharedExponent(3.1, K::F4E2M1FN, kCeil), 0);
  EXPECT_EQ(mxSharedExponentInt8(1.984375, kCeil), 0);
  EXPECT_EQ(mxSharedExponentInt8(1.9921875, kCeil), 1);
  // Property: with Ceil no element of a block saturates.
  for (K kind :
       {K::F8E4M3FN, K::F8E5M2, K::F6E2M3FN, K::F6E3M2FN, K::F4E2M1FN}) {
    double maxNormal = getFloatFormatInfo(kind).maxNormal;
    for (double maxAbs : {0.3, 1.0, 1.7, 5.9, 6.1, 100.0, 449.0, 60000.0}) {
      std::optional<int> e = mxSharedExponent(maxAbs, kind, kCeil);
      ASSERT_TRUE(e);
      EXPECT_LE(std::ldexp(maxAbs, -*e), maxNormal);
      EXPECT_GT(std::ldexp(maxAbs, -(*e - 1)), maxNormal);
    }
  }
}

TEST(MXTest, SharedExponentHalfToEvenRoundsTheIdealScale) {
  // Ideal scale s = maxAbs / 448; ties at 1.5 * 2^k go to the even exponent.
  EXPECT_EQ(mxSharedExponent(672.0, K::F8E4M3FN, kScaleEven), 0);  // s = 1.5
  EXPECT_EQ(mxSharedExponent(1344.0, K::F8E4M3FN, kScaleEven), 2); // s = 3
  EXPECT_EQ(mxSharedExponent(671.0, K::F8E4M3FN, kScaleEven), 0);
  EXPECT_EQ(mxSharedExponent(673.0, K::F8E4M3FN, kScaleEven), 1);
  EXPECT_EQ(mxSharedExponent(448.0, K::F8E4M3FN, kScaleEven), 0);
  EXPECT_EQ(mxSharedExponent(447.0, K::F8E4M3FN, kScaleEven), 0);
  EXPECT_EQ(mxSharedExponent(336.0, K::F8E4M3FN, kScaleEven), 0); // 0.75
  EXPECT_EQ(mxSharedExponent(335.0, K::F8E4M3FN, kScaleEven), -1);
  // MXINT8: maxNormal 127/64; the tie 1.5 * 127/64 is exact.
  EXPECT_EQ(mxSharedExponentInt8(1.5 * 127 / 64, kScaleEven), 0);
  EXPECT_EQ(mxSharedExponentInt8(3 * 127 / 64.0, kScaleEven), 2);
  EXPECT_EQ(
      mxSharedExponentInt8(std::nextafter(1.5 * 127 / 64, 4.0), kScaleEven), 1);
  // Ties and their neighbours one ulp away, decided by exact comparison
  // (maxAbs against 1.5 * maxNormal * 2^k), not by a rounded quotient.
  double tie = std::ldexp(1.5 * 7.5, -41); // s = 1.5 * 2^-41: even is -40
  EXPECT_EQ(mxSharedExponent(tie, K::F6E2M3FN, kScaleEven), -40);
  EXPECT_EQ(mxSharedExponent(std::nextafter(tie, 0.0), K::F6E2M3FN, kScaleEven),
            -41);
}

TEST(MXTest, SharedExponentClampAndNonFinite) {
  for (ScaleRoundingMode mode : {kFloor, kCeil, kScaleEven}) {
    EXPECT_EQ(mxSharedExponent(0.0, K::F8E4M3FN, mode), -127);
    EXPECT_EQ(mxSharedExponentInt8(0.0, mode), -127);
    EXPECT_EQ(mxSharedExponent(0x1p-140, K::F8E4M3FN, mode), -127);
    EXPECT_EQ(mxSharedExponent(std::numeric_limits<double>::denorm_min(),
                               K::F4E2M1FN, mode),
              -127);
    EXPECT_EQ(mxSharedExponent(0x1p200, K::F4E2M1FN, mode), 127);
    EXPECT_EQ(
        mxSharedExponent(std::numeric_limits<double>::max(), K::F8E5M2, mode),
        127);
    EXPECT_FALSE(mxSharedExponent(kNaN, K::F8E4M3FN, mode));
    EXPECT_FALSE(mxSharedExponent(kInf, K::F4E2M1FN, mode));
    EXPECT_FALSE(mxSharedExponentInt8(kInf, mode));
  }
  // The upper edge: float32's largest binade with MXINT8 (emax 0). Ceil
  // needs 2^128 for 1.9921875 * 2^127 > 127/64 * 2^127; E8M0 clamps it.
  EXPECT_EQ(mxSharedExponentInt8(0x1.fcp127, kCeil), 127); // exactly fits
  EXPECT_EQ(mxSharedExponentInt8(0x1.fep127, kFloor), 127);
  EXPECT_EQ(mxSharedExponentInt8(0x1.fep127, kCeil), 127); // clamped 128
  // The same with microxcaling's overflow rule: NaN scale.
  MXScaleFormat nanOnOverflow{8, ScaleOverflow::NaN};
  EXPECT_FALSE(mxSharedExponent(0x1.fep127, MXElementType::getInt8(), kCeil,
                                nanOnOverflow));
  EXPECT_EQ(mxSharedExponent(0x1.fep127, MXElementType::getInt8(), kFloor,
                             nanOnOverflow),
            127);
}

TEST(MXTest, FiveBitScaleRulesOfE5M0Example) {
  // mx_formats.json test_e5m0_scale notes: 5-bit shared exponent in
  // [-15, 15]; above 15 -> NaN block, below -15 -> clamped to -15.
  MXScaleFormat e5m0{5, ScaleOverflow::NaN};
  EXPECT_EQ(e5m0.getMaxExponent(), 15);
  EXPECT_EQ(e5m0.getMinExponent(), -15);
  MXElementType int2 = MXElementType::getInteger(2);
  EXPECT_FALSE(mxSharedExponent(65536.0, int2, kFloor, e5m0));
  EXPECT_EQ(mxSharedExponent(32768.0, int2, kFloor, e5m0), 15);
  EXPECT_EQ(mxSharedExponent(0x1p-16, int2, kFloor, e5m0), -15);
  EXPECT_EQ(mxSharedExponent(0.0, int2, kFloor, e5m0), -15);
  // 2^-16 becomes 0.5 * 2^-15 and rounds up (nearest = away) to 2^-15;
  // 2^-17 becomes 0.25 * 2^-15 and flushes to 0.
  MXBlockResult r =
      mxQuantizeBlock({0x1p-16, 0x1p-17}, int2, kAway, kFloor, e5m0);
  EXPECT_EQ(r.dequantized, (std::vector<double>{0x1p-15, 0.0}));
  // With the E8M0 clamp policy the same 5-bit width would saturate instead.
  MXScaleFormat clamp5{5, ScaleOverflow::Clamp};
  EXPECT_EQ(mxSharedExponent(65536.0, int2, kFloor, clamp5), 15);
  EXPECT_EQ(kE8M0ScaleFormat.getMaxExponent(), 127);
  EXPECT_EQ(kE8M0ScaleFormat.getMinExponent(), -127);
}

//===----------------------------------------------------------------------===//
// Block quantization
//===----------------------------------------------------------------------===//

TEST(MXTest, ElementRoundingIsASchemeField) {
  // 400 with shared exponent 0 (max 485): tie of 384 and 416.
  std::vector<double> block = {485.0, 400.0};
  MXBlockResult even = mxQuantizeBlock(block, K::F8E4M3FN, kEven, kFloor);
  MXBlockResult away = mxQuantizeBlock(block, K::F8E4M3FN, kAway, kFloor);
  EXPECT_EQ(even.sharedExponent, 0);
  EXPECT_EQ(even.dequantized, (std::vector<double>{448.0, 384.0}));
  EXPECT_EQ(away.dequantized, (std::vector<double>{448.0, 416.0}));
  EXPECT_EQ(even.codes, (std::vector<uint32_t>{0x7E, 0x7C}));
  // MXINT8: 1.0390625 * 64 = 66.5 and 0.0078125 * 64 = 0.5.
  MXBlockResult intEven =
      mxQuantizeBlockInt8({1.0390625, 0.0078125, 1.5}, kEven, kFloor);
  MXBlockResult intAway =
      mxQuantizeBlockInt8({1.0390625, 0.0078125, 1.5}, kAway, kFloor);
  EXPECT_EQ(intEven.dequantized, (std::vector<double>{1.03125, 0.0, 1.5}));
  EXPECT_EQ(intAway.dequantized,
            (std::vector<double>{1.046875, 0.015625, 1.5}));
  EXPECT_EQ(intAway.codes, (std::vector<uint32_t>{67, 1, 96}));
}

TEST(MXTest, ScaleRoundingChangesSaturation) {
  // max 7 with E2M1: Floor gives 2^0 (7 saturates to 6); Ceil gives 2^1.
  std::vector<double> block = {7.0, 1.0, -0.75};
  MXBlockResult floor = mxQuantizeBlock(block, K::F4E2M1FN, kEven, kFloor);
  MXBlockResult ceil = mxQuantizeBlock(block, K::F4E2M1FN, kEven, kCeil);
  EXPECT_EQ(floor.sharedExponent, 0);
  EXPECT_EQ(floor.dequantized, (std::vector<double>{6.0, 1.0, -1.0}));
  EXPECT_EQ(ceil.sharedExponent, 1);
  EXPECT_EQ(ceil.dequantized, (std::vector<double>{8.0, 1.0, -1.0}));
  // s = 7 / 6 rounds to 2^0 under HalfToEven.
  EXPECT_EQ(
      mxQuantizeBlock(block, K::F4E2M1FN, kEven, kScaleEven).sharedExponent, 0);
}

TEST(MXTest, NonFiniteMakesTheWholeBlockNaN) {
  for (double bad : {kNaN, kInf, -kInf}) {
    for (K kind : {K::F8E4M3FN, K::F8E5M2, K::F4E2M1FN}) {
      MXBlockResult r = mxQuantizeBlock({1.0, bad, -2.0}, kind, kEven, kFloor);
      EXPECT_FALSE(r.sharedExponent);
      EXPECT_EQ(encodeE8M0(r.sharedExponent), 0xFF);
      EXPECT_EQ(r.codes, (std::vector<uint32_t>{0, 0, 0}));
      for (double v : r.dequantized)
        EXPECT_TRUE(std::isnan(v));
    }
    MXBlockResult r = mxQuantizeBlockInt8({bad, 0.5}, kAway, kCeil);
    EXPECT_FALSE(r.sharedExponent);
    EXPECT_TRUE(std::isnan(r.dequantized[0]) && std::isnan(r.dequantized[1]));
  }
}

TEST(MXTest, Int8IsSymmetricTwosComplement) {
  // -1.9921875 * 64 = -127.5 -> -128 (away) -> clamped to -127 (never 0x80).
  MXBlockResult r =
      mxQuantizeBlockInt8({-1.9921875, 1.9921875, -1.0, 0.0}, kAway, kFloor);
  EXPECT_EQ(r.sharedExponent, 0);
  EXPECT_EQ(r.codes, (std::vector<uint32_t>{0x81, 0x7F, 0xC0, 0x00}));
  EXPECT_EQ(r.dequantized,
            (std::vector<double>{-1.984375, 1.984375, -1.0, 0.0}));
  // Decoding accepts the unused code 0x80 as -2.0 * 2^e.
  EXPECT_EQ(mxDequantizeElement(0x80, MXElementType::getInt8(), 3), -16.0);
  EXPECT_EQ(MXElementType::getInt8().getMaxNormal(), 1.984375);
  EXPECT_EQ(MXElementType::getInteger(4).getMaxNormal(), 1.75);
  EXPECT_EQ(MXElementType::getInteger(2).getMaxNormal(), 1.0);
  EXPECT_EQ(MXElementType::getInt8().getEmax(), 0);
  EXPECT_EQ(MXElementType::getInt8().getBitWidth(), 8u);
}

TEST(MXTest, ElementsKeepSubnormalsAndSignedZero) {
  // max 448 -> e = 0; 2^-9 is E4M3's smallest subnormal.
  MXBlockResult r = mxQuantizeBlock({448.0, 0x1p-9, -0x1p-11, -0.0},
                                    K::F8E4M3FN, kEven, kFloor);
  EXPECT_EQ(r.dequantized[1], 0x1p-9);
  EXPECT_EQ(r.codes[2], 0x80u); // underflows to -0
  EXPECT_TRUE(std::signbit(r.dequantized[2]));
  EXPECT_TRUE(std::signbit(r.dequantized[3]));
  // A zero block: exponent -127, all codes zero.
  MXBlockResult zeros = mxQuantizeBlock({0.0, 0.0}, K::F6E3M2FN, kEven, kCeil);
  EXPECT_EQ(zeros.sharedExponent, -127);
  EXPECT_EQ(zeros.codes, (std::vector<uint32_t>{0, 0}));
  // The smallest scale keeps tiny values exactly (2^-9 * 2^-127).
  MXBlockResult tiny =
      mxQuantizeBlock({0x1p-136, 0x1p-130}, K::F8E4M3FN, kEven, kFloor);
  EXPECT_EQ(tiny.sharedExponent, -127);
  EXPECT_EQ(tiny.dequantized, (std::vector<double>{0x1p-136, 0x1p-130}));
}

TEST(MXTest, ElementTypeAccessors) {
  MXElementType fp4 = MXElementType::getFloat(K::F4E2M1FN);
  EXPECT_FALSE(fp4.isInteger());
  EXPECT_EQ(fp4.getFloatKind(), K::F4E2M1FN);
  EXPECT_EQ(fp4.getBitWidth(), 4u);
  EXPECT_EQ(fp4.getEmax(), 2);
  EXPECT_EQ(fp4.getMaxNormal(), 6.0);
  EXPECT_TRUE(MXElementType::getInteger(4).isInteger());
}

} // namespace
