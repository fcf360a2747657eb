//===- BlockExpansion.cpp - which smaller tensor a value repeats ----------===//
//
// Implements matchBlockwiseExpansion. The chain of shape ops that produced a
// value is replayed forward from its source, tracking for every dimension
// the row-major list of *factors* it is made of: a piece of a source
// dimension (a size and the stride it has inside that dimension) or a
// repetition. Reshapes regroup (and, where needed, split) factors, a
// broadcast adds a repetition factor, a tile adds a repetition *outside* the
// existing factors, a floordiv indexing map adds one *inside*. At the end
// the value is a blockwise repetition of its source exactly when every
// dimension reads "one whole source dimension, then a repetition", with the
// source dimensions in order: the repetition is then the block size. This
// handles any composition of the supported ops without enumerating
// elements, and it rejects tiles (periodic, not blockwise), transposed
// broadcasts and interleavings instead of guessing.
//
// Constants are also examined by value: a folded, already expanded scale
// constant is reduced to its smallest blockwise generator.
//
//===----------------------------------------------------------------------===//

#include "BlockExpansion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quant_block;

/// Non-splat constants larger than this are not examined element by element
/// (they are then treated like any other source).
static constexpr int64_t kMaxConstantElements = int64_t(1) << 22;

//===----------------------------------------------------------------------===//
// Factors
//===----------------------------------------------------------------------===//

namespace {
/// A piece of a dimension: `size` consecutive index values of source
/// dimension `dim` taken with `stride` (its position inside that
/// dimension), or a repetition of `size` when `dim` is negative.
struct Factor {
  int64_t size;
  int64_t dim;
  int64_t stride;

  bool isRepetition() const { return dim < 0; }
  static Factor repetition(int64_t size) { return {size, -1, 0}; }
};

/// Factors of one dimension, outermost first; factors of size 1 are never
/// stored.
using DimFactors = SmallVector<Factor, 2>;
using FactorState = SmallVector<DimFactors>;

/// One shape op between the source and the expanded value.
struct Step {
  enum class Kind { Reshape, Read, Tile, Cast } kind;
  /// The op's tensor input (the value before this step).
  Value input;
  /// Reshape: the result shape. Read: the iteration (result) shape.
  /// Tile: the multiples.
  SmallVector<int64_t> shape;
  /// Read: the result index -> input index map.
  AffineMap map;
  /// Read and Cast: the unary ops applied on the way, in order.
  SmallVector<Operation *> casts;
};
} // namespace

static void appendFactor(DimFactors &dim, Factor factor) {
  if (factor.size != 1)
    dim.push_back(factor);
}

/// The factors of a source of `shape` whose dimension `d` is made of
/// `shape[d]` source values each repeated `blocks[d]` times.
static FactorState initialState(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> blocks) {
  FactorState state(shape.size());
  for (auto [d, size] : llvm::enumerate(shape)) {
    appendFactor(state[d], {size, static_cast<int64_t>(d), 1});
    appendFactor(state[d], Factor::repetition(blocks[d]));
  }
  return state;
}

/// A row-major reshape: the factors are flattened and regrouped into the new
/// dimensions; a factor that straddles a new dimension boundary is split
/// into an outer and an inner piece when the boundary divides it.
static FailureOr<FactorState> applyReshape(const FactorState &state,
                                           ArrayRef<int64_t> shape) {
  SmallVector<Factor> flat;
  for (const DimFactors &dim : state)
    llvm::append_range(flat, dim);
  FactorState result;
  size_t next = 0;
  std::optional<Factor> pending;
  for (int64_t size : shape) {
    if (size <= 0)
      return failure();
    DimFactors dim;
    int64_t needed = size;
    while (needed > 1) {
      Factor factor;
      if (pending) {
        factor = *pending;
        pending.reset();
      } else if (next < flat.size()) {
        factor = flat[next++];
      } else {
        return failure();
      }
      if (needed % factor.size == 0) {
        dim.push_back(factor);
        needed /= factor.size;
        continue;
      }
      if (factor.size % needed != 0)
        return failure();
      // Row-major: the outer part of the factor ends this dimension, the
      // inner part starts the next one.
      int64_t inner = factor.size / needed;
      dim.push_back({needed, factor.dim,
                     factor.isRepetition() ? 0 : factor.stride * inner});
      pending = Factor{inner, factor.dim, factor.stride};
      needed = 1;
    }
    result.push_back(std::move(dim));
  }
  if (pending || next != flat.size())
    return failure();
  return result;
}

