//===- RuntimeBuiltins.h - builtins the host's libgcc may lack --*- C++ -*-===//
//
// LLVM lowers some conversions to calls of compiler-rt / libgcc builtins
// when the CPU has no instruction for them: f32 -> bf16 (`__truncsfbf2`)
// without AVX512-BF16, for instance. The JIT resolves such calls in the
// running process, and GCC 12's libgcc_s (Debian 12) has no bf16 builtins,
// so any module that rounds to bf16 would fail to link. quant-run defines
// them for the JIT-compiled code.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_RUNNER_RUNTIMEBUILTINS_H
#define QUANT_BLOCK_RUNNER_RUNTIMEBUILTINS_H

#include "llvm/ExecutionEngine/Orc/CoreContainers.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstdint>

namespace mlir::quant_block::runner {

/// f32 / f64 to bf16 bits, rounding to nearest even; NaNs stay NaNs (quiet,
/// with their sign), overflow gives infinity, as compiler-rt does.
uint16_t truncateF32ToBF16Bits(float value);
uint16_t truncateF64ToBF16Bits(double value);

/// `__truncsfbf2` and `__truncdfbf2`, for ExecutionEngine::registerSymbols;
/// empty on hosts whose calling convention for bf16 results is not known
/// here (other than x86-64 and AArch64).
llvm::orc::SymbolMap
getRuntimeBuiltinSymbols(llvm::orc::MangleAndInterner interner);

} // namespace mlir::quant_block::runner

#endif // QUANT_BLOCK_RUNNER_RUNTIMEBUILTINS_H
