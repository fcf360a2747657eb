//===- FloatFormatsTest.cpp - Tests for Numerics/FloatFormats.h -----------===//
//
// Checks the narrow float formats against test/Conformance/vectors: the format
// facts and E2M1 table of mx_formats.json (iterated, not transcribed), the
// float8/float4 codes of the ONNX node tests; and, exhaustively over every
// code, decode/encode round trips and ties between every pair of neighbours
// under every rounding mode. Then the rules the JSON does not pin: saturation
// either way, -0.0, NaN/Inf, subnormals, E8M0 rounding.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/FloatFormats.h"
#include "quant-block/Numerics/ElementQuantizer.h"

#include "ConformanceJSON.h"
#include "TestUtils.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace quant_block::numerics;
using namespace quant_block::numerics::testing;
using llvm::json::Array;
using llvm::json::Object;

namespace {

using K = FloatFormatKind;

uint32_t codeCount(K kind) { return 1u << getFloatFormatInfo(kind).bitWidth; }

/// Finite non-negative codes of a format, sorted by value.
std::vector<uint32_t> finitePositiveCodesByValue(K kind) {
  std::vector<uint32_t> codes;
  for (uint32_t code = 0; code < codeCount(kind); ++code) {
    double v = decodeFloat(kind, code);
    if (std::isfinite(v) && !std::signbit(v))
      codes.push_back(code);
  }
  std::sort(codes.begin(), codes.end(), [&](uint32_t a, uint32_t b) {
    return decodeFloat(kind, a) < decodeFloat(kind, b);
  });
  return codes;
}

const Object &mxDocument() {
  static const Object empty;
  const llvm::json::Value *doc = loadConformanceFile("mx_formats.json");
  EXPECT_NE(doc, nullptr) << "mx_formats.json not readable";
  if (!doc || !doc->getAsObject())
    return empty;
  return *doc->getAsObject();
}

//===----------------------------------------------------------------------===//
// Facts from mx_formats.json
//===----------------------------------------------------------------------===//

TEST(FloatFormatsTest, ElementFormatFactsMatchConformance) {
  const Object *formats = mxDocument().getObject("element_formats");
  ASSERT_NE(formats, nullptr);
  unsigned floatEntries = 0;
  for (const auto &[key, value] : *formats) {
    SCOPED_TRACE(key.str());
    const Object *entry = value.getAsObject();
    ASSERT_NE(entry, nullptr);
    std::optional<K> kind = floatFormatFromMXName(key);
    if (!kind) {
      // Integer MX elements (exponent_bits 0) are checked in MXTest.cpp;
      // any other unknown entry is a format this library lacks.
      EXPECT_EQ(entry->getInteger("exponent_bits"), 0)
          << "element format unknown to FloatFormats";
      EXPECT_TRUE(mxElementFromMXName(key).has_value());
      continue;
    }
    ++floatEntries;
    const FloatFormatInfo &info = getFloatFormatInfo(*kind);
    EXPECT_EQ(entry->getInteger("exponent_bits"), int64_t(info.exponentBits));
    EXPECT_EQ(entry->getInteger("mantissa_bits"), int64_t(info.mantissaBits));
    EXPECT_EQ(entry->getInteger("exponent_bias"), int64_t(info.bias));
    EXPECT_EQ(entry->getInteger("emax"), int64_t(info.emax));
    EXPECT_EQ(entry->getInteger("emin"), int64_t(info.emin));
    EXPECT_EQ(entry->getNumber("max_normal"), info.maxNormal);
    EXPECT_EQ(entry->getNumber("min_normal"), info.minNormal);
    EXPECT_EQ(entry->getNumber("max_subnormal"), info.maxSubnormal);
    EXPECT_EQ(entry->getNumber("min_subnormal"), info.minSubnormal);
    EXPECT_EQ(entry->getBoolean("has_inf"), info.hasInf);
    EXPECT_EQ(entry->getBoolean("has_nan"), info.hasNaN);
    EXPECT_EQ(info.bitWidth, 1 + info.exponentBits + info.mantissaBits);
    EXPECT_TRUE(info.hasSign);

    // The codes and counts, by enumerating our own decoder.
    // Normals are the codes with a non-zero exponent field.
    std::vector<uint32_t> infCodes, nanCodes;
    int64_t finiteCount = 0;
    double largest = 0, smallestNormal = kInf, largestSubnormal = 0;
    uint32_t magnitudeMask = (1u << (info.bitWidth - 1)) - 1;
    for (uint32_t code = 0; code < codeCount(*kind); ++code) {
      double v = decodeFloat(*kind, code);
      EXPECT_EQ(isNaNCode(*kind, code), std::isnan(v)) << code;
      if (std::isinf(v))
        infCodes.push_back(code);
      else if (std::isnan(v))
        nanCodes.push_back(code);
      else if (!(v == 0.0 && std::signbit(v)))
        ++finiteCount;
      if (!std::isfinite(v))
        continue;
      largest = std::max(largest, std::fabs(v));
      if ((code & magnitudeMask) >> info.mantissaBits)
        smallestNormal = std::min(smallestNormal, std::fabs(v));
      else
        largestSubnormal = std::max(largestSubnormal, std::fabs(v));
    }
    EXPECT_EQ(infCodes, parseHexCodes(entry->getArray("inf_codes")));
    EXPECT_EQ(nanCodes, parseHexCodes(entry->getArray("nan_codes")));
    EXPECT_EQ(entry->getInteger("num_finite_values_excluding_neg_zero"),
              finiteCount);
    EXPECT_EQ(largest, info.maxNormal);
    EXPECT_EQ(smallestNormal, info.minNormal);
    EXPECT_EQ(largestSubnormal, info.maxSubnormal);
    EXPECT_EQ(decodeFloat(*kind, 1), info.minSubnormal);
    EXPECT_LE(std::ldexp(1.0, info.emax), info.maxNormal);
    EXPECT_LT(info.maxNormal, std::ldexp(1.0, info.emax + 1));
    EXPECT_EQ(info.minNormal, std::ldexp(1.0, info.emin));

    // Where ONNX names the format, the names must agree.
    if (std::optional<llvm::StringRef> onnx = entry->getString("onnx_dtype")) {
      EXPECT_EQ(floatFormatFromONNXName(*onnx), kind);
    }
  }
  EXPECT_EQ(floatEntries, 5u);
}

TEST(FloatFormatsTest, E2M1CodeTableMatchesConformance) {
  const Object *table = mxDocument().getObject("e2m1_code_table");
  ASSERT_NE(table, nullptr);
  const Array *rows = table->getArray("rows");
  ASSERT_NE(rows, nullptr);
  ASSERT_EQ(rows->size(), 16u);
  for (const llvm::json::Value &rowValue : *rows) {
    const Object &row = *rowValue.getAsObject();
    uint32_t code = static_cast<uint32_t>(*row.getInteger("code"));
    double value = jsonNumber(*row.get("value"));
    SCOPED_TRACE(code);
    EXPECT_TRUE(sameValue(decodeFloat(K::F4E2M1FN, code), value));
    for (RoundingMode mode : kAllModes)
      EXPECT_EQ(encodeFloat(K::F4E2M1FN, value, mode, true), code);
    std::string bits;
    for (int bit = 3; bit >= 0; --bit)
      bits += ((code >> bit) & 1) ? '1' : '0';
    EXPECT_EQ(row.getString("bits"), llvm::StringRef(bits));
  }
  for (const llvm::json::Value &pair :
       *table->getArray("onnx_doc_magnitude_table")) {
    const Array &entry = *pair.getAsArray();
    uint32_t code = 0;
    ASSERT_FALSE(entry[0].getAsString()->getAsInteger(2, code));
    EXPECT_EQ(decodeFloat(K::F4E2M1FN, code), jsonNumber(entry[1]));
  }
  for (const llvm::json::Value &pair :
       *table->getArray("onnx_testdata_code_value_pairs")) {
    const Array &entry = *pair.getAsArray();
    EXPECT_EQ(decodeFloat(K::F4E2M1FN, parseHexCode(entry[0])),
              jsonNumber(entry[1]));
  }
}

TEST(FloatFormatsTest, E8M0FactsAndExamplesMatchConformance) {
  const Object *e8m0 = mxDocument().getObject("e8m0_scale");
  ASSERT_NE(e8m0, nullptr);
  const FloatFormatInfo &info = getFloatFormatInfo(K::F8E8M0FNU);
  EXPECT_EQ(e8m0->getInteger("bits"), int64_t(info.bitWidth));
  EXPECT_EQ(e8m0->getInteger("sign_bits"), int64_t(info.hasSign ? 1 : 0));
  EXPECT_EQ(e8m0->getInteger("mantissa_bits"), int64_t(info.mantissaBits));
  EXPECT_EQ(e8m0->getInteger("exponent_bias"), int64_t(info.bias));
  EXPECT_EQ(e8m0->getBoolean("has_inf"), info.hasInf);
  EXPECT_EQ(e8m0->getBoolean("has_sign"), info.hasSign);
  EXPECT_EQ(e8m0->getBoolean("has_zero"), false);
  EXPECT_EQ(*getNaNCode(K::F8E8M0FNU), parseHexCode(*e8m0->get("nan_code")));
  EXPECT_EQ(info.maxNormal, 0x1p127);
  EXPECT_EQ(info.minNormal, 0x1p-127);
  EXPECT_EQ(info.minSubnormal, 0.0);
  EXPECT_EQ(info.emax, 127);
  const Array *examples = e8m0->getArray("examples");
  ASSERT_NE(examples, nullptr);
  ASSERT_FALSE(examples->empty());
  for (const llvm::json::Value &exampleValue : *examples) {
    const Object &example = *exampleValue.getAsObject();
    uint32_t code = parseHexCode(*example.get("code"));
    double value = jsonNumber(*example.get("value"));
    SCOPED_TRACE(code);
    EXPECT_TRUE(sameValue(decodeFloat(K::F8E8M0FNU, code), value));
    for (RoundingMode mode : kAllModes)
      EXPECT_EQ(encodeFloat(K::F8E8M0FNU, value, mode, true), code);
  }
}

//===----------------------------------------------------------------------===//
// Exhaustive properties
//===----------------------------------------------------------------------===//

TEST(FloatFormatsTest, EveryCodeRoundTrips) {
  for (K kind : kAllFloatFormatKinds) {
    const FloatFormatInfo &info = getFloatFormatInfo(kind);
    SCOPED_TRACE(info.name);
    for (uint32_t code = 0; code < codeCount(kind); ++code) {
      double v = decodeFloat(kind, code);
      for (RoundingMode mode : kAllModes) {
        for (bool saturate : {true, false}) {
          uint32_t back = encodeFloat(kind, v, mode, saturate);
          if (std::isnan(v)) {
            EXPECT_TRUE(isNaNCode(kind, back)) << code;
          } else if (std::isinf(v) && saturate) {
            EXPECT_EQ(decodeFloat(kind, back),
                      std::copysign(info.maxNormal, v));
          } else {
            EXPECT_EQ(back, code) << "value " << v;
          }
        }
      }
    }
  }
}

TEST(FloatFormatsTest, NeighbourTiesAndMidpointsUnderEveryMode) {
  // Between every two neighbouring values lo < hi the midpoint is exact in
  // double: HalfToEven takes the neighbour with the even code (even last
  // mantissa bit), HalfAwayFromZero takes hi, TowardZero takes lo; just off
  // the midpoint both nearest modes agree. Negated values mirror it.
  for (K kind : kAllFloatFormatKinds) {
    if (kind == K::F8E8M0FNU)
      continue; // Rounds in the linear domain between powers; see below.
    SCOPED_TRACE(getFloatFormatInfo(kind).name);
    std::vector<uint32_t> codes = finitePositiveCodesByValue(kind);
    ASSERT_GE(codes.size(), 8u);
    for (size_t i = 0; i + 1 < codes.size(); ++i) {
      uint32_t lo = codes[i], hi = codes[i + 1];
      double loValue = decodeFloat(kind, lo), hiValue = decodeFloat(kind, hi);
      double mid = (loValue + hiValue) / 2;
      uint32_t even = (lo & 1) == 0 ? lo : hi;
      ASSERT_NE(lo & 1, hi & 1) << "neighbours must alternate parity";
      uint32_t sign = 1u << (getFloatFormatInfo(kind).bitWidth - 1);
      for (double s : {1.0, -1.0}) {
        uint32_t signBits = s < 0 ? sign : 0u;
        SCOPED_TRACE(s * mid);
        EXPECT_EQ(encodeFloat(kind, s * mid, kEven, true), signBits | even);
        EXPECT_EQ(encodeFloat(kind, s * mid, kAway, true), signBits | hi);
        EXPECT_EQ(encodeFloat(kind, s * mid, kTrunc, true), signBits | lo);
        double below = std::nextafter(mid, loValue);
        double above = std::nextafter(mid, hiValue);
        for (RoundingMode mode : {kEven, kAway}) {
          EXPECT_EQ(encodeFloat(kind, s * below, mode, true), signBits | lo);
          EXPECT_EQ(encodeFloat(kind, s * above, mode, true), signBits | hi);
        }
        EXPECT_EQ(encodeFloat(kind, s * above, kTrunc, true), signBits | lo);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Named cases
//===----------------------------------------------------------------------===//

TEST(FloatFormatsTest, OnnxTiesToEven) {
  // ONNX test_quantizelinear_e4m3fn: 200 / 2 = 100, between 96 and 104.
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 100.0, kEven, true), 0x6Cu);
  EXPECT_EQ(decodeFloat(K::F8E4M3FN, 0x6C), 96.0);
  EXPECT_EQ(
      decodeFloat(K::F8E4M3FN, encodeFloat(K::F8E4M3FN, 100.0, kAway, true)),
      104.0);
  // ONNX test_quantizelinear_float4e2m1: 2.5 / 2 = 1.25, between 1 and 1.5.
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, 1.25, kEven, true), 0x2u);
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, 1.25, kAway, true), 0x3u);
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, -1.25, kEven, true), 0xAu);
  // microxcaling test_fp8_e4m3_fix: 400 is a tie of 384 and 416.
  EXPECT_EQ(
      decodeFloat(K::F8E4M3FN, encodeFloat(K::F8E4M3FN, 400.0, kEven, true)),
      384.0);
  EXPECT_EQ(
      decodeFloat(K::F8E4M3FN, encodeFloat(K::F8E4M3FN, 400.0, kAway, true)),
      416.0);
  // ONNX test_quantizelinear_e5m2: 50000 rounds to 49152 (in range).
  EXPECT_EQ(encodeFloat(K::F8E5M2, 50000.0, kEven, true), 0x7Au);
}

