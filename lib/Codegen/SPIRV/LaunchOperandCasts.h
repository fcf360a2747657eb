//===- LaunchOperandCasts.h - host operands of retyped kernels --*- C++ -*-===//
//
// Shared by the SPIR-V passes that give kernel arguments the type of their
// bits (--quant-block-gpu-narrow-float-storage: 8-bit float buffers as i8;
// --quant-block-gpu-bf16-bits: bf16 buffers and scalars as i16).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_LIB_CODEGEN_SPIRV_LAUNCHOPERANDCASTS_H
#define QUANT_BLOCK_LIB_CODEGEN_SPIRV_LAUNCHOPERANDCASTS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::quant_block {

/// Makes every gpu.launch_func in `module` of a kernel in `retyped` pass
/// each operand whose type is no longer the kernel argument's as that
/// type: a memref through an unrealized_conversion_cast (the same buffer:
/// both lower to the same pointer), a scalar through arith.bitcast (the
/// same bits).
void castLaunchOperands(ModuleOp module,
                        const llvm::DenseSet<Operation *> &retyped);

} // namespace mlir::quant_block

#endif // QUANT_BLOCK_LIB_CODEGEN_SPIRV_LAUNCHOPERANDCASTS_H
