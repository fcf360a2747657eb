//===- IntegerQuantTest.cpp - Tests for Numerics/IntegerQuant.h -----------===//
//
// Checks the integer contract: storage ranges for every width 2..32, ties
// under each rounding mode, rounding before the zero point, clamping, the
// documented NaN/Inf choices, true division in f32 (f64 for 32-bit
// storage), the two dequantize forms in f32; then
// replays every integer WebNN and ONNX (de)quantize vector of
// test/Conformance/vectors through these functions (scales and zero points
// expanded per the source's own block rule), so the formulas are checked
// against the external sources exactly.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/IntegerQuant.h"
#include "quant-block/Numerics/ElementQuantizer.h"

#include "ConformanceJSON.h"
#include "TestUtils.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>

using namespace quant_block::numerics;
using namespace quant_block::numerics::testing;
using llvm::json::Object;

namespace {

const IntegerRange kI8 = {-128, 127};
const IntegerRange kU8 = {0, 255};

TEST(IntegerQuantTest, StorageRanges) {
  struct Case {
    unsigned bits;
    int64_t smin, smax, umax;
  };
  const Case cases[] = {
      {2, -2, 1, 3},
      {3, -4, 3, 7},
      {4, -8, 7, 15},
      {8, -128, 127, 255},
      {16, -32768, 32767, 65535},
      {32, std::numeric_limits<int32_t>::min(),
       std::numeric_limits<int32_t>::max(),
       std::numeric_limits<uint32_t>::max()},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.bits);
    IntegerRange s = getIntegerStorageRange(c.bits, true);
    IntegerRange u = getIntegerStorageRange(c.bits, false);
    EXPECT_EQ(s.min, c.smin);
    EXPECT_EQ(s.max, c.smax);
    EXPECT_EQ(u.min, 0);
    EXPECT_EQ(u.max, c.umax);
  }
  for (unsigned bits = 2; bits <= 32; ++bits) {
    SCOPED_TRACE(bits);
    IntegerRange s = getIntegerStorageRange(bits, true);
    IntegerRange u = getIntegerStorageRange(bits, false);
    EXPECT_EQ(s.max - s.min + 1, int64_t(1) << bits);
    EXPECT_EQ(s.min, -(s.max + 1));
    EXPECT_EQ(u.max - u.min + 1, int64_t(1) << bits);
    EXPECT_EQ(u.max, 2 * s.max + 1);
  }
}

TEST(IntegerQuantTest, TiesUnderEachRoundingMode) {
  struct Case {
    double x, scale;
    int64_t even, away, trunc;
  };
  const Case cases[] = {
      {0.5, 1.0, 0, 1, 0},   {1.5, 1.0, 2, 2, 1},     {2.5, 1.0, 2, 3, 2},
      {-0.5, 1.0, 0, -1, 0}, {-1.5, 1.0, -2, -2, -1}, {-2.5, 1.0, -2, -3, -2},
      {5.0, 2.0, 2, 3, 2},   {-7.0, 2.0, -4, -4, -3}, {1.25, 0.5, 2, 3, 2},
      {2.6, 1.0, 3, 3, 2},   {-2.4, 1.0, -2, -2, -2},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.x / c.scale);
    EXPECT_EQ(quantizeInteger(c.x, c.scale, 0, kI8, kEven, 8), c.even);
    EXPECT_EQ(quantizeInteger(c.x, c.scale, 0, kI8, kAway, 8), c.away);
    EXPECT_EQ(quantizeInteger(c.x, c.scale, 0, kI8, kTrunc, 8), c.trunc);
  }
}

TEST(IntegerQuantTest, RoundsBeforeAddingTheZeroPoint) {
  // x / s = 0.5, zp = 1: round(0.5) + 1 = 1; rounding after adding would
  // give round(1.5) = 2.
  EXPECT_EQ(quantizeInteger(0.5, 1.0, 1, kU8, kEven, 8), 1);
  EXPECT_EQ(quantizeInteger(2.5, 1.0, 3, kU8, kEven, 8), 5);
  EXPECT_EQ(quantizeInteger(-0.5, 1.0, 128, kU8, kEven, 8), 128);
  EXPECT_EQ(quantizeInteger(-0.5, 1.0, 128, kU8, kAway, 8), 127);
}

