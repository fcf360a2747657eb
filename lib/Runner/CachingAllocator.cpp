//===- CachingAllocator.cpp - malloc/free for benchmarked code ------------===//
//
// Blocks are cached by exact (size, alignment): a compiled function asks for
// the same sizes on every call with the same inputs, so exact matching finds
// them and never hands out a block larger than asked for. A mutex keeps the
// functions safe should compiled code ever allocate from several threads.
//
//===----------------------------------------------------------------------===//

#include "quant-block/Runner/CachingAllocator.h"

#include "llvm/ExecutionEngine/JITSymbol.h"

#include <cstddef>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace mlir::quant_block::runner;

namespace {
using BlockKey = std::pair<size_t, size_t>; // size, alignment

struct Cache {
  std::mutex mutex;
  /// The key of every block this allocator handed out and not released.
  std::unordered_map<void *, BlockKey> owned;
  /// Freed blocks, by key.
  std::map<BlockKey, std::vector<void *>> freed;
};
} // namespace

/// std::aligned_alloc of at least `size` bytes (it takes a multiple of the
/// alignment, and at least one).
static void *alignedAllocFromLibc(size_t alignment, size_t size) {
  size_t rounded =
      (std::max<size_t>(size, 1) + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, rounded);
}

static Cache &getCache() {
  // Never destroyed: compiled code may free after static destructors ran.
  static Cache *cache = new Cache();
  return *cache;
}

void *mlir::quant_block::runner::cachingAlignedAlloc(size_t alignment,
                                                     size_t size) {
  alignment = std::max<size_t>(alignment, 64);
  BlockKey key(size, alignment);
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.freed.find(key);
  if (it != cache.freed.end() && !it->second.empty()) {
    void *block = it->second.back();
    it->second.pop_back();
    return block;
  }
  void *block = alignedAllocFromLibc(alignment, size);
  if (block)
    cache.owned.emplace(block, key);
  return block;
}

void *mlir::quant_block::runner::cachingMalloc(size_t size) {
  return cachingAlignedAlloc(64, size);
}

void mlir::quant_block::runner::cachingFree(void *pointer) {
  if (!pointer)
    return;
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.owned.find(pointer);
  if (it == cache.owned.end()) {
    std::free(pointer);
    return;
  }
  cache.freed[it->second].push_back(pointer);
}

void mlir::quant_block::runner::releaseCachedBlocks() {
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  for (auto &[key, blocks] : cache.freed) {
    for (void *block : blocks) {
      cache.owned.erase(block);
      std::free(block);
    }
  }
  cache.freed.clear();
}

/// Blocks at least this large are what glibc maps afresh for every request
/// (its largest mmap threshold on 64-bit hosts); it serves smaller ones from
/// its heaps, whose pages stay mapped.
static constexpr size_t kLargeBlockBytes = size_t(32) << 20;

void *mlir::quant_block::runner::largeBlockCachingAlignedAlloc(size_t alignment,
                                                               size_t size) {
  if (size >= kLargeBlockBytes)
    return cachingAlignedAlloc(alignment, size);
  return alignedAllocFromLibc(
      std::max<size_t>(alignment, alignof(std::max_align_t)), size);
}

void *mlir::quant_block::runner::largeBlockCachingMalloc(size_t size) {
  if (size >= kLargeBlockBytes)
    return cachingMalloc(size);
  return std::malloc(size);
}

llvm::orc::SymbolMap mlir::quant_block::runner::getCachingAllocatorSymbols(
    llvm::orc::MangleAndInterner interner, bool largeBlocksOnly) {
  auto define = [](auto *function) {
    return llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(function),
        llvm::JITSymbolFlags::Exported);
  };
  llvm::orc::SymbolMap symbols;
  symbols[interner("malloc")] = largeBlocksOnly
                                    ? define(&largeBlockCachingMalloc)
                                    : define(&cachingMalloc);
  symbols[interner("aligned_alloc")] =
      largeBlocksOnly ? define(&largeBlockCachingAlignedAlloc)
                      : define(&cachingAlignedAlloc);
  symbols[interner("free")] = define(&cachingFree);
  return symbols;
}
