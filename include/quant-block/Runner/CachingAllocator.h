//===- CachingAllocator.h - malloc/free for benchmarked code ----*- C++ -*-===//
//
// The lowered code allocates its results and temporaries with malloc and
// frees them with free. A large block (glibc: above 32 MiB, always mmap'ed)
// comes back as fresh pages on every call, and touching 64 MiB of fresh
// pages costs tens of milliseconds, more than dequantizing into them: a
// benchmark would time the kernel's page faults. An inference runtime keeps
// its buffers (or its allocator caches them), so a benchmark should too.
// quant-run therefore gives the JIT-compiled code these functions instead of
// libc's while it benchmarks: a block freed by one call is handed, pages
// already mapped, to the next call that asks for the same size.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_CACHINGALLOCATOR_H
#define QUANT_BLOCK_RUNNER_CACHINGALLOCATOR_H

#include "llvm/ExecutionEngine/Orc/CoreContainers.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstddef>

namespace mlir::quant_block::runner {

/// malloc / aligned_alloc that first reuse a cached block of the same size
/// and alignment; blocks are 64-byte aligned.
void *cachingMalloc(size_t size);
void *cachingAlignedAlloc(size_t alignment, size_t size);

/// As cachingMalloc / cachingAlignedAlloc for blocks of 32 MiB or more (the
/// ones glibc maps afresh each time); smaller ones come from libc, uncached
/// (cachingFree hands them back to it).
void *largeBlockCachingMalloc(size_t size);
void *largeBlockCachingAlignedAlloc(size_t alignment, size_t size);

/// Caches a block from cachingMalloc / cachingAlignedAlloc for reuse; hands
/// any other pointer to std::free, so it is also the right way to free what
/// compiled code returns when the caching allocator is not in use.
void cachingFree(void *pointer);

/// Releases every cached block to the system.
void releaseCachedBlocks();

/// The symbols `malloc`, `aligned_alloc` and `free` bound to the functions
/// above (with `largeBlocksOnly`, the largeBlock* ones), for
/// mlir::ExecutionEngine::registerSymbols.
llvm::orc::SymbolMap
getCachingAllocatorSymbols(llvm::orc::MangleAndInterner interner,
                           bool largeBlocksOnly = false);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_CACHINGALLOCATOR_H
