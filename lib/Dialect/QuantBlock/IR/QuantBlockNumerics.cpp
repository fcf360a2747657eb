//===- QuantBlockNumerics.cpp - IR to numerics-library mappings -----------===//
//
// Type switches and exhaustive enum switches from the dialect to the numerics
// library. A new float type or enumerator that is not mapped here fails to
// compile (-Wswitch) or falls out as std::nullopt, instead of silently
// taking another one's meaning.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlockNumerics.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::quant_block;
namespace numerics = ::quant_block::numerics;

std::optional<numerics::FloatFormatKind>
mlir::quant_block::getFloatFormatKind(Type type) {
  using K = numerics::FloatFormatKind;
  return llvm::TypeSwitch<Type, std::optional<K>>(type)
      .Case<Float8E4M3FNType>([](auto) { return K::F8E4M3FN; })
      .Case<Float8E5M2Type>([](auto) { return K::F8E5M2; })
      .Case<Float6E2M3FNType>([](auto) { return K::F6E2M3FN; })
      .Case<Float6E3M2FNType>([](auto) { return K::F6E3M2FN; })
      .Case<Float4E2M1FNType>([](auto) { return K::F4E2M1FN; })
      .Case<Float8E8M0FNUType>([](auto) { return K::F8E8M0FNU; })
      .Default([](Type) { return std::nullopt; });
}

std::optional<numerics::IEEEFloatKind>
mlir::quant_block::getIEEEFloatKind(Type type) {
  using K = numerics::IEEEFloatKind;
  return llvm::TypeSwitch<Type, std::optional<K>>(type)
      .Case<Float32Type>([](auto) { return K::F32; })
      .Case<Float16Type>([](auto) { return K::F16; })
      .Case<BFloat16Type>([](auto) { return K::BF16; })
      .Default([](Type) { return std::nullopt; });
}

numerics::RoundingMode mlir::quant_block::toNumerics(RoundingMode mode) {
  switch (mode) {
  case RoundingMode::HalfToEven:
    return numerics::RoundingMode::HalfToEven;
  case RoundingMode::HalfAwayFromZero:
    return numerics::RoundingMode::HalfAwayFromZero;
  case RoundingMode::TowardZero:
    return numerics::RoundingMode::TowardZero;
  }
  llvm_unreachable("unknown RoundingMode");
}

numerics::ScaleRoundingMode
mlir::quant_block::toNumerics(ScaleRoundingMode mode) {
  switch (mode) {
  case ScaleRoundingMode::Floor:
    return numerics::ScaleRoundingMode::Floor;
  case ScaleRoundingMode::Ceil:
    return numerics::ScaleRoundingMode::Ceil;
  case ScaleRoundingMode::HalfToEven:
    return numerics::ScaleRoundingMode::HalfToEven;
  }
  llvm_unreachable("unknown ScaleRoundingMode");
}

numerics::ZeroPointKind mlir::quant_block::toNumerics(ZeroPointDomain domain) {
  switch (domain) {
  case ZeroPointDomain::None:
    return numerics::ZeroPointKind::None;
  case ZeroPointDomain::Int:
    return numerics::ZeroPointKind::Int;
  case ZeroPointDomain::Float:
    return numerics::ZeroPointKind::Float;
  }
  llvm_unreachable("unknown ZeroPointDomain");
}

numerics::ElementScheme mlir::quant_block::getElementScheme(SchemeAttr scheme) {
  numerics::ElementScheme result;
  if (scheme.hasFloatStorage()) {
    result.floatStorage = getFloatFormatKind(scheme.getStorageType());
    assert(result.floatStorage && "float storage is not an OCP format");
  }
  result.storageBitWidth = scheme.getStorageBitWidth();
  result.storageSigned = scheme.isSignedStorage();
  result.range = {scheme.getQmin(), scheme.getQmax()};
  result.zeroPoint = toNumerics(scheme.getZeroPointDomain());
  result.rounding = toNumerics(scheme.getRounding());
  result.saturate = scheme.getSaturate();
  result.mxScale = scheme.hasMXScale();
  std::optional<numerics::IEEEFloatKind> expressed =
      getIEEEFloatKind(scheme.getExpressedType());
  assert(expressed && "the expressed type is not f32, f16 or bf16");
  result.expressed = *expressed;
  return result;
}

float mlir::quant_block::decodeToF32(Type type, uint64_t bits) {
  if (std::optional<numerics::IEEEFloatKind> kind = getIEEEFloatKind(type))
    return numerics::decodeIEEEFloat(*kind, uint32_t(bits));
  std::optional<numerics::FloatFormatKind> kind = getFloatFormatKind(type);
  assert(kind && "not a float type with an f32 value");
  return float(numerics::decodeFloat(*kind, uint32_t(bits)));
}

uint64_t mlir::quant_block::encodeFromF32(Type type, float value) {
  std::optional<numerics::IEEEFloatKind> kind = getIEEEFloatKind(type);
  assert(kind && "not f32, f16 or bf16");
  return numerics::encodeIEEEFloat(*kind, value);
}
