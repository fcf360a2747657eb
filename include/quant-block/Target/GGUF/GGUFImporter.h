//===- GGUFImporter.h - a GGUF file as a quant_block module -------*- C++
//-*-===//
//
// Imports the tensors of a GGUF file as a module whose functions take each
// weight as an argument (its parts, when compiled with quantized values as
// parts) and return it dequantized to f32: no weight goes into the IR, a
// loader hands the repacked parts over at run time (GGUFParts.h). Each
// function is named after its tensor, carries the tensor's name as an
// argument attribute, and its ops have the tensor's name as location, so a
// diagnostic points at the tensor it is about.
//
//   func.func @"blk.0.attn_q.weight"(
//       %w: !quant_block.tensor<4096x4096, #quant_block.scheme<...>>
//           {quant_block.gguf_tensor = "blk.0.attn_q.weight"})
//       -> tensor<4096x4096xf32>
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_TARGET_GGUF_GGUFIMPORTER_H
#define QUANT_BLOCK_TARGET_GGUF_GGUFIMPORTER_H

#include "quant-block/Target/GGUF/GGUFFile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace mlir::quant_block::gguf {

/// The argument attribute naming the GGUF tensor an argument is loaded from.
constexpr llvm::StringLiteral kTensorAttrName = "quant_block.gguf_tensor";

struct GGUFImportOptions {
  /// The tensors to import, by name; empty imports every tensor.
  std::vector<std::string> tensors;
  /// Leave out tensors whose type quant_block cannot express (each named in
  /// a warning) instead of failing.
  bool skipUnsupported = false;
};

/// The dialects an imported module uses.
void registerGGUFImportDialects(DialectRegistry &registry);

/// Imports `file`; on failure reports the errors to the context's
/// diagnostic handler (at the tensor's location) and returns null.
OwningOpRef<ModuleOp> importGGUF(const GGUFFile &file, MLIRContext *context,
                                 const GGUFImportOptions &options = {});

} // namespace mlir::quant_block::gguf

#endif // QUANT_BLOCK_TARGET_GGUF_GGUFIMPORTER_H
