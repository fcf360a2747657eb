//===- BlockMath.h - block shape and index arithmetic -----------*- C++ -*-===//
//
// Plain C++ (no IR) arithmetic on block shapes, shared by the verifiers, the
// folders, the lowering and the runtime. A block shape is right-aligned to a
// tensor shape: missing leading entries mean 1, kWholeDimension means the
// whole dimension. Dynamic sizes use kDynamic (the same value as
// mlir::ShapedType::kDynamic) so the results can be handed to MLIR as is.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_NUMERICS_BLOCKMATH_H
#define QUANT_BLOCK_NUMERICS_BLOCKMATH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace quant_block::numerics {

/// A block entry covering the whole dimension (`*` in the IR syntax).
constexpr int64_t kWholeDimension = -1;
/// A dynamic size (identical to mlir::ShapedType::kDynamic).
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// Resolves a right-aligned block shape against `shape`: one entry per
/// dimension, leading dimensions padded with 1, whole-dimension entries
/// replaced by the dimension's size (kDynamic if that size is dynamic). An
/// empty `block` means per-tensor: every dimension is whole. Requires
/// block.size() <= shape.size().
llvm::SmallVector<int64_t> resolveBlockShape(llvm::ArrayRef<int64_t> block,
                                             llvm::ArrayRef<int64_t> shape);

/// The contracted (scale) shape of `shape` under the resolved block shape
/// `effectiveBlock`: ceil(dim / block) per dimension; 1 where the block is the
/// whole (possibly dynamic) dimension; kDynamic where the dimension is dynamic
/// and the block is not whole.
llvm::SmallVector<int64_t>
contractShape(llvm::ArrayRef<int64_t> shape,
              llvm::ArrayRef<int64_t> effectiveBlock);

/// ceil(a / b) for a >= 0, b > 0.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// True if block sizes `a` and `b` partition a dimension of size `dimSize`
/// the same way: equal, or both cover the dimension in a single block.
bool isSameBlockPartition(int64_t a, int64_t b, int64_t dimSize);

/// Checks that reshaping a tensor of static shape `srcShape` (resolved blocks
/// `srcBlock`) into `dstShape` (resolved blocks `dstBlock`) maps every block
/// onto exactly one block, in the same row-major order, so that the scales
/// reshape the same way. Returns an explanation when it does not.
std::optional<std::string> checkBlockwiseReshape(
    llvm::ArrayRef<int64_t> srcShape, llvm::ArrayRef<int64_t> srcBlock,
    llvm::ArrayRef<int64_t> dstShape, llvm::ArrayRef<int64_t> dstBlock);

/// The resolved block shape (one entry per result dimension, in `dstBlock`)
/// under which reshaping static `srcShape` with resolved blocks `srcBlock`
/// into `dstShape` keeps every block whole and in order, i.e. the one
/// checkBlockwiseReshape accepts; or an explanation when there is none.
std::optional<std::string> inferReshapedBlock(
    llvm::ArrayRef<int64_t> srcShape, llvm::ArrayRef<int64_t> srcBlock,
    llvm::ArrayRef<int64_t> dstShape, llvm::SmallVectorImpl<int64_t> &dstBlock);

/// The resolved block shape (in `resultBlock`) of the unit-stride slice
/// [offsets, offsets + sizes) of a tensor of `shape` with resolved blocks
/// `block`: the slice must be in bounds and start at a block boundary (a
/// whole-dimension block of a dynamic dimension only at 0); the result keeps
/// the blocks (the slice size under a dynamic whole-dimension block).
/// Returns an explanation when the slice cuts a block.
std::optional<std::string>
inferSlicedBlock(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> block,
                 llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes,
                 llvm::SmallVectorImpl<int64_t> &resultBlock);

/// Checks a slice against inferSlicedBlock: also that the result has the
/// slice's sizes and partitions them as the inferred blocks do.
std::optional<std::string> checkBlockwiseSlice(
    llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> block,
    llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes,
    llvm::ArrayRef<int64_t> resultShape, llvm::ArrayRef<int64_t> resultBlock);

/// The smallest block-aligned unit-stride window of a static `shape` with
/// resolved blocks `block` that holds the strided slice (offsets, sizes,
/// strides): what a blockwise slice can take before a plain slice takes the
/// rest. Fails (with an explanation) on dynamic dimensions and on empty or
/// reversed slices.
std::optional<std::string> getBlockAlignedWindow(
    llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> block,
    llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes,
    llvm::ArrayRef<int64_t> strides,
    llvm::SmallVectorImpl<int64_t> &windowOffsets,
    llvm::SmallVectorImpl<int64_t> &windowSizes);

/// The row-major linear index of the block holding element `index` of a tensor
/// of `shape` with resolved static blocks `effectiveBlock`.
int64_t linearBlockIndex(llvm::ArrayRef<int64_t> index,
                         llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<int64_t> effectiveBlock);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_BLOCKMATH_H
