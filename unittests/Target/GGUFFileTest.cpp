//===- GGUFFileTest.cpp - the GGUF reader on valid and hostile files ------===//
//
// Files are built byte by byte here (a writer independent of the reader), so
// each test breaks exactly one rule and checks that the error names the
// field; the valid ones check every metadata value type and the repacked
// parts of a small Q4_0 tensor against ggml's formula.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Target/GGUF/GGUFFile.h"
#include "quant-block/Target/GGUF/GGUFParts.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

using namespace mlir::quant_block::gguf;

namespace {

/// A little-endian byte sink with the GGUF primitives.
struct Bytes {
  std::vector<uint8_t> data;

  template <typename T> Bytes &put(T value) {
    uint8_t raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    data.insert(data.end(), raw, raw + sizeof(T));
    return *this;
  }
  Bytes &string(const std::string &text) {
    put<uint64_t>(text.size());
    data.insert(data.end(), text.begin(), text.end());
    return *this;
  }
  Bytes &padTo(size_t alignment) {
    while (data.size() % alignment)
      data.push_back(0);
    return *this;
  }
};

struct TensorSpec {
  std::string name;
  std::vector<int64_t> ne;
  uint32_t type;
  uint64_t offset;
};

/// A header with `kvs` already-encoded pairs (count given) and tensor infos.
Bytes header(uint32_t version, int64_t numTensors, int64_t numKVs) {
  Bytes b;
  b.data = {'G', 'G', 'U', 'F'};
  b.put<uint32_t>(version).put<int64_t>(numTensors).put<int64_t>(numKVs);
  return b;
}

void tensorInfo(Bytes &b, const TensorSpec &spec) {
  b.string(spec.name).put<uint32_t>(spec.ne.size());
  for (int64_t n : spec.ne)
    b.put<int64_t>(n);
  b.put<uint32_t>(spec.type).put<uint64_t>(spec.offset);
}

llvm::Expected<std::unique_ptr<GGUFFile>> open(const Bytes &b) {
  return GGUFFile::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(b.data.data()),
                      b.data.size()),
      "test.gguf"));
}

/// The error message of opening `b` (empty if it opened).
std::string errorOf(const Bytes &b) {
  llvm::Expected<std::unique_ptr<GGUFFile>> file = open(b);
  if (file)
    return "";
  return llvm::toString(file.takeError());
}

/// A valid file with one F32 tensor of `count` elements.
Bytes oneF32Tensor(int64_t count) {
  Bytes b = header(3, 1, 1);
  b.string("general.architecture").put<uint32_t>(8).string("llama");
  tensorInfo(b, {"w", {count}, 0, 0});
  b.padTo(32);
  for (int64_t i = 0; i < count; ++i)
    b.put<float>(float(i));
  return b;
}

TEST(GGUFFile, ReadsEveryValueType) {
  Bytes b = header(3, 0, 14);
  b.string("u8").put<uint32_t>(0).put<uint8_t>(200);
  b.string("i8").put<uint32_t>(1).put<int8_t>(-100);
  b.string("u16").put<uint32_t>(2).put<uint16_t>(60000);
  b.string("i16").put<uint32_t>(3).put<int16_t>(-30000);
  b.string("u32").put<uint32_t>(4).put<uint32_t>(4000000000u);
  b.string("i32").put<uint32_t>(5).put<int32_t>(-2000000000);
  b.string("f32").put<uint32_t>(6).put<float>(0.5f);
  b.string("bool").put<uint32_t>(7).put<uint8_t>(1);
  b.string("str").put<uint32_t>(8).string("hello");
  b.string("u64").put<uint32_t>(10).put<uint64_t>(uint64_t(1) << 63);
  b.string("i64").put<uint32_t>(11).put<int64_t>(-(int64_t(1) << 40));
  b.string("f64").put<uint32_t>(12).put<double>(-0.25);
  b.string("arr").put<uint32_t>(9).put<uint32_t>(5).put<uint64_t>(3);
  b.put<int32_t>(7).put<int32_t>(-8).put<int32_t>(9);
  b.string("strs").put<uint32_t>(9).put<uint32_t>(8).put<uint64_t>(2);
  b.string("a").string("bc");
  llvm::Expected<std::unique_ptr<GGUFFile>> file = open(b);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const GGUFFile &f = **file;
  EXPECT_EQ(f.getMetadata().size(), 14u);
  EXPECT_EQ(f.lookup("u8")->getAsInteger(), 200);
  EXPECT_EQ(f.lookup("i8")->getAsInteger(), -100);
  EXPECT_EQ(f.lookup("u16")->getAsInteger(), 60000);
  EXPECT_EQ(f.lookup("i16")->getAsInteger(), -30000);
  EXPECT_EQ(f.lookup("u32")->getAsInteger(), 4000000000ll);
  EXPECT_EQ(f.lookup("i32")->getAsInteger(), -2000000000);
  EXPECT_EQ(f.lookup("f32")->floatValue, 0.5);
  EXPECT_EQ(f.lookup("bool")->getAsInteger(), 1);
  EXPECT_EQ(f.lookup("str")->stringValue, "hello");
  EXPECT_FALSE(f.lookup("u64")->getAsInteger().has_value());
  EXPECT_EQ(f.lookup("u64")->unsignedValue, uint64_t(1) << 63);
  EXPECT_EQ(f.lookup("i64")->getAsInteger(), -(int64_t(1) << 40));
  EXPECT_EQ(f.lookup("f64")->floatValue, -0.25);
  const GGUFValue *array = f.lookup("arr");
  ASSERT_TRUE(array->isArray());
  EXPECT_EQ(array->arraySize, 3u);
  EXPECT_EQ(array->getArrayElementAsDouble(1), -8);
  EXPECT_EQ(f.lookup("strs")->arrayStrings[1], "bc");
  EXPECT_EQ(f.getAlignment(), 32u);
  EXPECT_EQ(f.lookup("missing"), nullptr);
}