TEST(FloatFormatsTest, SaturationClampsToMaxNormal) {
  struct Case {
    K kind;
    double maxNormal;
    double beyond[3];
  };
  const Case cases[] = {
      {K::F8E4M3FN, 448.0, {464.0, 480.0, 1e6}},
      {K::F8E5M2, 57344.0, {61439.0, 61440.0, 1e10}},
      {K::F6E2M3FN, 7.5, {7.75, 8.0, 100.0}},
      {K::F6E3M2FN, 28.0, {30.0, 32.0, 1000.0}},
      {K::F4E2M1FN, 6.0, {7.0, 8.0, 30.0}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(getFloatFormatInfo(c.kind).name);
    uint32_t maxCode = encodeFloat(c.kind, c.maxNormal, kEven, true);
    EXPECT_EQ(decodeFloat(c.kind, maxCode), c.maxNormal);
    uint32_t sign = 1u << (getFloatFormatInfo(c.kind).bitWidth - 1);
    for (RoundingMode mode : kAllModes) {
      for (double x : c.beyond) {
        EXPECT_EQ(encodeFloat(c.kind, x, mode, true), maxCode) << x;
        EXPECT_EQ(encodeFloat(c.kind, -x, mode, true), sign | maxCode) << x;
      }
      EXPECT_EQ(encodeFloat(c.kind, kInf, mode, true), maxCode);
      EXPECT_EQ(encodeFloat(c.kind, -kInf, mode, true), sign | maxCode);
      EXPECT_EQ(
          encodeFloat(c.kind, std::numeric_limits<double>::max(), mode, true),
          maxCode);
    }
  }
  // ONNX: 100000 / 2 saturates to 448 (0x7E) in E4M3FN.
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 50000.0, kEven, true), 0x7Eu);
}

