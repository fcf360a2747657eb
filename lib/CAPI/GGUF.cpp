//===- GGUF.cpp - GGUF files through the C API
//-----------------------------===//
//
// A handle owns the validated GGUFFile and, per tensor, its layout (computed
// once, so the type and scheme strings handed out stay valid as long as the
// file is open).
//
//===----------------------------------------------------------------------===//

#include "quant-block-c/GGUF.h"

#include "quant-block/Target/GGUF/GGUFFile.h"
#include "quant-block/Target/GGUF/GGUFImporter.h"
#include "quant-block/Target/GGUF/GGUFParts.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <optional>
#include <vector>

using namespace mlir;
using namespace mlir::quant_block::gguf;

namespace {
struct OpenFile {
  std::unique_ptr<GGUFFile> file;
  std::vector<std::optional<TensorLayout>> layouts;
  std::vector<std::string> layoutErrors;
  std::vector<bool> computed;

  explicit OpenFile(std::unique_ptr<GGUFFile> file) : file(std::move(file)) {
    size_t count = this->file->getTensors().size();
    layouts.resize(count);
    layoutErrors.resize(count);
    computed.resize(count);
  }

  const GGUFTensorInfo &tensor(intptr_t pos) const {
    return file->getTensors()[pos];
  }

  /// The layout of tensor `pos`, or null (its reason in layoutErrors).
  const TensorLayout *layout(intptr_t pos) {
    if (!computed[pos]) {
      computed[pos] = true;
      llvm::Expected<TensorLayout> result = getTensorLayout(tensor(pos));
      if (result)
        layouts[pos] = std::move(*result);
      else
        layoutErrors[pos] = llvm::toString(result.takeError());
    }
    return layouts[pos] ? &*layouts[pos] : nullptr;
  }
};
} // namespace

static OpenFile *unwrapFile(MlirQuantBlockGGUFFile f) {
  return static_cast<OpenFile *>(f.ptr);
}

static void report(MlirStringCallback onError, void *userData,
                   llvm::StringRef text) {
  if (onError)
    onError(wrap(text), userData);
}

static MlirQuantBlockGGUFFile
wrapResult(llvm::Expected<std::unique_ptr<GGUFFile>> file,
           MlirStringCallback onError, void *userData) {
  if (!file) {
    report(onError, userData, llvm::toString(file.takeError()));
    return {nullptr};
  }
  return {new OpenFile(std::move(*file))};
}

MlirQuantBlockGGUFFile mlirQuantBlockGGUFFileOpen(MlirStringRef path,
                                                  MlirStringCallback onError,
                                                  void *userData) {
  return wrapResult(GGUFFile::open(unwrap(path)), onError, userData);
}

MlirQuantBlockGGUFFile
mlirQuantBlockGGUFFileOpenBuffer(const void *data, size_t size,
                                 MlirStringCallback onError, void *userData) {
  return wrapResult(
      GGUFFile::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(static_cast<const char *>(data), size), "<buffer>")),
      onError, userData);
}

void mlirQuantBlockGGUFFileClose(MlirQuantBlockGGUFFile f) {
  delete unwrapFile(f);
}

