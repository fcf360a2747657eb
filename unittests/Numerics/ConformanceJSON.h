//===- ConformanceJSON.h - Reading the conformance vectors -----*- C++ -*-===//
//
// Small helpers the numerics unit tests use to read the conformance vectors
// (test/Conformance/vectors, or QUANT_BLOCK_CONFORMANCE_DIR; set by CMake) with
// llvm::json, so that the tests are driven by the JSON files and a new case
// there needs no new code here. Malformed or missing data is reported as a test
// failure, never skipped.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_UNITTESTS_NUMERICS_CONFORMANCEJSON_H
#define QUANT_BLOCK_UNITTESTS_NUMERICS_CONFORMANCEJSON_H

#include "quant-block/Numerics/FloatFormats.h"
#include "quant-block/Numerics/MX.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#ifndef QUANT_BLOCK_CONFORMANCE_DIR
#error "QUANT_BLOCK_CONFORMANCE_DIR must name test/Conformance/vectors"
#endif

namespace quant_block::numerics::testing {

/// The JSON text of a value, for failure messages.
inline std::string dump(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << value;
  return stream.str();
}

/// Parses QUANT_BLOCK_CONFORMANCE_DIR/fileName once and caches it; returns
/// nullptr (and prints why) when the file is missing or not JSON. Callers
/// assert on the pointer, so a missing file fails the test.
inline const llvm::json::Value *loadConformanceFile(const std::string &name) {
  static std::map<std::string, std::unique_ptr<llvm::json::Value>> cache;
  auto it = cache.find(name);
  if (it != cache.end())
    return it->second.get();
  std::string path = std::string(QUANT_BLOCK_CONFORMANCE_DIR) + "/" + name;
  std::ifstream stream(path);
  std::unique_ptr<llvm::json::Value> &slot = cache[name];
  if (!stream) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    return nullptr;
  }
  std::stringstream text;
  text << stream.rdbuf();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text.str());
  if (!parsed) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(),
                 llvm::toString(parsed.takeError()).c_str());
    return nullptr;
  }
  slot = std::make_unique<llvm::json::Value>(std::move(*parsed));
  return slot.get();
}

/// A JSON number, one of the strings "nan", "inf", "-inf" the conformance
/// files use for non-finite values, or a decimal written as a string (some
/// tables quote theirs, as Python's float() accepts). Anything else fails the
/// test and gives NaN.
inline double jsonNumber(const llvm::json::Value &value) {
  if (std::optional<double> number = value.getAsNumber())
    return *number;
  if (std::optional<llvm::StringRef> text = value.getAsString()) {
    if (*text == "nan")
      return std::numeric_limits<double>::quiet_NaN();
    if (*text == "inf")
      return std::numeric_limits<double>::infinity();
    if (*text == "-inf")
      return -std::numeric_limits<double>::infinity();
    std::string decimal = text->str();
    char *end = nullptr;
    double number = std::strtod(decimal.c_str(), &end);
    if (!decimal.empty() && end == decimal.c_str() + decimal.size() &&
        std::isfinite(number))
      return number;
  }
  ADD_FAILURE() << "not a number: " << dump(value);
  return std::numeric_limits<double>::quiet_NaN();
}

inline std::vector<double> jsonNumbers(const llvm::json::Array *array) {
  std::vector<double> numbers;
  if (!array) {
    ADD_FAILURE() << "expected a JSON array of numbers";
    return numbers;
  }
  for (const llvm::json::Value &value : *array)
    numbers.push_back(jsonNumber(value));
  return numbers;
}

inline std::vector<int64_t> jsonIntegers(const llvm::json::Array *array) {
  std::vector<int64_t> integers;
  if (!array) {
    ADD_FAILURE() << "expected a JSON array of integers";
    return integers;
  }
  for (const llvm::json::Value &value : *array) {
    std::optional<int64_t> integer = value.getAsInteger();
    if (!integer) {
      // Integer data is sometimes written as 1.0; accept exact integers.
      double number = jsonNumber(value);
      if (number != std::floor(number))
        ADD_FAILURE() << "not an integer: " << number;
      integer = static_cast<int64_t>(number);
    }
    integers.push_back(*integer);
  }
  return integers;
}

