//===- Npy.cpp - numpy .npy arrays for quant-run --------------------------===//
//
// A .npy file is a magic string, a version, a header length, a header (a
// Python dictionary literal with the keys 'descr', 'fortran_order' and
// 'shape', padded with spaces and ended by a newline) and the raw elements.
// The header parser accepts exactly the literal forms numpy writes (and the
// `3L` integers of Python 2 writers) so that any other input is reported
// rather than misread.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir::quant_block::runner;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

static constexpr StringRef kMagic("\x93NUMPY", 6);

//===----------------------------------------------------------------------===//
// NpyDType, AlignedBuffer, NpyArray
//===----------------------------------------------------------------------===//

std::string NpyDType::str() const {
  // numpy writes '|' (byte order not applicable) for one-byte types.
  return (Twine(size == 1 ? '|' : '<') + Twine(kind) + Twine(size)).str();
}

Expected<AlignedBuffer> AlignedBuffer::allocate(size_t size) {
  AlignedBuffer buffer;
  // aligned_alloc wants a multiple of the alignment, and at least one byte so
  // that empty arrays still have a valid, distinct pointer.
  size_t rounded = std::max<size_t>(kAlignment, (size + kAlignment - 1) /
                                                    kAlignment * kAlignment);
  buffer.storage.reset(
      static_cast<char *>(std::aligned_alloc(kAlignment, rounded)));
  if (!buffer.storage)
    return llvm::createStringError("out of memory allocating " + Twine(size) +
                                   " bytes");
  buffer.bytes = size;
  return std::move(buffer);
}

int64_t NpyArray::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

static std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (auto [index, dim] : llvm::enumerate(shape))
    text += (index ? ", " : "") + std::to_string(dim);
  if (shape.size() == 1)
    text += ",";
  return text + ")";
}

std::string NpyArray::getShapeString() const { return formatShape(shape); }

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

Expected<NpyDType>
mlir::quant_block::runner::parseNpyDType(StringRef descr, StringRef fileName) {
  auto unsupported = [&](const Twine &why) {
    return llvm::createStringError(
        "'" + fileName + "' has dtype " + descr +
        ", which quant-run does not support (" + why +
        "; supported: b1, i1, u1, i2, u2, i4, u4, i8, u8, f2, f4, "
        "f8)");
  };
  if (descr.size() < 3)
    return unsupported("not a simple dtype");
  char order = descr[0];
  char kind = descr[1];
  unsigned size = 0;
  if (descr.drop_front(2).getAsInteger(10, size))
    return unsupported("not a simple dtype");
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return unsupported("unknown byte order");
  bool known = (kind == 'b' && size == 1) ||
               ((kind == 'i' || kind == 'u') &&
                (size == 1 || size == 2 || size == 4 || size == 8)) ||
               (kind == 'f' && (size == 2 || size == 4 || size == 8));
  if (!known)
    return unsupported("an element type compiled code cannot take");
  // '=' is the writer's native order; numpy always resolves it, but other
  // writers may not, and every host quant-run runs on is little-endian.
  if (order == '>' && size != 1)
    return llvm::createStringError(
        "'" + fileName + "' is big-endian (dtype " + descr +
        "); quant-run reads little-endian .npy files only "
        "(numpy: a.astype(a.dtype.newbyteorder('<')))");
  return NpyDType{kind, size};
}

namespace {
/// Parses the Python dictionary literal of a .npy header.
class HeaderParser {
public:
  HeaderParser(StringRef text, StringRef fileName)
      : text(text), fileName(fileName) {}

  Error parse(std::string &descr, bool &fortranOrder,
              llvm::SmallVectorImpl<int64_t> &shape);

private:
  Error error(const Twine &message) {
    return llvm::createStringError("'" + fileName +
                                   "' has a malformed .npy header (" + message +
                                   "): " + original.trim());
  }
  void skipSpace() { text = text.ltrim(" \t\r\n"); }
  bool consume(StringRef token) {
    skipSpace();
    return text.consume_front(token);
  }
  Expected<std::string> parseString();
  Error parseShape(llvm::SmallVectorImpl<int64_t> &shape);