/// `tosa.tile`: each dimension is repeated as a whole, i.e. a repetition
/// factor *outside* its existing factors.
static FactorState applyTile(const FactorState &state,
                             ArrayRef<int64_t> multiples) {
  FactorState result;
  for (auto [dim, multiple] : llvm::zip(state, multiples)) {
    DimFactors factors;
    appendFactor(factors, Factor::repetition(multiple));
    llvm::append_range(factors, dim);
    result.push_back(std::move(factors));
  }
  return result;
}

/// Reading a tensor of `inputShape` through `map` (result index -> input
/// index) over an iteration space of `shape`: `d` keeps the input
/// dimension's factors, `d floordiv c` adds a repetition of `c` inside them,
/// an unused iteration dimension is a repetition, the constant 0 reads a
/// unit dimension.
static FailureOr<FactorState> applyRead(const FactorState &state,
                                        ArrayRef<int64_t> inputShape,
                                        AffineMap map,
                                        ArrayRef<int64_t> shape) {
  if (map.getNumSymbols() != 0 || map.getNumDims() != shape.size() ||
      map.getNumResults() != inputShape.size())
    return failure();
  FactorState result(shape.size());
  SmallVector<bool> used(shape.size(), false);
  for (auto [index, expr] : llvm::enumerate(map.getResults())) {
    if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      if (constant.getValue() != 0 || inputShape[index] != 1)
        return failure();
      continue;
    }
    int64_t divisor = 1;
    AffineExpr dimExpr = expr;
    if (auto binary = dyn_cast<AffineBinaryOpExpr>(expr)) {
      auto rhs = dyn_cast<AffineConstantExpr>(binary.getRHS());
      if (binary.getKind() != AffineExprKind::FloorDiv || !rhs ||
          rhs.getValue() <= 0)
        return failure();
      divisor = rhs.getValue();
      dimExpr = binary.getLHS();
    }
    auto dim = dyn_cast<AffineDimExpr>(dimExpr);
    if (!dim)
      return failure();
    unsigned position = dim.getPosition();
    // An index used twice (a diagonal) or a ragged floordiv is not a
    // repetition this analysis describes.
    if (used[position] || shape[position] != inputShape[index] * divisor)
      return failure();
    used[position] = true;
    result[position] = state[index];
    appendFactor(result[position], Factor::repetition(divisor));
  }
  for (auto [position, size] : llvm::enumerate(shape))
    if (!used[position])
      appendFactor(result[position], Factor::repetition(size));
  return result;
}

