//===- JitCompiler.h - lower a module and JIT-compile it --------*- C++ -*-===//
//
// Runs a textual pass pipeline (by default --quant-block-cpu-pipeline) on the
// module, checks that the entry function came out with the calling
// convention quant-run marshals (expanded memref descriptors), and
// JIT-compiles the LLVM dialect for the host CPU at -O3 (the LLVM
// optimization pipeline and code generation both), so that a benchmark times
// optimized code.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_JITCOMPILER_H
#define QUANT_BLOCK_RUNNER_JITCOMPILER_H

#include "quant-block/Runner/EntrySignature.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir::quant_block::runner {

struct JitCompileOptions {
  /// A textual pass pipeline on builtin.module, with or without the
  /// `builtin.module(...)` anchor.
  std::string pipeline = "quant-block-cpu-pipeline";
  /// Prints the module after the pipeline to stdout.
  bool printIRAfterPipeline = false;
  /// Shared libraries the compiled code calls (libmlir_runner_utils.so for
  /// printMemref*).
  llvm::SmallVector<std::string> sharedLibPaths;
  /// Binds the compiled code's malloc, aligned_alloc and free to the caching
  /// allocator (CachingAllocator.h) instead of libc's.
  bool cachingAllocator = false;
};

/// Marks the entry's tensor arguments `bufferization.writable = false`: the
/// caller's arrays are inputs, so bufferization must copy rather than write
/// into them (repeated benchmark calls then see the same inputs).
void markTensorArgumentsReadOnly(ModuleOp module, llvm::StringRef entry);

/// Lowers `module` with `options.pipeline`, JIT-compiles it and runs its
/// global constructors. The pass pipeline's own diagnostics go to the
/// context's diagnostic handler; the returned error says which step failed.
llvm::Expected<std::unique_ptr<ExecutionEngine>>
lowerAndCompile(ModuleOp module, const EntrySignature &signature,
                const JitCompileOptions &options);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_JITCOMPILER_H