/// "0x7F" -> 127. Fails the test on anything else.
inline uint32_t parseHexCode(const llvm::json::Value &value) {
  std::optional<llvm::StringRef> text = value.getAsString();
  uint32_t code = 0;
  if (!text || !text->starts_with("0x") ||
      text->drop_front(2).getAsInteger(16, code))
    ADD_FAILURE() << "not a hex code: " << dump(value);
  return code;
}

inline std::vector<uint32_t> parseHexCodes(const llvm::json::Array *array) {
  std::vector<uint32_t> codes;
  if (!array) {
    ADD_FAILURE() << "expected a JSON array of hex codes";
    return codes;
  }
  for (const llvm::json::Value &value : *array)
    codes.push_back(parseHexCode(value));
  return codes;
}

/// Row-major shape helpers for the tensors of the case format.
inline std::vector<int64_t> tensorShape(const llvm::json::Object &tensor) {
  return jsonIntegers(tensor.getArray("shape"));
}

inline int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

/// Index into an ONNX scale / zero point tensor for element `flatIndex` of
/// an input of shape `inputShape`: per-tensor (one element), per-axis (1-D,
/// block_size 0) or blocked along `axis` (scale dim = ceil(dim / block)).
inline int64_t onnxParameterIndex(int64_t flatIndex,
                                  const std::vector<int64_t> &inputShape,
                                  const std::vector<int64_t> &paramShape,
                                  int64_t axis, int64_t blockSize) {
  if (elementCount(paramShape) == 1 && paramShape.size() <= 1)
    return 0;
  int64_t rank = static_cast<int64_t>(inputShape.size());
  axis = (axis % rank + rank) % rank;
  std::vector<int64_t> coords(inputShape.size());
  for (int64_t d = rank - 1, rest = flatIndex; d >= 0; --d) {
    coords[d] = rest % inputShape[d];
    rest /= inputShape[d];
  }
  if (blockSize == 0) {
    EXPECT_EQ(paramShape.size(), 1u) << "per-axis parameter must be 1-D";
    return coords[axis];
  }
  EXPECT_EQ(paramShape.size(), inputShape.size());
  coords[axis] /= blockSize;
  int64_t index = 0;
  for (size_t d = 0; d < paramShape.size(); ++d)
    index = index * paramShape[d] + coords[d];
  return index;
}

/// The float format behind a microxcaling element name ("fp8_e4m3", ...).
inline std::optional<FloatFormatKind>
floatFormatFromMXName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<FloatFormatKind>>(name)
      .Case("fp8_e4m3", FloatFormatKind::F8E4M3FN)
      .Case("fp8_e5m2", FloatFormatKind::F8E5M2)
      .Case("fp6_e2m3", FloatFormatKind::F6E2M3FN)
      .Case("fp6_e3m2", FloatFormatKind::F6E3M2FN)
      .Case("fp4_e2m1", FloatFormatKind::F4E2M1FN)
      .Default(std::nullopt);
}

/// The MX element type behind a microxcaling element name: the float
/// formats above and its integers "int8" (MXINT8), "int4", "int2".
inline std::optional<MXElementType> mxElementFromMXName(llvm::StringRef name) {
  if (std::optional<FloatFormatKind> kind = floatFormatFromMXName(name))
    return MXElementType::getFloat(*kind);
  unsigned width = 0;
  if (name.consume_front("int") && !name.getAsInteger(10, width) &&
      width >= 2 && width <= 8)
    return MXElementType::getInteger(width);
  return std::nullopt;
}

/// The float format behind an ONNX dtype name ("float8e4m3fn", ...).
inline std::optional<FloatFormatKind>
floatFormatFromONNXName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<FloatFormatKind>>(name)
      .Case("float8e4m3fn", FloatFormatKind::F8E4M3FN)
      .Case("float8e5m2", FloatFormatKind::F8E5M2)
      .Case("float4e2m1", FloatFormatKind::F4E2M1FN)
      .Default(std::nullopt);
}

} // namespace quant_block::numerics::testing

#endif // QUANT_BLOCK_UNITTESTS_NUMERICS_CONFORMANCEJSON_H
