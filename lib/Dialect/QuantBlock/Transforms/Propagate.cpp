//===- Propagate.cpp - --quant-block-propagate ----------------------------===//
//
// Keeps data quantized through layout changes: a float layout op whose input
// is a dequantize is rewritten into the matching quant_block layout op on the
// quantized value, followed by the dequantize,
//
//   layout(dequantize(q)) -> dequantize(quant_block.<layout>(q)),
//
// for transposes (linalg.transpose, tosa.transpose), reshapes
// (tensor.expand_shape / collapse_shape / reshape, tosa.reshape), slices
// (tensor.extract_slice) and broadcasts (linalg.broadcast). Dequantization
// is element-wise, so the rewrite is exact bit for bit; the quant_block op
// moves the scales and zero points with the data. What is legal is what the
// quant_block op's verifier accepts, and every candidate is verified before
// the IR is touched: a reshape that would cut a block, for instance, is left
// alone rather than miscompiled. A slice that does not start on a block
// boundary (or is strided) is widened to the smallest block-aligned window
// that holds it; the window stays quantized and only the rest of the slice
// is taken on the float side.
//
// The pass also applies Burn's QuantPropagation to quant_block.matmul:
// `propagation=propagate` folds `quantize_dynamic(matmul inhibit)` into a
// matmul that returns the quantized result, `inhibit` splits it back. Both
// forms compute the same values (the propagated result is requantized exactly
// as quantize_dynamic does), so this is a choice of where the requantization
// lives, not of numerics.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h"
#include "quant-block/Support/PatternDriver.h"

#include "quant-block/Numerics/BlockMath.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_QUANTBLOCKPROPAGATE
#include "quant-block/Dialect/QuantBlock/Transforms/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;
namespace numerics = ::quant_block::numerics;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The dequantize that defines `value`, or null.
static DequantizeOp getDequantize(Value value) {
  return value.getDefiningOp<DequantizeOp>();
}

/// The block list of a scheme spelled out with one entry per dimension of a
/// rank-`rank` tensor, keeping whole-dimension (`*`) markers: dimensions the
/// right-aligned list does not name get 1, an empty (per-tensor) list gets
/// `*` everywhere.
static SmallVector<int64_t> getFullBlockList(ArrayRef<int64_t> block,
                                             int64_t rank) {
  if (block.empty())
    return SmallVector<int64_t>(rank, SchemeAttr::kWholeDimension);
  SmallVector<int64_t> full(rank - block.size(), 1);
  full.append(block.begin(), block.end());
  return full;
}

/// Drops leading 1 entries of a block list (they are implied), keeping at
/// least one entry: an empty list would mean per-tensor.
static SmallVector<int64_t> trimBlockList(ArrayRef<int64_t> block) {
  size_t lead = 0;
  while (lead + 1 < block.size() && block[lead] == 1)
    ++lead;
  return SmallVector<int64_t>(block.drop_front(lead));
}

/// The scheme with another block shape and outer scale, or null when that
/// combination is not a valid scheme (e.g. an MX scale over a block that is
/// not 32 elements along one dimension).
static SchemeAttr getSchemeIfValid(SchemeAttr scheme, ArrayRef<int64_t> block,
                                   OuterScaleAttr outer) {
  MLIRContext *ctx = scheme.getContext();
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  return SchemeAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx,
      scheme.getStorageType(), scheme.getExpressedType(), block,
      scheme.getScaleType(), scheme.getZeroPointType(), scheme.getQmin(),
      scheme.getQmax(), scheme.getRounding(), scheme.getSaturate(),
      scheme.getScaleRounding(), outer, scheme.getRowTile());
}

/// Creates `OpTy` with `args` at the rewriter's insertion point if the op
/// verifies, and fails without touching the IR otherwise. The quant_block
/// layout ops' verifiers are the specification of what may move through a
/// layout change, so the candidate is built detached and asked first.
template <typename OpTy, typename... Args>
static FailureOr<OpTy> createIfValid(PatternRewriter &rewriter, Location loc,
                                     const Args &...args) {
  OpBuilder detached(rewriter.getContext());
  OpTy candidate = OpTy::create(detached, loc, args...);
  bool valid;
  {
    ScopedDiagnosticHandler silence(rewriter.getContext(),
                                    [](Diagnostic &) { return success(); });
    valid = succeeded(verify(candidate, /*verifyRecursively=*/false));
  }
  candidate->erase();
  if (!valid)
    return failure();
  return OpTy::create(rewriter, loc, args...);
}

