//===- GGUFFile.cpp - a validated, memory-mapped GGUF file --------------===//
//
// Every read goes through a bounded cursor, so a count, length or offset
// that points past the end of the file is an error naming the field, never
// an out-of-bounds read; counts are checked against the bytes left before
// anything is allocated for them, so a hostile count cannot exhaust memory.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Target/GGUF/GGUFFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif

using namespace mlir::quant_block::gguf;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// ggml caps strings at 1 GiB (GGUF_MAX_STRING_LENGTH); dimensions at 4
/// (GGML_MAX_DIMS).
constexpr uint64_t kMaxStringLength = uint64_t(1) << 30;
constexpr uint32_t kMaxDims = 4;
constexpr uint64_t kDefaultAlignment = 32;

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A bounded little-endian reader over the file.
class Cursor {
public:
  Cursor(llvm::ArrayRef<uint8_t> bytes) : bytes(bytes) {}

  uint64_t position() const { return offset; }
  uint64_t remaining() const { return bytes.size() - offset; }

  Error need(uint64_t count, const llvm::Twine &field) {
    if (count > remaining())
      return makeError(llvm::formatv("{0} at offset {1}: needs {2} bytes, but "
                                     "only {3} are left in the file",
                                     field.str(), offset, count, remaining()));
    return Error::success();
  }

  template <typename T> Expected<T> read(const llvm::Twine &field) {
    if (Error error = need(sizeof(T), field))
      return std::move(error);
    T value = llvm::support::endian::read<T, llvm::endianness::little>(
        bytes.data() + offset);
    offset += sizeof(T);
    return value;
  }

  Expected<StringRef> readString(const llvm::Twine &field) {
    uint64_t start = offset;
    Expected<uint64_t> length = read<uint64_t>(field + " (string length)");
    if (!length)
      return length.takeError();
    if (*length > kMaxStringLength)
      return makeError(llvm::formatv(
          "{0} at offset {1}: string length {2} exceeds the 1 GiB limit",
          field.str(), start, *length));
    if (Error error = need(*length, field))
      return std::move(error);
    StringRef value(reinterpret_cast<const char *>(bytes.data() + offset),
                    *length);
    offset += *length;
    return value;
  }

  Expected<llvm::ArrayRef<uint8_t>> readBytes(uint64_t count,
                                              const llvm::Twine &field) {
    if (Error error = need(count, field))
      return std::move(error);
    llvm::ArrayRef<uint8_t> value = bytes.slice(offset, count);
    offset += count;
    return value;
  }

private:
  llvm::ArrayRef<uint8_t> bytes;
  uint64_t offset = 0;
};

bool isKnownValueType(uint32_t type) { return type <= 12; }

} // namespace

StringRef mlir::quant_block::gguf::getGGUFValueTypeName(GGUFValueType type) {
  switch (type) {
  case GGUFValueType::UInt8:
    return "UINT8";
  case GGUFValueType::Int8:
    return "INT8";
  case GGUFValueType::UInt16:
    return "UINT16";
  case GGUFValueType::Int16:
    return "INT16";
  case GGUFValueType::UInt32:
    return "UINT32";
  case GGUFValueType::Int32:
    return "INT32";
  case GGUFValueType::Float32:
    return "FLOAT32";
  case GGUFValueType::Bool:
    return "BOOL";
  case GGUFValueType::String:
    return "STRING";
  case GGUFValueType::Array:
    return "ARRAY";
  case GGUFValueType::UInt64:
    return "UINT64";
  case GGUFValueType::Int64:
    return "INT64";
  case GGUFValueType::Float64:
    return "FLOAT64";
  }
  return "?";
}