TEST(FloatFormatsTest, NonSaturatingOverflow) {
  // E4M3FN (no Inf): NaN, keeping the sign. 464 is a tie that rounds to even
  // 448 (in range); anything rounding past 448 overflows.
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 464.0, kEven, false), 0x7Eu);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 464.0, kAway, false), 0x7Fu);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 479.0, kTrunc, false), 0x7Eu);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 480.0, kEven, false), 0x7Fu);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, -1e6, kEven, false), 0xFFu);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, kInf, kEven, false), 0x7Fu);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, -kInf, kEven, false), 0xFFu);
  // E5M2: Inf. 61440 is the tie between 57344 and 2^16 (even = Inf).
  EXPECT_EQ(encodeFloat(K::F8E5M2, 61439.0, kEven, false), 0x7Bu);
  EXPECT_EQ(encodeFloat(K::F8E5M2, 61440.0, kEven, false), 0x7Cu);
  EXPECT_EQ(encodeFloat(K::F8E5M2, -61440.0, kEven, false), 0xFCu);
  EXPECT_EQ(encodeFloat(K::F8E5M2, 1e10, kTrunc, false), 0x7Cu);
  EXPECT_EQ(encodeFloat(K::F8E5M2, kInf, kEven, false), 0x7Cu);
  EXPECT_EQ(encodeFloat(K::F8E5M2, -kInf, kEven, false), 0xFCu);
  // Formats with neither Inf nor NaN saturate regardless.
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, 7.0, kEven, false), 0x7u);
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, -kInf, kEven, false), 0xFu);
  EXPECT_EQ(encodeFloat(K::F6E2M3FN, 100.0, kEven, false), 0x1Fu);
  EXPECT_EQ(encodeFloat(K::F6E3M2FN, -100.0, kEven, false), 0x3Fu);
  // Truncation never overflows a finite value just past the range edge.
  EXPECT_EQ(encodeFloat(K::F8E5M2, 65535.0, kTrunc, false), 0x7Bu);
}