  StringRef text;
  StringRef original = text;
  StringRef fileName;
};
} // namespace

Expected<std::string> HeaderParser::parseString() {
  skipSpace();
  if (text.empty() || (text.front() != '\'' && text.front() != '"'))
    return error("expected a string");
  char quote = text.front();
  size_t end = text.find(quote, 1);
  if (end == StringRef::npos)
    return error("unterminated string");
  std::string value = text.slice(1, end).str();
  text = text.drop_front(end + 1);
  return value;
}

Error HeaderParser::parseShape(llvm::SmallVectorImpl<int64_t> &shape) {
  if (!consume("("))
    return error("'shape' must be a tuple");
  while (!consume(")")) {
    skipSpace();
    size_t digits = text.find_first_not_of("0123456789");
    int64_t dim = 0;
    if (digits == 0 || text.take_front(digits).getAsInteger(10, dim))
      return error("'shape' must hold non-negative integers");
    text = text.drop_front(digits == StringRef::npos ? text.size() : digits);
    text.consume_front("L"); // Python 2 long integers.
    shape.push_back(dim);
    if (!consume(",")) {
      if (!consume(")"))
        return error("expected ',' or ')' in 'shape'");
      break;
    }
  }
  return Error::success();
}

Error HeaderParser::parse(std::string &descr, bool &fortranOrder,
                          llvm::SmallVectorImpl<int64_t> &shape) {
  bool seenDescr = false, seenOrder = false, seenShape = false;
  if (!consume("{"))
    return error("expected '{'");
  while (!consume("}")) {
    Expected<std::string> key = parseString();
    if (!key)
      return key.takeError();
    if (!consume(":"))
      return error("expected ':'");
    if (*key == "descr") {
      skipSpace();
      if (text.starts_with("["))
        return llvm::createStringError(
            "'" + fileName +
            "' has a structured dtype, which quant-run does not "
            "support (supported: b1, i1, u1, i2, u2, i4, u4, i8, "
            "u8, f2, f4, f8)");
      Expected<std::string> value = parseString();
      if (!value)
        return value.takeError();
      descr = *value;
      seenDescr = true;
    } else if (*key == "fortran_order") {
      if (consume("True"))
        fortranOrder = true;
      else if (consume("False"))
        fortranOrder = false;
      else
        return error("'fortran_order' must be True or False");
      seenOrder = true;
    } else if (*key == "shape") {
      if (Error err = parseShape(shape))
        return err;
      seenShape = true;
    } else {
      return error("unexpected key '" + *key + "'");
    }
    if (!consume(",")) {
      if (!consume("}"))
        return error("expected ',' or '}'");
      break;
    }
  }
  if (!seenDescr || !seenOrder || !seenShape)
    return error("it needs the keys 'descr', 'fortran_order' and 'shape'");
  return Error::success();
}

