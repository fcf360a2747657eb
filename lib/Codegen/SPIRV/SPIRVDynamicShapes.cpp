//===- SPIRVDynamicShapes.cpp - dynamically shaped SPIR-V kernel buffers --===//
//
// --quant-block-gpu-spirv-dynamic-shapes: see Passes.td. A Vulkan kernel
// binds each buffer as one runtime array and has no memref descriptor, so
// the sizes of a dynamically shaped buffer must reach it some other way,
// and the SPIR-V lowering can only index arrays whose strides are known.
// Each such buffer becomes a flat one-dimensional buffer indexed by
// linearized indices, and the dynamic sizes travel in one small i32 buffer
// per launch.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/BitVector.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUSPIRVDYNAMICSHAPES
#include "quant-block/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {
/// A dynamically shaped kernel argument and where its dynamic sizes are in
/// the launch's shape buffer.
struct FlattenedArgument {
  unsigned index;
  MemRefType original;
  /// The shape buffer's element holding the first dynamic size.
  int64_t firstSlot;
  /// Read only for its sizes: the kernel no longer takes it.
  bool erased = false;
};
} // namespace

/// Whether `type` is a dynamically shaped memref this pass flattens.
static bool isFlattened(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && !memref.hasStaticShape() && memref.getLayout().isIdentity();
}

/// The flat buffer type of `type`.
static MemRefType getFlatType(MemRefType type) {
  return MemRefType::get({ShapedType::kDynamic}, type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

/// The row-major linear index of `indices` in a buffer of sizes `sizes`
/// (in bounds, as the accesses of the kernel are).
static Value linearize(OpBuilder &builder, Location loc, ValueRange indices,
                       ArrayRef<Value> sizes) {
  return affine::AffineLinearizeIndexOp::create(builder, loc, indices, sizes,
                                                /*disjoint=*/true);
}

/// The constant index of `value`, if it is one.
static std::optional<int64_t> getConstantDim(Value value) {
  return getConstantIntValue(getAsOpFoldResult(value));
}

/// Replaces the memref.dim users of `view`, a reshape of the argument whose
/// sizes are `sizes`, by their values and erases the view. Views that are
/// read or written through are an error: --fold-memref-alias-ops folds
/// those into the loads and stores first.
static LogicalResult resolveViewSizes(Operation *view, ArrayRef<Value> sizes,
                                      unsigned argIndex) {
  OpBuilder builder(view);
  Location loc = view->getLoc();
  SmallVector<Value> viewSizes;
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(view)) {
    for (OpFoldResult size : expand.getMixedOutputShape())
      viewSizes.push_back(getValueOrCreateConstantIndexOp(builder, loc, size));
  } else {
    auto collapse = cast<memref::CollapseShapeOp>(view);
    for (const ReassociationIndices &group :
         collapse.getReassociationIndices()) {
      Value product = sizes[group.front()];
      for (int64_t dim : ArrayRef(group).drop_front())
        product = arith::MulIOp::create(builder, loc, product, sizes[dim]);
      viewSizes.push_back(product);
    }
  }
  for (Operation *user : llvm::make_early_inc_range(view->getUsers())) {
    auto dim = dyn_cast<memref::DimOp>(user);
    std::optional<int64_t> index =
        dim ? getConstantDim(dim.getIndex()) : std::nullopt;
    if (!index)
      return user->emitError("a view of dynamically shaped kernel argument #")
             << argIndex << " is used by '" << user->getName()
             << "'; only its sizes can be read here (run "
                "--fold-memref-alias-ops first so that loads and stores "
                "index the argument itself)";
    dim.replaceAllUsesWith(viewSizes[*index]);
    dim.erase();
  }
  view->erase();
  return success();
}

/// Rewrites the uses of `buffer` (kernel argument `arg`, of type `original`
/// with sizes `sizes`, or a memref.cast of it) onto the flat buffer `arg`
/// becomes.
static LogicalResult flattenUses(Value buffer, BlockArgument arg,
                                 MemRefType original, ArrayRef<Value> sizes) {
  unsigned argIndex = arg.getArgNumber();
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    OpBuilder builder(user);
    Location loc = user->getLoc();
    if (auto dim = dyn_cast<memref::DimOp>(user)) {
      std::optional<int64_t> index = getConstantDim(dim.getIndex());
      if (!index || *index < 0 || *index >= original.getRank())
        return dim.emitError("the size of dynamically shaped kernel "
                             "argument #")
               << argIndex << " is read with a non-constant or out-of-range "
               << "dimension";
      dim.replaceAllUsesWith(sizes[*index]);
      dim.erase();
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      Value linear = linearize(builder, loc, load.getIndices(), sizes);
      load.getMemrefMutable().assign(arg);
      load.getIndicesMutable().assign(linear);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(user);
        store && store.getMemRef() == buffer) {
      Value linear = linearize(builder, loc, store.getIndices(), sizes);
      store.getMemrefMutable().assign(arg);
      store.getIndicesMutable().assign(linear);
      continue;
    }
    // A cast to a more static shape (the same buffer): its uses are the
    // argument's.
    if (auto cast = dyn_cast<memref::CastOp>(user)) {
      auto castType = dyn_cast<MemRefType>(cast.getType());
      if (castType && castType.getLayout().isIdentity()) {
        if (failed(flattenUses(cast.getResult(), arg, original, sizes)))
          return failure();
        cast.erase();
        continue;
      }
    }
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
      if (failed(resolveViewSizes(user, sizes, argIndex)))
        return failure();
      continue;
    }
    return user->emitError("dynamically shaped kernel argument #")
           << argIndex << " of type " << original << " is used by '"
           << user->getName()
           << "', which cannot be rewritten onto a flat SPIR-V buffer (only "
              "memref.load, memref.store, memref.dim, identity-layout casts "
              "and the sizes of reshapes can)";
  }
  return success();
}