TEST(FloatFormatsTest, NegativeZeroKeepsTheSignBit) {
  for (K kind : kAllFloatFormatKinds) {
    const FloatFormatInfo &info = getFloatFormatInfo(kind);
    if (!info.hasSign)
      continue;
    SCOPED_TRACE(info.name);
    uint32_t sign = 1u << (info.bitWidth - 1);
    double negZero = decodeFloat(kind, sign);
    EXPECT_EQ(negZero, 0.0);
    EXPECT_TRUE(std::signbit(negZero));
    EXPECT_FALSE(std::signbit(decodeFloat(kind, 0)));
    for (RoundingMode mode : kAllModes) {
      EXPECT_EQ(encodeFloat(kind, -0.0, mode, true), sign);
      EXPECT_EQ(encodeFloat(kind, 0.0, mode, true), 0u);
      // Underflow of a negative value keeps its sign, too.
      EXPECT_EQ(encodeFloat(kind, -info.minSubnormal / 4, mode, false), sign);
    }
  }
  // E8M0 has no sign and no zero: both zeros become the smallest scale.
  EXPECT_EQ(encodeFloat(K::F8E8M0FNU, -0.0, kEven, true), 0x00u);
  EXPECT_EQ(encodeFloat(K::F8E8M0FNU, 0.0, kEven, false), 0x00u);
}

