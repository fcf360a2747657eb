//===- GGMLType.cpp - ggml's tensor element types -----------------------===//
//
// Block sizes and bytes per block from ggml's src/ggml-common.h (the structs
// `block_q4_0` ...) and the type table of src/ggml.c; checked against the
// type traits of the prebuilt ggml 0.25.1 (docs/GGUF.md).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Target/GGUF/GGMLType.h"

#include "llvm/ADT/STLExtras.h"

#include <iterator>

using namespace mlir::quant_block::gguf;

namespace {
constexpr llvm::StringLiteral kLattice =
    "a lattice codebook type (vectors of codes index a grid with sign bits), "
    "which no affine quant_block scheme can express";
constexpr llvm::StringLiteral kActivation =
    "an activation type of ggml's dot products that model files do not hold";
constexpr llvm::StringLiteral kInteger =
    "an integer tensor type, not a weight format";
constexpr llvm::StringLiteral kNone = "";

using S = GGMLTypeSupport;
using T = GGMLType;

const GGMLTypeInfo kTypes[] = {
    {T::F32, "F32", 1, 4, S::Plain, kNone},
    {T::F16, "F16", 1, 2, S::Plain, kNone},
    {T::Q4_0, "Q4_0", 32, 18, S::Exact, kNone},
    {T::Q4_1, "Q4_1", 32, 20, S::Exact, kNone},
    {T::Q5_0, "Q5_0", 32, 22, S::Exact, kNone},
    {T::Q5_1, "Q5_1", 32, 24, S::Exact, kNone},
    {T::Q8_0, "Q8_0", 32, 34, S::Exact, kNone},
    {T::Q8_1, "Q8_1", 32, 36, S::Unsupported, kActivation},
    {T::Q2_K, "Q2_K", 256, 84, S::Exact, kNone},
    {T::Q3_K, "Q3_K", 256, 110, S::Exact, kNone},
    {T::Q4_K, "Q4_K", 256, 144, S::Exact, kNone},
    {T::Q5_K, "Q5_K", 256, 176, S::Exact, kNone},
    {T::Q6_K, "Q6_K", 256, 210, S::Exact, kNone},
    {T::Q8_K, "Q8_K", 256, 292, S::Unsupported, kActivation},
    {T::IQ2_XXS, "IQ2_XXS", 256, 66, S::Unsupported, kLattice},
    {T::IQ2_XS, "IQ2_XS", 256, 74, S::Unsupported, kLattice},
    {T::IQ3_XXS, "IQ3_XXS", 256, 98, S::Unsupported, kLattice},
    {T::IQ1_S, "IQ1_S", 256, 50, S::Unsupported, kLattice},
    {T::IQ4_NL, "IQ4_NL", 32, 18, S::Widened, kNone},
    {T::IQ3_S, "IQ3_S", 256, 110, S::Unsupported, kLattice},
    {T::IQ2_S, "IQ2_S", 256, 82, S::Unsupported, kLattice},
    {T::IQ4_XS, "IQ4_XS", 256, 136, S::Widened, kNone},
    {T::I8, "I8", 1, 1, S::Unsupported, kInteger},
    {T::I16, "I16", 1, 2, S::Unsupported, kInteger},
    {T::I32, "I32", 1, 4, S::Unsupported, kInteger},
    {T::I64, "I64", 1, 8, S::Unsupported, kInteger},
    {T::F64, "F64", 1, 8, S::Unsupported,
     "a 64-bit float tensor, which no weight format uses"},
    {T::IQ1_M, "IQ1_M", 256, 56, S::Unsupported, kLattice},
    {T::BF16, "BF16", 1, 2, S::Plain, kNone},
    {T::TQ1_0, "TQ1_0", 256, 54, S::Widened, kNone},
    {T::TQ2_0, "TQ2_0", 256, 66, S::Exact, kNone},
    {T::MXFP4, "MXFP4", 32, 17, S::Exact, kNone},
    {T::NVFP4, "NVFP4", 64, 36, S::Exact, kNone},
    {T::Q1_0, "Q1_0", 128, 18, S::Unsupported,
     "a 1-bit type that quant_block does not import yet"},
    {T::Q2_0, "Q2_0", 64, 18, S::Exact, kNone},
};
} // namespace

const GGMLTypeInfo *mlir::quant_block::gguf::lookupGGMLType(uint32_t id) {
  for (const GGMLTypeInfo &info : kTypes)
    if (static_cast<uint32_t>(info.type) == id)
      return &info;
  return nullptr;
}

const GGMLTypeInfo &mlir::quant_block::gguf::getGGMLTypeInfo(GGMLType type) {
  const GGMLTypeInfo *info = lookupGGMLType(static_cast<uint32_t>(type));
  assert(info && "every enumerator has an entry");
  return *info;
}
