//===- VectorizationLimits.h - what keeps a linalg op scalar ----*- C++ -*-===//
//
// Internal to the CPU code generation: the rules by which
// --quant-block-cpu-vectorize leaves a linalg op scalar, shared with
// --quant-block-cpu-report-unvectorized, which explains each op that stayed
// scalar with the rule that kept it so. Keeping both in one place keeps the
// report honest: a rule the vectorizer applies is a rule the report names.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_CPU_VECTORIZATIONLIMITS_H
#define QUANT_BLOCK_LIB_CODEGEN_CPU_VECTORIZATIONLIMITS_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>
#include <string>

namespace mlir::quant_block::detail {

/// The sub-byte element type (i1, i4, f4E2M1FN, ...) that `op` reads or
/// writes in memory, if any. LLVM stores such scalars one per byte but loads
/// and stores vectors of them bit-packed, so vector transfers would read
/// memory in another layout than the scalar code wrote it: such ops stay
/// scalar. (The quant_block lowering packs sub-byte data into i8 itself.)
std::optional<Type> getSubByteMemoryType(linalg::LinalgOp op);

/// The first indexing map of `op` that is not a projected permutation
/// (constant zeros allowed), if any. The vectorizer refuses such maps anyway,
/// and tiling computes wrong operand slices for them: for `d1 floordiv 3`
/// the tile [2, 4) read one outer parameter where it needs two, and the
/// tiled body divided the tile-local index (a wrong K-quant dequantization,
/// found by test/Differential/differential_outer.py). Such ops stay whole
/// and become loops later.
std::optional<AffineMap> getNonProjectedPermutationMap(linalg::LinalgOp op);

/// Whether the body of `op` reads, with tensor.extract, a tensor that is a
/// (possibly reshaped) slice of another. The vectorizer turns such reads into
/// a vector.gather whose indices are linearized over the slice's own shape,
/// but the slice bufferizes to a strided view of its source, where those
/// offsets land in the wrong rows (a wrong K-quant quantization with ragged
/// blocks, found by test/Differential/differential_outer.py). Such ops stay
/// scalar.
bool readsSlicedTensor(Operation *op);

/// Whether --quant-block-cpu-vectorize considers `op` at all: on tensors,
/// no sub-byte memory, only projected permutations.
bool isCPUVectorizationCandidate(linalg::LinalgOp op);

/// Why a linalg op that is still there after --quant-block-cpu-vectorize was
/// not vectorized: the first rule above that holds, or the upstream linalg
/// vectorizer's precondition that fails (dynamic shape, an element type
/// vectors cannot hold, a reduction without a recognized combiner, an op
/// kind it does not vectorize). When every precondition holds, says so (the
/// tiling or the vectorization itself failed, or the vectorizer did not
/// run).
std::string getUnvectorizedReason(linalg::LinalgOp op);

} // namespace mlir::quant_block::detail

#endif // QUANT_BLOCK_LIB_CODEGEN_CPU_VECTORIZATIONLIMITS_H