TEST(FloatFormatsTest, NaNAndInfinity) {
  // Decoding.
  EXPECT_TRUE(std::isnan(decodeFloat(K::F8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::signbit(decodeFloat(K::F8E4M3FN, 0xFF)));
  EXPECT_EQ(decodeFloat(K::F8E4M3FN, 0x7E), 448.0);
  EXPECT_EQ(decodeFloat(K::F8E4M3FN, 0x78), 256.0); // exponent 15 is normal
  EXPECT_EQ(decodeFloat(K::F8E5M2, 0x7C), kInf);
  EXPECT_EQ(decodeFloat(K::F8E5M2, 0xFC), -kInf);
  for (uint32_t code : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu})
    EXPECT_TRUE(std::isnan(decodeFloat(K::F8E5M2, code))) << code;
  EXPECT_TRUE(std::isnan(decodeFloat(K::F8E8M0FNU, 0xFF)));
  EXPECT_EQ(decodeFloat(K::F8E8M0FNU, 0xFE), 0x1p127);

  // Encoding NaN: the positive canonical code whatever the NaN's sign (as
  // docs/Numerics.md says), or 0 without NaN.
  const double negNaN = std::copysign(kNaN, -1.0);
  for (bool saturate : {true, false}) {
    EXPECT_EQ(encodeFloat(K::F8E4M3FN, kNaN, kEven, saturate), 0x7Fu);
    EXPECT_EQ(encodeFloat(K::F8E4M3FN, negNaN, kEven, saturate), 0x7Fu);
    EXPECT_EQ(encodeFloat(K::F8E5M2, kNaN, kEven, saturate), 0x7Fu);
    EXPECT_EQ(encodeFloat(K::F8E5M2, negNaN, kEven, saturate), 0x7Fu);
    EXPECT_EQ(encodeFloat(K::F8E8M0FNU, kNaN, kEven, saturate), 0xFFu);
    for (K kind : {K::F6E2M3FN, K::F6E3M2FN, K::F4E2M1FN}) {
      EXPECT_EQ(encodeFloat(kind, kNaN, kEven, saturate), 0u);
      EXPECT_EQ(encodeFloat(kind, negNaN, kEven, saturate), 0u);
    }
  }
  EXPECT_EQ(getNaNCode(K::F8E4M3FN, true), 0xFFu);
  EXPECT_EQ(getNaNCode(K::F8E5M2), 0x7Fu);
  EXPECT_FALSE(getNaNCode(K::F4E2M1FN).has_value());
  EXPECT_FALSE(isNaNCode(K::F8E5M2, 0x7C));
  EXPECT_FALSE(isNaNCode(K::F8E4M3FN, 0x7E));
}

TEST(FloatFormatsTest, SubnormalsAreExact) {
  // E4M3FN: subnormals are k * 2^-9.
  for (uint32_t k = 1; k < 8; ++k) {
    EXPECT_EQ(decodeFloat(K::F8E4M3FN, k), std::ldexp(double(k), -9));
    EXPECT_EQ(encodeFloat(K::F8E4M3FN, std::ldexp(double(k), -9), kEven, true),
              k);
  }
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 0.013671875, kEven, true), 0x07u);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 0x1p-6, kEven, true), 0x08u);
  // Half the smallest subnormal: tie between 0 (even) and 2^-9.
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 0x1p-10, kEven, true), 0x00u);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 0x1p-10, kAway, true), 0x01u);
  EXPECT_EQ(encodeFloat(K::F8E4M3FN, 0x1.8p-9, kEven, true), 0x02u);
  // E5M2: 2^-16 .. 3 * 2^-16.
  EXPECT_EQ(encodeFloat(K::F8E5M2, 0x1p-16, kEven, true), 0x01u);
  EXPECT_EQ(encodeFloat(K::F8E5M2, 0x1.8p-15, kEven, true), 0x03u);
  EXPECT_EQ(decodeFloat(K::F8E5M2, 0x83), -0x1.8p-15);
  // E2M1: 0.5 is the only subnormal; 0.25 ties to 0, 0.75 ties to 1 (even).
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, 0.25, kEven, true), 0x0u);
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, 0.25, kAway, true), 0x1u);
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, 0.75, kEven, true), 0x2u);
  EXPECT_EQ(encodeFloat(K::F4E2M1FN, 0.74, kEven, true), 0x1u);
  // E2M3: subnormals k / 8.
  EXPECT_EQ(encodeFloat(K::F6E2M3FN, 0.875, kEven, true), 0x07u);
  EXPECT_EQ(encodeFloat(K::F6E2M3FN, 0.0625, kEven, true), 0x00u);
  EXPECT_EQ(encodeFloat(K::F6E2M3FN, 0.0625, kAway, true), 0x01u);
  // E3M2: subnormals k / 16.
  EXPECT_EQ(encodeFloat(K::F6E3M2FN, 0.1875, kEven, true), 0x03u);
  EXPECT_EQ(encodeFloat(K::F6E3M2FN, 0.2, kTrunc, true), 0x03u);
  // Double subnormals far below every grid round to zero.
  EXPECT_EQ(encodeFloat(K::F8E5M2, std::numeric_limits<double>::denorm_min(),
                        kAway, true),
            0x00u);
}

