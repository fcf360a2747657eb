//===- Packing.h - Sub-byte packing of element codes ------------*- C++ -*-===//
//
// How quant-block lays out sub-byte data in memory, which is part of its
// contract: a little-endian bit stream where element i occupies bits
// [i*w, (i+1)*w). So two i4 per byte with the FIRST element in the LOW
// nibble (as ONNX stores int4/uint4/float4e2m1), four i2 per byte with
// element 0 in bits 0-1, four fp6 in three bytes, eight i3 in three bytes.
// Elements may straddle a byte boundary (w = 3, 5, 6, 7). A trailing partial
// byte has its unused high bits zero.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_PACKING_H
#define QUANT_BLOCK_NUMERICS_PACKING_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace quant_block::numerics {

/// ceil(count * bitWidth / 8).
size_t packedByteCount(size_t count, unsigned bitWidth);

/// Packs codes (each must fit in bitWidth bits, 1 <= bitWidth <= 8).
std::vector<uint8_t> packBits(const std::vector<uint32_t> &codes,
                              unsigned bitWidth);

/// Reads `count` codes of bitWidth bits (1..8) back; `bytes` must hold at
/// least packedByteCount(count, bitWidth) bytes.
std::vector<uint32_t> unpackBits(const std::vector<uint8_t> &bytes,
                                 unsigned bitWidth, size_t count);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_PACKING_H
