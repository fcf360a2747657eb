//===- CompilerMemory.h - return the compiler's memory ----------*- C++ -*-===//
//
// A process that JIT-compiles and then serves (quant_block.llama: compile
// the prefill and decode functions, then run them for as long as the model
// is loaded) keeps, after compiling, memory only the compiler used: the
// pages of libMLIR.so and libLLVM.so that lowering and code generation
// touched (about 0.12 GiB for a LLaMA model's module), and the heap that
// they freed but malloc keeps. Neither is touched again until the next
// compilation, yet both count in the process's resident set for as long as
// it runs, beside the model's weights.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_COMPILERMEMORY_H
#define QUANT_BLOCK_RUNNER_COMPILERMEMORY_H

#include <cstdint>

namespace mlir::quant_block::runner {

/// Returns the free memory at the top of malloc's heaps to the system
/// (glibc's malloc_trim) and asks the kernel to page out the mappings of
/// the shared libraries that hold MLIR and LLVM (madvise MADV_PAGEOUT:
/// clean file pages are dropped, to be read back from the page cache by
/// the next compilation; it never discards data, and pages it cannot
/// reclaim stay). Compiled code keeps working: it calls neither library.
/// Returns the bytes of library mappings the kernel accepted the advice
/// for: 0 where the compiler is linked statically into the program, or
/// where the kernel lacks MADV_PAGEOUT (Linux before 5.4, other systems).
uint64_t releaseCompilerMemory();

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_COMPILERMEMORY_H