TEST(GGUFFile, TensorInfosAndData) {
  llvm::Expected<std::unique_ptr<GGUFFile>> file = open(oneF32Tensor(5));
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const GGUFTensorInfo *w = (*file)->lookupTensor("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->type->type, GGMLType::F32);
  EXPECT_EQ(w->byteSize, 20u);
  EXPECT_EQ((*file)->getDataOffset() % 32, 0u);
  llvm::ArrayRef<uint8_t> data = (*file)->getTensorData(*w);
  float third;
  std::memcpy(&third, data.data() + 8, 4);
  EXPECT_EQ(third, 2.0f);
}

TEST(GGUFFile, HostileHeaders) {
  Bytes b = oneF32Tensor(4);
  b.data[0] = 'X';
  EXPECT_NE(errorOf(b).find("magic"), std::string::npos) << errorOf(b);
  b = oneF32Tensor(4);
  b.data[4] = 1;
  EXPECT_NE(errorOf(b).find("version: 1 is not supported"), std::string::npos)
      << errorOf(b);
  b = oneF32Tensor(4);
  b.data.resize(10);
  EXPECT_NE(errorOf(b).find("tensor count at offset 8: needs 8 bytes, but "
                            "only 2 are left"),
            std::string::npos)
      << errorOf(b);
  Bytes huge = header(3, 0, int64_t(1) << 60);
  EXPECT_NE(errorOf(huge).find("metadata count"), std::string::npos)
      << errorOf(huge);
  Bytes negative = header(3, -1, 0);
  EXPECT_NE(errorOf(negative).find("tensor count"), std::string::npos)
      << errorOf(negative);
}

TEST(GGUFFile, HostileMetadata) {
  Bytes longString = header(3, 0, 1);
  longString.put<uint64_t>(1000).put<uint32_t>(0).put<uint64_t>(0);
  EXPECT_NE(errorOf(longString)
                .find("metadata pair #0 key at offset 32: "
                      "needs 1000 bytes"),
            std::string::npos)
      << errorOf(longString);
  Bytes badType = header(3, 0, 1);
  badType.string("k").put<uint32_t>(13).put<uint8_t>(0);
  EXPECT_NE(errorOf(badType).find("'k': unknown value type 13"),
            std::string::npos)
      << errorOf(badType);
  Bytes duplicate = header(3, 0, 2);
  duplicate.string("k").put<uint32_t>(0).put<uint8_t>(1);
  duplicate.string("k").put<uint32_t>(0).put<uint8_t>(1);
  EXPECT_NE(errorOf(duplicate).find("duplicate key"), std::string::npos);
  Bytes bigArray = header(3, 0, 1);
  bigArray.string("a").put<uint32_t>(9).put<uint32_t>(4).put<uint64_t>(
      uint64_t(1) << 62);
  EXPECT_NE(errorOf(bigArray).find("array of 4611686018427387904 UINT32"),
            std::string::npos)
      << errorOf(bigArray);
  Bytes nested = header(3, 0, 1);
  nested.string("a").put<uint32_t>(9).put<uint32_t>(9).put<uint64_t>(1);
  EXPECT_NE(errorOf(nested).find("nested arrays"), std::string::npos);
  Bytes alignment = header(3, 0, 1);
  alignment.string("general.alignment").put<uint32_t>(4).put<uint32_t>(24);
  EXPECT_NE(errorOf(alignment).find("24 is not a power of two"),
            std::string::npos)
      << errorOf(alignment);
  Bytes alignmentType = header(3, 0, 1);
  alignmentType.string("general.alignment").put<uint32_t>(0).put<uint8_t>(32);
  EXPECT_NE(errorOf(alignmentType).find("must be UINT32"), std::string::npos);
}

TEST(GGUFFile, HostileTensorInfos) {
  auto withTensors = [](std::vector<TensorSpec> specs, size_t dataBytes) {
    Bytes b = header(3, specs.size(), 0);
    for (const TensorSpec &spec : specs)
      tensorInfo(b, spec);
    b.padTo(32);
    b.data.resize(b.data.size() + dataBytes);
    return b;
  };
  EXPECT_NE(errorOf(withTensors({{"w", {-4}, 0, 0}}, 64))
                .find("tensor 'w': ne[0] = -4 is negative"),
            std::string::npos);
  EXPECT_NE(
      errorOf(
          withTensors({{"w", {int64_t(1) << 40, int64_t(1) << 40}, 0, 0}}, 64))
          .find("overflows"),
      std::string::npos);
  EXPECT_NE(
      errorOf(withTensors({{"w", {4, 1, 1, 1, 1}, 0, 0}}, 64)).find("n_dims 5"),
      std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {4}, 99, 0}}, 64))
                .find("unknown ggml type id 99"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {4}, 4, 0}}, 64))
                .find("unknown ggml type id 4"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {48}, 2, 0}}, 64))
                .find("not a whole number of Q4_0 blocks of 32"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {4}, 0, 8}}, 64))
                .find("offset 8 is not a multiple of the alignment 32"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {64}, 0, 0}}, 64))
                .find("lies outside the file"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {16}, 0, 0}, {"v", {16}, 0, 32}}, 96))
                .find("overlaps tensor 'w'"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {4}, 0, 0}, {"w", {4}, 0, 32}}, 64))
                .find("tensor 'w': duplicate name"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensors({{"w", {4}, 0, uint64_t(-32)}}, 64))
                .find("lies outside the file"),
            std::string::npos);
}