/// Flattens the dynamically shaped arguments of `func` and appends the
/// shape buffer argument; returns them (empty if there are none).
static FailureOr<SmallVector<FlattenedArgument>>
flattenKernel(gpu::GPUFuncOp func) {
  SmallVector<FlattenedArgument> flattened;
  int64_t numSlots = 0;
  for (BlockArgument arg : func.getArguments()) {
    if (!isFlattened(arg.getType()))
      continue;
    auto type = cast<MemRefType>(arg.getType());
    flattened.push_back({arg.getArgNumber(), type, numSlots});
    numSlots += type.getNumDynamicDims();
  }
  if (flattened.empty())
    return flattened;

  MLIRContext *context = func.getContext();
  auto shapeType = MemRefType::get({numSlots}, IntegerType::get(context, 32));
  if (failed(func.insertArgument(func.getNumArguments(), shapeType,
                                 DictionaryAttr(), func.getLoc())))
    return func.emitError("cannot add the shape buffer argument");
  BlockArgument shape = func.getArguments().back();

  SmallVector<Type> inputs(func.getArgumentTypes());
  // The dynamic sizes, read once at the kernel's entry.
  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  SmallVector<Value> slots;
  for (int64_t slot = 0; slot < numSlots; ++slot) {
    Value position = arith::ConstantIndexOp::create(builder, loc, slot);
    Value size = memref::LoadOp::create(builder, loc, shape, position);
    slots.push_back(arith::IndexCastUIOp::create(builder, loc,
                                                 builder.getIndexType(), size));
  }

  for (const FlattenedArgument &argument : flattened) {
    SmallVector<Value> sizes;
    int64_t slot = argument.firstSlot;
    for (int64_t size : argument.original.getShape())
      sizes.push_back(
          ShapedType::isDynamic(size)
              ? slots[slot++]
              : arith::ConstantIndexOp::create(builder, loc, size).getResult());
    BlockArgument arg = func.getArgument(argument.index);
    if (failed(flattenUses(arg, arg, argument.original, sizes)))
      return failure();
    arg.setType(getFlatType(argument.original));
    inputs[argument.index] = arg.getType();
  }
  func.setType(FunctionType::get(context, inputs, {}));

  // A buffer whose sizes were all the kernel read of it (e.g. the i4
  // operand of a fused truncation, which SPIR-V could not even type) is not
  // passed at all.
  llvm::BitVector unused(func.getNumArguments());
  for (FlattenedArgument &argument : flattened) {
    argument.erased = func.getArgument(argument.index).use_empty();
    if (argument.erased)
      unused.set(argument.index);
  }
  if (failed(func.eraseArguments(unused)))
    return func.emitError("cannot erase the unused buffer arguments");
  return flattened;
}

