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

/// The libomp of the LLVM installation found at configure time, or "".
llvm::StringRef getDefaultOpenMPLibrary();

struct JitCompileOptions {
  /// A textual pass pipeline on builtin.module, with or without the
  /// `builtin.module(...)` anchor.
  std::string pipeline = "quant-block-cpu-pipeline";
  /// Prints the module after the pipeline to stdout.
  bool printIRAfterPipeline = false;
  /// Shared libraries the compiled code calls (libmlir_runner_utils.so for
  /// printMemref*).
  llvm::SmallVector<std::string> sharedLibPaths;
  /// The CPU to generate code for (an LLVM processor name such as
  /// `x86-64-v3`); empty or `host`: the host CPU with its features.
  std::string targetCPU;
  /// LLVM target features added to (`+name`) or removed from (`-name`)
  /// those of targetCPU, comma-separated.
  std::string targetFeatures;
  /// The OpenMP runtime loaded when the lowered module has OpenMP ops (the
  /// CPU pipeline's parallel loops) and no library in sharedLibPaths is
  /// named libomp*; by default the libomp of the LLVM installation found at
  /// configure time (empty: none was found).
  std::string openMPLibrary = getDefaultOpenMPLibrary().str();
  /// Binds the compiled code's malloc, aligned_alloc and free to the caching
  /// allocator (CachingAllocator.h) instead of libc's.
  bool cachingAllocator = false;
};

/// Marks the entry's tensor arguments `bufferization.writable = false`: the
/// caller's arrays are inputs, so bufferization must copy rather than write
/// into them (repeated benchmark calls then see the same inputs).
void markTensorArgumentsReadOnly(ModuleOp module, llvm::StringRef entry);

/// The TargetMachine for `options.targetCPU` / `options.targetFeatures`
/// (default: the host) at -O3. Unknown CPU or feature names, and a target
/// the host cannot execute, are errors.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const JitCompileOptions &options);

/// Lowers `module` with `options.pipeline`, JIT-compiles it for the target
/// of `options` and runs its global constructors. A target the host cannot
/// execute (a feature the host lacks) is an error before anything runs. The
/// pass pipeline's own diagnostics go to the context's diagnostic handler; the
/// returned error says which step failed.
llvm::Expected<std::unique_ptr<ExecutionEngine>>
lowerAndCompile(ModuleOp module, const EntrySignature &signature,
                const JitCompileOptions &options);

/// The same for a module with several entries (the C runner API compiles a
/// module once and calls any of its functions): each lowered entry is
/// checked against its signature.
llvm::Expected<std::unique_ptr<ExecutionEngine>>
lowerAndCompile(ModuleOp module, llvm::ArrayRef<EntrySignature> signatures,
                const JitCompileOptions &options);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_JITCOMPILER_H
