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

uint32_t ElementQuantizer::quantize(float x, float scale, int64_t zeroPoint,
                                    float min) const {
  if (scheme.floatStorage)
    return encodeFloat(*scheme.floatStorage, x / scale, scheme.rounding,
                       scheme.saturate);
  unsigned width = scheme.storageBitWidth;
  int64_t value;
  switch (scheme.zeroPoint) {
  case ZeroPointKind::None:
    value = quantizeInteger(x, scale, 0, range, scheme.rounding, width);
    break;
  case ZeroPointKind::Int:
    value = quantizeInteger(x, scale, zeroPoint, range, scheme.rounding, width);
    break;
  case ZeroPointKind::Float:
    value = quantizeIntegerWithFloatZeroPoint(x, scale, min, range,
                                              scheme.rounding, width);
    break;
  }
  return encodeIntegerCode(value, width);
}

float ElementQuantizer::dequantize(uint32_t code, float scale,
                                   int64_t zeroPoint, float min) const {
  float value;
  if (scheme.floatStorage) {
    value = static_cast<float>(decodeFloat(*scheme.floatStorage, code)) * scale;
  } else {
    int64_t q =
        decodeIntegerCode(code, scheme.storageBitWidth, scheme.storageSigned);
    switch (scheme.zeroPoint) {
    case ZeroPointKind::None:
      value = dequantizeIntegerWithIntZeroPoint(q, scale, 0);
      break;
    case ZeroPointKind::Int:
      value = dequantizeIntegerWithIntZeroPoint(q, scale, zeroPoint);
      break;
    case ZeroPointKind::Float:
      value = dequantizeIntegerWithFloatZeroPoint(q, scale, min);
      break;
    }
  }
  return roundToIEEEFloat(scheme.expressed, value);
}

} // namespace quant_block::numerics
