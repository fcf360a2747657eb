//===- MemRefMarshaling.cpp - arguments and results of a packed call ------===//
//
// Builds the `void **` array of an ExecutionEngine packed call from .npy
// arrays, lays out the storage of the returned value the way LLVM lays out
// the returned struct, and turns returned memref descriptors back into dense
// arrays.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/MemRefMarshaling.h"

#include "quant-block/Runner/CachingAllocator.h"

#include "llvm/ADT/DenseSet.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::quant_block::runner;

/// memref.get_global lowers to a descriptor whose allocated pointer is this
/// marker, so that a stray dealloc of a global is recognizable.
static constexpr uintptr_t kGlobalMarker = 0xdeadbeef;

/// Size and alignment of a returned value in LLVM's layout (x86-64 and
/// AArch64 data layouts: every scalar is aligned to its size; the descriptor
/// is pointers and i64s).
static size_t getResultSize(const BoundaryValue &value) {
  return value.isShaped ? 8 * (3 + 2 * value.getRank()) : value.dtype.size;
}
static size_t getResultAlignment(const BoundaryValue &value) {
  return value.isShaped ? 8 : value.dtype.size;
}

PackedCall::PackedCall(const EntrySignature &signature) : signature(signature) {
  unsigned slots = 0;
  for (const BoundaryValue &argument : signature.arguments) {
    firstSlot.push_back(slots);
    slots += argument.getNumLLVMArguments();
  }
  argumentSlots.assign(slots, 0);

  size_t offset = 0;
  for (const BoundaryValue &result : signature.results) {
    size_t alignment = getResultAlignment(result);
    offset = (offset + alignment - 1) / alignment * alignment;
    resultOffsets.push_back(offset);
    offset += getResultSize(result);
  }
  resultStorage.assign((offset + 7) / 8, 0);

  for (uint64_t &slot : argumentSlots)
    packed.push_back(&slot);
  if (!signature.results.empty())
    packed.push_back(resultStorage.data());
}

void PackedCall::setArgument(unsigned index, const NpyArray &array) {
  setDenseArgument(index, array.buffer.data(), array.shape);
}

void PackedCall::setDenseArgument(unsigned index, const void *data,
                                  llvm::ArrayRef<int64_t> shape) {
  const BoundaryValue &argument = signature.arguments[index];
  uint64_t *slot = &argumentSlots[firstSlot[index]];
  if (!argument.isShaped) {
    // The wrapper loads the scalar from the slot: the low bytes on a
    // little-endian host.
    std::memcpy(slot, data, argument.dtype.size);
    return;
  }
  auto pointer = reinterpret_cast<uintptr_t>(data);
  int64_t rank = argument.getRank();
  slot[0] = pointer; // allocated
  slot[1] = pointer; // aligned
  slot[2] = 0;       // offset
  int64_t stride = 1;
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    slot[3 + dim] = shape[dim];
    slot[3 + rank + dim] = stride;
    stride *= shape[dim];
  }
}

void **PackedCall::prepare() {
  std::fill(resultStorage.begin(), resultStorage.end(), 0);
  return packed.data();
}

MemRefView PackedCall::getMemRefResult(unsigned index) const {
  const BoundaryValue &result = signature.results[index];
  auto *words = reinterpret_cast<const int64_t *>(
      reinterpret_cast<const char *>(resultStorage.data()) +
      resultOffsets[index]);
  int64_t rank = result.getRank();
  MemRefView view;
  view.allocated = reinterpret_cast<void *>(words[0]);
  view.aligned = reinterpret_cast<void *>(words[1]);
  view.offset = words[2];
  view.sizes.assign(words + 3, words + 3 + rank);
  view.strides.assign(words + 3 + rank, words + 3 + 2 * rank);
  return view;
}

void mlir::quant_block::runner::copyToDense(const MemRefView &view,
                                            unsigned elementSize,
                                            char *destination) {
  int64_t rank = view.sizes.size();
  for (int64_t size : view.sizes)
    if (size == 0)
      return;
  const char *base =
      static_cast<const char *>(view.aligned) + view.offset * elementSize;
  if (rank == 0) {
    std::memcpy(destination, base, elementSize);
    return;
  }
  // Walk the outer dimensions with an odometer; copy innermost rows whole
  // when they are contiguous.
  llvm::SmallVector<int64_t> index(rank, 0);
  int64_t inner = view.sizes[rank - 1];
  int64_t innerStride = view.strides[rank - 1];
  while (true) {
    int64_t offset = 0;
    for (int64_t dim = 0; dim + 1 < rank; ++dim)
      offset += index[dim] * view.strides[dim];
    const char *row = base + offset * elementSize;
    if (innerStride == 1) {
      std::memcpy(destination, row, inner * elementSize);
      destination += inner * elementSize;
    } else {
      for (int64_t i = 0; i < inner; ++i, destination += elementSize)
        std::memcpy(destination, row + i * innerStride * elementSize,
                    elementSize);
    }
    int64_t dim = rank - 2;
    for (; dim >= 0; --dim) {
      if (++index[dim] < view.sizes[dim])
        break;
      index[dim] = 0;
    }
    if (dim < 0)
      return;
  }
}

llvm::Expected<NpyArray> PackedCall::copyResult(unsigned index) const {
  const BoundaryValue &result = signature.results[index];
  NpyArray array;
  array.dtype = result.dtype;
  if (result.isShaped) {
    MemRefView view = getMemRefResult(index);
    array.shape = view.sizes;
    llvm::Expected<AlignedBuffer> buffer =
        AlignedBuffer::allocate(array.getByteSize());
    if (!buffer)
      return buffer.takeError();
    array.buffer = std::move(*buffer);
    copyToDense(view, array.dtype.size, array.buffer.data());
    return std::move(array);
  }
  llvm::Expected<AlignedBuffer> buffer =
      AlignedBuffer::allocate(array.dtype.size);
  if (!buffer)
    return buffer.takeError();
  array.buffer = std::move(*buffer);
  std::memcpy(array.buffer.data(),
              reinterpret_cast<const char *>(resultStorage.data()) +
                  resultOffsets[index],
              array.dtype.size);
  return std::move(array);
}

void PackedCall::freeResults() {
  llvm::DenseSet<uintptr_t> keep = {0, kGlobalMarker};
  for (auto [index, argument] : llvm::enumerate(signature.arguments))
    if (argument.isShaped)
      keep.insert(argumentSlots[firstSlot[index]]);
  for (auto [index, result] : llvm::enumerate(signature.results)) {
    if (!result.isShaped)
      continue;
    auto allocated =
        reinterpret_cast<uintptr_t>(getMemRefResult(index).allocated);
    if (keep.insert(allocated).second)
      cachingFree(reinterpret_cast<void *>(allocated));
  }
  std::fill(resultStorage.begin(), resultStorage.end(), 0);
}
