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
    (rint, fabs, fma, floor, ceil, trunc, copysign, sqrt; f32 and f64) by
    the LLVM intrinsics (`cvt.rni`, `abs`, `fma.rn`, `cvt.rmi`, ...,
    `sqrt.rn`: NVPTX's default for `llvm.sqrt` without `afn`, IEEE's
    correctly rounded root) and drops their declarations: the PTX then
    depends on no toolkit. Other libdevice calls (exp, log, ...) stay.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
  ];
}

def NVVMDotProducts : Pass<"quant-block-nvvm-dot-products",
                           "gpu::GPUModuleOp"> {
  let summary = "4-way byte dot products as PTX dp4a";
  let description = [{
    Runs on the kernels before `convert-gpu-to-nvvm`. Each 4-way byte dot
    product in the target-neutral form of
    --quant-block-gpu-matmul-kernels' `byte-dot-products` (the sum of the
    products of two `vector<4xi8>`, each sign- or zero-extended to i32,
    plus an optional accumulator; a factor may be a constant of bytes)
    becomes one `nvvm.dot.accumulate.4way` (PTX `dp4a`, sm_61 and later),
    which computes the same exact i32 sum (modulo 2^32, as the i32
    arithmetic of the form does):
    ```mlir
    // Before:
    %a32 = arith.extui %a : vector<4xi8> to vector<4xi32>
    %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
    %p = arith.muli %a32, %b32 : vector<4xi32>
    %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
    // After:
    %s = nvvm.dot.accumulate.4way %a <unsigned>, %b <signed>, %acc
        : vector<4xi8>, vector<4xi8>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::NVVM::NVVMDialect",
  ];
}

def NVVMMatrixProducts : Pass<"quant-block-nvvm-matrix-products",
                              "gpu::GPUModuleOp"> {
  let summary = "bf16 warp-level matrix products as nvvm.mma.sync";
  let description = [{
    Runs on the kernels before `convert-nvgpu-to-nvvm`, which lowers
    `nvgpu.mma.sync` for f16, tf32, f64 and integer factors but fails on
    bf16 ("failed to deduce operand PTX types"). Each `nvgpu.mma.sync` of
    shape [16, 8, 16] with `vector<4x2xbf16>` and `vector<2x2xbf16>`
    factors and `vector<2x2xf32>` accumulators (the bf16 tensor-core kernel
    of --quant-block-gpu-matmul-kernels) becomes one `nvvm.mma.sync`,
    PTX `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` (sm_80 and
    later): each fragment register (two bf16 of consecutive k) is passed
    as the i32 it occupies, in the order nvgpu's fragments define (the
    same registers as the f16 product). Other products are left to
    `convert-nvgpu-to-nvvm`.
    ```mlir
    // Before:
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]}
        : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>)
        -> vector<2x2xf32>
    // After (A's and B's registers bitcast to i32):
    %s = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1]
        C[%c00, %c01, %c10, %c11]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<bf16>,
         multiplicandBPtxType = #nvvm.mma_type<bf16>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d = vector.from_elements ... : vector<2x2xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // QUANT_BLOCK_CODEGEN_NVVM_PASSES_TD
