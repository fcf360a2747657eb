//===- DataMovement.cpp - host/device buffers around kernel launches ------===//
//
// --quant-block-gpu-data-movement: see Passes.td. Host memory owns every
// buffer the host code sees; each launch works on device copies of the
// host buffers it uses (copied in only if the kernel may read them, out
// only if it may write them), and buffers that only kernels touch are
// device allocations from the start. Function arguments marked
// `quant_block.device_resident` are device buffers the caller owns: they
// reach kernels as they are, and host code may only take their shape.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"
#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"

#include "BufferViews.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUDATAMOVEMENT
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;
using namespace mlir::quant_block;

namespace {
/// How a kernel may use one of its memref arguments.
struct Access {
  bool read = false;
  bool write = false;
};
} // namespace

/// Accumulates into `access` how the uses of `buffer` (and of its views)
/// access the memory; an unknown use counts as a read and a write.
static void collectAccess(Value buffer, Access &access) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (isBufferView(user) && use.getOperandNumber() == 0) {
      collectAccess(user->getResult(0), access);
    } else if (isa<memref::LoadOp, vector::LoadOp, vector::TransferReadOp,
                   vector::MaskedLoadOp, vector::GatherOp>(user)) {
      access.read = true;
    } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
      // Storing the buffer's descriptor nowhere: only the memref operand.
      access.write |= store.getMemRef() == buffer;
      access.read |= store.getValueToStore() == buffer;
    } else if (isa<vector::StoreOp, vector::TransferWriteOp,
                   vector::MaskedStoreOp, vector::ScatterOp>(user)) {
      access.write = true;
    } else if (isa<memref::DimOp, memref::ExtractStridedMetadataOp>(user)) {
      // Shape only.
    } else if (auto copy = dyn_cast<memref::CopyOp>(user)) {
      access.read |= copy.getSource() == buffer;
      access.write |= copy.getTarget() == buffer;
    } else {
      access.read = access.write = true;
    }
  }
}

/// Whether `buffer` is an argument of a host function that the caller
/// passes on the device (`quant_block.device_resident`).
static bool isDeviceResident(Value buffer) {
  auto argument = dyn_cast<BlockArgument>(buffer);
  if (!argument)
    return false;
  auto func = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  return func && argument.getOwner()->isEntryBlock() &&
         func.getArgAttr(argument.getArgNumber(),
                         QuantBlockDialect::getDeviceResidentAttrName());
}

/// Whether `use` passes a buffer to a function of the module whose
/// argument is device-resident too (that function is checked on its own):
/// a model's layer functions take views of its resident weights and cache.
static bool passesToDeviceResidentArgument(OpOperand &use) {
  auto call = dyn_cast<func::CallOp>(use.getOwner());
  if (!call)
    return false;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return callee && !callee.isExternal() &&
         isDeviceResident(callee.getArgument(use.getOperandNumber()));
}

/// Whether every use of `buffer` (through views) is a kernel operand of a
/// gpu.launch_func, an argument of a call that is device-resident in the
/// callee, or a deallocation, or a view that has no other uses.
static bool onlyKernelsUse(Value buffer) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::DeallocOp>(user))
      continue;
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(user)) {
      if (llvm::is_contained(launch.getKernelOperands(), buffer))
        continue;
      return false;
    }
    // A function that takes it as a device-resident argument: its kernels.
    if (passesToDeviceResidentArgument(use))
      continue;
    if (isBufferView(user) && use.getOperandNumber() == 0 &&
        onlyKernelsUse(user->getResult(0)))
      continue;
    return false;
  }
  return true;
}

/// Whether host op `op` uses a buffer operand without touching its
/// elements: it takes its shape or its address.
static bool touchesNoElements(Operation *op) {
  return isa<memref::DimOp, memref::ExtractStridedMetadataOp,
             memref::ExtractAlignedPointerAsIndexOp>(op);
}

/// Finds a use of the device-resident `buffer` (through views) that host
/// code would execute on its elements: anything but a kernel operand, a
/// view, a query of its shape, or an argument of a call that is
/// device-resident in the callee.
static OpOperand *findHostAccess(Value buffer) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (isa<gpu::LaunchFuncOp>(user) || touchesNoElements(user) ||
        passesToDeviceResidentArgument(use))
      continue;
    if (isBufferView(user) && use.getOperandNumber() == 0) {
      if (OpOperand *access = findHostAccess(user->getResult(0)))
        return access;
      continue;
    }
    return &use;
  }
  return nullptr;
}