/// Replaces `op` (a float layout op on a dequantized value) by the dequantize
/// of `quantized`, which already holds the layout change.
static void replaceWithDequantize(PatternRewriter &rewriter, Operation *op,
                                  Value quantized) {
  rewriter.replaceOpWithNewOp<DequantizeOp>(op, op->getResult(0).getType(),
                                            quantized);
}

//===----------------------------------------------------------------------===//
// Transpose
//===----------------------------------------------------------------------===//

/// quant_block.transpose of `input` with `perm` (result dimension d is input
/// dimension perm[d]): the block shape, and a blocked outer scale's block
/// shape, are permuted with the data.
static FailureOr<Value> createQuantizedTranspose(PatternRewriter &rewriter,
                                                 Location loc, Value input,
                                                 ArrayRef<int64_t> perm) {
  auto type = cast<QuantizedTensorType>(input.getType());
  SchemeAttr scheme = type.getScheme();
  int64_t rank = type.getRank();
  if (int64_t(perm.size()) != rank)
    return failure();
  SmallVector<int64_t> shape, block;
  SmallVector<int64_t> fullBlock =
      getFullBlockList(scheme.getBlockShape(), rank);
  for (int64_t d : perm) {
    shape.push_back(type.getShape()[d]);
    block.push_back(fullBlock[d]);
  }
  // A per-tensor scheme stays per-tensor.
  if (scheme.getBlockShape().empty())
    block.clear();
  else
    block = trimBlockList(block);
  OuterScaleAttr outer = scheme.getOuter();
  if (outer && !outer.getBlockShape().empty()) {
    SmallVector<int64_t> fullOuter =
        getFullBlockList(outer.getBlockShape(), rank);
    SmallVector<int64_t> outerBlock;
    for (int64_t d : perm)
      outerBlock.push_back(fullOuter[d]);
    outer = OuterScaleAttr::get(outer.getContext(), outer.getScaleType(),
                                outerBlock, outer.getMinType());
  }
  SchemeAttr newScheme = getSchemeIfValid(scheme, block, outer);
  if (!newScheme)
    return failure();
  auto resultType = type.clone(shape, newScheme);
  FailureOr<TransposeOp> transpose =
      createIfValid<TransposeOp>(rewriter, loc, Type(resultType), input, perm);
  if (failed(transpose))
    return failure();
  return transpose->getResult();
}

