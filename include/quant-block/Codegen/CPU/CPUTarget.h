//===- CPUTarget.h - the CPU a module is compiled for -----------*- C++ -*-===//
//
// The CPU pipeline's `target-cpu` / `target-features` options resolved from
// LLVM's processor tables (or the host's), apart from any IR: which of the
// pipeline's x86 kernel options the target allows and what to record in the
// module, so that the same resolution serves the pipeline builder, the pass
// that records the target and the JIT's check of a module's target.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_CPU_CPUTARGET_H
#define QUANT_BLOCK_CODEGEN_CPU_CPUTARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class MCSubtargetInfo;
class Triple;
} // namespace llvm

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::quant_block {

/// A CPU resolved against LLVM's tables for the process's triple.
struct CPUTarget {
  /// The processor name ("host" resolved to the host's, e.g. "znver5").
  std::string cpu;
  /// The features to record beside it: those given, and for "host" the
  /// host's own (`+x` / `-x`: a virtual machine may lack what the name
  /// implies). Each starts with '+' or '-'.
  std::vector<std::string> features;
  /// What the pipeline's kernels may use on it.
  bool avx512f = false;
  bool avx512Vnni = false; // AVX512-VNNI and AVX512BW (vpdpbusd on zmm)
  /// AMX-TILE and AMX-INT8 (tdpbssd) with AVX512-VNNI (the kernel's
  /// other products and its rows left over).
  bool amxInt8 = false;
  /// AMX-TILE and AMX-BF16 (tdpbf16ps).
  bool amxBF16 = false;
  bool f16c = false;
  /// AVX512-VBMI (vpmultishiftqb: 6-bit codes spread to bytes) with
  /// AVX512-VNNI.
  bool avx512Vbmi = false;
  /// AVX512-BF16 (vcvtneps2bf16) with AVX512F.
  bool avx512BF16 = false;
  /// The widest vector registers, in bits (128 without AVX).
  int64_t vectorBits = 128;
};

/// Checks `cpu` (empty: none) and `features` (`+name` / `-name`) against
/// the processor and feature tables of `tables`, a subtarget of `triple`:
/// LLVM only warns about unknown names and goes on. The messages name the
/// options `optionPrefix` + "target-cpu" / "target-features".
llvm::Error checkTargetNames(const llvm::MCSubtargetInfo &tables,
                             const llvm::Triple &triple, llvm::StringRef cpu,
                             llvm::ArrayRef<std::string> features,
                             llvm::StringRef optionPrefix = "");

/// Resolves `cpu` ("host", a processor name, or empty: the generic CPU of
/// the triple) and `features` ("+avx512vnni,-avx512f", comma-separated) for
/// the triple of this process. Unknown processor or feature names are
/// errors (LLVM itself only warns about them).
llvm::Expected<CPUTarget> resolveCPUTarget(llvm::StringRef cpu,
                                           llvm::StringRef features);

/// The ISA features that code compiled for `cpu` with `features` may use
/// and the processor `targetCPU` with `targetFeatures` lacks (names without
/// '+'), e.g. to refuse to run a module compiled for AVX-512 on a host
/// without it.
llvm::Expected<std::vector<std::string>>
getMissingFeatures(llvm::StringRef cpu, llvm::ArrayRef<std::string> features,
                   llvm::StringRef targetCPU,
                   llvm::ArrayRef<std::string> targetFeatures);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_CODEGEN_CPU_CPUTARGET_H