TEST(IntegerQuantTest, ClampsToTheRange) {
  EXPECT_EQ(quantizeInteger(1000.0, 1.0, 0, kI8, kEven, 8), 127);
  EXPECT_EQ(quantizeInteger(-1000.0, 1.0, 0, kI8, kEven, 8), -128);
  EXPECT_EQ(quantizeInteger(100.0, 1.0, 200, kU8, kEven, 8), 255);
  EXPECT_EQ(quantizeInteger(-10.0, 1.0, 5, kU8, kEven, 8), 0);
  // Narrow symmetric range [-7, 7].
  IntegerRange narrow = {-7, 7};
  EXPECT_EQ(quantizeInteger(-8.0, 1.0, 0, narrow, kEven, 4), -7);
  EXPECT_EQ(quantizeInteger(7.4, 1.0, 0, narrow, kEven, 4), 7);
  // ONNX: uint16 70000 / 2 + 32767 -> 65535; int16 65024 / 2 + 256 ->
  // 32767.
  EXPECT_EQ(quantizeInteger(70000.0, 2.0, 32767,
                            getIntegerStorageRange(16, false), kEven, 16),
            65535);
  EXPECT_EQ(quantizeInteger(65024.0, 2.0, 256, getIntegerStorageRange(16, true),
                            kEven, 16),
            32767);
  // Full 32-bit ranges and quotients far beyond int64.
  IntegerRange i32 = getIntegerStorageRange(32, true);
  IntegerRange u32 = getIntegerStorageRange(32, false);
  EXPECT_EQ(quantizeInteger(1e30, 1.0, 0, i32, kEven, 32), i32.max);
  EXPECT_EQ(quantizeInteger(-1e30, 1.0, 0, i32, kEven, 32), i32.min);
  EXPECT_EQ(quantizeInteger(1e30f, 1e-30f, 0, u32, kEven, 32), u32.max);
  // f64 quotients keep the integer part of large 32-bit values.
  EXPECT_EQ(quantizeInteger(4294967040.0f, 1.0f, 0, u32, kEven, 32),
            4294967040);
  EXPECT_EQ(quantizeInteger(1.0f, 0x1p-31f, -1, i32, kEven, 32), i32.max);
}

TEST(IntegerQuantTest, NaNAndInfinityChoices) {
  // NaN quantizes like x / s == 0: to the zero point, clamped.
  EXPECT_EQ(quantizeInteger(kNaN, 1.0, 0, kI8, kEven, 8), 0);
  EXPECT_EQ(quantizeInteger(kNaN, 0.5, 10, kU8, kAway, 8), 10);
  EXPECT_EQ(quantizeInteger(kNaN, 1.0, 300, kU8, kEven, 8), 255);
  EXPECT_EQ(quantizeInteger(0.0, 0.0, 3, kU8, kEven, 8), 3); // 0 / 0
  // +-Inf saturate by the quotient's sign.
  EXPECT_EQ(quantizeInteger(kInf, 1.0, 0, kI8, kEven, 8), 127);
  EXPECT_EQ(quantizeInteger(-kInf, 1.0, 0, kI8, kEven, 8), -128);
  EXPECT_EQ(quantizeInteger(kInf, -1.0, 0, kI8, kEven, 8), -128);
  EXPECT_EQ(quantizeInteger(1.0, 0.0, 0, kU8, kTrunc, 8), 255);
  EXPECT_EQ(quantizeInteger(-1.0, 0.0, 0, kI8, kTrunc, 8), -128);
}

TEST(IntegerQuantTest, DividesInF32) {
  // docs/Numerics.md: x / s is an f32 division. 0.35f / 0.1f is exactly 3.5
  // in f32 (a tie, to even: 4); the same operands divided in double give
  // 3.4999998882412928, which would round to 3.
  ASSERT_EQ(0.35f / 0.1f, 3.5f);
  ASSERT_LT(double(0.35f) / double(0.1f), 3.5);
  EXPECT_EQ(quantizeInteger(0.35f, 0.1f, 0, kI8, kEven, 8), 4);
  EXPECT_EQ(quantizeInteger(-0.35f, 0.1f, 0, kI8, kEven, 8), -4);
  // Rounding happens before the zero point, in f32 too.
  EXPECT_EQ(quantizeInteger(0.35f, 0.1f, 3, kU8, kEven, 8), 7);
  EXPECT_EQ(quantizeInteger(0.35f, 0.1f, 0, kI8, kTrunc, 8), 3);
  // The float-zero-point form: (x - m) / s in f32, rounded, clamped; a NaN
  // quotient gives clamp(0).
  EXPECT_EQ(quantizeIntegerWithFloatZeroPoint(0.35f, 0.1f, 0.0f, kU8, kEven, 8),
            4);
  EXPECT_EQ(quantizeIntegerWithFloatZeroPoint(1.5f, 0.5f, 0.25f, kU8, kEven, 8),
            2);
  EXPECT_EQ(quantizeIntegerWithFloatZeroPoint(0.0f, 0.5f, 1.0f, kU8, kEven, 8),
            0);
  EXPECT_EQ(
      quantizeIntegerWithFloatZeroPoint(float(kNaN), 0.5f, 1.0f, kI8, kEven, 8),
      0);
}

