//===- EmulateShuffles.cpp - gpu.shuffle xor through workgroup memory -----===//
//
// --quant-block-gpu-emulate-shuffles: see Passes.td. Kernels written for
// warps of 32 threads exchange partial sums with gpu.shuffle xor. Vulkan
// devices have subgroups of other sizes (lavapipe: 8, many GPUs: 64), and
// a shuffle across a 32-wide "warp" is then undefined; workgroup memory and
// barriers give the same exchange on any device.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "WorkgroupExchanges.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUEMULATESHUFFLES
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

/// Why `shuffle` cannot be emulated in `launch` with `workgroupSize`
/// threads (std::nullopt when it can).
static std::optional<std::string> whyNotEmulated(gpu::ShuffleOp shuffle,
                                                 gpu::LaunchOp launch,
                                                 int64_t workgroupSize) {
  if (shuffle.getMode() != gpu::ShuffleMode::XOR)
    return std::string("only xor shuffles are emulated");
  std::optional<int64_t> offset = getConstantIntValue(shuffle.getOffset());
  std::optional<int64_t> width = getConstantIntValue(shuffle.getWidth());
  if (!offset || !width)
    return std::string("the offset and the width must be constants");
  if (*width <= 0 || !llvm::isPowerOf2_64(*width) ||
      workgroupSize % *width != 0 || *offset < 0 || *offset >= *width)
    return "the width (" + std::to_string(*width) +
           ") must be a power of two dividing the workgroup size (" +
           std::to_string(workgroupSize) + ") and the offset (" +
           std::to_string(*offset) + ") below it";
  Type type = shuffle.getValue().getType();
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() != 32)
    return std::string("only 32-bit scalars are emulated");
  return quant_block::whyNotReachedByWholeWorkgroup(shuffle, launch);
}