/// Reads the final factors: each dimension must be pieces of the source
/// followed by a repetition, and the pieces of all dimensions, read in
/// row-major order, must be the source's dimensions in order, each whole
/// (so that the contracted tensor is a reshape of the source).
static std::optional<BlockExpansion>
readExpansion(const FactorState &state, ArrayRef<int64_t> sourceShape,
              ArrayRef<int64_t> shape) {
  BlockExpansion expansion;
  SmallVector<Factor> pieces;
  for (auto [index, factors] : llvm::enumerate(state)) {
    int64_t contracted = 1, repetition = 1;
    for (const Factor &factor : factors) {
      if (factor.isRepetition()) {
        repetition *= factor.size;
        continue;
      }
      // A source piece inside a repetition is a tile, not a block.
      if (repetition != 1)
        return std::nullopt;
      contracted *= factor.size;
      pieces.push_back(factor);
    }
    if (contracted * repetition != shape[index])
      return std::nullopt;
    expansion.contractedShape.push_back(contracted);
    expansion.blockShape.push_back(repetition);
  }
  // Each source dimension must appear as consecutive pieces, outermost
  // first, with strides that tile it exactly.
  const Factor *piece = pieces.begin();
  for (auto [dim, size] : llvm::enumerate(sourceShape)) {
    if (size == 1)
      continue;
    int64_t covered = 1;
    while (covered != size) {
      if (piece == pieces.end() || piece->dim != static_cast<int64_t>(dim) ||
          piece->stride * piece->size * covered != size)
        return std::nullopt;
      covered *= piece->size;
      ++piece;
    }
  }
  if (piece != pieces.end())
    return std::nullopt;
  return expansion;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// The raw bits of every element (integers and floats alike), or nullopt for
/// element types this analysis does not read.
static std::optional<SmallVector<APInt>> getBits(DenseElementsAttr attr) {
  Type element = attr.getElementType();
  if (!element.isIntOrFloat() || element.isIndex())
    return std::nullopt;
  DenseElementsAttr asInt = attr;
  if (isa<FloatType>(element))
    asInt = attr.bitcast(
        IntegerType::get(attr.getContext(), element.getIntOrFloatBitWidth()));
  return llvm::to_vector(asInt.getValues<APInt>());
}

static DenseElementsAttr fromBits(ArrayRef<APInt> bits, ArrayRef<int64_t> shape,
                                  Type element) {
  unsigned width = element.getIntOrFloatBitWidth();
  auto intType = RankedTensorType::get(
      shape, IntegerType::get(element.getContext(), width));
  return DenseElementsAttr::get(intType, bits).bitcast(element);
}

/// Elements of `bits` (row-major, `shape`) at `index * step` for every index
/// of `resultShape`.
static SmallVector<APInt> gatherStrided(ArrayRef<APInt> bits,
                                        ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> resultShape,
                                        ArrayRef<int64_t> step) {
  SmallVector<int64_t> strides = stridesOf(shape);
  int64_t count = 1;
  for (int64_t size : resultShape)
    count *= size;
  SmallVector<APInt> result;
  result.reserve(count);
  SmallVector<int64_t> index(resultShape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * step[d] * strides[d];
    result.push_back(bits[offset]);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < resultShape[d])
        break;
      index[d] = 0;
    }
  }
  return result;
}

/// True when every element equals the first element of its block of
/// `block` along dimension `dim`.
static bool isBlockwiseAlong(ArrayRef<APInt> bits, ArrayRef<int64_t> shape,
                             size_t dim, int64_t block) {
  int64_t inner = stridesOf(shape)[dim];
  for (int64_t i = 0, e = bits.size(); i < e; ++i) {
    int64_t offset = (i / inner) % shape[dim] % block;
    if (offset != 0 && bits[i] != bits[i - offset * inner])
      return false;
  }
  return true;
}

static SmallVector<int64_t> primeFactors(int64_t n) {
  SmallVector<int64_t> factors;
  for (int64_t p = 2; p * p <= n; ++p)
    for (; n % p == 0; n /= p)
      factors.push_back(p);
  if (n > 1)
    factors.push_back(n);
  return factors;
}

