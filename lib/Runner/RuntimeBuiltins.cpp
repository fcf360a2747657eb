//===- RuntimeBuiltins.cpp - builtins the host's libgcc may lack ----------===//
//
// A bf16 result travels like a _Float16 one: in the low 16 bits of xmm0 on
// x86-64 (psABI: __bf16 and _Float16 are both of class SSE) and in h0 on
// AArch64 (AAPCS64). C++17 compilers without __bf16 arithmetic still have
// _Float16 on those targets, so the builtins return the bf16 bit pattern
// in a _Float16 without converting it.
//
// f64 -> bf16 rounds once, from the f64 value: going through f32 first could
// round twice.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/RuntimeBuiltins.h"

#include "llvm/ExecutionEngine/JITSymbol.h"

#include <cmath>
#include <cstring>

using namespace mlir::quant_block::runner;

uint16_t mlir::quant_block::runner::truncateF32ToBF16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x0040);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t mlir::quant_block::runner::truncateF64ToBF16Bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  if (std::isnan(value))
    return static_cast<uint16_t>(sign | 0x7fc0 | ((bits >> 45) & 0x3f));
  double magnitude = std::fabs(value);
  // The largest finite bf16 is (2 - 2^-7) * 2^127, with an odd significand:
  // from halfway to 2^128 on, the value rounds to infinity.
  if (magnitude >= 0x1.ffp127)
    return sign | 0x7f80;
  // Round the magnitude to 8 significant bits (or to a multiple of the
  // smallest subnormal, 2^-133) with the current, nearest-even mode: exact
  // in f64, then exactly representable in f32 and in bf16.
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int quantumExponent = std::max(exponent - 8, -133);
  double rounded = std::ldexp(
      std::nearbyint(std::ldexp(magnitude, -quantumExponent)), quantumExponent);
  float single = static_cast<float>(rounded);
  uint32_t singleBits;
  std::memcpy(&singleBits, &single, sizeof(singleBits));
  return static_cast<uint16_t>(sign | (singleBits >> 16));
}

#if defined(__x86_64__) || defined(__aarch64__)
static _Float16 asFloat16(uint16_t bits) {
  _Float16 value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}
static _Float16 truncsfbf2(float value) {
  return asFloat16(truncateF32ToBF16Bits(value));
}
static _Float16 truncdfbf2(double value) {
  return asFloat16(truncateF64ToBF16Bits(value));
}
#endif

llvm::orc::SymbolMap mlir::quant_block::runner::getRuntimeBuiltinSymbols(
    llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
#if defined(__x86_64__) || defined(__aarch64__)
  auto define = [](auto *function) {
    return llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(function),
        llvm::JITSymbolFlags::Exported);
  };
  symbols[interner("__truncsfbf2")] = define(&truncsfbf2);
  symbols[interner("__truncdfbf2")] = define(&truncdfbf2);
#endif
  return symbols;
}