TEST(FloatFormatsTest, E8M0RoundsInTheLinearDomain) {
  const K e8m0 = K::F8E8M0FNU;
  // 1.5 * 2^e is the tie between 2^e and 2^(e+1).
  EXPECT_EQ(encodeFloat(e8m0, 1.5, kEven, true), 127u);      // 2^0 even
  EXPECT_EQ(encodeFloat(e8m0, 3.0, kEven, true), 129u);      // 2^2 even
  EXPECT_EQ(encodeFloat(e8m0, 0.75, kEven, true), 127u);     // 2^0 even
  EXPECT_EQ(encodeFloat(e8m0, 1.5, kAway, true), 128u);      // 2^1
  EXPECT_EQ(encodeFloat(e8m0, 1.9, kTrunc, true), 127u);     // 2^0
  EXPECT_EQ(encodeFloat(e8m0, 1.4999, kAway, true), 127u);   // 2^0
  EXPECT_EQ(encodeFloat(e8m0, 1.5001, kEven, true), 128u);   // 2^1
  EXPECT_EQ(encodeFloat(e8m0, 0x1.8p-128, kEven, true), 0u); // clamp low
  EXPECT_EQ(encodeFloat(e8m0, 0x1p-200, kTrunc, true), 0u);
  // Above 2^127: saturate to 0xFE, or NaN.
  EXPECT_EQ(encodeFloat(e8m0, 0x1.8p127, kEven, true), 0xFEu);
  EXPECT_EQ(encodeFloat(e8m0, 0x1.8p127, kEven, false), 0xFFu);
  EXPECT_EQ(encodeFloat(e8m0, 0x1.8p127, kTrunc, false), 0xFEu);
  EXPECT_EQ(encodeFloat(e8m0, kInf, kEven, true), 0xFEu);
  EXPECT_EQ(encodeFloat(e8m0, kInf, kEven, false), 0xFFu);
  // No sign: negative values are NaN.
  EXPECT_EQ(encodeFloat(e8m0, -1.0, kEven, true), 0xFFu);
  for (uint32_t code = 0; code < 255; ++code)
    EXPECT_EQ(decodeFloat(e8m0, code),
              std::ldexp(1.0, static_cast<int>(code) - 127));
}

