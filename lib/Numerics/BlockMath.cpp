//===- BlockMath.cpp - block shape and index arithmetic -------------------===//
//
// Implements the block shape resolution, contraction and the blockwise
// reshape and slice rules, each once: the verifiers check with them and the
// propagation pass infers with them. The reshape rule works on a canonical
// factor sequence: every dimension d with block b contributes an "outer" factor
// d/b (which block) and an "inner" factor b (where inside the block); unit
// factors are dropped and neighbouring factors of the same kind are multiplied
// together. Two views of the same elements have the same blocks, in the same
// order, exactly when the sequences are equal, because a linear index's
// mixed-radix digits then split into the same "which block" and "where inside"
// parts. Inferring a result's blocks peels the source sequence from the
// innermost end instead.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Numerics/BlockMath.h"

#include <algorithm>
#include <cassert>

using namespace quant_block::numerics;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;

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

/// One group of a reshape: source dimensions [srcBegin, srcEnd) hold the
/// same elements as result dimensions [dstBegin, dstEnd).
struct ReshapeGroup {
  size_t srcBegin, srcEnd, dstBegin, dstEnd;
  /// One dimension kept as is.
  bool isIdentity() const {
    return srcEnd - srcBegin == 1 && dstEnd - dstBegin == 1;
  }
};

/// Splits both shapes into the smallest groups of consecutive dimensions
/// with equal element counts (each group is handled on its own) and calls
/// `fn(group)` for each, stopping at the first explanation it returns.
template <typename Fn>
std::optional<std::string> forEachReshapeGroup(ArrayRef<int64_t> srcShape,
                                               ArrayRef<int64_t> dstShape,
                                               Fn fn) {
  size_t i = 0, j = 0, n = srcShape.size(), m = dstShape.size();
  while (i < n || j < m) {
    size_t si = i, sj = j;
    int64_t ps = i < n ? srcShape[i++] : 1;
    int64_t pd = j < m ? dstShape[j++] : 1;
    while (ps != pd) {
      if (ps < pd && i < n)
        ps *= srcShape[i++];
      else if (pd < ps && j < m)
        pd *= dstShape[j++];
      else
        return std::string("the element counts do not match");
    }
    // Unit dimensions after a group belong to it (they add no factor).
    if (i == n || j == m) {
      while (i < n && srcShape[i] == 1)
        ++i;
      while (j < m && dstShape[j] == 1)
        ++j;
    }
    if (std::optional<std::string> error = fn(ReshapeGroup{si, i, sj, j}))
      return error;
  }
  return std::nullopt;
}
} // namespace

std::optional<std::string> quant_block::numerics::checkBlockwiseReshape(
    ArrayRef<int64_t> srcShape, ArrayRef<int64_t> srcBlock,
    ArrayRef<int64_t> dstShape, ArrayRef<int64_t> dstBlock) {
  return forEachReshapeGroup(
      srcShape, dstShape,
      [&](const ReshapeGroup &g) -> std::optional<std::string> {
        size_t si = g.srcBegin, sj = g.dstBegin;
        if (g.isIdentity()) {
          // A dimension kept as is may keep a ragged last block.
          if (!isSameBlockPartition(srcBlock[si], dstBlock[sj], srcShape[si]))
            return "dimension " + std::to_string(si) + " keeps its size " +
                   std::to_string(srcShape[si]) +
                   " but its block changes from " +
                   std::to_string(srcBlock[si]) + " to " +
                   std::to_string(dstBlock[sj]);
          return std::nullopt;
        }
        SmallVector<Factor> srcFactors, dstFactors;
        if (auto error =
                buildFactors(srcShape, srcBlock, si, g.srcEnd, srcFactors))
          return "input " + *error;
        if (auto error =
                buildFactors(dstShape, dstBlock, sj, g.dstEnd, dstFactors))
          return "result " + *error;
        if (srcFactors != dstFactors)
          return "input dimensions [" + std::to_string(si) + ", " +
                 std::to_string(g.srcEnd) + ") and result dimensions [" +
                 std::to_string(sj) + ", " + std::to_string(g.dstEnd) +
                 ") do not hold the same blocks";
        return std::nullopt;
      });
}

