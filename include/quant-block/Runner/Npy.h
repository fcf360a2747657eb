//===- Npy.h - numpy .npy arrays for quant-run ------------------*- C++ -*-===//
//
// Reads and writes numpy's .npy format (versions 1.0, 2.0 and 3.0, C order,
// little-endian) for the element types quant-run can hand to compiled code:
// bool, signed and unsigned integers of 1, 2, 4 and 8 bytes, and floats of 2,
// 4 and 8 bytes. Everything else (Fortran order, big-endian data, complex,
// strings, structured dtypes) is an error that names the file and the rule,
// never a silent conversion. The array's bytes live in a 64-byte aligned
// buffer so that they can be handed to compiled code as they are.
//
// The format is specified in numpy's `numpy/lib/format.py` (NEP 1).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_NPY_H
#define QUANT_BLOCK_RUNNER_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace mlir::quant_block::runner {

/// A numpy dtype quant-run supports: a kind and a size in bytes. Kind 'b' is
/// numpy's bool (one byte, 0 or 1), 'i' a signed and 'u' an unsigned
/// integer, 'f' an IEEE float.
struct NpyDType {
  char kind = 'f';
  unsigned size = 4;

  /// The dtype as numpy spells it in a header: "<f4", "|u1", "|b1".
  std::string str() const;

  bool operator==(const NpyDType &other) const {
    return kind == other.kind && size == other.size;
  }
  bool operator!=(const NpyDType &other) const { return !(*this == other); }
};

/// An owned heap buffer aligned to 64 bytes (a cache line, and the widest
/// vector register), as compiled kernels prefer their operands.
class AlignedBuffer {
public:
  static constexpr size_t kAlignment = 64;

  AlignedBuffer() = default;

  /// Allocates `size` bytes; fails only when memory is exhausted.
  static llvm::Expected<AlignedBuffer> allocate(size_t size);

  char *data() { return storage.get(); }
  const char *data() const { return storage.get(); }
  size_t size() const { return bytes; }

private:
  struct Free {
    void operator()(char *pointer) const { std::free(pointer); }
  };
  std::unique_ptr<char, Free> storage;
  size_t bytes = 0;
};

/// A dense, C-ordered array.
struct NpyArray {
  NpyDType dtype;
  llvm::SmallVector<int64_t> shape;
  AlignedBuffer buffer;

  int64_t getNumElements() const;
  size_t getByteSize() const { return getNumElements() * dtype.size; }
  /// The shape as numpy prints it: "()", "(3,)", "(2, 3)".
  std::string getShapeString() const;
};

/// Parses a dtype string of a .npy header ("<f4"). `fileName` only names the
/// file in error messages.
llvm::Expected<NpyDType> parseNpyDType(llvm::StringRef descr,
                                       llvm::StringRef fileName);

/// Parses the contents of a .npy file.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef contents,
                                  llvm::StringRef fileName);

/// Reads a .npy file ("-" is not accepted: stdin holds the module).
llvm::Expected<NpyArray> readNpyFile(llvm::StringRef fileName);

/// The bytes that precede the elements of a .npy file for an array of
/// `dtype` and `shape`: magic string, version (1.0, or 2.0 for headers too
/// long for 1.0), header length and header, padded so that the elements start
/// on a 64-byte boundary as numpy does.
std::string formatNpyHeader(NpyDType dtype, llvm::ArrayRef<int64_t> shape);

/// Writes `array` to `fileName`.
llvm::Error writeNpyFile(llvm::StringRef fileName, const NpyArray &array);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_NPY_H