TEST(FloatFormatsTest, NamesAndInfo) {
  const char *names[] = {"f8E4M3FN", "f8E5M2",   "f6E2M3FN",
                         "f6E3M2FN", "f4E2M1FN", "f8E8M0FNU"};
  unsigned widths[] = {8, 8, 6, 6, 4, 8};
  int emaxes[] = {8, 15, 2, 4, 2, 127};
  for (size_t i = 0; i < 6; ++i) {
    K kind = kAllFloatFormatKinds[i];
    EXPECT_EQ(static_cast<size_t>(kind), i);
    EXPECT_STREQ(getFloatFormatInfo(kind).name, names[i]);
    EXPECT_EQ(getFloatFormatInfo(kind).bitWidth, widths[i]);
    EXPECT_EQ(getFloatFormatInfo(kind).emax, emaxes[i]);
  }
  EXPECT_FALSE(getFloatFormatInfo(K::F6E2M3FN).hasNaN);
  EXPECT_FALSE(getFloatFormatInfo(K::F8E4M3FN).hasInf);
  EXPECT_TRUE(getFloatFormatInfo(K::F8E5M2).hasInf);
}

//===----------------------------------------------------------------------===//
// ONNX node tests: float8 / float4 codes
//===----------------------------------------------------------------------===//

