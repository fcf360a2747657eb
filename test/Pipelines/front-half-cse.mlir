// The front half merges identical pure ops (CSE after --quant-block-fuse):
// activations quantized for two products (a model's q and k of one input)
// are quantized once, one absmax reduction, read by both products; on the
// GPU pipelines the quantization's kernels run once.
// RUN: quant-opt %s --quant-block-linalg-pipeline | FileCheck %s
// RUN: quant-opt %s --quant-block-spirv-pipeline=binary=false | FileCheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @q_and_k
// CHECK-COUNT-1: math.absf
// CHECK-NOT: math.absf
// CHECK: return
// The quantization (the block statistics, their fill, the scales and then
// each block's codes in sequence: one kernel), then the two products'
// kernels.
// GPU-LABEL: func.func @q_and_k
// GPU-COUNT-3: gpu.launch_func
// GPU-NOT: gpu.launch_func
// GPU: return
!a = !quant_block.tensor<2x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wq = !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!wk = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @q_and_k(%x: tensor<2x128xf32>, %wq: !wq, %wk: !wk) -> (tensor<2x64xf32>, tensor<2x32xf32>) {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<2x128xf32> -> !a
  %q = quant_block.matmul %xq, %wq transpose_rhs accumulate(i32) inhibit : !a, !wq -> tensor<2x64xf32>
  %xk = quant_block.quantize_dynamic absmax %x : tensor<2x128xf32> -> !a
  %k = quant_block.matmul %xk, %wk transpose_rhs accumulate(i32) inhibit : !a, !wk -> tensor<2x32xf32>
  return %q, %k : tensor<2x64xf32>, tensor<2x32xf32>
}