TEST(IntegerQuantTest, DividesInF64For32BitStorage) {
  // 2^24 / 0.75 = 22369621.33...: f64 keeps the integer part, while the f32
  // quotient would already be 22369622 (f32 spacing is 2 there).
  const float x = 0x1p24f, s = 0.75f;
  ASSERT_EQ(x / s, 22369622.0f);
  IntegerRange i32 = getIntegerStorageRange(32, true);
  EXPECT_EQ(quantizeInteger(x, s, 0, i32, kEven, 32), 22369621);
  // Narrower storage divides in f32 (here with the i32 range, to show the
  // quotient alone).
  EXPECT_EQ(quantizeInteger(x, s, 0, i32, kEven, 16), 22369622);
  // The zero point is added to the f64 rounded quotient exactly.
  EXPECT_EQ(quantizeInteger(x, s, -21, i32, kEven, 32), 22369600);
}

TEST(IntegerQuantTest, UsesTrueDivision) {
  // x / s is exactly 124.5 in f32 (ties to even: 124); x * (1 / s) gives
  // 124.500008 and would round to 125.
  const float x = 0x1.c76ad4p+4f, s = 0x1.d4385ep-3f;
  ASSERT_EQ(x / s, 124.5f);
  ASSERT_GT(x * (1.0f / s), 124.5f);
  EXPECT_EQ(quantizeInteger(x, s, 0, kU8, kEven, 8), 124);
  EXPECT_EQ(quantizeInteger(-x, s, 0, kI8, kEven, 8), -124);
  // Negative scales (20 WebNN cases use them) divide as written.
  EXPECT_EQ(quantizeInteger(3.0f, -2.0f, 0, kI8, kEven, 8), -2);
  EXPECT_EQ(quantizeInteger(3.0f, -2.0f, 0, kI8, kAway, 8), -2);
}

TEST(IntegerQuantTest, DequantizeForms) {
  EXPECT_EQ(dequantizeIntegerWithIntZeroPoint(3, 0.5f, 1), 1.0f);
  EXPECT_EQ(dequantizeIntegerWithIntZeroPoint(-8, 0.25f, 7), -3.75f);
  EXPECT_EQ(dequantizeIntegerWithIntZeroPoint(0, 2.0f, 0), 0.0f);
  // int32 extremes: the difference is exact in int64, not wrapped, then
  // converted to f32 (2^32 - 1 rounds to 2^32).
  EXPECT_EQ(dequantizeIntegerWithIntZeroPoint(
                std::numeric_limits<int32_t>::max(), 1.0f,
                std::numeric_limits<int32_t>::min()),
            4294967296.0f);
  EXPECT_EQ(dequantizeIntegerWithFloatZeroPoint(3, 0.5f, -1.0f), 0.5f);
  // The product is rounded to f32, not to double.
  EXPECT_EQ(dequantizeIntegerWithFloatZeroPoint(15, 0.1f, 0.0f), 15 * 0.1f);
  // One rounding (fused): 3 * (1 + 2^-23) - 3 is exactly 3 * 2^-23, while a
  // separately rounded product would give 4 * 2^-23.
  const float s = 1.0f + 0x1p-23f;
  EXPECT_EQ(dequantizeIntegerWithFloatZeroPoint(3, s, -3.0f), 3 * 0x1p-23f);
}

