//===- VectorizationLimits.cpp - what keeps a linalg op scalar ------------===//
//
// Implements the rules of VectorizationLimits.h. Each rule records a wrong
// result or a refusal found before; the reasons name the rule in words a
// user of --quant-block-cpu-pipeline="report-unvectorized" can act on.
//
//===----------------------------------------------------------------------===//

#include "VectorizationLimits.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::quant_block;
using namespace mlir::quant_block::detail;

static bool isSubByte(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 != 0;
}

std::optional<Type>
mlir::quant_block::detail::getSubByteMemoryType(linalg::LinalgOp op) {
  for (Type type : op->getOperandTypes())
    if (isSubByte(type))
      return getElementTypeOrSelf(type);
  // The gather form reads some tensors with tensor.extract in the body.
  std::optional<Type> found;
  op->walk([&](tensor::ExtractOp extract) {
    if (!isSubByte(extract.getTensor().getType()))
      return WalkResult::advance();
    found = extract.getType();
    return WalkResult::interrupt();
  });
  return found;
}

std::optional<AffineMap>
mlir::quant_block::detail::getNonProjectedPermutationMap(linalg::LinalgOp op) {
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return map;
  return std::nullopt;
}

/// Whether `tensor` is a slice of another tensor, through the reshapes and
/// casts that bufferize to views of their source.
static bool isSliceView(Value tensor) {
  while (Operation *producer = tensor.getDefiningOp()) {
    if (isa<tensor::ExtractSliceOp>(producer))
      return true;
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp>(
            producer))
      return false;
    tensor = producer->getOperand(0);
  }
  return false;
}

bool mlir::quant_block::detail::readsSlicedTensor(Operation *op) {
  WalkResult result = op->walk([](tensor::ExtractOp extract) {
    return isSliceView(extract.getTensor()) ? WalkResult::interrupt()
                                            : WalkResult::advance();
  });
  return result.wasInterrupted();
}

bool mlir::quant_block::detail::isCPUVectorizationCandidate(
    linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && !getSubByteMemoryType(op) &&
         !getNonProjectedPermutationMap(op);
}

/// The first operation of the body that the upstream vectorizer cannot turn
/// into vector code one for one (it vectorizes elementwise-mappable ops,
/// constants, linalg.index and tensor.extract), if any.
static Operation *getUnvectorizableBodyOp(linalg::LinalgOp op) {
  for (Operation &inner : op->getRegion(0).front()) {
    if (isa<linalg::YieldOp, linalg::IndexOp, tensor::ExtractOp>(inner) ||
        inner.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (inner.getNumRegions() != 0 ||
        !OpTrait::hasElementwiseMappableTraits(&inner))
      return &inner;
  }
  return nullptr;
}

/// The first type used in the body (other than by tensor.extract, which
/// reads a tensor) that cannot be a vector element, with the op using it.
static std::optional<std::pair<Operation *, Type>>
getNonVectorElementType(linalg::LinalgOp op) {
  for (Operation &inner : op->getRegion(0).front()) {
    if (isa<tensor::ExtractOp>(inner))
      continue;
    for (Type type : inner.getOperandTypes())
      if (!VectorType::isValidElementType(type))
        return std::make_pair(&inner, type);
    for (Type type : inner.getResultTypes())
      if (!VectorType::isValidElementType(type))
        return std::make_pair(&inner, type);
  }
  return std::nullopt;
}

std::string
mlir::quant_block::detail::getUnvectorizedReason(linalg::LinalgOp op) {
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (!op.hasPureTensorSemantics()) {
    os << "it works on buffers (only linalg ops on tensors are vectorized)";
  } else if (std::optional<Type> subByte = getSubByteMemoryType(op)) {
    os << "it reads or writes " << *subByte
       << " elements in memory, which vector transfers would access "
          "bit-packed where the scalar code stores one per byte";
  } else if (std::optional<AffineMap> map = getNonProjectedPermutationMap(op)) {
    os << "its indexing map " << *map
       << " is not a projected permutation (such ops are neither tiled nor "
          "vectorized)";
  } else if (readsSlicedTensor(op)) {
    os << "its body reads a slice of a tensor with tensor.extract (the "
          "vector gather would index the slice's strided view as if it were "
          "contiguous)";
  } else if (op.hasDynamicShape()) {
    os << "dynamic shape: loop ranges [";
    llvm::interleaveComma(op.getStaticLoopRanges(), os, [&](int64_t size) {
      if (ShapedType::isDynamic(size))
        os << '?';
      else
        os << size;
    });
    os << "] (the vectorizer makes static tiles and uses no masks)";
  } else if (llvm::is_contained(op.getStaticLoopRanges(), 0)) {
    os << "it has an empty loop";
  } else if (std::optional<std::pair<Operation *, Type>> bad =
                 getNonVectorElementType(op)) {
    os << "its body's '" << bad->first->getName() << "' uses " << bad->second
       << ", which cannot be a vector element";
  } else if (Operation *inner = getUnvectorizableBodyOp(op)) {
    os << "its body's '" << inner->getName()
       << "' has no vector form (not elementwise-mappable)";
  } else if (failed(linalg::vectorizeOpPrecondition(
                 op, {}, {}, /*vectorizeNDExtract=*/true))) {
    if (isa<linalg::ConvolutionOpInterface>(op.getOperation()))
      os << "the upstream vectorizer does not vectorize this convolution";
    else if (op.getNumReductionLoops() != 0)
      os << "the upstream vectorizer recognizes no combiner in its reduction "
            "(one add, mul, min, max, and, or or xor of the accumulator)";
    else
      os << "unsupported op kind: the upstream linalg vectorizer refuses it";
  } else {
    os << "the vectorizer's preconditions hold but it was not vectorized "
          "(tiling or vectorization failed, or --quant-block-cpu-vectorize did "
          "not run)";
  }
  return reason;
}