/// Every ONNX tensor that carries float8/float4 `bits` must decode to its
/// `data`; every quantize case with a float8/float4 output must encode to
/// the expected bits (zero compared by value: the source stores -0.0 / 4 as
/// +0, see the case notes).
TEST(FloatFormatsTest, OnnxFloatCodesMatchConformance) {
  unsigned decodedTensors = 0, encodedCases = 0;
  for (const char *file :
       {"onnx_quantizelinear.json", "onnx_dequantizelinear.json"}) {
    const llvm::json::Value *doc = loadConformanceFile(file);
    ASSERT_NE(doc, nullptr) << file;
    for (const llvm::json::Value &caseValue :
         *doc->getAsObject()->getArray("cases")) {
      const Object &c = *caseValue.getAsObject();
      SCOPED_TRACE(c.getString("name")->str());
      for (const char *key : {"input", "zero_point", "expected"}) {
        const Object *tensor = c.getObject(key);
        if (!tensor)
          continue;
        std::optional<K> kind =
            floatFormatFromONNXName(*tensor->getString("dtype"));
        if (!kind)
          continue;
        ASSERT_NE(tensor->getArray("bits"), nullptr) << key;
        std::vector<uint32_t> bits = parseHexCodes(tensor->getArray("bits"));
        std::vector<double> data = jsonNumbers(tensor->getArray("data"));
        ASSERT_EQ(bits.size(), data.size());
        for (size_t i = 0; i < bits.size(); ++i)
          EXPECT_EQ(decodeFloat(*kind, bits[i]), data[i]) << key << i;
        ++decodedTensors;
      }

      const Object &expected = *c.getObject("expected");
      std::optional<K> outKind =
          floatFormatFromONNXName(*expected.getString("dtype"));
      if (*c.getString("op") != "quantize" || !outKind)
        continue;
      ++encodedCases;
      const Object &input = *c.getObject("input");
      const Object &scale = *c.getObject("scale");
      const Object *attrs = c.getObject("attrs");
      // The division runs in the scale's precision (float32 in all cases).
      ASSERT_EQ(*scale.getString("dtype"), "float32");
      ASSERT_EQ(*input.getString("dtype"), "float32");
      bool saturate = attrs->getInteger("saturate").value_or(1) != 0;
      int64_t axis = attrs->getInteger("axis").value_or(1);
      int64_t blockSize = attrs->getInteger("block_size").value_or(0);
      std::vector<double> x = jsonNumbers(input.getArray("data"));
      std::vector<double> s = jsonNumbers(scale.getArray("data"));
      std::vector<double> zp(s.size(), 0.0);
      if (const Object *zeroPoint = c.getObject("zero_point"))
        zp = jsonNumbers(zeroPoint->getArray("data"));
      std::vector<uint32_t> want = parseHexCodes(expected.getArray("bits"));
      ASSERT_EQ(want.size(), x.size());
      // The same through the ElementQuantizer the compiler folds with
      // (float storage has no zero point there).
      ElementScheme scheme;
      scheme.floatStorage = *outKind;
      scheme.storageBitWidth = getFloatFormatInfo(*outKind).bitWidth;
      scheme.saturate = saturate;
      ElementQuantizer quantizer(scheme);
      for (size_t i = 0; i < x.size(); ++i) {
        int64_t p = onnxParameterIndex(i, tensorShape(input),
                                       tensorShape(scale), axis, blockSize);
        float ratio = static_cast<float>(x[i]) / static_cast<float>(s[p]);
        uint32_t got = encodeFloat(*outKind, double(ratio) + zp[p],
                                   RoundingMode::HalfToEven, saturate);
        double gotValue = decodeFloat(*outKind, got);
        if (gotValue == 0.0)
          EXPECT_EQ(decodeFloat(*outKind, want[i]), 0.0) << i;
        else
          EXPECT_EQ(got, want[i]) << i;
        if (zp[p] != 0.0)
          continue;
        // ElementQuantizer keeps the sign of -0.0 (x / s + 0 above does not).
        uint32_t code = quantizer.quantize(float(x[i]), float(s[p]));
        if (decodeFloat(*outKind, code) == 0.0) {
          EXPECT_EQ(decodeFloat(*outKind, want[i]), 0.0) << i;
        } else {
          EXPECT_EQ(code, want[i]) << i << " (ElementQuantizer)";
        }
      }
    }
  }
  EXPECT_GE(decodedTensors, 10u);
  EXPECT_GE(encodedCases, 3u);
}

} // namespace
