// --quant-block-cpu-pipeline on a linear layer as torch-mlir writes
// aten.linear (a linalg.transpose of the dequantized weight, then
// linalg.matmul): by default propagation, fusion and the transpose folded
// into transpose_rhs give one kernel on the packed weight, so after
// bufferization the only buffers allocated are activation- and
// result-sized: the activations de-interleaved for the register-tiled
// kernel ([4, 4096], --quant-block-cpu-matmul-kernels) and the result; with
// `matmul-kernels=false`, the partial sums of the generic lowering's
// reassociated sum ([4, 1024, 16, 2], one per k position in a block) and
// the result. With `propagate=false fuse=false` the weight is
// dequantized into a [1024, 4096] f32 buffer (in its block space,
// [1024, 128, 16, 2]) and transposed into another, which the first check
// would catch.
// RUN: quant-opt %s --quant-block-cpu-pipeline --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s
// RUN: quant-opt %s --quant-block-cpu-pipeline=matmul-kernels=false --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: quant-opt %s --quant-block-cpu-pipeline="propagate=false fuse=false" --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// The fused pipeline still compiles to the LLVM dialect:
// RUN: quant-opt %s --quant-block-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @aten_linear(
// CHECK-SAME: %{{.*}}: memref<4x4096xf32>, %{{.*}}: memref<1024x2048xi8>, %{{.*}}: memref<1024x128xf16>
// CHECK-NOT: memref.alloc
// CHECK: memref.alloc() {{.*}} : memref<4x4096xf32>
// CHECK-NOT: memref.alloc
// CHECK: memref.alloc() {{.*}} : memref<4x1024xf32>
// CHECK-NOT: memref.alloc
// CHECK: return
// GENERIC-LABEL: func.func @aten_linear(
// GENERIC-NOT: memref.alloc
// GENERIC: memref.alloc() {{.*}} : memref<4x1024x16x2xf32>
// GENERIC-NOT: memref.alloc
// GENERIC: memref.alloc() {{.*}} : memref<4x1024xf32>
// GENERIC-NOT: memref.alloc
// GENERIC: return
// UNFUSED-LABEL: func.func @aten_linear(
// UNFUSED: memref.alloc() {{.*}} : memref<1024x128x16x2xf32>
// UNFUSED: memref.alloc() {{.*}} : memref<128x16x2x1024xf32>
// LLVM: llvm.func @aten_linear(

!w = !quant_block.tensor<1024x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @aten_linear(%x: tensor<4x4096xf32>, %w: !w) -> tensor<4x1024xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<1024x4096xf32>
  %et = tensor.empty() : tensor<4096x1024xf32>
  %wt = linalg.transpose ins(%wd : tensor<1024x4096xf32>) outs(%et : tensor<4096x1024xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<4x1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x1024xf32>) -> tensor<4x1024xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<4x4096xf32>, tensor<4096x1024xf32>) outs(%init : tensor<4x1024xf32>) -> tensor<4x1024xf32>
  return %y : tensor<4x1024xf32>
}
