//===- GatherLowering.cpp - general lowering with gathered parameters -----===//
//
// Implements GatherLowering.h.
//
//===----------------------------------------------------------------------===//

#include "GatherLowering.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "quant-block/Conversion/QuantBlockToLinalg/QuantBlockToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// The parameter indices of the element at `indices`: index / block per
/// dimension (0 where the block is the whole dimension).
static SmallVector<Value> getParamIndices(OpBuilder &b, Location loc,
                                          QuantizedTensorType type,
                                          ValueRange indices) {
  SmallVector<int64_t> block = type.getEffectiveBlockShape();
  SmallVector<Value> result;
  for (auto [d, index] : llvm::enumerate(indices)) {
    int64_t size = type.getShape()[d], b_d = block[d];
    if (b_d == 1) {
      result.push_back(index);
    } else if (ShapedType::isDynamic(b_d) || b_d == size) {
      result.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    } else {
      Value blockSize = arith::ConstantIndexOp::create(b, loc, b_d);
      result.push_back(arith::DivUIOp::create(b, loc, index, blockSize));
    }
  }
  return result;
}

static SmallVector<Value> getIterationIndices(OpBuilder &b, Location loc,
                                              int64_t rank) {
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(linalg::IndexOp::create(b, loc, d));
  return indices;
}

static Value extractAt(OpBuilder &b, Location loc, Value tensor,
                       ValueRange indices) {
  if (!tensor)
    return {};
  return tensor::ExtractOp::create(b, loc, tensor, indices);
}

/// The most elements of `width` bits that overlap one byte of the stream
/// (the bit offsets repeat with the packing group, so one group's bytes
/// cover every case): 8 / width for widths that divide 8, else up to 4.
static int64_t getMaxElementsPerByte(unsigned width) {
  int64_t most = 0;
  for (int64_t bit = 0; bit < int64_t(width) * 8; bit += 8)
    most = std::max<int64_t>(most, (bit + 7) / width - bit / width + 1);
  return most;
}

/// Builds one packed byte at byte position `indices` (innermost index in
/// bytes): the codes of the elements overlapping it, each from `codeAt` at
/// the element's indices, OR-ed into their bits. Elements past the innermost
/// size `innermost` (the tail of a row) stay zero.
static Value
emitPackedByte(OpBuilder &b, Location loc, ValueRange indices, Value innermost,
               unsigned width,
               function_ref<Value(ValueRange elementIndices)> codeAt) {
  Value byte = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  Value lastIndex = arith::SubIOp::create(
      b, loc, innermost, arith::ConstantIndexOp::create(b, loc, 1));
  if (8 % width == 0) {
    // Elements never straddle bytes: the byte holds lanes 0..p-1 of
    // elements p * index + lane.
    int64_t perByte = 8 / width;
    Value first =
        arith::MulIOp::create(b, loc, indices.back(),
                              arith::ConstantIndexOp::create(b, loc, perByte));
    for (int64_t lane = 0; lane < perByte; ++lane) {
      Value k = arith::AddIOp::create(
          b, loc, first, arith::ConstantIndexOp::create(b, loc, lane));
      Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             k, innermost);
      SmallVector<Value> elementIndices(indices);
      elementIndices.back() = arith::MinUIOp::create(b, loc, k, lastIndex);
      Value bits =
          placeInLane(b, loc, codeAt(elementIndices),
                      arith::ConstantIndexOp::create(b, loc, lane), width);
      bits = arith::SelectOp::create(b, loc, inBounds, bits, zero);
      byte = arith::OrIOp::create(b, loc, byte, bits);
    }
    return byte;
  }
  // Elements straddle bytes: byte m holds bits [8m, 8m + 8) of the row,
  // which overlap the elements from 8m / w on. Element j contributes
  // (code << (j * w - 8m)) to the byte; the shift may be negative (the
  // element began in the byte before), so it is done as
  // ((code << (j * w - 8m + 8)) >> 8) in i32. An element beyond the byte
  // shifts out of it by itself.
  Type i32 = b.getI32Type();
  auto toI32 = [&](Value index) -> Value {
    return arith::IndexCastUIOp::create(b, loc, i32, index);
  };
  auto constIndex = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value bitOffset =
      arith::MulIOp::create(b, loc, indices.back(), constIndex(8));
  Value first = arith::DivUIOp::create(b, loc, bitOffset, constIndex(width));
  Value mask =
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr((1 << width) - 1));
  Value eight = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(8));
  for (int64_t t = 0, e = getMaxElementsPerByte(width); t < e; ++t) {
    Value j = arith::AddIOp::create(b, loc, first, constIndex(t));
    Value inBounds =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, innermost);
    SmallVector<Value> elementIndices(indices);
    elementIndices.back() = arith::MinUIOp::create(b, loc, j, lastIndex);
    Value code = codeAt(elementIndices);
    if (code.getType() != i32)
      code = code.getType().getIntOrFloatBitWidth() > 32
                 ? Value(arith::TruncIOp::create(b, loc, i32, code))
                 : Value(arith::ExtUIOp::create(b, loc, i32, code));
    code = arith::AndIOp::create(b, loc, code, mask);
    // j * w - 8m + 8 >= 9 - w > 0.
    Value shift = arith::AddIOp::create(
        b, loc,
        arith::SubIOp::create(
            b, loc, toI32(arith::MulIOp::create(b, loc, j, constIndex(width))),
            toI32(bitOffset)),
        eight);
    Value bits = arith::ShRUIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, code, shift), eight);
    bits = arith::TruncIOp::create(b, loc, b.getI8Type(), bits);
    bits = arith::SelectOp::create(b, loc, inBounds, bits, zero);
    byte = arith::OrIOp::create(b, loc, byte, bits);
  }
  return byte;
}