namespace {

/// The transposed tensor and the permutation of a linalg or TOSA transpose
/// (nothing for a linalg.transpose on buffers).
static std::optional<std::pair<Value, SmallVector<int64_t>>>
getTransposeInput(linalg::TransposeOp op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  return std::make_pair(op.getInput(),
                        SmallVector<int64_t>(op.getPermutation()));
}
static std::optional<std::pair<Value, SmallVector<int64_t>>>
getTransposeInput(tosa::TransposeOp op) {
  return std::make_pair(
      op.getInput1(),
      SmallVector<int64_t>(op.getPerms().begin(), op.getPerms().end()));
}

/// linalg.transpose / tosa.transpose(dequantize(q))
///   -> dequantize(quant_block.transpose(q)).
template <typename TransposeOp>
struct DequantizeBelowTranspose : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern<TransposeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto input = getTransposeInput(op);
    if (!input)
      return rewriter.notifyMatchFailure(op, "not on tensors");
    DequantizeOp dequantize = getDequantize(input->first);
    if (!dequantize)
      return rewriter.notifyMatchFailure(op, "input is not a dequantize");
    FailureOr<Value> transposed = createQuantizedTranspose(
        rewriter, op.getLoc(), dequantize.getInput(), input->second);
    if (failed(transposed))
      return rewriter.notifyMatchFailure(
          op, "quant_block.transpose rejects this permutation");
    replaceWithDequantize(rewriter, op, *transposed);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Reshape
//===----------------------------------------------------------------------===//

/// quant_block.reshape of `input` to the static `shape`.
static FailureOr<Value> createQuantizedReshape(PatternRewriter &rewriter,
                                               Location loc, Value input,
                                               ArrayRef<int64_t> shape,
                                               std::string &whyNot) {
  auto type = cast<QuantizedTensorType>(input.getType());
  if (!type.hasStaticShape() || ShapedType::isDynamicShape(shape)) {
    whyNot = "quant_block.reshape needs static shapes";
    return failure();
  }
  if (llvm::is_contained(type.getShape(), 0) || llvm::is_contained(shape, 0)) {
    whyNot = "empty tensors are not reshaped";
    return failure();
  }
  SchemeAttr scheme = type.getScheme();
  SmallVector<int64_t> block;
  if (std::optional<std::string> error = numerics::inferReshapedBlock(
          type.getShape(), type.getEffectiveBlockShape(), shape, block)) {
    whyNot = *error;
    return failure();
  }
  SmallVector<int64_t> blockList;
  bool perTensor = llvm::equal(block, shape);
  if (!(scheme.getBlockShape().empty() && perTensor))
    blockList = trimBlockList(block);
  SchemeAttr newScheme = getSchemeIfValid(scheme, blockList, scheme.getOuter());
  if (!newScheme) {
    whyNot = "the reshaped block shape is not valid for the scheme";
    return failure();
  }
  FailureOr<ReshapeOp> reshape = createIfValid<ReshapeOp>(
      rewriter, loc, Type(type.clone(shape, newScheme)), input);
  if (failed(reshape)) {
    whyNot = "quant_block.reshape rejects it";
    return failure();
  }
  return reshape->getResult();
}

namespace {

/// reshape(dequantize(q)) -> dequantize(quant_block.reshape(q)) for any
/// reshape-like op with a static result that moves elements in row-major
/// order (tensor.expand_shape, tensor.collapse_shape, tensor.reshape,
/// tosa.reshape).
template <typename OpTy>
struct DequantizeBelowReshape : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    DequantizeOp dequantize = getDequantize(op->getOperand(0));
    if (!dequantize)
      return rewriter.notifyMatchFailure(op, "input is not a dequantize");
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "result shape is not static");
    std::string whyNot;
    FailureOr<Value> reshaped =
        createQuantizedReshape(rewriter, op.getLoc(), dequantize.getInput(),
                               resultType.getShape(), whyNot);
    if (failed(reshaped))
      return rewriter.notifyMatchFailure(op, whyNot);
    replaceWithDequantize(rewriter, op, *reshaped);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

/// tensor.extract_slice(dequantize(q)) -> dequantize(quant_block.extract_slice
/// (q)). quant_block.extract_slice takes whole blocks only (it starts on a
/// block boundary and has unit strides), so the quantized slice is the
/// smallest block-aligned window holding the requested elements; when that
/// window is larger than the request, a float tensor.extract_slice takes the
/// rest. A rank-reducing slice drops its unit dimensions with a
/// tensor.collapse_shape, which the reshape pattern then moves too.
struct DequantizeBelowExtractSlice
    : public OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    DequantizeOp dequantize = getDequantize(op.getSource());
    if (!dequantize)
      return rewriter.notifyMatchFailure(op, "source is not a dequantize");
    Value quantized = dequantize.getInput();
    auto type = cast<QuantizedTensorType>(quantized.getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "the quantized tensor has dynamic dimensions");
    if (ShapedType::isDynamicShape(op.getStaticOffsets()) ||
        ShapedType::isDynamicShape(op.getStaticSizes()) ||
        ShapedType::isDynamicShape(op.getStaticStrides()))
      return rewriter.notifyMatchFailure(op, "dynamic offsets, sizes or "
                                             "strides");
    ArrayRef<int64_t> offsets = op.getStaticOffsets();
    ArrayRef<int64_t> sizes = op.getStaticSizes();
    ArrayRef<int64_t> strides = op.getStaticStrides();
    SmallVector<int64_t> windowOffsets, windowSizes, restOffsets;
    if (std::optional<std::string> error = numerics::getBlockAlignedWindow(
            type.getShape(), type.getEffectiveBlockShape(), offsets, sizes,
            strides, windowOffsets, windowSizes))
      return rewriter.notifyMatchFailure(op, *error);
    bool exact = true, whole = true;
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      int64_t start = windowOffsets[d], end = start + windowSizes[d];
      restOffsets.push_back(offsets[d] - start);
      exact &= start == offsets[d] && end - start == sizes[d] &&
               (strides[d] == 1 || sizes[d] == 1);
      whole &= start == 0 && end == type.getShape()[d];
    }
    if (whole)
      return rewriter.notifyMatchFailure(
          op, "the block-aligned window of the slice is the whole tensor");

    // A rank-reducing slice drops unit dimensions afterwards; find how
    // before touching the IR.
    RankedTensorType resultType = op.getType();
    std::optional<SmallVector<ReassociationIndices>> reassociation;
    if (exact && resultType.getRank() != type.getRank()) {
      reassociation = getReassociationIndicesForReshape(
          RankedTensorType::get(windowSizes, resultType.getElementType()),
          resultType);
      if (!reassociation)
        return rewriter.notifyMatchFailure(
            op, "cannot drop the unit dimensions of a rank-reducing slice");
    }

    Location loc = op.getLoc();
    auto windowType = type.clone(windowSizes, type.getScheme());
    FailureOr<ExtractSliceOp> window = createIfValid<ExtractSliceOp>(
        rewriter, loc, Type(windowType), quantized, ArrayRef(windowOffsets),
        ArrayRef(windowSizes));
    if (failed(window))
      return rewriter.notifyMatchFailure(
          op, "quant_block.extract_slice rejects the block-aligned window");
    Value dequantized = DequantizeOp::create(
        rewriter, loc, windowType.getExpressedTensorType(), *window);
    if (!exact) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, resultType, dequantized, ValueRange(), ValueRange(), ValueRange(),
          rewriter.getDenseI64ArrayAttr(restOffsets),
          rewriter.getDenseI64ArrayAttr(sizes),
          rewriter.getDenseI64ArrayAttr(strides));
      return success();
    }
    if (!reassociation) {
      rewriter.replaceOp(op, dequantized);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, resultType, dequantized, *reassociation);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Broadcast
