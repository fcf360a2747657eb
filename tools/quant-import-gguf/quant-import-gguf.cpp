//===- quant-import-gguf.cpp - GGUF files as quant_block modules ----------===//
//
//   quant-import-gguf FILE [-o OUT.mlir] [--tensor NAME]...
//   [--skip-unsupported] quant-import-gguf FILE --list
//
// Validates a GGUF file and prints the module of its tensors (one function
// per tensor that takes the weight, as parts when compiled with quantized
// values as parts, and returns it as f32; the argument attribute
// `quant_block.gguf_tensor` names the tensor it is loaded from), or, with
// --list, the header, the metadata and each tensor with its ggml type, its
// shape, its quant_block type and the parts its argument takes. A hostile
// or unsupported file is an error naming the field or the tensor.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Target/GGUF/GGUFFile.h"
#include "quant-block/Target/GGUF/GGUFImporter.h"
#include "quant-block/Target/GGUF/GGUFParts.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlir::quant_block::gguf;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.gguf>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("filename"),
                                       cl::init("-"));
static cl::list<std::string>
    tensorNames("tensor", cl::desc("Import only this tensor (repeatable)"),
                cl::value_desc("name"));
static cl::opt<bool> skipUnsupported(
    "skip-unsupported",
    cl::desc("Leave out tensors of types quant_block cannot express (each "
             "named in a warning) instead of failing"));
static cl::opt<bool>
    listOnly("list", cl::desc("Print the header, the metadata and the tensors "
                              "with their quant_block types and parts"));

/// A metadata value in one line (long arrays shortened).
static void printValue(raw_ostream &os, const GGUFValue &value) {
  switch (value.type) {
  case GGUFValueType::String:
    os << '"';
    os.write_escaped(value.stringValue.take_front(120));
    os << (value.stringValue.size() > 120 ? "...\"" : "\"");
    return;
  case GGUFValueType::Float32:
  case GGUFValueType::Float64:
    os << formatv("{0}", value.floatValue);
    return;
  case GGUFValueType::Bool:
    os << (value.unsignedValue ? "true" : "false");
    return;
  case GGUFValueType::Array: {
    os << "[" << value.arraySize << " x "
       << getGGUFValueTypeName(value.elementType) << "]";
    uint64_t shown = std::min<uint64_t>(value.arraySize, 8);
    os << " {";
    for (uint64_t i = 0; i < shown; ++i) {
      if (i)
        os << ", ";
      if (value.elementType == GGUFValueType::String)
        os << '"' << value.arrayStrings[i].take_front(40) << '"';
      else
        os << formatv("{0}", value.getArrayElementAsDouble(i));
    }
    os << (value.arraySize > shown ? ", ...}" : "}");
    return;
  }
  default:
    if (std::optional<int64_t> integer = value.getAsInteger())
      os << *integer;
    else
      os << value.unsignedValue;
  }
}

static void printListing(raw_ostream &os, const GGUFFile &file) {
  os << formatv("file: {0}\nversion: {1}\nalignment: {2}\ndata offset: {3}\n",
                file.getName(), file.getVersion(), file.getAlignment(),
                file.getDataOffset());
  os << formatv("metadata: {0} pairs\n", file.getMetadata().size());
  for (const GGUFKeyValue &pair : file.getMetadata()) {
    os << "  " << pair.key << ": " << getGGUFValueTypeName(pair.value.type)
       << " = ";
    printValue(os, pair.value);
    os << "\n";
  }
  os << formatv("tensors: {0}\n", file.getTensors().size());
  for (const GGUFTensorInfo &tensor : file.getTensors()) {
    os << "  " << tensor.name << ": " << tensor.type->name << " ne = [";
    llvm::interleaveComma(tensor.ne, os);
    os << formatv("], offset {0}, {1} bytes\n", tensor.relativeOffset,
                  tensor.byteSize);
    Expected<TensorLayout> layout = getTensorLayout(tensor);
    if (!layout) {
      os << "    unsupported: " << toString(layout.takeError()) << "\n";
      continue;
    }
    os << "    type: " << layout->type
       << (layout->widened ? " (codes widened)" : "") << "\n";
    for (const PartLayout &part : layout->parts) {
      os << "    part " << getPartRoleName(part.role) << ": " << part.kind
         << part.elementSize << " [";
      llvm::interleave(part.shape, os, "x");
      os << "]\n";
    }
  }
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "quant-import-gguf: a GGUF file's tensors as a quant_block module\n");

  Expected<std::unique_ptr<GGUFFile>> file = GGUFFile::open(inputFile);
  if (!file) {
    WithColor::error(errs(), "quant-import-gguf")
        << toString(file.takeError()) << "\n";
    return 1;
  }

  std::string errorMessage;
  std::unique_ptr<ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &errorMessage);
  if (!output) {
    WithColor::error(errs(), "quant-import-gguf") << errorMessage << "\n";
    return 1;
  }
  if (listOnly) {
    printListing(output->os(), **file);
    output->keep();
    return 0;
  }

  mlir::MLIRContext context;
  // Prints every diagnostic (warnings too) with its location: the tensor's
  // name, then the file.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  GGUFImportOptions options;
  options.tensors.assign(tensorNames.begin(), tensorNames.end());
  options.skipUnsupported = skipUnsupported;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importGGUF(**file, &context, options);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 1;
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