/// Passes flat views of the flattened operands of `launch` and a shape
/// buffer holding their dynamic sizes (as i32: Vulkan buffers are smaller
/// than 4 GiB).
static void rewriteLaunch(gpu::LaunchFuncOp launch,
                          ArrayRef<FlattenedArgument> flattened,
                          MemRefType shapeType) {
  // The shape buffer lives in the host function's frame, allocated once at
  // its entry so that launches in loops do not grow the stack.
  auto host = launch->getParentOfType<FunctionOpInterface>();
  OpBuilder builder = OpBuilder::atBlockBegin(&host.getFunctionBody().front());
  Value shape = memref::AllocaOp::create(builder, launch.getLoc(), shapeType);

  builder.setInsertionPoint(launch);
  Location loc = launch.getLoc();
  SmallVector<Value> operands(launch.getKernelOperands());
  llvm::BitVector erased(operands.size());
  for (const FlattenedArgument &argument : flattened) {
    Value buffer = operands[argument.index];
    int64_t slot = argument.firstSlot;
    for (auto [dim, size] : llvm::enumerate(argument.original.getShape())) {
      if (!ShapedType::isDynamic(size))
        continue;
      Value value = memref::DimOp::create(builder, loc, buffer, dim);
      value = arith::IndexCastUIOp::create(builder, loc, builder.getI32Type(),
                                           value);
      Value position = arith::ConstantIndexOp::create(builder, loc, slot++);
      memref::StoreOp::create(builder, loc, value, shape, position);
    }
    if (argument.erased) {
      erased.set(argument.index);
      continue;
    }
    if (argument.original.getRank() != 1) {
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, argument.original.getRank()));
      buffer = memref::CollapseShapeOp::create(
          builder, loc, buffer, ArrayRef<ReassociationIndices>{all});
    }
    operands[argument.index] = buffer;
  }
  SmallVector<Value> passed;
  for (auto [index, operand] : llvm::enumerate(operands))
    if (!erased.test(index))
      passed.push_back(operand);
  passed.push_back(shape);
  launch.getKernelOperandsMutable().assign(passed);
}

namespace {
struct GPUSPIRVDynamicShapesPass
    : public quant_block::impl::GPUSPIRVDynamicShapesBase<
          GPUSPIRVDynamicShapesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseMap<Operation *, SmallVector<FlattenedArgument>> kernels;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!func.isKernel() || func.isExternal())
          continue;
        FailureOr<SmallVector<FlattenedArgument>> flattened =
            flattenKernel(func);
        if (failed(flattened))
          return signalPassFailure();
        if (!flattened->empty())
          kernels[func] = std::move(*flattened);
      }
    if (kernels.empty())
      return;

    SymbolTableCollection symbols;
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto func = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      auto it = kernels.find(func);
      if (!func || it == kernels.end())
        return WalkResult::advance();
      if (!launch->getParentOfType<FunctionOpInterface>()) {
        launch.emitError("a launch of a kernel with dynamically shaped "
                         "arguments must be inside a function");
        return WalkResult::interrupt();
      }
      rewriteLaunch(launch, it->second,
                    cast<MemRefType>(func.getArgumentTypes().back()));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