TEST(IntegerQuantTest, StorageCodes) {
  EXPECT_EQ(encodeIntegerCode(-1, 4), 0xFu);
  EXPECT_EQ(encodeIntegerCode(-8, 4), 0x8u);
  EXPECT_EQ(encodeIntegerCode(7, 4), 0x7u);
  EXPECT_EQ(encodeIntegerCode(15, 4), 0xFu);
  EXPECT_EQ(encodeIntegerCode(-2, 2), 0x2u);
  EXPECT_EQ(encodeIntegerCode(-1, 32), 0xFFFFFFFFu);
  EXPECT_EQ(decodeIntegerCode(0xF, 4, true), -1);
  EXPECT_EQ(decodeIntegerCode(0xF, 4, false), 15);
  EXPECT_EQ(decodeIntegerCode(0x8, 4, true), -8);
  EXPECT_EQ(decodeIntegerCode(0x4, 3, true), -4);
  EXPECT_EQ(decodeIntegerCode(0x3, 3, true), 3);
  EXPECT_EQ(decodeIntegerCode(0xFFFFFFFF, 32, true), -1);
  EXPECT_EQ(decodeIntegerCode(0xFFFFFFFF, 32, false), 4294967295);
  for (unsigned bits = 2; bits <= 8; ++bits)
    for (bool isSigned : {true, false}) {
      IntegerRange r = getIntegerStorageRange(bits, isSigned);
      for (int64_t v = r.min; v <= r.max; ++v)
        EXPECT_EQ(decodeIntegerCode(encodeIntegerCode(v, bits), bits, isSigned),
                  v);
    }
}

//===----------------------------------------------------------------------===//
// Conformance vectors
//===----------------------------------------------------------------------===//

/// Integer dtypes of the conformance files: width and signedness.
std::optional<std::pair<unsigned, bool>> integerDtype(llvm::StringRef name) {
  static const std::map<std::string, std::pair<unsigned, bool>> dtypes = {
      {"int2", {2, true}},     {"uint2", {2, false}},   {"int4", {4, true}},
      {"uint4", {4, false}},   {"int8", {8, true}},     {"uint8", {8, false}},
      {"int16", {16, true}},   {"uint16", {16, false}}, {"int32", {32, true}},
      {"uint32", {32, false}},
  };
  auto it = dtypes.find(name.str());
  if (it == dtypes.end())
    return std::nullopt;
  return it->second;
}

/// Rounds a value to a float dtype of the files (float32 / float16): inputs
/// are "rounded to the declared dtype first", results once to the output's.
double toDtype(double v, llvm::StringRef dtype) {
  if (dtype == "float32")
    return static_cast<float>(v);
  if (dtype == "float16") {
#ifdef __FLT16_MANT_DIG__
    return static_cast<double>(static_cast<_Float16>(v));
#else
    ADD_FAILURE() << "no _Float16 on this compiler";
    return kNaN;
#endif
  }
  ADD_FAILURE() << "unexpected float dtype " << dtype.str();
  return kNaN;
}

std::vector<double> typedData(const Object &tensor) {
  std::vector<double> data = jsonNumbers(tensor.getArray("data"));
  llvm::StringRef dtype = *tensor.getString("dtype");
  if (!integerDtype(dtype))
    for (double &v : data)
      v = toDtype(v, dtype);
  return data;
}

/// WebNN: the scale is right-aligned to the input rank and each scale
/// element covers input.shape[i] / scale.shape[i] elements along axis i.
int64_t webnnParameterIndex(int64_t flatIndex, const std::vector<int64_t> &in,
                            std::vector<int64_t> param) {
  param.insert(param.begin(), in.size() - param.size(), 1);
  std::vector<int64_t> coords(in.size());
  for (int64_t d = int64_t(in.size()) - 1, rest = flatIndex; d >= 0; --d) {
    coords[d] = rest % in[d];
    rest /= in[d];
  }
  int64_t index = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    EXPECT_EQ(in[d] % param[d], 0) << "scale dim does not divide input dim";
    index = index * param[d] + coords[d] / (in[d] / param[d]);
  }
  return index;
}

