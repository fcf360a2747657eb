//===- PackingTest.cpp - Tests for Numerics/Packing.h ---------------------===//
//
// Checks the sub-byte packing order against the bytes ONNX stores
// (packed_bytes of every int4/uint4/int2/uint2/float4e2m1 tensor in the
// conformance files, read from the JSON), then the widths ONNX lacks (i3,
// fp6, odd widths straddling bytes), trailing partial bytes and round trips
// for every width.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/Packing.h"

#include "quant-block/Numerics/IntegerQuant.h"

#include "ConformanceJSON.h"

#include "gtest/gtest.h"

#include <map>
#include <random>
#include <string>

using namespace quant_block::numerics;
using namespace quant_block::numerics::testing;
using llvm::json::Object;

namespace {

TEST(PackingTest, MatchesOnnxPackedBytes) {
  const std::map<std::string, std::pair<unsigned, bool>> integerDtypes = {
      {"int4", {4, true}},
      {"uint4", {4, false}},
      {"int2", {2, true}},
      {"uint2", {2, false}}};
  unsigned checked = 0;
  for (const char *file :
       {"onnx_quantizelinear.json", "onnx_dequantizelinear.json"}) {
    const llvm::json::Value *doc = loadConformanceFile(file);
    ASSERT_NE(doc, nullptr) << file;
    for (const llvm::json::Value &caseValue :
         *doc->getAsObject()->getArray("cases")) {
      const Object &c = *caseValue.getAsObject();
      for (const char *key : {"input", "scale", "zero_point", "expected"}) {
        const Object *tensor = c.getObject(key);
        if (!tensor || !tensor->getArray("packed_bytes"))
          continue;
        std::string dtype = tensor->getString("dtype")->str();
        SCOPED_TRACE(c.getString("name")->str() + " " + key + " " + dtype);
        std::vector<uint32_t> codes;
        unsigned width = 0;
        std::vector<int64_t> values;
        bool isSigned = false;
        if (dtype == "float4e2m1") {
          width = 4;
          codes = parseHexCodes(tensor->getArray("bits"));
        } else {
          auto it = integerDtypes.find(dtype);
          ASSERT_NE(it, integerDtypes.end()) << "packed dtype not handled";
          std::tie(width, isSigned) = it->second;
          values = jsonIntegers(tensor->getArray("data"));
          for (int64_t v : values)
            codes.push_back(encodeIntegerCode(v, width));
        }
        std::vector<uint32_t> want =
            parseHexCodes(tensor->getArray("packed_bytes"));
        std::vector<uint8_t> wantBytes(want.begin(), want.end());
        EXPECT_EQ(packedByteCount(codes.size(), width), wantBytes.size());
        EXPECT_EQ(packBits(codes, width), wantBytes);
        std::vector<uint32_t> unpacked =
            unpackBits(wantBytes, width, codes.size());
        EXPECT_EQ(unpacked, codes);
        for (size_t i = 0; i < values.size(); ++i)
          EXPECT_EQ(decodeIntegerCode(unpacked[i], width, isSigned), values[i]);
        ++checked;
      }
    }
  }
  // 7 packed tensors per file at the time of writing; at least check some.
  EXPECT_GE(checked, 10u);
}

TEST(PackingTest, FirstElementInTheLowBits) {
  // Two i4: {1, 2} -> 0x21; odd count leaves the high nibble zero.
  EXPECT_EQ(packBits({0x1, 0x2}, 4), (std::vector<uint8_t>{0x21}));
  EXPECT_EQ(packBits({0x1, 0x2, 0xF}, 4), (std::vector<uint8_t>{0x21, 0x0F}));
  // Four i2 per byte, element 0 in bits 0-1.
  EXPECT_EQ(packBits({0, 1, 2, 3}, 2), (std::vector<uint8_t>{0xE4}));
  EXPECT_EQ(packBits({3}, 2), (std::vector<uint8_t>{0x03}));
  // 1-bit: element i is bit i.
  EXPECT_EQ(packBits({1, 0, 0, 0, 0, 0, 0, 1, 1}, 1),
            (std::vector<uint8_t>{0x81, 0x01}));
  // 8-bit is the identity.
  EXPECT_EQ(packBits({0xAB, 0x01}, 8), (std::vector<uint8_t>{0xAB, 0x01}));
}

TEST(PackingTest, StraddlingWidths) {
  // Eight i3 in three bytes: element i at bits [3i, 3i+3).
  std::vector<uint32_t> i3 = {0, 1, 2, 3, 4, 5, 6, 7};
  // Bit stream (LSB first): 000 100 010 110 001 101 011 111
  // byte0 = bits 0-7  = 0b10001000 = 0x88
  // byte1 = bits 8-15 = 0b11000110 = 0xC6
  // byte2 = bits 16-23 = 0b11111010 = 0xFA
  EXPECT_EQ(packBits(i3, 3), (std::vector<uint8_t>{0x88, 0xC6, 0xFA}));
  EXPECT_EQ(unpackBits({0x88, 0xC6, 0xFA}, 3, 8), i3);
  // Four fp6 in three bytes: codes 0x3F, 0x00, 0x15, 0x2A, i.e. the stream
  // (LSB first) 111111 000000 101010 010101 -> 0x3F, 0x50, 0xA9.
  std::vector<uint32_t> fp6 = {0x3F, 0x00, 0x15, 0x2A};
  EXPECT_EQ(packBits(fp6, 6), (std::vector<uint8_t>{0x3F, 0x50, 0xA9}));
  EXPECT_EQ(unpackBits({0x3F, 0x50, 0xA9}, 6, 4), fp6);
  // A single fp6 uses one byte with the top two bits zero.
  EXPECT_EQ(packBits({0x2A}, 6), (std::vector<uint8_t>{0x2A}));
  // Five fp6: 30 bits -> four bytes, top two bits of the last byte zero.
  std::vector<uint8_t> five = packBits({0x3F, 0x3F, 0x3F, 0x3F, 0x3F}, 6);
  EXPECT_EQ(five, (std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0x3F}));
}