/// The largest blocks along which `attr` is constant, and its values
/// contracted by them. The valid block sizes along a dimension are closed
/// under divisors and least common multiples, so growing the block one
/// prime factor at a time finds the largest.
static std::optional<std::pair<SmallVector<int64_t>, DenseElementsAttr>>
contractConstant(DenseElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  ArrayRef<int64_t> shape = type.getShape();
  if (attr.isSplat()) {
    SmallVector<int64_t> ones(shape.size(), 1);
    return std::make_pair(
        SmallVector<int64_t>(shape),
        attr.resizeSplat(RankedTensorType::get(ones, type.getElementType())));
  }
  if (type.getNumElements() > kMaxConstantElements)
    return std::nullopt;
  std::optional<SmallVector<APInt>> bits = getBits(attr);
  if (!bits)
    return std::nullopt;
  SmallVector<int64_t> blocks(shape.size(), 1);
  for (size_t d = 0; d < shape.size(); ++d)
    for (int64_t p : primeFactors(shape[d]))
      if (isBlockwiseAlong(*bits, shape, d, blocks[d] * p))
        blocks[d] *= p;
  SmallVector<int64_t> contracted;
  for (auto [size, block] : llvm::zip(shape, blocks))
    contracted.push_back(size / block);
  SmallVector<APInt> values = gatherStrided(*bits, shape, contracted, blocks);
  return std::make_pair(blocks,
                        fromBits(values, contracted, type.getElementType()));
}

//===----------------------------------------------------------------------===//
// The chain of shape ops
//===----------------------------------------------------------------------===//

bool mlir::quant_block::isElementwiseCast(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp,
             arith::FPToSIOp, arith::FPToUIOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp, tosa::CastOp>(op) &&
         op->getNumOperands() == 1 && op->getNumResults() == 1;
}

static std::optional<SmallVector<int64_t>> getStaticShape(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return std::nullopt;
  return SmallVector<int64_t>(ranked.getShape());
}

/// A linalg op that only moves (and casts) its single input: one input, one
/// init, parallel iterators, an invertible output map and a body that is a
/// chain of casts from the input element to the yield. Returns the result
/// index -> input index map and the casts.
static std::optional<std::pair<AffineMap, SmallVector<Operation *>>>
matchMovingLinalgOp(linalg::LinalgOp op) {
  if (op->getNumResults() != 1 || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      op.getNumLoops() != op.getNumParallelLoops())
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outputMap.isPermutation())
    return std::nullopt;
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield->getNumOperands() != 1)
    return std::nullopt;
  SmallVector<Operation *> casts;
  Value current = yield->getOperand(0);
  while (Operation *def = current.getDefiningOp()) {
    if (def->getBlock() != body || !isElementwiseCast(def))
      return std::nullopt;
    casts.push_back(def);
    current = def->getOperand(0);
  }
  if (current != body->getArgument(input->getOperandNumber()))
    return std::nullopt;
  std::reverse(casts.begin(), casts.end());
  AffineMap map =
      op.getMatchingIndexingMap(input).compose(inversePermutation(outputMap));
  return std::make_pair(map, casts);
}

/// The shape ops that produced `value`, nearest first.
static SmallVector<Step> collectSteps(Value value) {
  SmallVector<Step> steps;
  while (Operation *def = value.getDefiningOp()) {
    std::optional<SmallVector<int64_t>> shape = getStaticShape(value.getType());
    if (!shape)
      break;
    Step step;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tosa::ReshapeOp,
            tensor::ReshapeOp>(def)) {
      step = {Step::Kind::Reshape, def->getOperand(0), *shape, {}, {}};
    } else if (auto tile = dyn_cast<tosa::TileOp>(def)) {
      SmallVector<int64_t> multiples;
      if (failed(tile.getConstantMultiples(multiples)) ||
          llvm::any_of(multiples, [](int64_t m) { return m <= 0; }))
        break;
      step = {Step::Kind::Tile, tile.getInput1(), multiples, {}, {}};
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def)) {
      auto moving = matchMovingLinalgOp(linalgOp);
      if (!moving)
        break;
      step = {Step::Kind::Read, linalgOp.getDpsInputOperand(0)->get(), *shape,
              moving->first, moving->second};
    } else if (isElementwiseCast(def)) {
      step = {Step::Kind::Cast, def->getOperand(0), {}, {}, {def}};
    } else if (auto cast = dyn_cast<tensor::CastOp>(def)) {
      value = cast.getSource();
      continue;
    } else {
      break;
    }
    if (!getStaticShape(step.input.getType()))
      break;
    steps.push_back(std::move(step));
    value = steps.back().input;
  }
  return steps;
}

