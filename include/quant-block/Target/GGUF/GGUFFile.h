//===- GGUFFile.h - a validated, memory-mapped GGUF file ----------*- C++
//-*-===//
//
// Reads the header, the metadata (every value type, arrays included) and the
// tensor infos of a GGUF file (versions 2 and 3, little-endian), checks every
// rule a hostile file could break, and leaves the tensor data in the mapped
// file: nothing is read that a tensor does not need. Strings and arrays are
// views into the mapping, valid as long as the GGUFFile lives.
//
// The format: ggml's docs/gguf.md and src/gguf.cpp; facts and pitfalls in
// docs/GGUF.md.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_TARGET_GGUF_GGUFFILE_H
#define QUANT_BLOCK_TARGET_GGUF_GGUFFILE_H

#include "quant-block/Target/GGUF/GGMLType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::quant_block::gguf {

/// The metadata value types (gguf.h `enum gguf_type`).
enum class GGUFValueType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};

/// "UINT32", "STRING", ... as gguf.h names them; "?" for other values.
llvm::StringRef getGGUFValueTypeName(GGUFValueType type);
/// Bytes of one scalar of `type` (0 for STRING and ARRAY).
unsigned getGGUFValueTypeSize(GGUFValueType type);

/// One metadata value. Scalars are widened to the member their kind uses;
/// arrays of numbers and bools view their little-endian elements in the
/// file, arrays of strings are views of each string.
struct GGUFValue {
  GGUFValueType type = GGUFValueType::UInt8;
  uint64_t unsignedValue = 0; // UINT8..UINT64, BOOL
  int64_t signedValue = 0;    // INT8..INT64
  double floatValue = 0;      // FLOAT32, FLOAT64
  llvm::StringRef stringValue;
  // Arrays.
  GGUFValueType elementType = GGUFValueType::UInt8;
  uint64_t arraySize = 0;
  llvm::ArrayRef<uint8_t> arrayBytes;        // numeric / bool elements
  std::vector<llvm::StringRef> arrayStrings; // string elements

  bool isArray() const { return type == GGUFValueType::Array; }
  bool isInteger() const;
  /// The value as a signed 64-bit integer, if it is an integer (or bool)
  /// that fits.
  std::optional<int64_t> getAsInteger() const;
  /// Element `index` of a numeric array, converted to double (exact for
  /// every type but 64-bit integers beyond 2^53).
  double getArrayElementAsDouble(uint64_t index) const;
};

struct GGUFKeyValue {
  llvm::StringRef key;
  GGUFValue value;
};

/// One tensor info and where its bytes are.
struct GGUFTensorInfo {
  llvm::StringRef name;
  /// ggml's dimensions: ne[0] is the contiguous one (the row length), so
  /// the row-major shape is ne reversed. Never empty (a 0-d tensor is {1}).
  llvm::SmallVector<int64_t, 4> ne;
  const GGMLTypeInfo *type = nullptr;
  /// Offset from the start of the data section, and the absolute offset.
  uint64_t relativeOffset = 0;
  uint64_t fileOffset = 0;
  uint64_t byteSize = 0;
  /// Position in the file's tensor table.
  unsigned index = 0;

  int64_t getNumElements() const;
  /// The row-major shape: ne reversed.
  llvm::SmallVector<int64_t, 4> getShape() const;
  /// Elements per row (ne[0]) and the number of rows (the product of the
  /// other dimensions; 0 for a tensor without elements).
  int64_t getRowLength() const { return ne.front(); }
  int64_t getNumRows() const;
};

/// An open GGUF file.
class GGUFFile {
public:
  /// Maps `path` and validates it. The error names the file, the field and
  /// the rule it breaks.
  static llvm::Expected<std::unique_ptr<GGUFFile>> open(llvm::StringRef path);
  /// Validates a file held in `buffer` (fuzzing, tests); `name` is used in
  /// messages.
  static llvm::Expected<std::unique_ptr<GGUFFile>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);

  llvm::StringRef getName() const { return buffer->getBufferIdentifier(); }
  uint64_t getFileSize() const { return buffer->getBufferSize(); }
  uint32_t getVersion() const { return version; }
  uint64_t getAlignment() const { return alignment; }
  uint64_t getDataOffset() const { return dataOffset; }

  llvm::ArrayRef<GGUFKeyValue> getMetadata() const { return metadata; }
  /// The value of `key`, or null.
  const GGUFValue *lookup(llvm::StringRef key) const;

  llvm::ArrayRef<GGUFTensorInfo> getTensors() const { return tensors; }
  /// The tensor `name`, or null.
  const GGUFTensorInfo *lookupTensor(llvm::StringRef name) const;
  /// The tensor's bytes in the mapping (validated to lie in the file).
  llvm::ArrayRef<uint8_t> getTensorData(const GGUFTensorInfo &tensor) const;
  /// Tells the OS that this process is done with the tensor's bytes (after
  /// repacking them): the whole pages inside it leave the process's
  /// resident set (they stay in the page cache, and a later read maps them
  /// again), so a loader's peak memory is the repacked parts, not the parts
  /// plus the file. Nothing happens for a file read into memory.
  void releaseTensorData(const GGUFTensorInfo &tensor) const;
  /// The same for the bytes of rows [rowBegin, rowEnd) (a row: ne[0]
  /// elements, whole blocks): a loader that repacks a tensor in chunks of
  /// rows releases each chunk's pages after it, so that a large tensor's
  /// file pages and its copy are never all resident at once. Pages shared
  /// with a neighbouring chunk stay until releaseTensorData.
  void releaseTensorRows(const GGUFTensorInfo &tensor, int64_t rowBegin,
                         int64_t rowEnd) const;

private:
  explicit GGUFFile(std::unique_ptr<llvm::MemoryBuffer> buffer)
      : buffer(std::move(buffer)) {}
  llvm::Error parse();

  std::unique_ptr<llvm::MemoryBuffer> buffer;
  uint32_t version = 0;
  uint64_t alignment = 32;
  uint64_t dataOffset = 0;
  std::vector<GGUFKeyValue> metadata;
  llvm::StringMap<unsigned> keyIndex;
  std::vector<GGUFTensorInfo> tensors;
  llvm::StringMap<unsigned> tensorIndex;
};

} // namespace mlir::quant_block::gguf

#endif // QUANT_BLOCK_TARGET_GGUF_GGUFFILE_H