TEST(PackingTest, ByteCounts) {
  EXPECT_EQ(packedByteCount(0, 4), 0u);
  EXPECT_EQ(packedByteCount(1, 4), 1u);
  EXPECT_EQ(packedByteCount(2, 4), 1u);
  EXPECT_EQ(packedByteCount(3, 4), 2u);
  EXPECT_EQ(packedByteCount(4, 6), 3u);
  EXPECT_EQ(packedByteCount(5, 6), 4u);
  EXPECT_EQ(packedByteCount(8, 3), 3u);
  EXPECT_EQ(packedByteCount(9, 3), 4u);
  EXPECT_EQ(packedByteCount(32, 4), 16u);
  EXPECT_EQ(packedByteCount(5, 2), 2u);
  EXPECT_EQ(packedByteCount(7, 8), 7u);
  EXPECT_TRUE(packBits({}, 4).empty());
  EXPECT_TRUE(unpackBits({}, 4, 0).empty());
}

TEST(PackingTest, RoundTripsEveryWidthAndCount) {
  std::mt19937 rng(1234);
  for (unsigned width = 1; width <= 8; ++width) {
    for (size_t count = 0; count <= 41; ++count) {
      SCOPED_TRACE(std::to_string(width) + " bits x " + std::to_string(count));
      std::vector<uint32_t> codes(count);
      for (uint32_t &code : codes)
        code = rng() & ((1u << width) - 1);
      std::vector<uint8_t> bytes = packBits(codes, width);
      ASSERT_EQ(bytes.size(), packedByteCount(count, width));
      EXPECT_EQ(unpackBits(bytes, width, count), codes);
      // Unused high bits of a trailing partial byte are zero.
      unsigned usedBits = (count * width) % 8;
      if (usedBits != 0) {
        EXPECT_EQ(bytes.back() >> usedBits, 0);
      }
      // Every bit of the stream is element (bit / width)'s bit (bit % width).
      for (size_t bit = 0; bit < count * width; ++bit)
        EXPECT_EQ((bytes[bit / 8] >> (bit % 8)) & 1,
                  (codes[bit / width] >> (bit % width)) & 1);
    }
  }
}

} // namespace