/// Replays `steps` (nearest first) forward from `source` and reads the
/// expansion of the value they produce, read through `readMap` over
/// `shape`.
static std::optional<BlockExpansion> replay(Value source, ArrayRef<Step> steps,
                                            AffineMap readMap,
                                            ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sourceShape = *getStaticShape(source.getType());
  SmallVector<int64_t> blocks(sourceShape.size(), 1);
  DenseElementsAttr constant;
  DenseElementsAttr attr;
  if (matchPattern(source, m_Constant(&attr))) {
    if (auto contracted = contractConstant(attr)) {
      blocks = contracted->first;
      constant = contracted->second;
      sourceShape = SmallVector<int64_t>(
          cast<RankedTensorType>(constant.getType()).getShape());
    }
  }
  FactorState state = initialState(sourceShape, blocks);
  SmallVector<int64_t> current = *getStaticShape(source.getType());
  SmallVector<Operation *> casts;
  for (const Step &step : llvm::reverse(steps)) {
    switch (step.kind) {
    case Step::Kind::Reshape: {
      FailureOr<FactorState> next = applyReshape(state, step.shape);
      if (failed(next))
        return std::nullopt;
      state = std::move(*next);
      current = step.shape;
      break;
    }
    case Step::Kind::Tile:
      state = applyTile(state, step.shape);
      for (auto [size, multiple] : llvm::zip(current, step.shape))
        size *= multiple;
      break;
    case Step::Kind::Read: {
      FailureOr<FactorState> next =
          applyRead(state, current, step.map, step.shape);
      if (failed(next))
        return std::nullopt;
      state = std::move(*next);
      current = step.shape;
      llvm::append_range(casts, step.casts);
      break;
    }
    case Step::Kind::Cast:
      llvm::append_range(casts, step.casts);
      break;
    }
  }
  if (readMap && !(readMap.isIdentity() && current == shape)) {
    FailureOr<FactorState> next = applyRead(state, current, readMap, shape);
    if (failed(next))
      return std::nullopt;
    state = std::move(*next);
  } else if (current != shape) {
    return std::nullopt;
  }
  std::optional<BlockExpansion> expansion =
      readExpansion(state, sourceShape, shape);
  if (!expansion)
    return std::nullopt;
  if (constant) {
    expansion->constant = constant.reshape(RankedTensorType::get(
        expansion->contractedShape, constant.getElementType()));
  } else {
    expansion->source = source;
  }
  expansion->casts = std::move(casts);
  return expansion;
}

std::optional<BlockExpansion>
mlir::quant_block::matchBlockwiseExpansion(Value value, AffineMap readMap,
                                           ArrayRef<int64_t> iterationShape) {
  if (!getStaticShape(value.getType()))
    return std::nullopt;
  for (int64_t size : iterationShape)
    if (size <= 0)
      return std::nullopt;
  SmallVector<Step> steps = collectSteps(value);
  // The longest chain that is a blockwise repetition wins; a prefix of
  // shape ops that is not one (say, a tile) still leaves the value itself
  // as a valid, if trivial, source.
  for (size_t count = steps.size() + 1; count-- > 0;) {
    Value source = count == 0 ? value : steps[count - 1].input;
    if (auto expansion = replay(source, ArrayRef(steps).take_front(count),
                                readMap, iterationShape))
      return expansion;
  }
  return std::nullopt;
}

std::optional<BlockExpansion>
mlir::quant_block::matchBlockwiseExpansion(Value value) {
  std::optional<SmallVector<int64_t>> shape = getStaticShape(value.getType());
  if (!shape)
    return std::nullopt;
  return matchBlockwiseExpansion(value, AffineMap(), *shape);
}

BlockExpansion mlir::quant_block::getSplatExpansion(TypedAttr value,
                                                    ArrayRef<int64_t> shape) {
  BlockExpansion expansion;
  expansion.contractedShape.assign(shape.size(), 1);
  expansion.blockShape.assign(shape.begin(), shape.end());
  expansion.constant = DenseElementsAttr::get(
      RankedTensorType::get(expansion.contractedShape, value.getType()), value);
  return expansion;
}