/// The i8 code (sign-extended when `isSigned`) of the element at `indices`
/// (innermost index in elements) of the packed `data`.
static Value extractCode(OpBuilder &b, Location loc, Value data,
                         ValueRange indices, unsigned width, bool isSigned) {
  auto constIndex = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> byteIndices(indices);
  if (8 % width == 0) {
    Value perByte = constIndex(8 / width);
    byteIndices.back() =
        arith::DivUIOp::create(b, loc, indices.back(), perByte);
    Value lane = arith::RemUIOp::create(b, loc, indices.back(), perByte);
    Value byte = tensor::ExtractOp::create(b, loc, data, byteIndices);
    return extractPackedLane(b, loc, byte, lane, width, isSigned);
  }
  // The element's bits start at bit (k * w) % 8 of byte (k * w) / 8 and may
  // continue into the next byte. That byte exists whenever the element
  // straddles; otherwise its index is clamped to the row and its bits are
  // masked off.
  int64_t rowBytes = cast<RankedTensorType>(data.getType()).getShape().back();
  Value bit = arith::MulIOp::create(b, loc, indices.back(), constIndex(width));
  Value lo = arith::DivUIOp::create(b, loc, bit, constIndex(8));
  // One statement per op: the order in which function arguments are
  // evaluated is unspecified, and the IR must not depend on the compiler
  // that built us.
  Value lastByte = constIndex(rowBytes - 1);
  Value next = arith::AddIOp::create(b, loc, lo, constIndex(1));
  Value hi = arith::MinUIOp::create(b, loc, next, lastByte);
  byteIndices.back() = lo;
  Value low = tensor::ExtractOp::create(b, loc, data, byteIndices);
  byteIndices.back() = hi;
  Value high = tensor::ExtractOp::create(b, loc, data, byteIndices);
  Type i16 = b.getI16Type();
  Value eight = arith::ConstantOp::create(b, loc, b.getI16IntegerAttr(8));
  Value highWord = arith::ExtUIOp::create(b, loc, i16, high);
  Value highShifted = arith::ShLIOp::create(b, loc, highWord, eight);
  Value lowWord = arith::ExtUIOp::create(b, loc, i16, low);
  Value word = arith::OrIOp::create(b, loc, lowWord, highShifted);
  Value offset = arith::RemUIOp::create(b, loc, bit, constIndex(8));
  Value shift = arith::IndexCastUIOp::create(b, loc, i16, offset);
  return narrowToCode(b, loc, arith::ShRUIOp::create(b, loc, word, shift),
                      width, isSigned);
}

/// A parallel generic over the natural space of `init` (identity maps) that
/// reads `input` element-wise when it is given (unpacked data or floats);
/// otherwise the body gathers everything it needs itself.
static Value buildIdentityGeneric(
    OpBuilder &b, Location loc, Value init, Value input,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = cast<RankedTensorType>(init.getType()).getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (input) {
    inputs.push_back(input);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  return linalg::GenericOp::create(b, loc, init.getType(), inputs,
                                   ValueRange{init}, maps, iterators, body)
      .getResult(0);
}

Value mlir::quant_block::detail::dequantizeByGather(OpBuilder &b, Location loc,
                                                    QuantizedTensorType type,
                                                    RankedTensorType resultType,
                                                    Value data, Value scales,
                                                    Value zeroPoints,
                                                    Value outerScale) {
  SchemeAttr scheme = type.getScheme();
  int64_t rank = type.getRank();
  bool packed = getPackingGroup(scheme)->isPacked();
  unsigned width = scheme.getStorageBitWidth();

  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ShapedType::isDynamic(resultType.getDimSize(d)))
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(d)));
    else if (d == rank - 1 && packed)
      // The packed innermost dimension does not give the element count; the
      // scales and the expressed type do not either. Callers with dynamic
      // packed dimensions are rejected before lowering.
      return {};
    else
      sizes.push_back(tensor::DimOp::create(b, loc, data, d).getResult());
  }
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, resultType.getElementType());
  bool isSigned = scheme.isSignedStorage();
  // Unpacked data is read through the identity map.
  return buildIdentityGeneric(
      b, loc, init, packed ? Value() : data,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> indices = getIterationIndices(b, loc, rank);
        Value code = packed
                         ? extractCode(b, loc, data, indices, width, isSigned)
                         : args[0];
        SmallVector<Value> paramIndices =
            getParamIndices(b, loc, type, indices);
        Value scale = extractAt(b, loc, scales, paramIndices);
        Value zeroPoint = extractAt(b, loc, zeroPoints, paramIndices);
        linalg::YieldOp::create(
            b, loc,
            emitDequantize(b, loc, scheme, code, scale, zeroPoint, outerScale));
      });
}