//===----------------------------------------------------------------------===//

/// linalg.broadcast(dequantize(q)) -> dequantize(quant_block.broadcast(q)).
/// The new dimensions get a whole-dimension block, so the scales stay
/// contracted (one per block, not one per copy); schemes that cannot have
/// one there (MX scales need a single 32-element block dimension) get a
/// block of 1, which replicates the scales with the data.
struct DequantizeBelowBroadcast : public OpRewritePattern<linalg::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not on tensors");
    DequantizeOp dequantize = getDequantize(op.getInput());
    if (!dequantize)
      return rewriter.notifyMatchFailure(op, "input is not a dequantize");
    Value quantized = dequantize.getInput();
    auto type = cast<QuantizedTensorType>(quantized.getType());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> dims = op.getDimensions();
    for (int64_t d : dims)
      if (resultType.isDynamicDim(d))
        return rewriter.notifyMatchFailure(
            op, "a new dimension is dynamic (quant_block.broadcast has no "
                "size operands)");
    SchemeAttr scheme = type.getScheme();
    SmallVector<int64_t> inputBlock =
        getFullBlockList(scheme.getBlockShape(), type.getRank());
    SmallVector<int64_t> shape(resultType.getShape());
    for (int64_t d = 0, in = 0, e = resultType.getRank(); d < e; ++d)
      if (!llvm::is_contained(dims, d))
        shape[d] = type.getShape()[in++];

    for (int64_t newBlock : {SchemeAttr::kWholeDimension, int64_t(1)}) {
      SmallVector<int64_t> block;
      for (int64_t d = 0, in = 0, e = resultType.getRank(); d < e; ++d)
        block.push_back(llvm::is_contained(dims, d) ? newBlock
                                                    : inputBlock[in++]);
      if (scheme.getBlockShape().empty() &&
          newBlock == SchemeAttr::kWholeDimension)
        block.clear();
      else
        block = trimBlockList(block);
      SchemeAttr newScheme = getSchemeIfValid(scheme, block, scheme.getOuter());
      if (!newScheme)
        continue;
      FailureOr<BroadcastOp> broadcast = createIfValid<BroadcastOp>(
          rewriter, op.getLoc(), Type(type.clone(shape, newScheme)), quantized,
          dims);
      if (failed(broadcast))
        continue;
      replaceWithDequantize(rewriter, op, *broadcast);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "quant_block.broadcast rejects it");
  }
};

