//===- EmulateWarpMatrixProducts.cpp - nvgpu.mma.sync in workgroup memory -===//
//
// --quant-block-gpu-emulate-warp-matrix-products: see Passes.td. The
// tensor-core kernels of --quant-block-gpu-matmul-kernels compute with
// warp-level matrix products (int8 block sums, f16 or bf16 products),
// whose operands are spread over the registers of a warp's 32 threads in
// the layout PTX defines for mma.m16n8k32 and mma.m16n8k16. Targets
// without them (Vulkan) get the same sums by exchanging those registers
// through workgroup memory, so that the kernels, their fragment loads and
// their epilogues run, and are tested, on lavapipe.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Codegen/GPU/Passes.h"

#include "WorkgroupExchanges.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::quant_block {
#define GEN_PASS_DEF_GPUEMULATEWARPMATRIXPRODUCTS
#include "quant-block/Codegen/GPU/Passes.h.inc"
} // namespace mlir::quant_block

using namespace mlir;

namespace {

/// Threads of a warp.
constexpr int64_t kLanes = 32;
/// Registers (32-bit words) of A and of B per thread in mma.m16n8k32.s8
/// and mma.m16n8k16.f16 / .bf16 alike.
constexpr int64_t kRegistersA = 4, kRegistersB = 2;

/// The products the emulation performs.
enum class ProductKind {
  /// mma.m16n8k32, s8 inputs (4 a register), s32 accumulators.
  Int8,
  /// mma.m16n8k16, f16 or bf16 inputs (2 a register), f32 accumulators.
  Half,
};

/// The kind of `product`, or std::nullopt for one the emulation lacks.
std::optional<ProductKind> getProductKind(nvgpu::MmaSyncOp product) {
  auto fragment = [](Value value, int64_t rows, int64_t columns,
                     auto isElement) {
    auto vector = dyn_cast<VectorType>(value.getType());
    return vector && vector.getShape() == ArrayRef<int64_t>{rows, columns} &&
           isElement(vector.getElementType());
  };
  SmallVector<int64_t> shape;
  for (Attribute size : product.getMmaShape())
    shape.push_back(cast<IntegerAttr>(size).getInt());
  auto isI8 = [](Type t) { return t.isInteger(8); };
  auto isI32 = [](Type t) { return t.isInteger(32); };
  // (The op's verifier gives both factors one type.)
  auto isHalf = [](Type t) { return t.isF16() || t.isBF16(); };
  auto isF32 = [](Type t) { return t.isF32(); };
  if (shape == SmallVector<int64_t>{16, 8, 32} &&
      fragment(product.getMatrixA(), kRegistersA, 4, isI8) &&
      fragment(product.getMatrixB(), kRegistersB, 4, isI8) &&
      fragment(product.getMatrixC(), 2, 2, isI32))
    return ProductKind::Int8;
  if (shape == SmallVector<int64_t>{16, 8, 16} &&
      fragment(product.getMatrixA(), kRegistersA, 2, isHalf) &&
      fragment(product.getMatrixB(), kRegistersB, 2, isHalf) &&
      fragment(product.getMatrixC(), 2, 2, isF32))
    return ProductKind::Half;
  return std::nullopt;
}

struct GPUEmulateWarpMatrixProductsPass
    : public quant_block::impl::GPUEmulateWarpMatrixProductsBase<
          GPUEmulateWarpMatrixProductsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(quant_block::verifyWorkgroupMemoryOption(getOperation(),
                                                        workgroupMemory)))
      return signalPassFailure();
    buffers.clear();
    SmallVector<nvgpu::MmaSyncOp> products;
    getOperation().walk(
        [&](nvgpu::MmaSyncOp product) { products.push_back(product); });
    for (nvgpu::MmaSyncOp product : products)
      if (failed(emulate(product)))
        return signalPassFailure();
  }

  /// The workgroup buffer of each launch, made at its first product.
  llvm::DenseMap<Operation *, Value> buffers;

  LogicalResult emulate(nvgpu::MmaSyncOp product) {
    std::optional<ProductKind> kind = getProductKind(product);
    if (!kind)
      return product.emitOpError()
             << "cannot be emulated: only mmaShape [16, 8, 32] with "
                "vector<4x4xi8>, vector<2x4xi8> and vector<2x2xi32> operands "
                "(s8 inputs, s32 accumulators) and [16, 8, 16] with "
                "vector<4x2xf16>, vector<2x2xf16> (or bf16) and "
                "vector<2x2xf32> operands are";
    auto launch = product->getParentOfType<gpu::LaunchOp>();
    if (!launch)
      return product.emitOpError()
             << "cannot be emulated outside a gpu.launch (its warps are the "
                "launch's threads)";
    std::optional<int64_t> sizeX = quant_block::getLinearWorkgroupSize(launch);
    if (!sizeX || *sizeX % kLanes != 0)
      return product.emitOpError()
             << "cannot be emulated: the workgroup size must be constant, "
                "one-dimensional and whole warps of "
             << kLanes;
    if (std::optional<std::string> whyNot =
            quant_block::whyNotReachedByWholeWorkgroup(product, launch))
      return product.emitOpError()
             << "cannot be emulated with workgroup memory: " << *whyNot;
    int64_t size = *sizeX;
    Value &buffer = buffers[launch];
    if (!buffer)
      buffer = quant_block::createWorkgroupBuffer(
          launch, (kRegistersA + kRegistersB) * size,
          workgroupMemory == "attribution");

    OpBuilder b(product);
    Location loc = product.getLoc();
    Type i32 = b.getI32Type();
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    auto i32Constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
    };
    // Register r of thread `thread` at slot r * size + thread.
    auto slot = [&](Value thread, int64_t r) -> Value {
      return arith::AddIOp::create(b, loc, thread, index(r * size));
    };
    // Register r of a fragment (4 bytes) as its i32 word.
    auto word = [&](Value fragment, int64_t r) -> Value {
      Value bytes = vector::ExtractOp::create(b, loc, fragment, r);
      Value single =
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), bytes);
      return vector::ExtractOp::create(b, loc, single, 0);
    };
    Value thread = launch.getThreadIds().x;
    // (Each value is built in its own statement: the order of the ops
    // must not depend on the compiler's order of evaluating arguments.)
    for (int64_t r = 0; r < kRegistersA + kRegistersB; ++r) {
      Value value = r < kRegistersA
                        ? word(product.getMatrixA(), r)
                        : word(product.getMatrixB(), r - kRegistersA);
      Value at = slot(thread, r);
      memref::StoreOp::create(b, loc, value, buffer, at);
    }
    gpu::BarrierOp::create(b, loc);

    Value lane = arith::RemUIOp::create(b, loc, thread, index(kLanes));
    Value warp = arith::SubIOp::create(b, loc, thread, lane);
    Value group = arith::DivUIOp::create(b, loc, lane, index(4));
    Value quad = arith::RemUIOp::create(b, loc, lane, index(4));
    // Byte `i` of `value`, sign-extended to i32.
    auto signedByte = [&](Value value, int64_t i) -> Value {
      if (i != 3)
        value = arith::ShLIOp::create(b, loc, value, i32Constant(24 - 8 * i));
      return arith::ShRSIOp::create(b, loc, value, i32Constant(24));
    };
    // Half `i` of `word` (two f16 or bf16), extended to f32.
    Type halfType = getElementTypeOrSelf(product.getMatrixA().getType());
    auto halfValue = [&](Value word, int64_t i) -> Value {
      Value single = vector::FromElementsOp::create(
          b, loc, VectorType::get({1}, i32), word);
      Value pair = vector::BitCastOp::create(
          b, loc, VectorType::get({2}, halfType), single);
      Value value = vector::ExtractOp::create(b, loc, pair, i);
      return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    };
    SmallVector<Value> results;
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        // Row g + 8 i of A, column 2 t + j of B, in words of 4 k.
        Value twiceQuad = arith::MulIOp::create(b, loc, quad, index(2));
        Value column = arith::AddIOp::create(b, loc, twiceQuad, index(j));
        Value sum = vector::ExtractOp::create(b, loc, product.getMatrixC(),
                                              ArrayRef<int64_t>{i, j});
        for (int64_t k = 0; k < 8; ++k) {
          // Word k (k = 4 k .. 4 k + 3) of row g + 8 i: thread 4 g + k % 4
          // of the warp, register i + 2 (k / 4); of column n: thread
          // 4 n + k % 4, register k / 4 of B.
          auto warpThread = [&](Value quadIndex) -> Value {
            Value first = arith::MulIOp::create(b, loc, quadIndex, index(4));
            Value inWarp = arith::AddIOp::create(b, loc, first, index(k % 4));
            return arith::AddIOp::create(b, loc, warp, inWarp);
          };
          Value aSlot = slot(warpThread(group), i + 2 * (k / 4));
          Value a = memref::LoadOp::create(b, loc, buffer, aSlot);
          Value bSlot = slot(warpThread(column), kRegistersA + k / 4);
          Value bWord = memref::LoadOp::create(b, loc, buffer, bSlot);
          if (*kind == ProductKind::Int8) {
            for (int64_t byte = 0; byte < 4; ++byte) {
              Value x = signedByte(a, byte);
              Value y = signedByte(bWord, byte);
              Value product = arith::MulIOp::create(b, loc, x, y);
              sum = arith::AddIOp::create(b, loc, sum, product);
            }
            continue;
          }
          // Two f16 or bf16 values a word, their (exact) products added in
          // f32 in k order: one order of the tensor cores' sums.
          for (int64_t half = 0; half < 2; ++half) {
            Value x = halfValue(a, half);
            Value y = halfValue(bWord, half);
            Value product = arith::MulFOp::create(b, loc, x, y);
            sum = arith::AddFOp::create(b, loc, sum, product);
          }
        }
        results.push_back(sum);
      }
    }
    // The buffer is written again by the next product.
    gpu::BarrierOp::create(b, loc);
    Value result = vector::FromElementsOp::create(
        b, loc, cast<VectorType>(product.getType()), results);
    product.replaceAllUsesWith(result);
    product.erase();
    return success();
  }
};

} // namespace
