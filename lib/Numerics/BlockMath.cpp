//===- BlockMath.cpp - block shape and index arithmetic -------------------===//
//
// Implements the block shape resolution, contraction and the blockwise
// reshape rule. The reshape rule works on a canonical factor sequence: every
// dimension d with block b contributes an "outer" factor d/b (which block) and
// an "inner" factor b (where inside the block); unit factors are dropped and
// neighbouring factors of the same kind are multiplied together. Two views of
// the same elements have the same blocks, in the same order, exactly when the
// sequences are equal, because a linear index's mixed-radix digits then split
// into the same "which block" and "where inside" parts.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/BlockMath.h"

#include <cassert>

using namespace quant_block::numerics;
using llvm::ArrayRef;
using llvm::SmallVector;

SmallVector<int64_t>
quant_block::numerics::resolveBlockShape(ArrayRef<int64_t> block,
                                         ArrayRef<int64_t> shape) {
  assert(block.size() <= shape.size() && "block rank exceeds tensor rank");
  SmallVector<int64_t> resolved(shape.size(), 1);
  if (block.empty()) {
    // Per-tensor: every dimension is covered whole.
    for (size_t i = 0; i < shape.size(); ++i)
      resolved[i] = shape[i];
    return resolved;
  }
  size_t lead = shape.size() - block.size();
  for (size_t i = 0; i < block.size(); ++i)
    resolved[lead + i] =
        block[i] == kWholeDimension ? shape[lead + i] : block[i];
  return resolved;
}

SmallVector<int64_t>
quant_block::numerics::contractShape(ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> effectiveBlock) {
  assert(shape.size() == effectiveBlock.size() && "rank mismatch");
  SmallVector<int64_t> result;
  result.reserve(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t dim = shape[i], block = effectiveBlock[i];
    if (block == kDynamic || (dim != kDynamic && block == dim && dim > 0))
      result.push_back(1); // The block covers the whole dimension.
    else if (dim == kDynamic)
      result.push_back(kDynamic);
    else if (block <= 0)
      result.push_back(0); // An empty dimension has no blocks.
    else
      result.push_back(ceilDiv(dim, block));
  }
  return result;
}

bool quant_block::numerics::isSameBlockPartition(int64_t a, int64_t b,
                                                 int64_t dimSize) {
  if (a == b)
    return true;
  if (dimSize == kDynamic || a == kDynamic || b == kDynamic)
    return false;
  return a >= dimSize && b >= dimSize;
}

namespace {
enum class FactorKind { Outer, Inner };
struct Factor {
  FactorKind kind;
  int64_t size;
  bool operator==(const Factor &other) const {
    return kind == other.kind && size == other.size;
  }
};

void appendFactor(SmallVector<Factor> &factors, FactorKind kind, int64_t size) {
  if (size == 1)
    return;
  if (!factors.empty() && factors.back().kind == kind)
    factors.back().size *= size;
  else
    factors.push_back({kind, size});
}

/// Builds the canonical factor sequence of dimensions [begin, end), or returns
/// an explanation if a block is ragged where dimensions are regrouped.
std::optional<std::string> buildFactors(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> block, size_t begin,
                                        size_t end,
                                        SmallVector<Factor> &factors) {
  for (size_t i = begin; i < end; ++i) {
    int64_t b = std::min(block[i], shape[i]);
    if (b <= 0)
      b = 1;
    if (shape[i] % b != 0)
      return "dimension " + std::to_string(i) + " (size " +
             std::to_string(shape[i]) + ") has a ragged last block (block " +
             std::to_string(block[i]) + ") and takes part in the reshape";
    appendFactor(factors, FactorKind::Outer, shape[i] / b);
    appendFactor(factors, FactorKind::Inner, b);
  }
  return std::nullopt;
}
} // namespace

std::optional<std::string> quant_block::numerics::checkBlockwiseReshape(
    ArrayRef<int64_t> srcShape, ArrayRef<int64_t> srcBlock,
    ArrayRef<int64_t> dstShape, ArrayRef<int64_t> dstBlock) {
  // Split both shapes into the smallest groups of consecutive dimensions with
  // equal element counts; each group is checked on its own.
  size_t i = 0, j = 0;
  while (i < srcShape.size() || j < dstShape.size()) {
    size_t si = i, sj = j;
    int64_t ps = 1, pd = 1;
    if (i < srcShape.size())
      ps = srcShape[i++];
    if (j < dstShape.size())
      pd = dstShape[j++];
    while (ps != pd) {
      if (ps < pd && i < srcShape.size())
        ps *= srcShape[i++];
      else if (pd < ps && j < dstShape.size())
        pd *= dstShape[j++];
      else
        return std::string("the element counts do not match");
    }
    // Unit dimensions after a group belong to it (they add no factor).
    if (i == srcShape.size() || j == dstShape.size()) {
      while (i < srcShape.size() && srcShape[i] == 1)
        ++i;
      while (j < dstShape.size() && dstShape[j] == 1)
        ++j;
    }
    bool identity = (i - si == 1) && (j - sj == 1);
    if (identity) {
      // A dimension kept as is may keep a ragged last block.
      if (!isSameBlockPartition(srcBlock[si], dstBlock[sj], srcShape[si]))
        return "dimension " + std::to_string(si) + " keeps its size " +
               std::to_string(srcShape[si]) + " but its block changes from " +
               std::to_string(srcBlock[si]) + " to " +
               std::to_string(dstBlock[sj]);
      continue;
    }
    SmallVector<Factor> srcFactors, dstFactors;
    if (auto error = buildFactors(srcShape, srcBlock, si, i, srcFactors))
      return "input " + *error;
    if (auto error = buildFactors(dstShape, dstBlock, sj, j, dstFactors))
      return "result " + *error;
    if (srcFactors != dstFactors)
      return "input dimensions [" + std::to_string(si) + ", " +
             std::to_string(i) + ") and result dimensions [" +
             std::to_string(sj) + ", " + std::to_string(j) +
             ") do not hold the same blocks";
  }
  return std::nullopt;
}

int64_t
quant_block::numerics::linearBlockIndex(ArrayRef<int64_t> index,
                                        ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> effectiveBlock) {
  SmallVector<int64_t> contracted = contractShape(shape, effectiveBlock);
  int64_t linear = 0;
  for (size_t i = 0; i < index.size(); ++i)
    linear = linear * contracted[i] + index[i] / effectiveBlock[i];
  return linear;
}