Expected<NpyArray> mlir::quant_block::runner::parseNpy(StringRef contents,
                                                       StringRef fileName) {
  if (!contents.starts_with(kMagic))
    return llvm::createStringError(
        "'" + fileName +
        "' is not a .npy file (it does not start with the magic "
        "string \\x93NUMPY)");
  if (contents.size() < 10)
    return llvm::createStringError("'" + fileName +
                                   "' is truncated (no .npy header)");
  auto byte = [&](size_t index) {
    return static_cast<uint32_t>(static_cast<uint8_t>(contents[index]));
  };
  unsigned major = byte(6), minor = byte(7);
  size_t headerStart, headerLength;
  if (major == 1) {
    headerStart = 10;
    headerLength = byte(8) | byte(9) << 8;
  } else if (major == 2 || major == 3) {
    if (contents.size() < 12)
      return llvm::createStringError("'" + fileName +
                                     "' is truncated (no .npy header)");
    headerStart = 12;
    headerLength = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
  } else {
    return llvm::createStringError(
        "'" + fileName + "' is a .npy file of version " + Twine(major) + "." +
        Twine(minor) +
        ", which quant-run does not read (it reads 1.0, 2.0 and "
        "3.0)");
  }
  if (contents.size() < headerStart + headerLength)
    return llvm::createStringError("'" + fileName +
                                   "' is truncated (its .npy header says " +
                                   Twine(headerLength) + " bytes)");

  NpyArray array;
  std::string descr;
  bool fortranOrder = false;
  HeaderParser parser(contents.substr(headerStart, headerLength), fileName);
  if (Error err = parser.parse(descr, fortranOrder, array.shape))
    return std::move(err);
  Expected<NpyDType> dtype = parseNpyDType(descr, fileName);
  if (!dtype)
    return dtype.takeError();
  array.dtype = *dtype;
  // A Fortran-ordered array of rank < 2 has the same bytes as a C-ordered
  // one; numpy still writes fortran_order: False for those.
  if (fortranOrder && array.shape.size() > 1)
    return llvm::createStringError(
        "'" + fileName +
        "' is in Fortran order (fortran_order: True); quant-run "
        "needs C order (numpy: np.ascontiguousarray(a))");

  // The shape comes from the file: its byte size must not overflow before it
  // is compared with the bytes the file holds, and neither may any partial
  // product of getNumElements, so a zero dimension does not excuse the
  // others (test/Fuzz/npy-shape-overflow.mlir).
  int64_t bytes = array.dtype.size;
  for (int64_t dim : array.shape)
    if (dim != 0 && llvm::MulOverflow(bytes, dim, bytes))
      return llvm::createStringError(
          "'" + fileName + "' has shape " + array.getShapeString() + " of " +
          array.dtype.str() +
          ", whose dimensions multiply to more than 2^63 bytes");
  StringRef data = contents.drop_front(headerStart + headerLength);
  size_t expected = array.getByteSize();
  if (data.size() < expected)
    return llvm::createStringError(
        "'" + fileName + "' is truncated: shape " + array.getShapeString() +
        " of " + array.dtype.str() + " needs " + Twine(expected) +
        " bytes of data, the file "
        "has " +
        Twine(data.size()));
  Expected<AlignedBuffer> buffer = AlignedBuffer::allocate(expected);
  if (!buffer)
    return buffer.takeError();
  array.buffer = std::move(*buffer);
  if (expected)
    std::memcpy(array.buffer.data(), data.data(), expected);
  return std::move(array);
}

Expected<NpyArray> mlir::quant_block::runner::readNpyFile(StringRef fileName) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(fileName, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return llvm::createStringError("cannot open '" + fileName +
                                   "': " + file.getError().message());
  return parseNpy((*file)->getBuffer(), fileName);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

std::string
mlir::quant_block::runner::formatNpyHeader(NpyDType dtype,
                                           llvm::ArrayRef<int64_t> shape) {
  std::string header =
      "{'descr': '" + dtype.str() +
      "', 'fortran_order': False, 'shape': " + formatShape(shape) + ", }";
  size_t preamble = 10;
  size_t padded = (preamble + header.size() + 1 + 63) / 64 * 64;
  if (padded - preamble > 0xffff) {
    preamble = 12;
    padded = (preamble + header.size() + 1 + 63) / 64 * 64;
  }
  size_t headerLength = padded - preamble;
  header.append(headerLength - header.size() - 1, ' ');
  header += '\n';

  std::string bytes = kMagic.str();
  bytes += static_cast<char>(preamble == 10 ? 1 : 2);
  bytes += '\0';
  for (unsigned i = 0, e = preamble - 8; i < e; ++i)
    bytes += static_cast<char>((headerLength >> (8 * i)) & 0xff);
  return bytes + header;
}

Error mlir::quant_block::runner::writeNpyFile(StringRef fileName,
                                              const NpyArray &array) {
  std::error_code ec;
  llvm::raw_fd_ostream os(fileName, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + fileName +
                                   "': " + ec.message());
  os << formatNpyHeader(array.dtype, array.shape);
  os.write(array.buffer.data(), array.getByteSize());
  os.close();
  if (os.has_error())
    return llvm::createStringError("cannot write '" + fileName +
                                   "': " + os.error().message());
  return Error::success();
}