TEST(GGUFParts, Q4_0RepacksToSignedNibblesInElementOrder) {
  // One Q4_0 block: d = 1.0 (f16 0x3C00), byte j = (j+1) << 4 | j, so
  // element j (j < 16) has nibble j, element j + 16 nibble (j + 1) & 15.
  Bytes b = header(3, 1, 0);
  tensorInfo(b, {"w", {32}, 2, 0});
  b.padTo(32);
  b.put<uint16_t>(0x3C00);
  for (unsigned j = 0; j < 16; ++j)
    b.put<uint8_t>(((j + 1) & 15) << 4 | j);
  llvm::Expected<std::unique_ptr<GGUFFile>> file = open(b);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const GGUFTensorInfo &w = (*file)->getTensors()[0];
  llvm::Expected<TensorLayout> layout = getTensorLayout(w);
  ASSERT_TRUE(bool(layout)) << llvm::toString(layout.takeError());
  EXPECT_EQ(layout->type, "!quant_block.tensor<32, #quant_block.scheme<i4 : "
                          "f32, block = [32], scale = f16>>");
  ASSERT_EQ(layout->parts.size(), 2u);
  std::vector<uint8_t> data(16), scales(2);
  llvm::MutableArrayRef<uint8_t> buffers[] = {data, scales};
  ASSERT_FALSE(bool(repackTensor(**file, *layout, buffers)));
  for (unsigned e = 0; e < 32; ++e) {
    unsigned nibble = e < 16 ? e : (e - 16 + 1) & 15;
    unsigned code = (data[e / 2] >> (4 * (e % 2))) & 15;
    EXPECT_EQ(code, nibble ^ 8) << "element " << e;
  }
  EXPECT_EQ(scales[0] | scales[1] << 8, 0x3C00);
}

