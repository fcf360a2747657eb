//===- GGUFParts.cpp - ggml blocks as quant_block parts ------------------===//
//
// One table row per ggml type says its scheme and the parts one ggml block
// fills; one decoder per type reads a block (ggml's struct, ggml's element
// order) and writes its codes in element order plus its parameters, which
// the driver packs into the little-endian bit stream of docs/Packing.md.
// The formulas are those of ggml's src/ggml-quants.c `dequantize_row_*`
// (docs/GGUF.md lists them with their sources).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Target/GGUF/GGUFParts.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

using namespace mlir::quant_block::gguf;
using llvm::Error;

namespace {

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A part's element: numpy's kind and size.
struct Element {
  char kind;
  int size;
};
constexpr Element kNone{0, 0};
constexpr Element kF16{'f', 2};
constexpr Element kU8{'u', 1};
constexpr Element kI8{'i', 1};

/// The parameters one decoded block writes; each pointer has room for the
/// block's sub-blocks (scales, zero points) or one value (outer).
struct BlockOutput {
  uint8_t *codes; // one code per element, low `bits` bits used
  uint8_t *scales;
  uint8_t *zeroPoints;
  uint8_t *outerScale;
  uint8_t *outerMin;
};

/// Decodes one block; returns false for a value quant_block would decode
/// differently from ggml (the caller names it).
using BlockDecoder = bool (*)(const uint8_t *block, const BlockOutput &out);

struct TypeForm {
  GGMLType type;
  const char *scheme; // without "#quant_block.scheme<...>"
  unsigned bits;      // storage bits per code
  int64_t subBlocks;  // block scales per ggml block
  Element scale, zeroPoint, outerScale, outerMin;
  BlockDecoder decode;
  const char *badValue; // what `decode` returning false means
  /// Whether `decode` writes the packed data itself (see decodeQ4_0).
  bool packsItself = false;
};

inline unsigned nibble(uint8_t byte, unsigned which) {
  return (byte >> (4 * which)) & 15;
}
inline void copy2(uint8_t *to, const uint8_t *from) {
  to[0] = from[0];
  to[1] = from[1];
}
/// An f16's bits with the sign flipped: -x, exactly (ggml subtracts
/// dmin * m; the scheme adds m * outer_min).
inline void copyNegatedF16(uint8_t *to, const uint8_t *from) {
  to[0] = from[0];
  to[1] = from[1] ^ 0x80;
}

/// The 4-bit code of element e of a 32-element block in ggml's "split
/// halves" order: element j in the low nibble of byte j, element j + 16 in
/// its high nibble.
inline unsigned splitHalves(const uint8_t *qs, unsigned e) {
  return nibble(qs[e % 16], e / 16);
}

/// Packs the 2n 4-bit codes of n bytes in the split-halves order (element
/// j in the low nibble of byte j, element j + n in its high nibble) into
/// the element-order stream, XOR-ing every code with `flip` (8 makes
/// Q4_0's `n - 8` a two's complement i4). Byte-wise: a model's load time is
/// spent here.
inline void packSplitHalves(const uint8_t *qs, unsigned n, uint8_t *out,
                            uint8_t flip) {
  uint8_t flipBoth = flip | flip << 4;
  for (unsigned j = 0; j < n / 2; ++j) {
    uint8_t a = qs[2 * j], b = qs[2 * j + 1];
    out[j] = ((a & 15) | (b & 15) << 4) ^ flipBoth;
    out[n / 2 + j] = ((a >> 4) | (b & 0xF0)) ^ flipBoth;
  }
}

/// 2-bit codes of Q2_K / Q3_K / TQ2_0: each 128 elements use 32 bytes, four
/// 32-element groups in bit pairs 0-1, 2-3, 4-5, 6-7.
inline unsigned twoBitInterleaved(const uint8_t *qs, unsigned e) {
  return (qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
}

/// The 6-bit sub-block scale and min j of Q4_K / Q5_K (ggml's
/// get_scale_min_k4).
inline void scaleMinK4(unsigned j, const uint8_t *s, uint8_t &scale,
                       uint8_t &min) {
  if (j < 4) {
    scale = s[j] & 63;
    min = s[j + 4] & 63;
  } else {
    scale = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
    min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

/// ggml's IQ4_NL / IQ4_XS codebook (kvalues_iq4nl).
constexpr int8_t kIQ4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                   1,    13,   25,  38,  53,  69,  89,  113};

// The decoders of the 4-bit types whose nibbles are only reordered write
// the packed stream themselves (TypeForm::packsItself): `o.codes` is then
// the block's bytes of the data part.

bool decodeQ4_0(const uint8_t *b, const BlockOutput &o) {
  copy2(o.scales, b);
  packSplitHalves(b + 2, 16, o.codes, 8); // two's complement of n - 8
  return true;
}

bool decodeQ4_1(const uint8_t *b, const BlockOutput &o) {
  copy2(o.scales, b);
  copy2(o.zeroPoints, b + 2);
  packSplitHalves(b + 4, 16, o.codes, 0);
  return true;
}

/// The super-block header Q4_K and Q5_K share: `d`, `dmin` (negated, the
/// outer min) and the 8 packed 6-bit scales and mins.
void decodeScalesAndMinsK4(const uint8_t *b, const BlockOutput &o) {
  copy2(o.outerScale, b);
  copyNegatedF16(o.outerMin, b + 2);
  for (unsigned j = 0; j < 8; ++j)
    scaleMinK4(j, b + 4, o.scales[j], o.zeroPoints[j]);
}

bool decodeQ4_K(const uint8_t *b, const BlockOutput &o) {
  decodeScalesAndMinsK4(b, o);
  // Each 64 elements use 32 bytes: the first 32 in the low nibbles.
  for (unsigned chunk = 0; chunk < 4; ++chunk)
    packSplitHalves(b + 16 + 32 * chunk, 32, o.codes + 32 * chunk, 0);
  return true;
}

template <unsigned QhOffset, unsigned QsOffset, bool Signed>
bool decodeQ5(const uint8_t *b, const BlockOutput &o) {
  copy2(o.scales, b);
  if (!Signed)
    copy2(o.zeroPoints, b + 2);
  uint32_t qh = b[QhOffset] | b[QhOffset + 1] << 8 | b[QhOffset + 2] << 16 |
                uint32_t(b[QhOffset + 3]) << 24;
  for (unsigned e = 0; e < 32; ++e) {
    unsigned q = splitHalves(b + QsOffset, e) | ((qh >> e) & 1) << 4;
    o.codes[e] = Signed ? q ^ 16 : q; // Q5_0: two's complement of q - 16
  }
  return true;
}

bool decodeQ8_0(const uint8_t *b, const BlockOutput &o) {
  copy2(o.scales, b);
  std::memcpy(o.codes, b + 2, 32);
  return true;
}

bool decodeQ2_K(const uint8_t *b, const BlockOutput &o) {
  const uint8_t *scales = b, *qs = b + 16;
  for (unsigned j = 0; j < 16; ++j) {
    o.scales[j] = scales[j] & 15;
    o.zeroPoints[j] = scales[j] >> 4;
  }
  copy2(o.outerScale, b + 80);
  copyNegatedF16(o.outerMin, b + 82);
  for (unsigned e = 0; e < 256; ++e)
    o.codes[e] = twoBitInterleaved(qs, e);
  return true;
}

bool decodeQ3_K(const uint8_t *b, const BlockOutput &o) {
  const uint8_t *hmask = b, *qs = b + 32, *s = b + 96;
  for (unsigned j = 0; j < 16; ++j) {
    unsigned low = j < 8 ? s[j] & 15 : s[j - 8] >> 4;
    unsigned high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    o.scales[j] = static_cast<uint8_t>(int8_t((low | high << 4)) - 32);
  }
  copy2(o.outerScale, b + 108);
  for (unsigned e = 0; e < 256; ++e) {
    unsigned high = (hmask[e % 32] >> (e / 32)) & 1;
    // q = low - (high ? 0 : 4) in [-4, 3], as a 3-bit two's complement.
    o.codes[e] = twoBitInterleaved(qs, e) | (1 - high) << 2;
  }
  return true;
}

bool decodeQ5_K(const uint8_t *b, const BlockOutput &o) {
  decodeScalesAndMinsK4(b, o);
  const uint8_t *qh = b + 16, *qs = b + 48;
  uint8_t *codes = o.codes;
  for (unsigned e = 0; e < 256; ++e) {
    // Q4_K's nibble order, the 5th bit from qh.
    unsigned q = nibble(qs[32 * (e / 64) + e % 32], (e % 64) / 32);
    codes[e] = q | ((qh[e % 32] >> (e / 32)) & 1) << 4;
  }
  return true;
}

bool decodeQ6_K(const uint8_t *b, const BlockOutput &o) {
  const uint8_t *ql = b, *qh = b + 128;
  std::memcpy(o.scales, b + 192, 16);
  copy2(o.outerScale, b + 208);
  for (unsigned e = 0; e < 256; ++e) {
    unsigned half = e / 128, r = e % 128, quarter = r / 32, l = r % 32;
    unsigned low = nibble(ql[64 * half + 32 * (quarter & 1) + l], quarter >> 1);
    unsigned high = (qh[32 * half + l] >> (2 * quarter)) & 3;
    o.codes[e] = (low | high << 4) ^ 32; // two's complement of q - 32
  }
  return true;
}

bool decodeIQ4_NL(const uint8_t *b, const BlockOutput &o) {
  copy2(o.scales, b);
  for (unsigned e = 0; e < 32; ++e)
    o.codes[e] = static_cast<uint8_t>(kIQ4Values[splitHalves(b + 2, e)]);
  return true;
}

bool decodeIQ4_XS(const uint8_t *b, const BlockOutput &o) {
  copy2(o.outerScale, b);
  unsigned scalesHigh = b[2] | b[3] << 8;
  const uint8_t *scalesLow = b + 4, *qs = b + 8;
  for (unsigned j = 0; j < 8; ++j) {
    unsigned ls =
        nibble(scalesLow[j / 2], j % 2) | ((scalesHigh >> (2 * j)) & 3) << 4;
    o.scales[j] = static_cast<uint8_t>(int(ls) - 32);
  }
  for (unsigned e = 0; e < 256; ++e)
    o.codes[e] = static_cast<uint8_t>(
        kIQ4Values[splitHalves(qs + 16 * (e / 32), e % 32)]);
  return true;
}

bool decodeTQ1_0(const uint8_t *b, const BlockOutput &o) {
  static constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};
  copy2(o.scales, b + 52);
  for (unsigned e = 0; e < 256; ++e) {
    unsigned byte, n;
    if (e < 160) {
      byte = e % 32, n = e / 32;
    } else if (e < 240) {
      byte = 32 + (e - 160) % 16, n = (e - 160) / 16;
    } else {
      byte = 48 + (e - 240) % 4, n = (e - 240) / 4;
    }
    uint8_t shifted = static_cast<uint8_t>(b[byte] * kPow3[n]);
    unsigned trit = (unsigned(shifted) * 3) >> 8;
    o.codes[e] = (trit - 1) & 3; // t - 1 in {-1, 0, 1} as i2
  }
  return true;
}

template <unsigned Elements, unsigned DOffset, unsigned QsOffset>
bool decodeUnsigned2Bit(const uint8_t *b, const BlockOutput &o) {
  copy2(o.scales, b + DOffset);
  o.zeroPoints[0] = 1; // x = (q - 1) * d
  for (unsigned e = 0; e < Elements; ++e)
    o.codes[e] = Elements == 256 ? twoBitInterleaved(b + QsOffset, e)
                                 : (b[QsOffset + e / 4] >> (2 * (e % 4))) & 3;
  return true;
}

/// ggml decodes FP4 code 0b1000 as +0 (its table kvalues_fp4), OCP E2M1 as
/// -0: the importer stores +0 so that the values are ggml's. Both nibbles
/// of a packed byte at once.
inline uint8_t canonicalFP4Pair(uint8_t pair) {
  if ((pair & 15) == 8)
    pair &= 0xF0;
  if ((pair >> 4) == 8)
    pair &= 0x0F;
  return pair;
}

bool decodeMXFP4(const uint8_t *b, const BlockOutput &o) {
  // ggml reads exponent 0xFF as 2^127, OCP's E8M0 as NaN: refused.
  if (b[0] == 0xFF)
    return false;
  o.scales[0] = b[0];
  packSplitHalves(b + 1, 16, o.codes, 0);
  for (unsigned j = 0; j < 16; ++j)
    o.codes[j] = canonicalFP4Pair(o.codes[j]);
  return true;
}

bool decodeNVFP4(const uint8_t *b, const BlockOutput &o) {
  for (unsigned s = 0; s < 4; ++s) {
    // ggml's UE4M3 ignores bit 7 and reads 0x7F as 0; E4M3FN has a sign
    // there and NaN at 0x7F. Both rewrites keep ggml's value.
    uint8_t scale = b[s] & 0x7F;
    o.scales[s] = scale == 0x7F ? 0 : scale;
    packSplitHalves(b + 4 + 8 * s, 8, o.codes + 8 * s, 0);
  }
  for (unsigned j = 0; j < 32; ++j)
    o.codes[j] = canonicalFP4Pair(o.codes[j]);
  return true;
}

const TypeForm kForms[] = {
    {GGMLType::Q4_0, "i4 : f32, block = [32], scale = f16", 4, 1, kF16, kNone,
     kNone, kNone, decodeQ4_0, nullptr, true},
    {GGMLType::Q4_1, "ui4 : f32, block = [32], scale = f16, zero_point = f16",
     4, 1, kF16, kF16, kNone, kNone, decodeQ4_1, nullptr, true},
    {GGMLType::Q5_0, "i5 : f32, block = [32], scale = f16", 5, 1, kF16, kNone,
     kNone, kNone, decodeQ5<2, 6, true>, nullptr},
    {GGMLType::Q5_1, "ui5 : f32, block = [32], scale = f16, zero_point = f16",
     5, 1, kF16, kF16, kNone, kNone, decodeQ5<4, 8, false>, nullptr},
    {GGMLType::Q8_0, "i8 : f32, block = [32], scale = f16", 8, 1, kF16, kNone,
     kNone, kNone, decodeQ8_0, nullptr},
    {GGMLType::Q2_K,
     "ui2 : f32, block = [16], scale = ui8, zero_point = ui8, outer = <f16, "
     "block = [16], min = f16>",
     2, 16, kU8, kU8, kF16, kF16, decodeQ2_K, nullptr},
    {GGMLType::Q3_K,
     "i3 : f32, block = [16], scale = i8, outer = <f16, block = [16]>", 3, 16,
     kI8, kNone, kF16, kNone, decodeQ3_K, nullptr},
    {GGMLType::Q4_K,
     "ui4 : f32, block = [32], scale = ui8, zero_point = ui8, outer = <f16, "
     "block = [8], min = f16>",
     4, 8, kU8, kU8, kF16, kF16, decodeQ4_K, nullptr, true},
    {GGMLType::Q5_K,
     "ui5 : f32, block = [32], scale = ui8, zero_point = ui8, outer = <f16, "
     "block = [8], min = f16>",
     5, 8, kU8, kU8, kF16, kF16, decodeQ5_K, nullptr},
    {GGMLType::Q6_K,
     "i6 : f32, block = [16], scale = i8, outer = <f16, block = [16]>", 6, 16,
     kI8, kNone, kF16, kNone, decodeQ6_K, nullptr},
    {GGMLType::IQ4_NL, "i8 : f32, block = [32], scale = f16", 8, 1, kF16, kNone,
     kNone, kNone, decodeIQ4_NL, nullptr},
    {GGMLType::IQ4_XS,
     "i8 : f32, block = [32], scale = i8, outer = <f16, block = [8]>", 8, 8,
     kI8, kNone, kF16, kNone, decodeIQ4_XS, nullptr},
    {GGMLType::TQ1_0, "i2 : f32, block = [256], scale = f16", 2, 1, kF16, kNone,
     kNone, kNone, decodeTQ1_0, nullptr},
    {GGMLType::TQ2_0, "ui2 : f32, block = [256], scale = f16, zero_point = ui8",
     2, 1, kF16, kU8, kNone, kNone, decodeUnsigned2Bit<256, 64, 0>, nullptr},
    {GGMLType::Q2_0, "ui2 : f32, block = [64], scale = f16, zero_point = ui8",
     2, 1, kF16, kU8, kNone, kNone, decodeUnsigned2Bit<64, 0, 2>, nullptr},
    {GGMLType::MXFP4, "f4E2M1FN : f32, block = [32], scale = f8E8M0FNU", 4, 1,
     kU8, kNone, kNone, kNone, decodeMXFP4,
     "exponent byte 0xFF, which ggml decodes as 2^127 and OCP's E8M0 as NaN",
     true},
    {GGMLType::NVFP4, "f4E2M1FN : f32, block = [16], scale = f8E4M3FN", 4, 4,
     kU8, kNone, kNone, kNone, decodeNVFP4, nullptr, true},
};

const TypeForm *lookupForm(GGMLType type) {
  for (const TypeForm &form : kForms)
    if (form.type == type)
      return &form;
  return nullptr;
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  for (int64_t n : shape)
    text += std::to_string(n) + "x";
  return text;
}

llvm::SmallVector<int64_t, 4> withLast(llvm::ArrayRef<int64_t> shape,
                                       int64_t last) {
  llvm::SmallVector<int64_t, 4> result(shape);
  result.back() = last;
  return result;
}

/// Packs `count` codes of `bits` bits into the little-endian bit stream.
/// The widths of the common weight types have straight-line loops (a
/// model's load time is spent here); the others go through an accumulator.
void packCodes(const uint8_t *codes, unsigned count, unsigned bits,
               uint8_t *out) {
  switch (bits) {
  case 8:
    std::memcpy(out, codes, count);
    return;
  case 4:
    for (unsigned i = 0; i < count; i += 2)
      *out++ = (codes[i] & 15) | (codes[i + 1] & 15) << 4;
    return;
  case 2:
    for (unsigned i = 0; i < count; i += 4)
      *out++ = (codes[i] & 3) | (codes[i + 1] & 3) << 2 |
               (codes[i + 2] & 3) << 4 | (codes[i + 3] & 3) << 6;
    return;
  case 6:
    for (unsigned i = 0; i < count; i += 4) {
      uint32_t word = (codes[i] & 63) | (codes[i + 1] & 63) << 6 |
                      (codes[i + 2] & 63) << 12 |
                      uint32_t(codes[i + 3] & 63) << 18;
      *out++ = word;
      *out++ = word >> 8;
      *out++ = word >> 16;
    }
    return;
  default:
    break;
  }
  uint64_t accumulator = 0;
  unsigned filled = 0;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  for (unsigned i = 0; i < count; ++i) {
    accumulator |= (codes[i] & mask) << filled;
    filled += bits;
    while (filled >= 8) {
      *out++ = static_cast<uint8_t>(accumulator);
      accumulator >>= 8;
      filled -= 8;
    }
  }
  if (filled)
    *out = static_cast<uint8_t>(accumulator);
}

} // namespace

llvm::StringRef mlir::quant_block::gguf::getPartRoleName(PartRole role) {
  switch (role) {
  case PartRole::Data:
    return "data";
  case PartRole::Scales:
    return "scales";
  case PartRole::ZeroPoints:
    return "zero_points";
  case PartRole::OuterScales:
    return "outer_scales";
  case PartRole::OuterMins:
    return "outer_mins";
  }
  return "?";
}

uint64_t PartLayout::getByteSize() const {
  uint64_t size = elementSize;
  for (int64_t n : shape)
    size *= n;
  return size;
}

llvm::Expected<TensorLayout>
mlir::quant_block::gguf::getTensorLayout(const GGUFTensorInfo &tensor) {
  const GGMLTypeInfo &type = *tensor.type;
  TensorLayout layout;
  layout.tensor = &tensor;
  llvm::SmallVector<int64_t, 4> shape = tensor.getShape();
  if (type.support == GGMLTypeSupport::Plain) {
    const char *element = type.type == GGMLType::F32   ? "f32"
                          : type.type == GGMLType::F16 ? "f16"
                                                       : "bf16";
    layout.type = "tensor<" + shapeText(shape) + element + ">";
    // bf16 crosses the boundary as its bits (docs/Runner.md).
    char kind = type.type == GGMLType::BF16 ? 'u' : 'f';
    layout.parts.push_back({PartRole::Data, kind, int(type.blockBytes), shape});
    return layout;
  }
  const TypeForm *form = lookupForm(type.type);
  if (!form)
    return makeError(
        llvm::formatv("tensor '{0}': type {1} is {2}", tensor.name, type.name,
                      type.reason.empty() ? llvm::StringRef("not supported")
                                          : llvm::StringRef(type.reason)));
  if (llvm::is_contained(shape, 0))
    return makeError(llvm::formatv(
        "tensor '{0}': a quantized tensor with a zero dimension", tensor.name));
  layout.widened = type.support == GGMLTypeSupport::Widened;
  layout.scheme = std::string("#quant_block.scheme<") + form->scheme + ">";
  layout.type = "!quant_block.tensor<" +
                shapeText(shape).substr(0, shapeText(shape).size() - 1) + ", " +
                layout.scheme + ">";
  int64_t rowLength = tensor.getRowLength();
  int64_t blocksPerRow = rowLength / type.blockElements;
  // Lowered sub-byte data: the last dimension packed into bytes (i8).
  layout.parts.push_back(
      {PartRole::Data, 'i', 1, withLast(shape, rowLength * form->bits / 8)});
  int64_t scalesPerRow = blocksPerRow * form->subBlocks;
  layout.parts.push_back({PartRole::Scales, form->scale.kind, form->scale.size,
                          withLast(shape, scalesPerRow)});
  if (form->zeroPoint.size)
    layout.parts.push_back({PartRole::ZeroPoints, form->zeroPoint.kind,
                            form->zeroPoint.size,
                            withLast(shape, scalesPerRow)});
  if (form->outerScale.size)
    layout.parts.push_back({PartRole::OuterScales, form->outerScale.kind,
                            form->outerScale.size,
                            withLast(shape, blocksPerRow)});
  if (form->outerMin.size)
    layout.parts.push_back({PartRole::OuterMins, form->outerMin.kind,
                            form->outerMin.size,
                            withLast(shape, blocksPerRow)});
  return layout;
}

Error mlir::quant_block::gguf::repackTensor(
    const GGUFFile &file, const TensorLayout &layout,
    llvm::ArrayRef<llvm::MutableArrayRef<uint8_t>> parts, unsigned numThreads) {
  return repackTensorRows(file, layout, 0, layout.tensor->getNumRows(), parts,
                          numThreads);
}

Error mlir::quant_block::gguf::repackTensorRows(
    const GGUFFile &file, const TensorLayout &layout, int64_t rowBegin,
    int64_t rowEnd, llvm::ArrayRef<llvm::MutableArrayRef<uint8_t>> parts,
    unsigned numThreads) {
  const GGUFTensorInfo &tensor = *layout.tensor;
  int64_t numRows = tensor.getNumRows();
  if (rowBegin < 0 || rowEnd < rowBegin || rowEnd > numRows)
    return makeError(llvm::formatv("tensor '{0}': rows [{1}, {2}) are not "
                                   "within its {3} rows",
                                   tensor.name, rowBegin, rowEnd, numRows));
  int64_t rows = rowEnd - rowBegin;
  if (parts.size() != layout.parts.size())
    return makeError(llvm::formatv("tensor '{0}': {1} parts given, {2} needed",
                                   tensor.name, parts.size(),
                                   layout.parts.size()));
  // Every part has one row per tensor row (the leading dimensions).
  for (auto [part, buffer] : llvm::zip(layout.parts, parts))
    if (buffer.size() !=
        part.getByteSize() / std::max<int64_t>(numRows, 1) * uint64_t(rows))
      return makeError(llvm::formatv(
          "tensor '{0}': the {1} part of {2} rows needs {3} bytes, {4} given",
          tensor.name, getPartRoleName(part.role), rows,
          part.getByteSize() / std::max<int64_t>(numRows, 1) * uint64_t(rows),
          buffer.size()));
  // The tensor's bytes of these rows (every row has the same whole blocks).
  uint64_t rowBytes = numRows ? tensor.byteSize / numRows : 0;
  llvm::ArrayRef<uint8_t> bytes =
      file.getTensorData(tensor).slice(rowBegin * rowBytes, rows * rowBytes);
  const GGMLTypeInfo &type = *tensor.type;
  if (type.support == GGMLTypeSupport::Plain) {
    // An empty tensor has no buffer to copy into (memcpy forbids null).
    if (!bytes.empty())
      std::memcpy(parts[0].data(), bytes.data(), bytes.size());
    return Error::success();
  }
  const TypeForm *form = lookupForm(type.type);
  assert(form && "getTensorLayout accepted the type");

  // Bytes each ggml block fills in each part.
  int64_t elements = type.blockElements;
  int64_t dataBytes = elements * form->bits / 8;
  int64_t numBlocks = rows * (tensor.getRowLength() / elements);
  auto part = [&](PartRole role) -> uint8_t * {
    for (auto [layoutPart, buffer] : llvm::zip(layout.parts, parts))
      if (layoutPart.role == role)
        return buffer.data();
    return nullptr;
  };
  uint8_t *data = part(PartRole::Data), *scales = part(PartRole::Scales),
          *zeroPoints = part(PartRole::ZeroPoints),
          *outerScales = part(PartRole::OuterScales),
          *outerMins = part(PartRole::OuterMins);

  std::atomic<int64_t> badBlock{-1};
  auto repackRange = [&](int64_t begin, int64_t end) {
    uint8_t codes[256];
    for (int64_t block = begin; block < end; ++block) {
      uint8_t *blockData = data + block * dataBytes;
      BlockOutput out{
          form->packsItself ? blockData : codes,
          scales + block * form->subBlocks * form->scale.size,
          zeroPoints
              ? zeroPoints + block * form->subBlocks * form->zeroPoint.size
              : nullptr,
          outerScales ? outerScales + block * form->outerScale.size : nullptr,
          outerMins ? outerMins + block * form->outerMin.size : nullptr};
      if (!form->decode(bytes.data() + block * type.blockBytes, out)) {
        int64_t expected = -1;
        badBlock.compare_exchange_strong(expected, block);
        return;
      }
      if (!form->packsItself)
        packCodes(codes, elements, form->bits, blockData);
    }
  };
  unsigned threads = std::max<unsigned>(
      1, std::min<int64_t>(numThreads, numBlocks / 4096 + 1));
  if (threads == 1) {
    repackRange(0, numBlocks);
  } else {
    std::vector<std::thread> workers;
    int64_t chunk = (numBlocks + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back(repackRange, std::min(numBlocks, t * chunk),
                           std::min(numBlocks, (t + 1) * chunk));
    for (std::thread &worker : workers)
      worker.join();
  }
  if (badBlock >= 0) {
    int64_t block = badBlock;
    int64_t blocksPerRow = tensor.getRowLength() / elements;
    return makeError(
        llvm::formatv("tensor '{0}' ({1}): block {2} of row {3} has {4}",
                      tensor.name, type.name, block % blocksPerRow,
                      rowBegin + block / blocksPerRow, form->badValue));
  }
  return Error::success();
}
