//===- quant-block-fuzz-gguf.cpp - libFuzzer target: the GGUF reader
//-------===//
//
// Feeds arbitrary bytes to the GGUF reader. A malformed file must be an
// error that names the field, never a crash, an out-of-bounds read or an
// allocation the file's size does not justify. What opens is taken all the
// way: every tensor's layout, its repacking into parts (which must fill
// exactly the bytes its layout says) and the imported module, which must
// verify.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Target/GGUF/GGUFFile.h"
#include "quant-block/Target/GGUF/GGUFImporter.h"
#include "quant-block/Target/GGUF/GGUFParts.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace mlir::quant_block::gguf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<std::unique_ptr<GGUFFile>> file =
      GGUFFile::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.gguf"));
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  for (const GGUFTensorInfo &tensor : (*file)->getTensors()) {
    if (tensor.byteSize > size)
      abort(); // The reader let a tensor reach past the file.
    llvm::Expected<TensorLayout> layout = getTensorLayout(tensor);
    if (!layout) {
      llvm::consumeError(layout.takeError());
      continue;
    }
    // Widened codes take at most 8 bits per element, parameters less than
    // the codes: the parts of a tensor stay within a small multiple of its
    // elements, which the file's bytes bound.
    uint64_t total = 0;
    for (const PartLayout &part : layout->parts)
      total += part.getByteSize();
    if (total > 16 * uint64_t(tensor.getNumElements()) + 64)
      abort();
    std::vector<std::vector<uint8_t>> storage;
    std::vector<llvm::MutableArrayRef<uint8_t>> parts;
    for (const PartLayout &part : layout->parts)
      storage.emplace_back(part.getByteSize());
    for (std::vector<uint8_t> &bytes : storage)
      parts.emplace_back(bytes);
    if (llvm::Error error = repackTensor(**file, *layout, parts))
      llvm::consumeError(std::move(error));
  }
  static mlir::MLIRContext *context = [] {
    auto *context = new mlir::MLIRContext();
    // Errors are expected (unsupported types); they are not findings.
    context->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
    return context;
  }();
  GGUFImportOptions options;
  options.skipUnsupported = true;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importGGUF(**file, context, options);
  if (!module || mlir::failed(mlir::verify(*module)))
    abort(); // Every supported tensor must import into valid IR.
  return 0;
}