TEST(GGUFParts, RowsRepackAsTheirSliceOfTheWholeTensor) {
  // Three rows of one Q4_0 block each: d = row + 1 (f16 1.0, 2.0, 3.0),
  // byte j of row r = 16 r + j.
  Bytes b = header(3, 1, 0);
  tensorInfo(b, {"w", {32, 3}, 2, 0});
  b.padTo(32);
  for (unsigned r = 0; r < 3; ++r) {
    b.put<uint16_t>(0x3C00 + 0x400 * (r > 0) + 0x200 * (r > 1));
    for (unsigned j = 0; j < 16; ++j)
      b.put<uint8_t>(16 * r + j);
  }
  llvm::Expected<std::unique_ptr<GGUFFile>> file = open(b);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const GGUFTensorInfo &w = (*file)->getTensors()[0];
  llvm::Expected<TensorLayout> layout = getTensorLayout(w);
  ASSERT_TRUE(bool(layout)) << llvm::toString(layout.takeError());
  std::vector<uint8_t> data(48), scales(6);
  llvm::MutableArrayRef<uint8_t> whole[] = {data, scales};
  ASSERT_FALSE(bool(repackTensor(**file, *layout, whole)));

  std::vector<uint8_t> rowData(32), rowScales(4);
  llvm::MutableArrayRef<uint8_t> rows[] = {rowData, rowScales};
  ASSERT_FALSE(bool(repackTensorRows(**file, *layout, 1, 3, rows)));
  EXPECT_EQ(rowData, std::vector<uint8_t>(data.begin() + 16, data.end()));
  EXPECT_EQ(rowScales, std::vector<uint8_t>(scales.begin() + 2, scales.end()));
  (*file)->releaseTensorRows(w, 1, 3);

  llvm::Error outside = repackTensorRows(**file, *layout, 2, 4, rows);
  ASSERT_TRUE(bool(outside));
  EXPECT_EQ(llvm::toString(std::move(outside)),
            "tensor 'w': rows [2, 4) are not within its 3 rows");
  llvm::MutableArrayRef<uint8_t> tooSmall[] = {
      llvm::MutableArrayRef<uint8_t>(rowData).take_front(16), rowScales};
  llvm::Error size = repackTensorRows(**file, *layout, 1, 3, tooSmall);
  ASSERT_TRUE(bool(size));
  EXPECT_EQ(llvm::toString(std::move(size)),
            "tensor 'w': the data part of 2 rows needs 32 bytes, 16 given");
}

TEST(GGUFParts, EmptyTensorsHaveNoRows) {
  // Only the element count is validated (0 here): the other dimensions'
  // product, 3 * 2^62, would not fit in 64 bits (as 2^59 * 2^15 in the GGUF
  // fuzzer's tools/fuzz/regressions/gguf/empty-tensor-rows-overflow.gguf).
  Bytes b = header(3, 1, 0);
  tensorInfo(b, {"w", {0, 3, int64_t(1) << 62}, 0, 0});
  b.padTo(32);
  llvm::Expected<std::unique_ptr<GGUFFile>> file = open(b);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const GGUFTensorInfo &w = (*file)->getTensors()[0];
  EXPECT_EQ(w.getNumElements(), 0);
  EXPECT_EQ(w.getNumRows(), 0);
  llvm::Expected<TensorLayout> layout = getTensorLayout(w);
  ASSERT_TRUE(bool(layout)) << llvm::toString(layout.takeError());
  llvm::MutableArrayRef<uint8_t> none[] = {{}};
  EXPECT_FALSE(bool(repackTensor(**file, *layout, none)));
  (*file)->releaseTensorRows(w, 0, 1);
}

TEST(GGUFParts, LatticeTypesAreNamedErrors) {
  Bytes b = header(3, 1, 0);
  tensorInfo(b, {"blk.0.ffn_up.weight", {256}, 16, 0});
  b.padTo(32);
  b.data.resize(b.data.size() + 66);
  llvm::Expected<std::unique_ptr<GGUFFile>> file = open(b);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  llvm::Expected<TensorLayout> layout =
      getTensorLayout((*file)->getTensors()[0]);
  ASSERT_FALSE(bool(layout));
  std::string message = llvm::toString(layout.takeError());
  EXPECT_NE(message.find("tensor 'blk.0.ffn_up.weight': type IQ2_XXS is a "
                         "lattice codebook type"),
            std::string::npos)
      << message;
}

} // namespace
