//===- GroupPacking.cpp - packing whole groups of sub-byte codes ----------===//
//
// Implements GroupPacking.h. Packing iterates over (..., byte, lane) and
// reduces over the lanes: each lane contributes the bits of its code that
// fall into the byte (none for most pairs once a group spans several
// bytes, which costs a few shifts but keeps every map a projected
// permutation). Unpacking reads every byte of a group as its own plane and
// assembles them into one integer, from which each lane shifts its bits
// out; a code that straddles two bytes needs no special case.
//
//===----------------------------------------------------------------------===//

#include "GroupPacking.h"
#include "BlockIterationSpace.h"
#include "quant-block/Dialect/QuantBlock/Utils/ScalarCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

/// The map of the first `count` of `numDims` dimensions, then `extra`.
static AffineMap getPrefixMap(unsigned numDims, unsigned count,
                              std::optional<unsigned> extra, MLIRContext *ctx) {
  SmallVector<AffineExpr> results;
  for (unsigned d = 0; d < count; ++d)
    results.push_back(getAffineDimExpr(d, ctx));
  if (extra)
    results.push_back(getAffineDimExpr(*extra, ctx));
  return AffineMap::get(numDims, 0, results, ctx);
}

Value mlir::quant_block::detail::packGroups(OpBuilder &b, Location loc,
                                            Value codes, PackingGroup group,
                                            unsigned width) {
  MLIRContext *ctx = b.getContext();
  auto codesType = cast<RankedTensorType>(codes.getType());
  // The leading (group) dimensions, then the byte for multi-byte groups.
  unsigned outer = codesType.getRank() - 1;
  bool multiByte = !group.isBytewise();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, codes);
  sizes.pop_back();
  if (multiByte)
    sizes.push_back(b.getIndexAttr(group.bytes));
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getI8Type());
  Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  init = linalg::FillOp::create(b, loc, zero, init).getResult(0);

  // Iteration space (groups..., [byte,] lane).
  unsigned numDims = outer + (multiByte ? 2 : 1);
  unsigned laneDim = numDims - 1;
  std::optional<unsigned> byteDim;
  if (multiByte)
    byteDim = outer;
  SmallVector<AffineMap> maps = {getPrefixMap(numDims, outer, laneDim, ctx),
                                 getPrefixMap(numDims, outer, byteDim, ctx)};
  SmallVector<utils::IteratorType> iterators(numDims,
                                             utils::IteratorType::parallel);
  iterators[laneDim] = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{codes}, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value lane = linalg::IndexOp::create(b, loc, laneDim);
               Value bits;
               if (byteDim) {
                 Value byteIndex = linalg::IndexOp::create(b, loc, *byteDim);
                 bits = placeInGroupByte(b, loc, args[0], lane, byteIndex,
                                         width, group.bytes);
               } else {
                 bits = placeInLane(b, loc, args[0], lane, width);
               }
               linalg::YieldOp::create(
                   b, loc,
                   ValueRange{arith::OrIOp::create(b, loc, args[1], bits)
                                  .getResult()});
             })
      .getResult(0);
}

Value mlir::quant_block::detail::unpackGroups(OpBuilder &b, Location loc,
                                              Value bytes, PackingGroup group,
                                              unsigned width, bool isSigned,
                                              Type codeType) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> planes = {bytes};
  if (!group.isBytewise())
    planes = splitBytePlanes(b, loc, bytes);
  Value plane = planes.front();
  unsigned outer = cast<RankedTensorType>(plane.getType()).getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, plane);
  sizes.push_back(b.getIndexAttr(group.elements));
  Value init = tensor::EmptyOp::create(b, loc, sizes, codeType);

  // Iteration space (groups..., lane); every plane is read per group.
  unsigned numDims = outer + 1;
  SmallVector<AffineMap> maps(planes.size(),
                              getPrefixMap(numDims, outer, std::nullopt, ctx));
  maps.push_back(AffineMap::getMultiDimIdentityMap(numDims, ctx));
  SmallVector<utils::IteratorType> iterators(numDims,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), planes, ValueRange{init}, maps, iterators,
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value lane = linalg::IndexOp::create(b, loc, outer);
               Value word = assembleGroupWord(b, loc, args.drop_back());
               Value code =
                   extractPackedLane(b, loc, word, lane, width, isSigned);
               if (code.getType() != codeType)
                 code = arith::TruncIOp::create(b, loc, codeType, code);
               linalg::YieldOp::create(b, loc, code);
             })
      .getResult(0);
}
