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

/// The row-major linear index of the block holding element `index` of a tensor
/// of `shape` with resolved static blocks `effectiveBlock`.
int64_t linearBlockIndex(llvm::ArrayRef<int64_t> index,
                         llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<int64_t> effectiveBlock);

} // namespace quant_block::numerics

#endif // QUANT_BLOCK_NUMERICS_BLOCKMATH_H
