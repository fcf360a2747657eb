//===- GGUFParts.h - ggml blocks as quant_block parts --------------*- C++
//-*-===//
//
// How each tensor of a GGUF file becomes a quant_block value: its type (a
// plain tensor or a `!quant_block.tensor` with the scheme of its ggml type),
// the parts a compiled function takes for it (packed data, block scales,
// zero points / mins, outer scales and mins, in the order of
// docs/Packing.md), and the repacking of ggml's array-of-structs blocks into
// those parts. The mapping of every ggml type and the formulas are in
// docs/GGUF.md; every repacked part dequantizes to ggml's `to_float` bits.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_TARGET_GGUF_GGUFPARTS_H
#define QUANT_BLOCK_TARGET_GGUF_GGUFPARTS_H

#include "quant-block/Target/GGUF/GGUFFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::quant_block::gguf {

/// What a part holds, in the order the parts cross a function boundary.
enum class PartRole { Data, Scales, ZeroPoints, OuterScales, OuterMins };
llvm::StringRef getPartRoleName(PartRole role);

/// One part: its role, its element type as numpy names it ('f' 4, 'i' 1,
/// 'u' 2, ...; the runner's MlirQuantBlockElementType), and its row-major
/// shape.
struct PartLayout {
  PartRole role;
  char kind;
  int elementSize;
  llvm::SmallVector<int64_t, 4> shape;

  uint64_t getByteSize() const;
};

/// The quant_block form of one tensor.
struct TensorLayout {
  const GGUFTensorInfo *tensor = nullptr;
  /// The MLIR type of the value: `tensor<4096xf32>` or
  /// `!quant_block.tensor<4096x4096, #quant_block.scheme<...>>`.
  std::string type;
  /// The scheme's text, empty for a plain tensor.
  std::string scheme;
  /// Whether the codes are stored wider than in the file (IQ4_NL, IQ4_XS,
  /// TQ1_0).
  bool widened = false;
  llvm::SmallVector<PartLayout, 5> parts;
};

/// The layout of `tensor`, or an error naming the tensor and its type when
/// quant_block cannot express it.
llvm::Expected<TensorLayout> getTensorLayout(const GGUFTensorInfo &tensor);

/// Repacks the tensor's bytes from `file` into `parts` (one buffer per part
/// of `layout`, each exactly `getByteSize()` bytes, dense row-major). Errors
/// name the tensor and the block for values quant_block would decode
/// differently from ggml (an MXFP4 exponent byte 0xFF, which ggml reads as
/// 2^127 and OCP as NaN). `numThreads` splits the rows.
llvm::Error repackTensor(const GGUFFile &file, const TensorLayout &layout,
                         llvm::ArrayRef<llvm::MutableArrayRef<uint8_t>> parts,
                         unsigned numThreads = 1);

/// The same for rows [rowBegin, rowEnd) of the tensor (a row: the ne[0]
/// elements of the last dimension, the leading dimensions flattened; every
/// part has one row per tensor row): `parts` hold those rows of each part,
/// `rowEnd - rowBegin` times the part's bytes per row. A loader that
/// repacks a large tensor in chunks of rows (and releases each chunk's
/// file pages, GGUFFile::releaseTensorRows) never holds the whole tensor
/// twice.
llvm::Error
repackTensorRows(const GGUFFile &file, const TensorLayout &layout,
                 int64_t rowBegin, int64_t rowEnd,
                 llvm::ArrayRef<llvm::MutableArrayRef<uint8_t>> parts,
                 unsigned numThreads = 1);

} // namespace mlir::quant_block::gguf

#endif // QUANT_BLOCK_TARGET_GGUF_GGUFPARTS_H
