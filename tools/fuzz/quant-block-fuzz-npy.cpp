//===- quant-block-fuzz-npy.cpp - libFuzzer target: the .npy reader -------===//
//
// Feeds arbitrary bytes to quant-run's .npy reader (parseNpy). A malformed
// file must be an error that names the rule, never a crash, an overflow or
// an allocation the file's size does not justify. What parses is written
// back with formatNpyHeader and must parse to the same dtype, shape and
// bytes.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/Npy.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace mlir::quant_block::runner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef contents(reinterpret_cast<const char *>(data), size);
  llvm::Expected<NpyArray> array = parseNpy(contents, "fuzz.npy");
  if (!array) {
    llvm::consumeError(array.takeError());
    return 0;
  }
  if (array->buffer.size() != array->getByteSize() ||
      array->getByteSize() > size) {
    llvm::errs() << "parseNpy returned " << array->buffer.size()
                 << " bytes for shape " << array->getShapeString() << " of "
                 << array->dtype.str() << " from " << size << " bytes\n";
    std::abort();
  }

  std::string rewritten = formatNpyHeader(array->dtype, array->shape);
  rewritten.append(array->buffer.data(), array->buffer.size());
  llvm::Expected<NpyArray> again = parseNpy(rewritten, "rewritten.npy");
  if (!again) {
    llvm::errs() << "a rewritten .npy file does not parse: "
                 << llvm::toString(again.takeError()) << "\n";
    std::abort();
  }
  if (again->dtype != array->dtype || again->shape != array->shape ||
      again->buffer.size() != array->buffer.size() ||
      (array->buffer.size() &&
       std::memcmp(again->buffer.data(), array->buffer.data(),
                   array->buffer.size()))) {
    llvm::errs() << "a rewritten .npy file reads differently\n";
    std::abort();
  }
  return 0;
}