//===----------------------------------------------------------------------===//
// Matmul propagation
//===----------------------------------------------------------------------===//

/// The calibration a propagated matmul result uses: the one quantize_dynamic
/// must use for the scheme (MX scales: mx; zero points: minmax; else absmax).
static CalibrationMethod getCalibrationFor(SchemeAttr scheme) {
  if (scheme.hasMXScale())
    return CalibrationMethod::MX;
  if (scheme.getZeroPointDomain() != ZeroPointDomain::None)
    return CalibrationMethod::MinMax;
  return CalibrationMethod::AbsMax;
}

/// quantize_dynamic(matmul inhibit) -> matmul propagate, when the float
/// product has no other user.
struct PropagateMatmulResult : public OpRewritePattern<QuantizeDynamicOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeDynamicOp op,
                                PatternRewriter &rewriter) const override {
    auto matmul = op.getInput().getDefiningOp<MatmulOp>();
    if (!matmul || matmul.getPropagation() != Propagation::Inhibit)
      return rewriter.notifyMatchFailure(op, "input is not an inhibit matmul");
    if (!matmul->hasOneUse())
      return rewriter.notifyMatchFailure(op,
                                         "the float product has other users");
    if (op.getMethod() != getCalibrationFor(op.getType().getScheme()))
      return rewriter.notifyMatchFailure(
          op, "a propagated matmul would calibrate its result differently");
    FailureOr<MatmulOp> propagated = createIfValid<MatmulOp>(
        rewriter, matmul.getLoc(), Type(op.getType()), matmul.getLhs(),
        Value(matmul.getRhs()), matmul.getTransposeRhs(),
        matmul.getAccumulatorType(), Propagation::Propagate,
        matmul.getFastmath());
    if (failed(propagated))
      return rewriter.notifyMatchFailure(
          op, "quant_block.matmul cannot return this scheme");
    rewriter.replaceOp(op, propagated->getResult());
    rewriter.eraseOp(matmul);
    return success();
  }
};

/// matmul propagate -> quantize_dynamic(matmul inhibit).
struct InhibitMatmulResult : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getPropagation() != Propagation::Propagate)
      return rewriter.notifyMatchFailure(op, "already returns a float result");
    auto quantizedType = cast<QuantizedTensorType>(op.getType());
    Location loc = op.getLoc();
    Value product = MatmulOp::create(
        rewriter, loc, quantizedType.getExpressedTensorType(), op.getLhs(),
        op.getRhs(), op.getTransposeRhs(), op.getAccumulatorType(),
        Propagation::Inhibit, op.getFastmath());
    rewriter.replaceOpWithNewOp<QuantizeDynamicOp>(
        op, quantizedType, getCalibrationFor(quantizedType.getScheme()),
        product);
    return success();
  }
};

} // namespace

void mlir::quant_block::populateQuantBlockPropagatePatterns(
    RewritePatternSet &patterns, std::optional<Propagation> propagation) {
  if (propagation == Propagation::Propagate)
    patterns.add<PropagateMatmulResult>(patterns.getContext());
  else if (propagation == Propagation::Inhibit)
    patterns.add<InhibitMatmulResult>(patterns.getContext());
  patterns.add<DequantizeBelowTranspose<linalg::TransposeOp>,
               DequantizeBelowTranspose<tosa::TransposeOp>,
               DequantizeBelowReshape<tensor::ExpandShapeOp>,
               DequantizeBelowReshape<tensor::CollapseShapeOp>,
               DequantizeBelowReshape<tensor::ReshapeOp>,
               DequantizeBelowReshape<tosa::ReshapeOp>,
               DequantizeBelowExtractSlice, DequantizeBelowBroadcast>(
      patterns.getContext());
}

namespace {
struct QuantBlockPropagatePass
    : public mlir::quant_block::impl::QuantBlockPropagateBase<
          QuantBlockPropagatePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQuantBlockPropagatePatterns(patterns, propagation);
    // Only these rewrites: no folding, constant hoisting or region
    // simplification of the surrounding IR.
    if (failed(applyOnlyPatterns(getOperation(), std::move(patterns),
                                 "propagation")))
      return signalPassFailure();
  }
};
} // namespace