unsigned mlir::quant_block::gguf::getGGUFValueTypeSize(GGUFValueType type) {
  switch (type) {
  case GGUFValueType::UInt8:
  case GGUFValueType::Int8:
  case GGUFValueType::Bool:
    return 1;
  case GGUFValueType::UInt16:
  case GGUFValueType::Int16:
    return 2;
  case GGUFValueType::UInt32:
  case GGUFValueType::Int32:
  case GGUFValueType::Float32:
    return 4;
  case GGUFValueType::UInt64:
  case GGUFValueType::Int64:
  case GGUFValueType::Float64:
    return 8;
  case GGUFValueType::String:
  case GGUFValueType::Array:
    return 0;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// GGUFValue
//===----------------------------------------------------------------------===//

bool GGUFValue::isInteger() const {
  switch (type) {
  case GGUFValueType::UInt8:
  case GGUFValueType::Int8:
  case GGUFValueType::UInt16:
  case GGUFValueType::Int16:
  case GGUFValueType::UInt32:
  case GGUFValueType::Int32:
  case GGUFValueType::UInt64:
  case GGUFValueType::Int64:
  case GGUFValueType::Bool:
    return true;
  default:
    return false;
  }
}

std::optional<int64_t> GGUFValue::getAsInteger() const {
  switch (type) {
  case GGUFValueType::Int8:
  case GGUFValueType::Int16:
  case GGUFValueType::Int32:
  case GGUFValueType::Int64:
    return signedValue;
  case GGUFValueType::UInt8:
  case GGUFValueType::UInt16:
  case GGUFValueType::UInt32:
  case GGUFValueType::UInt64:
  case GGUFValueType::Bool:
    if (unsignedValue > uint64_t(INT64_MAX))
      return std::nullopt;
    return static_cast<int64_t>(unsignedValue);
  default:
    return std::nullopt;
  }
}

double GGUFValue::getArrayElementAsDouble(uint64_t index) const {
  unsigned size = getGGUFValueTypeSize(elementType);
  assert(isArray() && size && index < arraySize && "a numeric array element");
  const uint8_t *p = arrayBytes.data() + index * size;
  using namespace llvm::support::endian;
  constexpr auto little = llvm::endianness::little;
  switch (elementType) {
  case GGUFValueType::UInt8:
  case GGUFValueType::Bool:
    return *p;
  case GGUFValueType::Int8:
    return static_cast<int8_t>(*p);
  case GGUFValueType::UInt16:
    return read<uint16_t, little>(p);
  case GGUFValueType::Int16:
    return read<int16_t, little>(p);
  case GGUFValueType::UInt32:
    return read<uint32_t, little>(p);
  case GGUFValueType::Int32:
    return read<int32_t, little>(p);
  case GGUFValueType::UInt64:
    return static_cast<double>(read<uint64_t, little>(p));
  case GGUFValueType::Int64:
    return static_cast<double>(read<int64_t, little>(p));
  case GGUFValueType::Float32:
    return llvm::bit_cast<float>(read<uint32_t, little>(p));
  case GGUFValueType::Float64:
    return llvm::bit_cast<double>(read<uint64_t, little>(p));
  default:
    return 0;
  }
}

//===----------------------------------------------------------------------===//
// GGUFTensorInfo
//===----------------------------------------------------------------------===//

int64_t GGUFTensorInfo::getNumElements() const {
  int64_t count = 1;
  for (int64_t n : ne)
    count *= n; // Validated not to overflow.
  return count;
}

int64_t GGUFTensorInfo::getNumRows() const {
  // An empty tensor has no rows: only the element count (0) is validated,
  // and its other dimensions' product may not fit in 64 bits.
  if (llvm::is_contained(ne, 0))
    return 0;
  int64_t rows = 1;
  for (int64_t n : llvm::drop_begin(ne))
    rows *= n;
  return rows;
}

llvm::SmallVector<int64_t, 4> GGUFTensorInfo::getShape() const {
  return llvm::SmallVector<int64_t, 4>(llvm::reverse(ne));
}

//===----------------------------------------------------------------------===//
// GGUFFile
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<GGUFFile>> GGUFFile::open(StringRef path) {
  // No null terminator, not volatile: large files are memory-mapped.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(llvm::formatv("{0}: cannot open: {1}", path,
                                   buffer.getError().message()));
  return fromBuffer(std::move(*buffer));
}