/// Device-resident arguments must reach the device only through kernels.
static LogicalResult checkDeviceResidentArguments(ModuleOp module) {
  WalkResult result = module.walk([](func::FuncOp func) {
    if (func.isExternal())
      return WalkResult::advance();
    for (BlockArgument argument : func.getArguments()) {
      if (!isDeviceResident(argument))
        continue;
      if (!isa<MemRefType>(argument.getType())) {
        func.emitOpError("device-resident argument #")
            << argument.getArgNumber() << " has type " << argument.getType()
            << " after bufferization; only memrefs can live on the device";
        return WalkResult::interrupt();
      }
      if (OpOperand *access = findHostAccess(argument)) {
        InFlightDiagnostic diag =
            access->getOwner()->emitOpError("accesses device-resident "
                                            "argument #")
            << argument.getArgNumber() << " of @" << func.getSymName()
            << " on the host ('"
            << QuantBlockDialect::getDeviceResidentAttrName()
            << "': its elements live on the device only, so only kernels may "
               "read or write them";
        if (isa<func::CallOp>(access->getOwner()))
          diag << ", and functions that take it as a device-resident "
                  "argument too";
        diag << ")";
        diag.attachNote(func.getLoc()) << "the argument is declared here";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Whether anything may have written `buffer` (through views) before
/// `launch`: false only for a `memref.alloc` in the launch's block whose
/// every access comes after the launch, so that its contents are undefined
/// when the kernel starts and copying them in would only cost time.
static bool mayHoldDataBefore(Value buffer, gpu::LaunchFuncOp launch) {
  Operation *def = buffer.getDefiningOp();
  if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(def) ||
      def->getBlock() != launch->getBlock())
    return true;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == launch)
        continue;
      if (isBufferView(user) && use.getOperandNumber() == 0) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      Operation *inBlock = launch->getBlock()->findAncestorOpInBlock(*user);
      if (!inBlock || inBlock->isBeforeInBlock(launch))
        return true;
    }
  }
  return false;
}

namespace {
struct GPUDataMovementPass
    : public quant_block::impl::GPUDataMovementBase<GPUDataMovementPass> {
  using GPUDataMovementBase::GPUDataMovementBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (!launch->getParentOfType<gpu::GPUModuleOp>())
        launches.push_back(launch);
    });
    if (failed(checkDeviceResidentArguments(module)))
      return signalPassFailure();
    if (launches.empty())
      return;

    // Buffers only kernels touch live on the device only.
    SmallVector<memref::AllocOp> deviceOnly;
    module.walk([&](memref::AllocOp alloc) {
      if (alloc->getParentOfType<gpu::GPUModuleOp>() ||
          !alloc.getSymbolOperands().empty())
        return;
      if (onlyKernelsUse(alloc.getResult()) &&
          llvm::any_of(alloc->getUsers(), [](Operation *user) {
            return !isa<memref::DeallocOp>(user);
          }))
        deviceOnly.push_back(alloc);
    });
    for (memref::AllocOp alloc : deviceOnly)
      moveToDevice(alloc);
    if (failed(checkDeviceResidentCalls(module)))
      return signalPassFailure();

    if (orderedQueue)
      findFunctionsLeavingDeviceWork(module);
    llvm::SetVector<Block *> blocks;
    for (gpu::LaunchFuncOp launch : launches)
      blocks.insert(launch->getBlock());
    // A block that calls a function leaving device work queued keeps a
    // chain for it, which it waits for where it settles (at a public
    // function's return at the latest).
    module.walk([&](func::CallOp call) {
      if (leavesDeviceWork(call))
        blocks.insert(call->getBlock());
    });
    for (Block *block : blocks)
      if (failed(moveDataOfBlock(*block, symbols)))
        return signalPassFailure();
    waitForAllocationsOutsideChains(module);
  }

  /// A function's device-resident argument must get a device buffer (a
  /// view of one): a device-resident argument of the caller, or a buffer
  /// that lives on the device only (moved there above). A host buffer would
  /// reach the callee's kernels as a host pointer.
  static LogicalResult checkDeviceResidentCalls(ModuleOp module) {
    WalkResult result = module.walk([](func::CallOp call) {
      for (OpOperand &operand : call->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()) ||
            !passesToDeviceResidentArgument(operand))
          continue;
        Value root = getRootBuffer(operand.get());
        if (isDeviceResident(root) ||
            isa_and_nonnull<gpu::AllocOp>(root.getDefiningOp()))
          continue;
        call.emitOpError("passes a host buffer as device-resident argument #")
            << operand.getOperandNumber() << " of @" << call.getCallee()
            << " (a device-resident argument of the caller or a buffer "
               "that only kernels and such arguments use is needed)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Replaces `alloc` and its deallocations with their gpu counterparts, in
  /// the synchronous form (no async token) that gpu-to-llvm does not take:
  /// moveDataOfBlock puts those in a block with launches into the block's
  /// chain of device work, waitForAllocationsOutsideChains gives the others
  /// a chain of their own.
  static void moveToDevice(memref::AllocOp alloc) {
    OpBuilder builder(alloc);
    auto device = gpu::AllocOp::create(builder, alloc.getLoc(), alloc.getType(),
                                       /*asyncToken=*/Type(), ValueRange(),
                                       alloc.getDynamicSizes(), ValueRange());
    SmallVector<memref::DeallocOp> deallocs;
    for (Operation *user : alloc->getUsers())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
        deallocs.push_back(dealloc);
    alloc.getResult().replaceAllUsesWith(device.getMemref());
    alloc.erase();
    for (memref::DeallocOp dealloc : deallocs) {
      builder.setInsertionPoint(dealloc);
      gpu::DeallocOp::create(builder, dealloc.getLoc(), /*asyncToken=*/Type(),
                             ValueRange(), dealloc.getMemref());
      dealloc.erase();
    }
  }

  /// The token to chain new device work after, at the builder's point: the
  /// end of the chain `pending` (taken, so `pending` is reset), or the start
  /// of a new chain.
  static Value continueChain(OpBuilder &builder, Location loc, Value &pending) {
    Value token = pending;
    pending = Value();
    if (token)
      return token;
    return gpu::WaitOp::create(builder, loc,
                               builder.getType<gpu::AsyncTokenType>(),
                               ValueRange())
        .getAsyncToken();
  }

  /// Whether `op` is a device allocation or free in the synchronous form
  /// (a host-shared allocation stays synchronous: gpu-to-llvm wants it so).
  static bool isSynchronousAllocation(Operation *op) {
    if (auto alloc = dyn_cast<gpu::AllocOp>(op))
      return !alloc.getAsyncToken() && !alloc.getHostShared();
    if (auto dealloc = dyn_cast<gpu::DeallocOp>(op))
      return !dealloc.getAsyncToken();
    return false;
  }

  /// Replaces the synchronous allocation or free `op` by its async form
  /// after `token`; returns the new op's token.
  static Value makeAsync(Operation *op, Value token) {
    OpBuilder builder(op);
    auto tokenType = builder.getType<gpu::AsyncTokenType>();
    Value result;
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      auto async = gpu::AllocOp::create(
          builder, alloc.getLoc(), alloc.getType(), tokenType,
          ValueRange{token}, alloc.getDynamicSizes(),
          alloc.getSymbolOperands());
      alloc.getMemref().replaceAllUsesWith(async.getMemref());
      result = async.getAsyncToken();
    } else {
      auto dealloc = cast<gpu::DeallocOp>(op);
      result = gpu::DeallocOp::create(builder, dealloc.getLoc(), tokenType,
                                      ValueRange{token}, dealloc.getMemref())
                   .getAsyncToken();
    }
    op->erase();
    return result;
  }

  /// Gives each synchronous allocation or free that no block's chain took
  /// (one outside the blocks with launches) a chain of its own, waited for.
  static void waitForAllocationsOutsideChains(ModuleOp module) {
    SmallVector<Operation *> synchronous;
    module.walk([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isSynchronousAllocation(op))
        synchronous.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : synchronous) {
      OpBuilder builder(op);
      Location loc = op->getLoc();
      Value none;
      Value token = makeAsync(op, continueChain(builder, loc, none));
      builder.setInsertionPointAfterValue(token);
      gpu::WaitOp::create(builder, loc, Type(), ValueRange{token});
    }
  }

  /// The device copy of a host buffer, shared by the consecutive launches
  /// of one block until host code may touch the buffer.
  struct DeviceCopy {
    Value device;
    bool written = false;
    /// Whether the device copy holds what the kernels need of the host
    /// buffer: filled, or nothing to fill (a fresh allocation). A buffer a
    /// first kernel only took the shape of is filled at the first kernel
    /// that accesses it.
    bool filled = false;
  };
  using LiveCopies = llvm::MapVector<Value, DeviceCopy>;

  /// Whether `op`, host code between launches, may access a buffer that
  /// has a live device copy or depend on device work not waited for yet:
  /// terminators, ops with regions, ops whose memory effects are unknown or
  /// touch such a buffer (through a view), and GPU ops other than waits
  /// (a copy, a memset or a chain of the input's own).
  static bool needsHostCopies(Operation *op, const LiveCopies &live) {
    if (op->hasTrait<OpTrait::IsTerminator>() || op->getNumRegions() != 0)
      return true;
    // A wait orders device work and touches no host buffer.
    if (isa<gpu::WaitOp>(op))
      return false;
    if (isa<gpu::GPUDialect>(op->getDialect()))
      return true;
    if (isBufferView(op) || touchesNoElements(op))
      return false;
    auto touchesLive = [&](Value value) {
      return isa<MemRefType>(value.getType()) &&
             live.contains(getRootBuffer(value));
    };
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return !isPure(op) || llvm::any_of(op->getOperands(), touchesLive);
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (MemoryEffects::EffectInstance &effect : instances) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value || touchesLive(value))
        return true;
    }
    return llvm::any_of(op->getOperands(), touchesLive);
  }

  /// Copies the written buffers of `live` back to the host and frees every
  /// device copy, before `op`, after the device work of `pending` (the
  /// block's chain, if any), and waits for that.
  static void settle(Operation *op, LiveCopies &live, Value &pending) {
    if (live.empty() && !pending)
      return;
    OpBuilder builder(op);
    Value token =
        settleAfter(builder, op->getLoc(),
                    continueChain(builder, op->getLoc(), pending), live);
    gpu::WaitOp::create(builder, op->getLoc(), Type(), ValueRange{token});
  }

  /// The copies back and frees of `live` chained after `token`, at the
  /// builder's point; returns the last token.
  static Value settleAfter(OpBuilder &builder, Location loc, Value token,
                           LiveCopies &live) {
    auto tokenType = builder.getType<gpu::AsyncTokenType>();
    for (auto &[host, copy] : live)
      if (copy.written)
        token = gpu::MemcpyOp::create(builder, loc, tokenType,
                                      ValueRange{token}, host, copy.device)
                    .getAsyncToken();
    for (auto &[host, copy] : live)
      token = gpu::DeallocOp::create(builder, loc, tokenType, ValueRange{token},
                                     copy.device)
                  .getAsyncToken();
    live.clear();
    return token;
  }

  /// Whether the return of `func` may leave its device work queued
  /// (`ordered-queue`): a private function with a body that only calls
  /// reach, whose callers' chains follow its work in the queue.
  static bool returnsWithoutWaiting(func::FuncOp func) {
    if (func.isExternal() || !func.isPrivate())
      return false;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(func, func->getParentOp());
    return uses && llvm::all_of(*uses, [](const SymbolTable::SymbolUse &use) {
             return isa<func::CallOp>(use.getUser());
           });
  }

  /// Collects the functions whose return may leave device work queued:
  /// those returning without waiting that launch kernels or call such a
  /// function (to a fixed point, for chains of calls).
  void findFunctionsLeavingDeviceWork(ModuleOp module) {
    SmallVector<func::FuncOp> candidates;
    module.walk([&](func::FuncOp func) {
      if (returnsWithoutWaiting(func))
        candidates.push_back(func);
    });
    bool changed = true;
    while (changed) {
      changed = false;
      for (func::FuncOp func : candidates) {
        if (leavingDeviceWork.contains(func))
          continue;
        WalkResult found = func.walk([&](Operation *op) {
          if (isa<gpu::LaunchFuncOp>(op))
            return WalkResult::interrupt();
          auto call = dyn_cast<func::CallOp>(op);
          if (call && leavesDeviceWork(call))
            return WalkResult::interrupt();
          return WalkResult::advance();
        });
        if (found.wasInterrupted()) {
          leavingDeviceWork.insert(func);
          changed = true;
        }
      }
    }
  }

  /// Whether `call`'s callee may return with device work still queued.
  bool leavesDeviceWork(func::CallOp call) const {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    return callee && leavingDeviceWork.contains(callee);
  }

  /// Whether the chain may go on past `op` without a wait when no kernel
  /// wrote a live copy (`ordered-queue`): `op` calls a function of the
  /// module (its host code cannot reach the device-only buffers and
  /// device-resident arguments the chain works on, and its device work
  /// queues after the chain's) or returns from a function that returns
  /// without waiting.
  bool goesOnWithoutWaiting(Operation *op) const {
    if (!orderedQueue)
      return false;
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      return callee && !callee.isExternal();
    }
    if (isa<func::ReturnOp>(op))
      return returnsWithoutWaiting(op->getParentOfType<func::FuncOp>());
    return false;
  }

  /// Gives the launches of `block` device copies of the host buffers they
  /// use: a buffer's copy is made (and filled, if it may hold data the
  /// kernel needs) at its first launch and kept for the following ones,
  /// until host code may touch it (see needsHostCopies), where it is copied
  /// back if a kernel wrote it and freed.
  ///
  /// The launches, their copies and the device allocations and frees
  /// between them form one chain of async tokens (one stream, in order), and
  /// the host waits for it only where it settles the copies: a decode step
  /// of a model, dozens of launches, synchronizes with the device at its
  /// calls and its end instead of after every kernel. The host code between
  /// the launches touches no buffer of theirs (else it would settle), and
  /// kernels see only what the chain's earlier work wrote.
  LogicalResult moveDataOfBlock(Block &block, SymbolTableCollection &symbols) {
    LiveCopies live;
    Value pending;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isSynchronousAllocation(&op)) {
        OpBuilder builder(&op);
        Value start = continueChain(builder, op.getLoc(), pending);
        pending = makeAsync(&op, start);
        continue;
      }
      auto launch = dyn_cast<gpu::LaunchFuncOp>(&op);
      if (!launch) {
        if ((!live.empty() || pending) && needsHostCopies(&op, live)) {
          bool anyWritten = llvm::any_of(
              live, [](const auto &entry) { return entry.second.written; });
          if (!anyWritten && goesOnWithoutWaiting(&op)) {
            // The read-only copies are freed in the chain; their host
            // buffers were consumed when the copies in were made.
            if (!live.empty()) {
              OpBuilder builder(&op);
              pending = settleAfter(
                  builder, op.getLoc(),
                  continueChain(builder, op.getLoc(), pending), live);
            }
            if (isa<func::ReturnOp>(op))
              pending = Value();
          } else {
            settle(&op, live, pending);
          }
        }
        // The callee's device work joins the queue: the chain that follows
        // (and its wait) starts after the call.
        auto call = dyn_cast<func::CallOp>(&op);
        if (call && !pending && leavesDeviceWork(call)) {
          OpBuilder builder(op.getContext());
          builder.setInsertionPointAfter(call);
          Value none;
          pending = continueChain(builder, call.getLoc(), none);
        }
        continue;
      }
      // A launch that hands its token on orders its own copies in its
      // chain, and its token's users wait for them: nothing of it is
      // shared.
      if (launch.getAsyncToken()) {
        settle(launch, live, pending);
        LiveCopies own;
        Value none;
        if (failed(copyAround(launch, symbols, own, none)))
          return failure();
        continue;
      }
      if (failed(copyAround(launch, symbols, live, pending)))
        return failure();
    }
    return success();
  }

  /// Gives `launch` the device copies in `live` of the host buffers it
  /// uses, making those it lacks, and replaces it by a launch on them after
  /// `pending`: a launch without a token becomes the chain's new `pending`
  /// end; the token of an async one follows its copies back and frees.
  LogicalResult copyAround(gpu::LaunchFuncOp launch,
                           SymbolTableCollection &symbols, LiveCopies &live,
                           Value &pending) {
    auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel)
      return launch.emitError("kernel ")
             << launch.getKernel() << " not found (run gpu-kernel-outlining "
             << "first)";

    OpBuilder builder(launch);
    Location loc = launch.getLoc();
    auto tokenType = builder.getType<gpu::AsyncTokenType>();
    SmallVector<Value> dependencies(launch.getAsyncDependencies());
    Value token = pending;
    if (pending && !dependencies.empty())
      dependencies.push_back(pending);
    if (!pending || dependencies.size() > 1)
      token = gpu::WaitOp::create(builder, loc, tokenType, dependencies)
                  .getAsyncToken();
    pending = Value();

    // A view operand (what the sinking left outside) is rebuilt on the
    // device copy of its root.
    SmallVector<Value> operands(launch.getKernelOperands());
    SmallVector<Value> roots(operands.size());
    for (auto [index, operand] : llvm::enumerate(operands)) {
      if (!isa<MemRefType>(operand.getType()))
        continue;
      Value root = getRootBuffer(operand);
      if (isa_and_nonnull<gpu::AllocOp>(root.getDefiningOp()) ||
          isDeviceResident(root))
        continue;
      auto type = dyn_cast<MemRefType>(root.getType());
      if (!type || !type.getLayout().isIdentity())
        return launch.emitError("kernel operand #")
               << index << " is a view of a host buffer of type "
               << root.getType()
               << "; only host buffers with an identity layout are copied "
                  "to the device";
      roots[index] = root;
      Access access;
      if (index < kernel.getNumArguments())
        collectAccess(kernel.getArgument(index), access);
      else
        access.read = access.write = true;
      auto it = live.find(root);
      if (it == live.end()) {
        SmallVector<Value> sizes;
        for (int64_t dim = 0; dim < type.getRank(); ++dim)
          if (type.isDynamicDim(dim))
            sizes.push_back(memref::DimOp::create(builder, loc, root, dim));
        auto device =
            gpu::AllocOp::create(builder, loc, type, tokenType,
                                 ValueRange{token}, sizes, ValueRange());
        token = device.getAsyncToken();
        it = live.insert({root,
                          {device.getMemref(), false,
                           !mayHoldDataBefore(root, launch)}})
                 .first;
      }
      DeviceCopy &copy = it->second;
      // A written buffer is copied in too: the kernel may write only part
      // of it (a slice), and copying the whole buffer back must not clobber
      // the rest with uninitialized device memory. Not so a fresh
      // allocation that nothing accessed yet: its other parts are undefined
      // either way.
      if ((access.read || access.write) && !copy.filled) {
        token = gpu::MemcpyOp::create(builder, loc, tokenType,
                                      ValueRange{token}, copy.device, root)
                    .getAsyncToken();
        copy.filled = true;
      }
      copy.written |= access.write;
    }

    for (auto [index, operand] : llvm::enumerate(operands)) {
      if (!roots[index])
        continue;
      IRMapping mapping;
      mapping.map(roots[index], live[roots[index]].device);
      SmallVector<Operation *> chain;
      for (Value view = operand; view != roots[index];
           view = view.getDefiningOp()->getOperand(0))
        chain.push_back(view.getDefiningOp());
      for (Operation *view : llvm::reverse(chain))
        builder.clone(*view, mapping);
      operand = mapping.lookupOrDefault(operand);
    }
    std::optional<gpu::KernelDim3> cluster;
    if (launch.hasClusterSize())
      cluster = launch.getClusterSizeOperandValues();
    auto async = gpu::LaunchFuncOp::create(
        builder, loc, launch.getKernel(), launch.getGridSizeOperandValues(),
        launch.getBlockSizeOperandValues(), launch.getDynamicSharedMemorySize(),
        operands, tokenType, ValueRange{token}, cluster);
    if (launch.getAsyncToken()) {
      Value last = settleAfter(builder, loc, async.getAsyncToken(), live);
      launch.getAsyncToken().replaceAllUsesWith(last);
    } else {
      pending = async.getAsyncToken();
    }
    launch.erase();
    return success();
  }

  /// The functions whose return may leave device work queued.
  llvm::SmallPtrSet<Operation *, 8> leavingDeviceWork;
};
} // namespace