std::optional<BlockExpansion>
mlir::quant_block::refineBlocks(const BlockExpansion &expansion,
                                ArrayRef<int64_t> blockShape) {
  if (blockShape == ArrayRef(expansion.blockShape))
    return expansion;
  if (!expansion.constant || blockShape.size() != expansion.blockShape.size())
    return std::nullopt;
  SmallVector<int64_t> shape, step;
  int64_t count = 1;
  for (auto [oldBlock, newBlock, contracted] :
       llvm::zip(expansion.blockShape, blockShape, expansion.contractedShape)) {
    if (newBlock <= 0 || oldBlock % newBlock != 0)
      return std::nullopt;
    shape.push_back(contracted * (oldBlock / newBlock));
    count *= shape.back();
  }
  if (count > kMaxConstantElements)
    return std::nullopt;
  std::optional<SmallVector<APInt>> bits = getBits(expansion.constant);
  if (!bits)
    return std::nullopt;
  // Element j of the finer tensor is element j / (oldBlock / newBlock) of the
  // coarser one.
  SmallVector<int64_t> strides = stridesOf(expansion.contractedShape);
  SmallVector<APInt> values;
  values.reserve(count);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset +=
          index[d] / (expansion.blockShape[d] / blockShape[d]) * strides[d];
    values.push_back((*bits)[offset]);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  BlockExpansion refined = expansion;
  refined.blockShape.assign(blockShape.begin(), blockShape.end());
  refined.contractedShape = shape;
  refined.constant =
      fromBits(values, shape, expansion.constant.getElementType());
  return refined;
}

//===----------------------------------------------------------------------===//
// Building the contracted tensor
//===----------------------------------------------------------------------===//

Value mlir::quant_block::materializeContracted(
    OpBuilder &builder, Location loc, const BlockExpansion &expansion) {
  if (expansion.constant)
    return arith::ConstantOp::create(builder, loc, expansion.constant);
  Value source = expansion.source;
  auto sourceType = cast<RankedTensorType>(source.getType());
  auto contractedType = RankedTensorType::get(expansion.contractedShape,
                                              sourceType.getElementType());
  if (sourceType == contractedType)
    return source;
  // The contracted tensor is a row-major reshape of the source: one
  // collapse or expand when the shapes allow it, else through 1-D.
  if (auto reassociation =
          getReassociationIndicesForReshape(sourceType, contractedType)) {
    if (sourceType.getRank() > contractedType.getRank())
      return tensor::CollapseShapeOp::create(builder, loc, contractedType,
                                             source, *reassociation);
    return tensor::ExpandShapeOp::create(builder, loc, contractedType, source,
                                         *reassociation);
  }
  auto flatType = RankedTensorType::get({sourceType.getNumElements()},
                                        sourceType.getElementType());
  auto allDims = [](int64_t rank) {
    ReassociationIndices group;
    for (int64_t d = 0; d < rank; ++d)
      group.push_back(d);
    return SmallVector<ReassociationIndices>{group};
  };
  Value flat = tensor::CollapseShapeOp::create(builder, loc, flatType, source,
                                               allDims(sourceType.getRank()));
  return tensor::ExpandShapeOp::create(builder, loc, contractedType, flat,
                                       allDims(contractedType.getRank()));
}

Value mlir::quant_block::applyElementwiseCast(OpBuilder &builder, Location loc,
                                              Operation *op, Value input) {
  auto inputType = cast<RankedTensorType>(input.getType());
  OperationState state(loc, op->getName());
  state.addOperands(input);
  state.addTypes(RankedTensorType::get(
      inputType.getShape(), getElementTypeOrSelf(op->getResult(0).getType())));
  state.addAttributes(op->getAttrs());
  return builder.create(state)->getResult(0);
}