namespace {
struct GPUEmulateShufflesPass
    : public quant_block::impl::GPUEmulateShufflesBase<GPUEmulateShufflesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(quant_block::verifyWorkgroupMemoryOption(getOperation(),
                                                        workgroupMemory)))
      return signalPassFailure();
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk(
        [&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulate(launch)))
        return signalPassFailure();
  }

  LogicalResult emulate(gpu::LaunchOp launch) {
    SmallVector<gpu::ShuffleOp> shuffles;
    launch.getBody().walk([&](gpu::ShuffleOp shuffle) {
      if (shuffle->getParentOfType<gpu::LaunchOp>() != launch)
        return;
      // Shuffles within the device's subgroups stay native: xor shuffles
      // whose offset is below the subgroup size (subgroups are consecutive
      // threads, so `t ^ offset` is in the subgroup of `t`), which then say
      // so by their width (convert-gpu-to-spirv lowers only shuffles of
      // the target's subgroup width), and other shuffles at most a
      // subgroup wide.
      std::optional<int64_t> width = getConstantIntValue(shuffle.getWidth());
      std::optional<int64_t> offset = getConstantIntValue(shuffle.getOffset());
      if (nativeWidth > 0 && width && offset &&
          shuffle.getMode() == gpu::ShuffleMode::XOR &&
          llvm::isPowerOf2_64(*width) && *offset >= 0 &&
          *offset < std::min<int64_t>(*width, nativeWidth)) {
        if (*width != nativeWidth) {
          OpBuilder b(shuffle);
          shuffle.getWidthMutable().assign(arith::ConstantOp::create(
              b, shuffle.getLoc(), b.getI32IntegerAttr(nativeWidth)));
        }
        return;
      }
      if (nativeWidth > 0 && width && *width <= nativeWidth)
        return;
      shuffles.push_back(shuffle);
    });
    if (shuffles.empty())
      return success();
    std::optional<int64_t> sizeX = quant_block::getLinearWorkgroupSize(launch);
    if (!sizeX)
      return shuffles.front().emitOpError()
             << "cannot be emulated: the workgroup size must be constant and "
                "one-dimensional";
    for (gpu::ShuffleOp shuffle : shuffles)
      if (std::optional<std::string> whyNot =
              whyNotEmulated(shuffle, launch, *sizeX))
        return shuffle.emitOpError()
               << "cannot be emulated with workgroup memory: " << *whyNot;

    // Exchanges that may share one pair of barriers: consecutive shuffles
    // of a block with the same width whose values all exist at the first
    // of them (a butterfly's step over several sums, or lane 0 gathering
    // each lane's terms by offsets 1, 2, 3, ...).
    SmallVector<SmallVector<gpu::ShuffleOp>> exchanges;
    for (gpu::ShuffleOp shuffle : shuffles) {
      if (!exchanges.empty()) {
        gpu::ShuffleOp first = exchanges.back().front();
        Value value = shuffle.getValue();
        Operation *definition = value.getDefiningOp();
        bool available = value.getParentBlock() != first->getBlock() ||
                         !definition || definition->isBeforeInBlock(first);
        if (shuffle->getBlock() == first->getBlock() && available &&
            getConstantIntValue(shuffle.getWidth()) ==
                getConstantIntValue(first.getWidth())) {
          exchanges.back().push_back(shuffle);
          continue;
        }
      }
      exchanges.push_back({shuffle});
    }
    // Each distinct value of an exchange has its own slots.
    SmallVector<llvm::MapVector<Value, int64_t>> slotsOfExchanges;
    int64_t slots = 0;
    for (ArrayRef<gpu::ShuffleOp> exchange : exchanges) {
      llvm::MapVector<Value, int64_t> &slotOf = slotsOfExchanges.emplace_back();
      for (gpu::ShuffleOp shuffle : exchange)
        slotOf.try_emplace(shuffle.getValue(), slotOf.size());
      slots = std::max<int64_t>(slots, slotOf.size());
    }

    Type i32 = IntegerType::get(launch.getContext(), 32);
    Value buffer = quant_block::createWorkgroupBuffer(
        launch, slots * *sizeX, workgroupMemory == "attribution");
    OpBuilder b(launch.getContext());
    Value thread = launch.getThreadIds().x;
    for (auto [exchange, slotOf] : llvm::zip(exchanges, slotsOfExchanges)) {
      gpu::ShuffleOp first = exchange.front();
      b.setInsertionPoint(first);
      // Every shuffle's partner is within its width.
      Value valid =
          arith::ConstantOp::create(b, first.getLoc(), b.getBoolAttr(true));
      // Value i of the exchange at slot i * size + thread.
      auto slot = [&](Location loc, Value threadIndex, int64_t i) -> Value {
        if (i == 0)
          return threadIndex;
        return arith::AddIOp::create(
            b, loc, threadIndex,
            arith::ConstantIndexOp::create(b, loc, i * *sizeX));
      };
      for (auto [value, i] : slotOf) {
        Location loc = first.getLoc();
        Value bits =
            value.getType() == i32
                ? value
                : arith::BitcastOp::create(b, loc, i32, value).getResult();
        memref::StoreOp::create(b, loc, bits, buffer, slot(loc, thread, i));
      }
      gpu::BarrierOp::create(b, first.getLoc());
      // Each shuffle loads its partner's slot where it was (its value is
      // needed there, not before), the last one followed by the barrier
      // after which the buffer may be written again.
      for (gpu::ShuffleOp shuffle : exchange) {
        b.setInsertionPoint(shuffle);
        Location loc = shuffle.getLoc();
        Value offset = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                  shuffle.getOffset());
        Value partner = arith::XOrIOp::create(b, loc, thread, offset);
        Value loaded = memref::LoadOp::create(
            b, loc, buffer,
            ValueRange{slot(loc, partner, slotOf.lookup(shuffle.getValue()))});
        Type type = shuffle.getValue().getType();
        if (type != i32)
          loaded = arith::BitcastOp::create(b, loc, type, loaded);
        if (shuffle == exchange.back())
          gpu::BarrierOp::create(b, loc);
        shuffle.getShuffleResult().replaceAllUsesWith(loaded);
        shuffle.getValid().replaceAllUsesWith(valid);
        shuffle.erase();
      }
    }
    return success();
  }
};
} // namespace
