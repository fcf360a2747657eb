//===- Packing.cpp - Sub-byte packing of element codes --------------------===//
//
// Packing and unpacking of the little-endian bit stream described in
// Packing.h. Elements are moved bit field by bit field through a 16-bit
// window, since an element of up to 8 bits touches at most two bytes.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/Packing.h"

#include <cassert>

namespace quant_block::numerics {

size_t packedByteCount(size_t count, unsigned bitWidth) {
  assert(bitWidth >= 1 && bitWidth <= 8 && "packing width out of range");
  return (count * bitWidth + 7) / 8;
}

std::vector<uint8_t> packBits(const std::vector<uint32_t> &codes,
                              unsigned bitWidth) {
  std::vector<uint8_t> bytes(packedByteCount(codes.size(), bitWidth), 0);
  for (size_t i = 0, e = codes.size(); i != e; ++i) {
    assert(codes[i] < (1u << bitWidth) && "code wider than the packing width");
    size_t bit = i * bitWidth;
    uint32_t shifted = codes[i] << (bit % 8);
    bytes[bit / 8] |= static_cast<uint8_t>(shifted);
    // Only touch the next byte when the element straddles into it, so a
    // trailing partial byte never needs a byte past the end.
    if (bit % 8 + bitWidth > 8)
      bytes[bit / 8 + 1] |= static_cast<uint8_t>(shifted >> 8);
  }
  return bytes;
}

std::vector<uint32_t> unpackBits(const std::vector<uint8_t> &bytes,
                                 unsigned bitWidth, size_t count) {
  assert(bytes.size() >= packedByteCount(count, bitWidth) &&
         "not enough packed bytes");
  std::vector<uint32_t> codes;
  codes.reserve(count);
  uint32_t mask = (1u << bitWidth) - 1;
  for (size_t i = 0; i != count; ++i) {
    size_t bit = i * bitWidth;
    uint32_t window = bytes[bit / 8];
    if (bit % 8 + bitWidth > 8)
      window |= static_cast<uint32_t>(bytes[bit / 8 + 1]) << 8;
    codes.push_back((window >> (bit % 8)) & mask);
  }
  return codes;
}

} // namespace quant_block::numerics