Value mlir::quant_block::detail::quantizeByGather(OpBuilder &b, Location loc,
                                                  QuantizedTensorType type,
                                                  Value input, Value scales,
                                                  Value zeroPoints,
                                                  Value outerScale) {
  SchemeAttr scheme = type.getScheme();
  int64_t rank = type.getRank();
  bool packed = getPackingGroup(scheme)->isPacked();
  unsigned width = scheme.getStorageBitWidth();
  RankedTensorType dataType = getLoweredDataType(type);

  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  Value innermost = getValueOrCreateConstantIndexOp(b, loc, sizes.back());
  if (packed) {
    if (ShapedType::isDynamic(type.getShape().back()))
      return {};
    sizes.back() = b.getIndexAttr(dataType.getShape().back());
  }
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, dataType.getElementType());
  Type storage = dataType.getElementType();
  return buildIdentityGeneric(
      b, loc, init, packed ? Value() : input,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> indices = getIterationIndices(b, loc, rank);
        auto quantizeAt = [&](Value x, ValueRange elementIndices) {
          SmallVector<Value> paramIndices =
              getParamIndices(b, loc, type, elementIndices);
          return emitQuantize(
              b, loc, scheme, x, extractAt(b, loc, scales, paramIndices),
              extractAt(b, loc, zeroPoints, paramIndices), outerScale);
        };
        if (!packed) {
          Value code = quantizeAt(args[0], indices);
          linalg::YieldOp::create(
              b, loc, ValueRange{codeToStorage(b, loc, code, storage)});
          return;
        }
        // One packed byte: quantize each element that overlaps it.
        Value byte = emitPackedByte(
            b, loc, indices, innermost, width, [&](ValueRange elementIndices) {
              Value x =
                  tensor::ExtractOp::create(b, loc, input, elementIndices);
              return quantizeAt(x, elementIndices);
            });
        linalg::YieldOp::create(b, loc, byte);
      });
}

Value mlir::quant_block::detail::packCodesByGather(OpBuilder &b, Location loc,
                                                   Value codes,
                                                   RankedTensorType dataType,
                                                   unsigned width) {
  int64_t rank = dataType.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, codes);
  Value innermost = getValueOrCreateConstantIndexOp(b, loc, sizes.back());
  sizes.back() = b.getIndexAttr(dataType.getShape().back());
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getI8Type());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{identity}, iterators,
             [&](OpBuilder &b, Location loc, ValueRange) {
               SmallVector<Value> indices = getIterationIndices(b, loc, rank);
               Value byte =
                   emitPackedByte(b, loc, indices, innermost, width,
                                  [&](ValueRange elementIndices) -> Value {
                                    return tensor::ExtractOp::create(
                                        b, loc, codes, elementIndices);
                                  });
               linalg::YieldOp::create(b, loc, byte);
             })
      .getResult(0);
}

Value mlir::quant_block::detail::unpackCodesByGather(
    OpBuilder &b, Location loc, Value data, RankedTensorType logicalType,
    unsigned width, bool isSigned) {
  int64_t rank = logicalType.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, data);
  sizes.back() = b.getIndexAttr(logicalType.getShape().back());
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, logicalType.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type codeType = logicalType.getElementType();
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{identity}, iterators,
             [&](OpBuilder &b, Location loc, ValueRange) {
               SmallVector<Value> indices = getIterationIndices(b, loc, rank);
               Value code = extractCode(b, loc, data, indices, width, isSigned);
               linalg::YieldOp::create(
                   b, loc,
                   ValueRange{arith::TruncIOp::create(b, loc, codeType, code)
                                  .getResult()});
             })
      .getResult(0);
}