uint32_t mlirQuantBlockGGUFFileGetVersion(MlirQuantBlockGGUFFile f) {
  return unwrapFile(f)->file->getVersion();
}
uint64_t mlirQuantBlockGGUFFileGetAlignment(MlirQuantBlockGGUFFile f) {
  return unwrapFile(f)->file->getAlignment();
}
uint64_t mlirQuantBlockGGUFFileGetDataOffset(MlirQuantBlockGGUFFile f) {
  return unwrapFile(f)->file->getDataOffset();
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

static const GGUFValue &value(MlirQuantBlockGGUFFile f, intptr_t pos) {
  return unwrapFile(f)->file->getMetadata()[pos].value;
}

intptr_t mlirQuantBlockGGUFFileGetNumMetadata(MlirQuantBlockGGUFFile f) {
  return unwrapFile(f)->file->getMetadata().size();
}
MlirStringRef mlirQuantBlockGGUFFileGetMetadataKey(MlirQuantBlockGGUFFile f,
                                                   intptr_t pos) {
  return wrap(unwrapFile(f)->file->getMetadata()[pos].key);
}
intptr_t mlirQuantBlockGGUFFileFindMetadata(MlirQuantBlockGGUFFile f,
                                            MlirStringRef key) {
  llvm::ArrayRef<GGUFKeyValue> metadata = unwrapFile(f)->file->getMetadata();
  for (auto [index, pair] : llvm::enumerate(metadata))
    if (pair.key == unwrap(key))
      return index;
  return -1;
}
uint32_t mlirQuantBlockGGUFFileGetMetadataType(MlirQuantBlockGGUFFile f,
                                               intptr_t pos) {
  return static_cast<uint32_t>(value(f, pos).type);
}
bool mlirQuantBlockGGUFFileGetMetadataInteger(MlirQuantBlockGGUFFile f,
                                              intptr_t pos, int64_t *result) {
  std::optional<int64_t> integer = value(f, pos).getAsInteger();
  if (integer)
    *result = *integer;
  return integer.has_value();
}
uint64_t mlirQuantBlockGGUFFileGetMetadataAsUnsigned(MlirQuantBlockGGUFFile f,
                                                     intptr_t pos) {
  return value(f, pos).unsignedValue;
}
double mlirQuantBlockGGUFFileGetMetadataFloat(MlirQuantBlockGGUFFile f,
                                              intptr_t pos) {
  return value(f, pos).floatValue;
}
MlirStringRef mlirQuantBlockGGUFFileGetMetadataString(MlirQuantBlockGGUFFile f,
                                                      intptr_t pos) {
  return wrap(value(f, pos).stringValue);
}
uint32_t mlirQuantBlockGGUFFileGetMetadataArrayType(MlirQuantBlockGGUFFile f,
                                                    intptr_t pos) {
  return static_cast<uint32_t>(value(f, pos).elementType);
}
uint64_t mlirQuantBlockGGUFFileGetMetadataArraySize(MlirQuantBlockGGUFFile f,
                                                    intptr_t pos) {
  return value(f, pos).arraySize;
}
const void *mlirQuantBlockGGUFFileGetMetadataArrayData(MlirQuantBlockGGUFFile f,
                                                       intptr_t pos) {
  return value(f, pos).arrayBytes.data();
}
MlirStringRef
mlirQuantBlockGGUFFileGetMetadataArrayString(MlirQuantBlockGGUFFile f,
                                             intptr_t pos, uint64_t i) {
  return wrap(value(f, pos).arrayStrings[i]);
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

intptr_t mlirQuantBlockGGUFFileGetNumTensors(MlirQuantBlockGGUFFile f) {
  return unwrapFile(f)->file->getTensors().size();
}
intptr_t mlirQuantBlockGGUFFileFindTensor(MlirQuantBlockGGUFFile f,
                                          MlirStringRef name) {
  const GGUFTensorInfo *tensor =
      unwrapFile(f)->file->lookupTensor(unwrap(name));
  return tensor ? intptr_t(tensor->index) : -1;
}
MlirStringRef mlirQuantBlockGGUFTensorGetName(MlirQuantBlockGGUFFile f,
                                              intptr_t tensor) {
  return wrap(unwrapFile(f)->tensor(tensor).name);
}
uint32_t mlirQuantBlockGGUFTensorGetType(MlirQuantBlockGGUFFile f,
                                         intptr_t tensor) {
  return static_cast<uint32_t>(unwrapFile(f)->tensor(tensor).type->type);
}
MlirStringRef mlirQuantBlockGGUFTensorGetTypeName(MlirQuantBlockGGUFFile f,
                                                  intptr_t tensor) {
  return wrap(llvm::StringRef(unwrapFile(f)->tensor(tensor).type->name));
}
intptr_t mlirQuantBlockGGUFTensorGetNumDims(MlirQuantBlockGGUFFile f,
                                            intptr_t tensor) {
  return unwrapFile(f)->tensor(tensor).ne.size();
}
int64_t mlirQuantBlockGGUFTensorGetNe(MlirQuantBlockGGUFFile f, intptr_t tensor,
                                      intptr_t dim) {
  return unwrapFile(f)->tensor(tensor).ne[dim];
}
uint64_t mlirQuantBlockGGUFTensorGetFileOffset(MlirQuantBlockGGUFFile f,
                                               intptr_t tensor) {
  return unwrapFile(f)->tensor(tensor).fileOffset;
}
uint64_t mlirQuantBlockGGUFTensorGetByteSize(MlirQuantBlockGGUFFile f,
                                             intptr_t tensor) {
  return unwrapFile(f)->tensor(tensor).byteSize;
}
const void *mlirQuantBlockGGUFTensorGetData(MlirQuantBlockGGUFFile f,
                                            intptr_t tensor) {
  OpenFile *file = unwrapFile(f);
  return file->file->getTensorData(file->tensor(tensor)).data();
}

bool mlirQuantBlockGGUFTensorIsSupported(MlirQuantBlockGGUFFile f,
                                         intptr_t tensor,
                                         MlirStringCallback onError,
                                         void *userData) {
  OpenFile *file = unwrapFile(f);
  if (file->layout(tensor))
    return true;
  report(onError, userData, file->layoutErrors[tensor]);
  return false;
}

/// The layout of a supported tensor (callers check IsSupported first; an
/// unsupported one reads as a plain empty layout rather than crashing).
static const TensorLayout &layoutOf(MlirQuantBlockGGUFFile f, intptr_t tensor) {
  static const TensorLayout kEmpty;
  const TensorLayout *layout = unwrapFile(f)->layout(tensor);
  return layout ? *layout : kEmpty;
}

MlirStringRef mlirQuantBlockGGUFTensorGetMLIRType(MlirQuantBlockGGUFFile f,
                                                  intptr_t tensor) {
  return wrap(llvm::StringRef(layoutOf(f, tensor).type));
}
MlirStringRef mlirQuantBlockGGUFTensorGetScheme(MlirQuantBlockGGUFFile f,
                                                intptr_t tensor) {
  return wrap(llvm::StringRef(layoutOf(f, tensor).scheme));
}
bool mlirQuantBlockGGUFTensorIsWidened(MlirQuantBlockGGUFFile f,
                                       intptr_t tensor) {
  return layoutOf(f, tensor).widened;
}
intptr_t mlirQuantBlockGGUFTensorGetNumParts(MlirQuantBlockGGUFFile f,
                                             intptr_t tensor) {
  return layoutOf(f, tensor).parts.size();
}
MlirStringRef mlirQuantBlockGGUFTensorGetPartRole(MlirQuantBlockGGUFFile f,
                                                  intptr_t tensor,
                                                  intptr_t part) {
  return wrap(getPartRoleName(layoutOf(f, tensor).parts[part].role));
}
MlirQuantBlockElementType
mlirQuantBlockGGUFTensorGetPartElementType(MlirQuantBlockGGUFFile f,
                                           intptr_t tensor, intptr_t part) {
  const PartLayout &layout = layoutOf(f, tensor).parts[part];
  return {layout.kind, layout.elementSize};
}
intptr_t mlirQuantBlockGGUFTensorGetPartRank(MlirQuantBlockGGUFFile f,
                                             intptr_t tensor, intptr_t part) {
  return layoutOf(f, tensor).parts[part].shape.size();
}
int64_t mlirQuantBlockGGUFTensorGetPartDim(MlirQuantBlockGGUFFile f,
                                           intptr_t tensor, intptr_t part,
                                           intptr_t dim) {
  return layoutOf(f, tensor).parts[part].shape[dim];
}

/// The buffers of `parts` as byte ranges, checked against the tensor's
/// parts: each dense with `expectedShape(part)` and the part's element type.
/// False (reported) otherwise.
template <typename ShapeOf>
static bool checkBuffers(OpenFile *file, intptr_t tensor, intptr_t numParts,
                         const MlirQuantBlockBuffer *parts,
                         ShapeOf expectedShape, MlirStringCallback onError,
                         void *userData,
                         std::vector<llvm::MutableArrayRef<uint8_t>> &buffers) {
  const TensorLayout *layout = file->layout(tensor);
  if (!layout) {
    report(onError, userData, file->layoutErrors[tensor]);
    return false;
  }
  if (numParts != intptr_t(layout->parts.size())) {
    report(onError, userData,
           "tensor '" + file->tensor(tensor).name.str() + "' has " +
               std::to_string(layout->parts.size()) + " parts, " +
               std::to_string(numParts) + " buffers given");
    return false;
  }
  for (intptr_t i = 0; i < numParts; ++i) {
    const PartLayout &part = layout->parts[i];
    const MlirQuantBlockBuffer &buffer = parts[i];
    llvm::SmallVector<int64_t, 4> shape = expectedShape(part);
    bool matches = buffer.rank == intptr_t(shape.size()) &&
                   buffer.elementType.kind == part.kind &&
                   buffer.elementType.size == part.elementSize;
    uint64_t bytes = part.elementSize;
    for (intptr_t d = 0; matches && d < buffer.rank; ++d) {
      matches = buffer.shape[d] == shape[d];
      bytes *= shape[d];
    }
    if (!matches || buffer.strides) {
      report(onError, userData,
             "tensor '" + file->tensor(tensor).name.str() + "': buffer " +
                 std::to_string(i) + " does not have the " +
                 getPartRoleName(part.role).str() +
                 " part's dense shape and element type");
      return false;
    }
    buffers.emplace_back(static_cast<uint8_t *>(buffer.data), bytes);
  }
  return true;
}

bool mlirQuantBlockGGUFTensorRepack(MlirQuantBlockGGUFFile f, intptr_t tensor,
                                    intptr_t numParts,
                                    const MlirQuantBlockBuffer *parts,
                                    int numThreads, MlirStringCallback onError,
                                    void *userData) {
  OpenFile *file = unwrapFile(f);
  std::vector<llvm::MutableArrayRef<uint8_t>> buffers;
  auto wholeShape = [](const PartLayout &part) { return part.shape; };
  if (!checkBuffers(file, tensor, numParts, parts, wholeShape, onError,
                    userData, buffers))
    return false;
  if (llvm::Error error =
          repackTensor(*file->file, *file->layout(tensor), buffers,
                       numThreads > 0 ? numThreads : 1)) {
    report(onError, userData, llvm::toString(std::move(error)));
    return false;
  }
  return true;
}

bool mlirQuantBlockGGUFTensorRepackRows(
    MlirQuantBlockGGUFFile f, intptr_t tensor, int64_t rowBegin, int64_t rowEnd,
    intptr_t numParts, const MlirQuantBlockBuffer *parts, int numThreads,
    MlirStringCallback onError, void *userData) {
  OpenFile *file = unwrapFile(f);
  int64_t numRows = file->tensor(tensor).getNumRows();
  if (rowBegin < 0 || rowEnd < rowBegin || rowEnd > numRows) {
    report(onError, userData,
           "tensor '" + file->tensor(tensor).name.str() + "': rows [" +
               std::to_string(rowBegin) + ", " + std::to_string(rowEnd) +
               ") are not within its " + std::to_string(numRows) + " rows");
    return false;
  }
  std::vector<llvm::MutableArrayRef<uint8_t>> buffers;
  auto rowsShape = [&](const PartLayout &part) {
    return llvm::SmallVector<int64_t, 4>{rowEnd - rowBegin, part.shape.back()};
  };
  if (!checkBuffers(file, tensor, numParts, parts, rowsShape, onError, userData,
                    buffers))
    return false;
  if (llvm::Error error =
          repackTensorRows(*file->file, *file->layout(tensor), rowBegin, rowEnd,
                           buffers, numThreads > 0 ? numThreads : 1)) {
    report(onError, userData, llvm::toString(std::move(error)));
    return false;
  }
  return true;
}

void mlirQuantBlockGGUFTensorReleaseData(MlirQuantBlockGGUFFile f,
                                         intptr_t tensor) {
  OpenFile *file = unwrapFile(f);
  file->file->releaseTensorData(file->tensor(tensor));
}

void mlirQuantBlockGGUFTensorReleaseRows(MlirQuantBlockGGUFFile f,
                                         intptr_t tensor, int64_t rowBegin,
                                         int64_t rowEnd) {
  OpenFile *file = unwrapFile(f);
  file->file->releaseTensorRows(file->tensor(tensor), rowBegin, rowEnd);
}

MlirModule mlirQuantBlockGGUFImport(MlirContext context,
                                    MlirQuantBlockGGUFFile f, intptr_t numNames,
                                    const MlirStringRef *names,
                                    bool skipUnsupported) {
  GGUFImportOptions options;
  for (intptr_t i = 0; i < numNames; ++i)
    options.tensors.push_back(unwrap(names[i]).str());
  options.skipUnsupported = skipUnsupported;
  OwningOpRef<ModuleOp> module =
      importGGUF(*unwrapFile(f)->file, unwrap(context), options);
  return wrap(module.release());
}
