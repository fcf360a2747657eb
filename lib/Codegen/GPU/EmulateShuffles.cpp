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
    // of a block with the same offset and width whose values all exist at
    // the first of them (a butterfly's step over several sums).
    SmallVector<SmallVector<gpu::ShuffleOp>> exchanges;
    for (gpu::ShuffleOp shuffle : shuffles) {
      if (!exchanges.empty()) {
        gpu::ShuffleOp first = exchanges.back().front();
        Value value = shuffle.getValue();
        Operation *definition = value.getDefiningOp();
        bool available = value.getParentBlock() != first->getBlock() ||
                         !definition || definition->isBeforeInBlock(first);
        if (shuffle->getBlock() == first->getBlock() && available &&
            getConstantIntValue(shuffle.getOffset()) ==
                getConstantIntValue(first.getOffset()) &&
            getConstantIntValue(shuffle.getWidth()) ==
                getConstantIntValue(first.getWidth())) {
          exchanges.back().push_back(shuffle);
          continue;
        }
      }
      exchanges.push_back({shuffle});
    }
    int64_t slots = 0;
    for (ArrayRef<gpu::ShuffleOp> exchange : exchanges)
      slots = std::max<int64_t>(slots, exchange.size());

    Type i32 = IntegerType::get(launch.getContext(), 32);
    Value buffer = quant_block::createWorkgroupBuffer(
        launch, slots * *sizeX, workgroupMemory == "attribution");
    OpBuilder b(launch.getContext());
    Value thread = launch.getThreadIds().x;
    for (MutableArrayRef<gpu::ShuffleOp> exchange : exchanges) {
      gpu::ShuffleOp first = exchange.front();
      b.setInsertionPoint(first);
      Location exchangeLoc = first.getLoc();
      // Value i of the exchange at slot i * size + thread.
      auto slot = [&](Value threadIndex, int64_t i) -> Value {
        if (i == 0)
          return threadIndex;
        return arith::AddIOp::create(
            b, exchangeLoc, threadIndex,
            arith::ConstantIndexOp::create(b, exchangeLoc, i * *sizeX));
      };
      for (auto [i, shuffle] : llvm::enumerate(exchange)) {
        Value value = shuffle.getValue();
        Value bits = value.getType() == i32
                         ? value
                         : arith::BitcastOp::create(b, exchangeLoc, i32, value)
                               .getResult();
        memref::StoreOp::create(b, exchangeLoc, bits, buffer, slot(thread, i));
      }
      gpu::BarrierOp::create(b, exchangeLoc);
      Value offset = arith::IndexCastOp::create(
          b, exchangeLoc, b.getIndexType(), first.getOffset());
      Value partner = arith::XOrIOp::create(b, exchangeLoc, thread, offset);
      SmallVector<Value> theirs;
      for (auto [i, shuffle] : llvm::enumerate(exchange)) {
        Value loaded = memref::LoadOp::create(b, exchangeLoc, buffer,
                                              ValueRange{slot(partner, i)});
        Type type = shuffle.getValue().getType();
        if (type != i32)
          loaded = arith::BitcastOp::create(b, exchangeLoc, type, loaded);
        theirs.push_back(loaded);
      }
      // The buffer is written again by the next exchange.
      gpu::BarrierOp::create(b, exchangeLoc);
      Value valid =
          arith::ConstantOp::create(b, exchangeLoc, b.getBoolAttr(true));
      for (auto [shuffle, value] : llvm::zip(exchange, theirs)) {
        shuffle.getShuffleResult().replaceAllUsesWith(value);
        shuffle.getValid().replaceAllUsesWith(valid);
        shuffle.erase();
      }
    }
    return success();
  }
};
} // namespace