/// Runs one numeric case; returns false when its dtypes are not integer
/// storage (float8/float4 cases belong to FloatFormatsTest).
bool runIntegerCase(const Object &c, bool isONNX) {
  const Object &input = *c.getObject("input");
  const Object &scale = *c.getObject("scale");
  const Object &expected = *c.getObject("expected");
  const Object *zeroPoint = c.getObject("zero_point");
  llvm::StringRef op = *c.getString("op");
  llvm::StringRef storage = op == "quantize" ? *expected.getString("dtype")
                                             : *input.getString("dtype");
  std::optional<std::pair<unsigned, bool>> dtype = integerDtype(storage);
  if (!dtype)
    return false;

  std::vector<int64_t> inShape = tensorShape(input);
  std::vector<int64_t> scaleShape = tensorShape(scale);
  std::vector<double> x = typedData(input);
  std::vector<double> s = typedData(scale);
  std::vector<double> zp(s.size(), 0.0);
  if (zeroPoint) {
    EXPECT_EQ(*zeroPoint->getString("dtype"), storage);
    zp = typedData(*zeroPoint);
  }
  std::vector<double> want = jsonNumbers(expected.getArray("data"));
  EXPECT_EQ(want.size(), x.size());
  const Object &attrs = *c.getObject("attrs");
  int64_t axis = attrs.getInteger("axis").value_or(1);
  int64_t blockSize = attrs.getInteger("block_size").value_or(0);

  IntegerRange range = getIntegerStorageRange(dtype->first, dtype->second);
  // The same case through the ElementQuantizer the compiler folds with.
  ElementScheme scheme;
  scheme.storageBitWidth = dtype->first;
  scheme.storageSigned = dtype->second;
  scheme.range = range;
  scheme.zeroPoint = ZeroPointKind::Int;
  llvm::StringRef floatDtype = op == "quantize" ? *input.getString("dtype")
                                                : *expected.getString("dtype");
  scheme.expressed =
      floatDtype == "float16" ? IEEEFloatKind::F16 : IEEEFloatKind::F32;
  ElementQuantizer quantizer(scheme);
  for (size_t i = 0; i < x.size() && i < want.size(); ++i) {
    int64_t p =
        isONNX ? onnxParameterIndex(i, inShape, scaleShape, axis, blockSize)
               : webnnParameterIndex(i, inShape, scaleShape);
    int64_t z = static_cast<int64_t>(zp[p]);
    if (op == "quantize") {
      EXPECT_EQ(quantizeInteger(x[i], s[p], z, range, kEven, dtype->first),
                want[i])
          << "element " << i << ": " << x[i] << " / " << s[p] << " + " << z;
      EXPECT_EQ(decodeIntegerCode(quantizer.quantize(x[i], s[p], z),
                                  dtype->first, dtype->second),
                want[i])
          << "element " << i << " (ElementQuantizer)";
    } else {
      // Computed in f32 (docs/Numerics.md) and rounded to the output dtype;
      // the expected decimals are rounded to that dtype too (they are
      // written with more digits than it holds).
      llvm::StringRef outDtype = *expected.getString("dtype");
      int64_t q = static_cast<int64_t>(x[i]);
      double got =
          toDtype(dequantizeIntegerWithIntZeroPoint(q, s[p], z), outDtype);
      EXPECT_EQ(got, toDtype(want[i], outDtype)) << "element " << i;
      EXPECT_EQ(
          quantizer.dequantize(encodeIntegerCode(q, dtype->first), s[p], z),
          toDtype(want[i], outDtype))
          << "element " << i << " (ElementQuantizer)";
    }
  }
  return true;
}

TEST(IntegerQuantTest, ConformanceVectors) {
  struct File {
    const char *name;
    bool isONNX;
    unsigned minIntegerCases;
  };
  const File files[] = {{"webnn_quantizeLinear.json", false, 30},
                        {"webnn_dequantizeLinear.json", false, 32},
                        {"onnx_quantizelinear.json", true, 10},
                        {"onnx_dequantizelinear.json", true, 9}};
  for (const File &file : files) {
    SCOPED_TRACE(file.name);
    const llvm::json::Value *doc = loadConformanceFile(file.name);
    ASSERT_NE(doc, nullptr);
    unsigned integerCases = 0, otherCases = 0, total = 0;
    for (const llvm::json::Value &caseValue :
         *doc->getAsObject()->getArray("cases")) {
      const Object &c = *caseValue.getAsObject();
      SCOPED_TRACE(c.getString("name")->str());
      ++total;
      ASSERT_EQ(c.getBoolean("valid"), true);
      if (runIntegerCase(c, file.isONNX)) {
        ++integerCases;
      } else {
        // Only float8/float4 storage may be left to FloatFormatsTest.
        llvm::StringRef op = *c.getString("op");
        const Object &storage =
            *c.getObject(op == "quantize" ? "expected" : "input");
        EXPECT_TRUE(floatFormatFromONNXName(*storage.getString("dtype")))
            << "case neither integer nor float8/float4";
        ++otherCases;
      }
    }
    EXPECT_EQ(integerCases + otherCases, total);
    EXPECT_GE(integerCases, file.minIntegerCases);
  }
}

} // namespace
