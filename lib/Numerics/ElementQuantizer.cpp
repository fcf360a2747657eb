//===- ElementQuantizer.cpp - One element of a scheme, both ways ----------===//
//
// The per-element quantize and dequantize of docs/Numerics.md on top of the
// integer and narrow-float codecs. The order of the f32 operations is part
// of the contract (the compiled code does them in this order): the
// effective scale is built by f32 multiplies, float storage divides in f32
// and rounds once into the format, integer storage goes through
// quantizeInteger.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/ElementQuantizer.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace quant_block::numerics {

ElementQuantizer::ElementQuantizer(const ElementScheme &scheme)
    : scheme(scheme), range(scheme.range) {
  if (scheme.floatStorage)
    return;
  assert(scheme.storageBitWidth >= 2 && scheme.storageBitWidth <= 32 &&
         "integer storage must have 2 to 32 bits");
  if (scheme.mxScale) {
    // MX integers clamp symmetrically: the most negative code is never
    // produced (OCP MX).
    range.min = std::max(range.min, -range.max);
    mxFraction = std::ldexp(1.0f, 2 - int(scheme.storageBitWidth));
  }
}

float ElementQuantizer::getEffectiveScale(float scale,
                                          std::optional<float> outer) const {
  if (outer)
    scale = scale * *outer;
  if (scheme.mxScale && !scheme.floatStorage)
    scale = scale * mxFraction;
  return scale;
}

namespace {

int64_t quantizeIntegerElement(const ElementScheme &scheme, IntegerRange range,
                               float x, float scale, int64_t zeroPoint,
                               float min) {
  unsigned width = scheme.storageBitWidth;
  switch (scheme.zeroPoint) {
  case ZeroPointKind::None:
    return quantizeInteger(x, scale, 0, range, scheme.rounding, width);
  case ZeroPointKind::Int:
    return quantizeInteger(x, scale, zeroPoint, range, scheme.rounding, width);
  case ZeroPointKind::Float:
    return quantizeIntegerWithFloatZeroPoint(x, scale, min, range,
                                             scheme.rounding, width);
  }
  assert(false && "unknown ZeroPointKind");
  return 0;
}

float dequantizeIntegerElement(const ElementScheme &scheme, int64_t q,
                               float scale, int64_t zeroPoint, float min) {
  switch (scheme.zeroPoint) {
  case ZeroPointKind::None:
    return dequantizeIntegerWithIntZeroPoint(q, scale, 0);
  case ZeroPointKind::Int:
    return dequantizeIntegerWithIntZeroPoint(q, scale, zeroPoint);
  case ZeroPointKind::Float:
    return dequantizeIntegerWithFloatZeroPoint(q, scale, min);
  }
  assert(false && "unknown ZeroPointKind");
  return 0.0f;
}

} // namespace

uint32_t ElementQuantizer::quantize(float x, float scale, int64_t zeroPoint,
                                    float min) const {
  if (scheme.floatStorage)
    return encodeFloat(*scheme.floatStorage, x / scale, scheme.rounding,
                       scheme.saturate);
  int64_t value =
      quantizeIntegerElement(scheme, range, x, scale, zeroPoint, min);
  return encodeIntegerCode(value, scheme.storageBitWidth);
}

float ElementQuantizer::dequantize(uint32_t code, float scale,
                                   int64_t zeroPoint, float min) const {
  float value;
  if (scheme.floatStorage) {
    value = static_cast<float>(decodeFloat(*scheme.floatStorage, code)) * scale;
  } else {
    int64_t q =
        decodeIntegerCode(code, scheme.storageBitWidth, scheme.storageSigned);
    value = dequantizeIntegerElement(scheme, q, scale, zeroPoint, min);
  }
  return roundToIEEEFloat(scheme.expressed, value);
}

} // namespace quant_block::numerics
