//===- Passes.td - NVVM code generation passes -------------*- tablegen -*-===//
//
// The passes of --quant-block-nvvm-pipeline alone, after the GPU middle.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CODEGEN_NVVM_PASSES_TD
#define QUANT_BLOCK_CODEGEN_NVVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUNativeMath : Pass<"quant-block-gpu-native-math", "gpu::GPUModuleOp"> {
  let summary = "Use PTX instructions instead of libdevice for exact math";
  let description = [{
    Runs after `convert-gpu-to-nvvm`, which lowers `math.roundeven`,
    `math.absf` & co. to calls of CUDA's libdevice (`__nv_rintf`) and
    declares illegal the LLVM intrinsics that would avoid them.
    `gpu-module-to-binary` links libdevice only when it finds a CUDA toolkit
    (CUDA_HOME) at compile time: without one the PTX names an unresolved
    function that ptxas rejects. This pass replaces the calls of the
    libdevice functions that compute exactly what one PTX instruction does
    (rint, fabs, fma, floor, ceil, trunc, copysign; f32 and f64) by the LLVM
    intrinsics (`cvt.rni`, `abs`, `fma.rn`, `cvt.rmi`, ...) and drops their
    declarations: the PTX then depends on no toolkit. Other libdevice calls
    (exp, log, ...) stay.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
  ];
}

#endif // QUANT_BLOCK_CODEGEN_NVVM_PASSES_TD