Expected<std::unique_ptr<GGUFFile>>
GGUFFile::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  std::unique_ptr<GGUFFile> file(new GGUFFile(std::move(buffer)));
  if (Error error = file->parse())
    return makeError(llvm::formatv("{0}: {1}", file->getName(),
                                   llvm::toString(std::move(error))));
  return std::move(file);
}

const GGUFValue *GGUFFile::lookup(StringRef key) const {
  auto it = keyIndex.find(key);
  return it == keyIndex.end() ? nullptr : &metadata[it->second].value;
}

const GGUFTensorInfo *GGUFFile::lookupTensor(StringRef name) const {
  auto it = tensorIndex.find(name);
  return it == tensorIndex.end() ? nullptr : &tensors[it->second];
}

llvm::ArrayRef<uint8_t>
GGUFFile::getTensorData(const GGUFTensorInfo &tensor) const {
  return llvm::ArrayRef<uint8_t>(
             reinterpret_cast<const uint8_t *>(buffer->getBufferStart()),
             buffer->getBufferSize())
      .slice(tensor.fileOffset, tensor.byteSize);
}

/// Drops the whole pages inside `bytes` (a range of the mapping) from the
/// resident set.
static void releasePages(const llvm::MemoryBuffer &buffer,
                         llvm::ArrayRef<uint8_t> bytes) {
#if defined(__unix__) || defined(__APPLE__)
  if (buffer.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = reinterpret_cast<uintptr_t>(bytes.data());
  uintptr_t end = begin + bytes.size();
  // Only the pages wholly inside the range: its neighbours may be in use.
  begin = (begin + page - 1) / page * page;
  end = end / page * page;
  if (begin < end)
    (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
#else
  (void)buffer;
  (void)bytes;
#endif
}

void GGUFFile::releaseTensorData(const GGUFTensorInfo &tensor) const {
  releasePages(*buffer, getTensorData(tensor));
}

void GGUFFile::releaseTensorRows(const GGUFTensorInfo &tensor, int64_t rowBegin,
                                 int64_t rowEnd) const {
  int64_t rows = tensor.getNumRows();
  rowBegin = std::clamp<int64_t>(rowBegin, 0, rows);
  rowEnd = std::clamp<int64_t>(rowEnd, rowBegin, rows);
  if (rows == 0 || rowBegin == rowEnd)
    return;
  // Every row has the same number of whole blocks.
  uint64_t rowBytes = tensor.byteSize / rows;
  releasePages(*buffer,
               getTensorData(tensor).slice(rowBegin * rowBytes,
                                           (rowEnd - rowBegin) * rowBytes));
}

static Error readScalar(Cursor &cursor, GGUFValueType type, GGUFValue &value,
                        const llvm::Twine &field) {
  auto assign = [&](auto read) -> Error {
    if (!read)
      return read.takeError();
    using T = std::decay_t<decltype(*read)>;
    if constexpr (std::is_floating_point_v<T>)
      value.floatValue = *read;
    else if constexpr (std::is_signed_v<T>)
      value.signedValue = *read;
    else
      value.unsignedValue = *read;
    return Error::success();
  };
  switch (type) {
  case GGUFValueType::UInt8:
    return assign(cursor.read<uint8_t>(field));
  case GGUFValueType::Int8:
    return assign(cursor.read<int8_t>(field));
  case GGUFValueType::UInt16:
    return assign(cursor.read<uint16_t>(field));
  case GGUFValueType::Int16:
    return assign(cursor.read<int16_t>(field));
  case GGUFValueType::UInt32:
    return assign(cursor.read<uint32_t>(field));
  case GGUFValueType::Int32:
    return assign(cursor.read<int32_t>(field));
  case GGUFValueType::UInt64:
    return assign(cursor.read<uint64_t>(field));
  case GGUFValueType::Int64:
    return assign(cursor.read<int64_t>(field));
  case GGUFValueType::Float32: {
    Expected<uint32_t> bits = cursor.read<uint32_t>(field);
    if (!bits)
      return bits.takeError();
    value.floatValue = llvm::bit_cast<float>(*bits);
    return Error::success();
  }
  case GGUFValueType::Float64: {
    Expected<uint64_t> bits = cursor.read<uint64_t>(field);
    if (!bits)
      return bits.takeError();
    value.floatValue = llvm::bit_cast<double>(*bits);
    return Error::success();
  }
  case GGUFValueType::Bool: {
    Expected<uint8_t> byte = cursor.read<uint8_t>(field);
    if (!byte)
      return byte.takeError();
    if (*byte > 1)
      return makeError(llvm::formatv("{0}: BOOL value {1} is neither 0 nor 1",
                                     field.str(), unsigned(*byte)));
    value.unsignedValue = *byte;
    return Error::success();
  }
  case GGUFValueType::String: {
    Expected<StringRef> string = cursor.readString(field);
    if (!string)
      return string.takeError();
    value.stringValue = *string;
    return Error::success();
  }
  case GGUFValueType::Array:
    break;
  }
  llvm_unreachable("arrays are read by the caller");
}

Error GGUFFile::parse() {
  Cursor cursor(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(buffer->getBufferStart()),
      buffer->getBufferSize()));

  // Header.
  Expected<llvm::ArrayRef<uint8_t>> magic = cursor.readBytes(4, "magic");
  if (!magic)
    return magic.takeError();
  if (std::memcmp(magic->data(), "GGUF", 4) != 0)
    return makeError(llvm::formatv(
        "magic: expected \"GGUF\" (47 47 55 46), found {0:x-2} {1:x-2} {2:x-2} "
        "{3:x-2}: not a GGUF file",
        (*magic)[0], (*magic)[1], (*magic)[2], (*magic)[3]));
  Expected<uint32_t> fileVersion = cursor.read<uint32_t>("version");
  if (!fileVersion)
    return fileVersion.takeError();
  if (*fileVersion != 2 && *fileVersion != 3) {
    if ((*fileVersion & 0xFFFF) == 0)
      return makeError(llvm::formatv(
          "version: {0:x8} reads as a big-endian file, which is not supported",
          *fileVersion));
    return makeError(llvm::formatv(
        "version: {0} is not supported (only GGUF versions 2 and 3)",
        *fileVersion));
  }
  version = *fileVersion;
  Expected<int64_t> tensorCount = cursor.read<int64_t>("tensor count");
  if (!tensorCount)
    return tensorCount.takeError();
  Expected<int64_t> kvCount = cursor.read<int64_t>("metadata count");
  if (!kvCount)
    return kvCount.takeError();
  // Every pair takes at least 8 (key length) + 4 (type) + 1 bytes, every
  // tensor info at least 8 + 4 + 8 + 4 + 8.
  if (*kvCount < 0 || uint64_t(*kvCount) > cursor.remaining() / 13)
    return makeError(llvm::formatv(
        "metadata count: {0} pairs cannot fit in the {1} bytes left in the "
        "file",
        *kvCount, cursor.remaining()));
  if (*tensorCount < 0 || uint64_t(*tensorCount) > cursor.remaining() / 32)
    return makeError(llvm::formatv(
        "tensor count: {0} tensor infos cannot fit in the {1} bytes left in "
        "the file",
        *tensorCount, cursor.remaining()));

  // Metadata.
  metadata.reserve(*kvCount);
  for (int64_t i = 0; i < *kvCount; ++i) {
    std::string where = llvm::formatv("metadata pair #{0}", i);
    Expected<StringRef> key = cursor.readString(where + " key");
    if (!key)
      return key.takeError();
    if (key->empty())
      return makeError(where + ": empty key");
    where = llvm::formatv("metadata '{0}'", *key);
    if (keyIndex.count(*key))
      return makeError(where + ": duplicate key");
    Expected<uint32_t> typeId = cursor.read<uint32_t>(where + " value type");
    if (!typeId)
      return typeId.takeError();
    if (!isKnownValueType(*typeId))
      return makeError(
          llvm::formatv("{0}: unknown value type {1}", where, *typeId));
    GGUFKeyValue pair;
    pair.key = *key;
    GGUFValue &value = pair.value;
    value.type = static_cast<GGUFValueType>(*typeId);
    if (value.type != GGUFValueType::Array) {
      if (Error error = readScalar(cursor, value.type, value, where))
        return error;
    } else {
      Expected<uint32_t> elementId =
          cursor.read<uint32_t>(where + " array element type");
      if (!elementId)
        return elementId.takeError();
      if (!isKnownValueType(*elementId))
        return makeError(llvm::formatv("{0}: unknown array element type {1}",
                                       where, *elementId));
      value.elementType = static_cast<GGUFValueType>(*elementId);
      if (value.elementType == GGUFValueType::Array)
        return makeError(where + ": nested arrays are not supported (ggml "
                                 "refuses them too)");
      Expected<uint64_t> count = cursor.read<uint64_t>(where + " array size");
      if (!count)
        return count.takeError();
      value.arraySize = *count;
      if (value.elementType == GGUFValueType::String) {
        // Every string takes at least its 8-byte length.
        if (*count > cursor.remaining() / 8)
          return makeError(llvm::formatv(
              "{0}: array of {1} strings cannot fit in the {2} bytes left in "
              "the file",
              where, *count, cursor.remaining()));
        value.arrayStrings.reserve(*count);
        for (uint64_t j = 0; j < *count; ++j) {
          Expected<StringRef> element =
              cursor.readString(llvm::formatv("{0} element #{1}", where, j));
          if (!element)
            return element.takeError();
          value.arrayStrings.push_back(*element);
        }
      } else {
        unsigned size = getGGUFValueTypeSize(value.elementType);
        if (*count > cursor.remaining() / size)
          return makeError(llvm::formatv(
              "{0}: array of {1} {2} elements cannot fit in the {3} bytes "
              "left in the file",
              where, *count, getGGUFValueTypeName(value.elementType),
              cursor.remaining()));
        Expected<llvm::ArrayRef<uint8_t>> bytes =
            cursor.readBytes(*count * size, where + " array");
        if (!bytes)
          return bytes.takeError();
        value.arrayBytes = *bytes;
        if (value.elementType == GGUFValueType::Bool)
          for (uint64_t j = 0; j < *count; ++j)
            if ((*bytes)[j] > 1)
              return makeError(llvm::formatv(
                  "{0} element #{1}: BOOL value {2} is neither 0 nor 1", where,
                  j, unsigned((*bytes)[j])));
      }
    }
    keyIndex[pair.key] = metadata.size();
    metadata.push_back(std::move(pair));
  }

  // The alignment the tensor data follows.
  alignment = kDefaultAlignment;
  if (const GGUFValue *value = lookup("general.alignment")) {
    if (value->type != GGUFValueType::UInt32)
      return makeError(
          llvm::formatv("metadata 'general.alignment': must be UINT32, not {0}",
                        getGGUFValueTypeName(value->type)));
    if (value->unsignedValue == 0 || !llvm::isPowerOf2_64(value->unsignedValue))
      return makeError(llvm::formatv(
          "metadata 'general.alignment': {0} is not a power of two",
          value->unsignedValue));
    alignment = value->unsignedValue;
  }

  // Tensor infos.
  tensors.reserve(*tensorCount);
  for (int64_t i = 0; i < *tensorCount; ++i) {
    std::string where = llvm::formatv("tensor info #{0}", i);
    Expected<StringRef> name = cursor.readString(where + " name");
    if (!name)
      return name.takeError();
    if (name->empty())
      return makeError(where + ": empty name");
    where = llvm::formatv("tensor '{0}'", *name);
    if (tensorIndex.count(*name))
      return makeError(where + ": duplicate name");
    GGUFTensorInfo info;
    info.name = *name;
    info.index = i;
    Expected<uint32_t> numDims = cursor.read<uint32_t>(where + " n_dims");
    if (!numDims)
      return numDims.takeError();
    if (*numDims > kMaxDims)
      return makeError(
          llvm::formatv("{0}: n_dims {1} exceeds ggml's limit of {2}", where,
                        *numDims, kMaxDims));
    int64_t elements = 1;
    for (uint32_t d = 0; d < *numDims; ++d) {
      Expected<int64_t> n =
          cursor.read<int64_t>(llvm::formatv("{0} ne[{1}]", where, d));
      if (!n)
        return n.takeError();
      if (*n < 0)
        return makeError(
            llvm::formatv("{0}: ne[{1}] = {2} is negative", where, d, *n));
      if (*n != 0 && elements > INT64_MAX / *n)
        return makeError(llvm::formatv(
            "{0}: the element count overflows 64 bits at ne[{1}] = {2}", where,
            d, *n));
      elements *= *n;
      info.ne.push_back(*n);
    }
    if (info.ne.empty())
      info.ne.push_back(1);
    Expected<uint32_t> typeId = cursor.read<uint32_t>(where + " type");
    if (!typeId)
      return typeId.takeError();
    info.type = lookupGGMLType(*typeId);
    if (!info.type)
      return makeError(
          llvm::formatv("{0}: unknown ggml type id {1}", where, *typeId));
    if (info.ne.front() % info.type->blockElements != 0)
      return makeError(llvm::formatv(
          "{0}: row length ne[0] = {1} is not a whole number of {2} blocks "
          "of {3} elements",
          where, info.ne.front(), info.type->name, info.type->blockElements));
    uint64_t blocks = uint64_t(elements) / info.type->blockElements;
    if (blocks > UINT64_MAX / info.type->blockBytes)
      return makeError(
          llvm::formatv("{0}: the byte size overflows 64 bits", where));
    info.byteSize = blocks * info.type->blockBytes;
    Expected<uint64_t> offset = cursor.read<uint64_t>(where + " offset");
    if (!offset)
      return offset.takeError();
    if (*offset % alignment != 0)
      return makeError(llvm::formatv(
          "{0}: offset {1} is not a multiple of the alignment {2}", where,
          *offset, alignment));
    info.relativeOffset = *offset;
    tensorIndex[info.name] = tensors.size();
    tensors.push_back(std::move(info));
  }

  // The data section starts at the next multiple of the alignment (only
  // files with tensors are padded).
  dataOffset = llvm::alignTo(cursor.position(), alignment);
  uint64_t fileSize = getFileSize();
  for (GGUFTensorInfo &info : tensors) {
    std::string where = llvm::formatv("tensor '{0}'", info.name);
    if (dataOffset > fileSize || info.relativeOffset > fileSize - dataOffset ||
        info.byteSize > fileSize - dataOffset - info.relativeOffset)
      return makeError(llvm::formatv(
          "{0}: data [{1}, +{2}) from the data section at {3} lies outside "
          "the file of {4} bytes",
          where, info.relativeOffset, info.byteSize, dataOffset, fileSize));
    info.fileOffset = dataOffset + info.relativeOffset;
  }
  // No two tensors may share bytes.
  std::vector<const GGUFTensorInfo *> byOffset;
  for (const GGUFTensorInfo &info : tensors)
    if (info.byteSize)
      byOffset.push_back(&info);
  llvm::sort(byOffset, [](const GGUFTensorInfo *a, const GGUFTensorInfo *b) {
    return a->fileOffset < b->fileOffset;
  });
  for (size_t i = 1; i < byOffset.size(); ++i) {
    const GGUFTensorInfo *previous = byOffset[i - 1], *next = byOffset[i];
    if (previous->fileOffset + previous->byteSize > next->fileOffset)
      return makeError(llvm::formatv(
          "tensor '{0}': data [{1}, +{2}) overlaps tensor '{3}' at [{4}, "
          "+{5})",
          next->name, next->relativeOffset, next->byteSize, previous->name,
          previous->relativeOffset, previous->byteSize));
  }
  return Error::success();
}
