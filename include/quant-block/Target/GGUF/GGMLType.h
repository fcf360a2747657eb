//===- GGMLType.h - ggml's tensor element types -------------------*- C++
//-*-===//
//
// The element types a GGUF file's tensor infos name (ggml's `enum ggml_type`,
// ids 0..42 as in ggml 0.25), with their block geometry and how quant_block
// expresses each: exactly (a scheme whose dequantization gives ggml's bits),
// widened (exact values, but codes stored in more bits than ggml uses), or
// not at all (lattice codebooks, activation-only and integer types).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_TARGET_GGUF_GGMLTYPE_H
#define QUANT_BLOCK_TARGET_GGUF_GGMLTYPE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::quant_block::gguf {

/// ggml's type ids (ggml.h `enum ggml_type`). Ids 4, 5, 31-33 and 36-38
/// were removed from ggml and are refused as unknown.
enum class GGMLType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
  NVFP4 = 40,
  Q1_0 = 41,
  Q2_0 = 42,
};

/// How quant_block can hold a tensor of a ggml type.
enum class GGMLTypeSupport {
  /// A plain f32 / f16 / bf16 tensor.
  Plain,
  /// A `!quant_block.tensor` whose dequantization is bit-exact with ggml's
  /// `to_float`, codes stored as compactly as in the file.
  Exact,
  /// Bit-exact values, but the codes are stored wider than ggml stores them
  /// (IQ4_NL / IQ4_XS codebook values as i8, TQ1_0's base-3 trits as i2).
  Widened,
  /// Not affine (the IQ1/IQ2/IQ3 lattice codebooks), or a type that model
  /// files do not hold (Q8_1 / Q8_K activation blocks, integer tensors).
  Unsupported,
};

/// The geometry and the quant_block form of one ggml type.
struct GGMLTypeInfo {
  GGMLType type;
  llvm::StringLiteral name;
  /// Elements per block and bytes per block (1 and the element size for the
  /// plain types).
  int64_t blockElements;
  int64_t blockBytes;
  GGMLTypeSupport support;
  /// For Unsupported types: why, for the diagnostic.
  llvm::StringLiteral reason;
};

/// The type with id `id`, or none for ids ggml does not define.
const GGMLTypeInfo *lookupGGMLType(uint32_t id);
const GGMLTypeInfo &getGGMLTypeInfo(GGMLType type);

} // namespace mlir::quant_block::gguf

#endif // QUANT_BLOCK_TARGET_GGUF_GGMLTYPE_H