std::optional<std::string> quant_block::numerics::inferReshapedBlock(
    ArrayRef<int64_t> srcShape, ArrayRef<int64_t> srcBlock,
    ArrayRef<int64_t> dstShape, SmallVectorImpl<int64_t> &dstBlock) {
  dstBlock.assign(dstShape.size(), 1);
  return forEachReshapeGroup(
      srcShape, dstShape,
      [&](const ReshapeGroup &g) -> std::optional<std::string> {
        if (g.isIdentity()) {
          // A dimension kept as is keeps its block, ragged or not.
          dstBlock[g.dstBegin] = srcBlock[g.srcBegin];
          return std::nullopt;
        }
        SmallVector<Factor> factors;
        if (auto error =
                buildFactors(srcShape, srcBlock, g.srcBegin, g.srcEnd, factors))
          return "input " + *error;
        // The result dimensions take the factors from the innermost end,
        // each one inner part below an outer part.
        for (size_t k = g.dstEnd; k-- > g.dstBegin;) {
          int64_t remaining = dstShape[k], block = 1;
          bool outerTaken = false;
          while (remaining > 1) {
            if (factors.empty())
              return std::string("the element counts do not match");
            Factor &f = factors.back();
            int64_t take = 0;
            if (f.size <= remaining && remaining % f.size == 0)
              take = f.size;
            else if (f.size > remaining && f.size % remaining == 0)
              take = remaining;
            bool inner = f.kind == FactorKind::Inner;
            if (take == 0 || (inner && outerTaken))
              return "result dimension " + std::to_string(k) + " (size " +
                     std::to_string(dstShape[k]) + ") would cut a block";
            if (inner)
              block *= take;
            else
              outerTaken = true;
            remaining /= take;
            f.size /= take;
            if (f.size == 1)
              factors.pop_back();
          }
          dstBlock[k] = block;
        }
        if (!factors.empty())
          return std::string("the element counts do not match");
        return std::nullopt;
      });
}

std::optional<std::string> quant_block::numerics::inferSlicedBlock(
    ArrayRef<int64_t> shape, ArrayRef<int64_t> block, ArrayRef<int64_t> offsets,
    ArrayRef<int64_t> sizes, SmallVectorImpl<int64_t> &resultBlock) {
  assert(shape.size() == block.size() && shape.size() == offsets.size() &&
         shape.size() == sizes.size() && "rank mismatch");
  resultBlock.clear();
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t dim = shape[d], offset = offsets[d], size = sizes[d];
    std::string where = " along dimension " + std::to_string(d);
    if (offset < 0 || size < 0 || (dim != kDynamic && offset + size > dim))
      return "slice [" + std::to_string(offset) + ", " +
             std::to_string(offset + size) +
             ") is out of bounds of dimension " + std::to_string(d) +
             " (size " + std::to_string(dim) + ")";
    if (block[d] == kDynamic) {
      if (offset != 0)
        return "offset " + std::to_string(offset) + where +
               " cuts the whole-dimension block of a dynamic dimension";
      resultBlock.push_back(size);
      continue;
    }
    if (block[d] > 0 && offset % block[d] != 0)
      return "offset " + std::to_string(offset) + where +
             " is not a multiple of the block size " +
             std::to_string(block[d]) +
             " (a slice must start at a block boundary)";
    resultBlock.push_back(block[d]);
  }
  return std::nullopt;
}

std::optional<std::string> quant_block::numerics::checkBlockwiseSlice(
    ArrayRef<int64_t> shape, ArrayRef<int64_t> block, ArrayRef<int64_t> offsets,
    ArrayRef<int64_t> sizes, ArrayRef<int64_t> resultShape,
    ArrayRef<int64_t> resultBlock) {
  SmallVector<int64_t> expected;
  if (std::optional<std::string> error =
          inferSlicedBlock(shape, block, offsets, sizes, expected))
    return error;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (resultShape[d] != sizes[d])
      return "result dimension " + std::to_string(d) + " (size " +
             std::to_string(resultShape[d]) + ") must be the slice size " +
             std::to_string(sizes[d]);
    if (!isSameBlockPartition(resultBlock[d], expected[d], sizes[d]))
      return "result block " + std::to_string(resultBlock[d]) +
             " along dimension " + std::to_string(d) +
             " must be the input block " + std::to_string(block[d]);
  }
  return std::nullopt;
}

std::optional<std::string> quant_block::numerics::getBlockAlignedWindow(
    ArrayRef<int64_t> shape, ArrayRef<int64_t> block, ArrayRef<int64_t> offsets,
    ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides,
    SmallVectorImpl<int64_t> &windowOffsets,
    SmallVectorImpl<int64_t> &windowSizes) {
  windowOffsets.clear();
  windowSizes.clear();
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t dim = shape[d];
    if (dim == kDynamic)
      return "dimension " + std::to_string(d) + " is dynamic";
    if (sizes[d] <= 0 || strides[d] <= 0)
      return std::string("empty or reversed slice");
    // A block past the dimension is one block of the whole dimension.
    int64_t b = std::max<int64_t>(std::min(block[d], dim), 1);
    int64_t last = offsets[d] + (sizes[d] - 1) * strides[d];
    int64_t start = offsets[d] / b * b;
    int64_t end = std::min((last / b + 1) * b, dim);
    windowOffsets.push_back(start);
    windowSizes.push_back(end - start);
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
