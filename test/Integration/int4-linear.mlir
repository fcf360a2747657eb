// A uint4 group-quantized linear layer (GPTQ / AWQ layout: [N, K] weight,
// groups of 4 along K, f16 scales, uint4 zero points) applied to f32
// activations with a dynamic batch, compiled for the CPU and executed; then
// the same layer with `propagate`, requantizing its output per token.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!w = !quant_block.tensor<3x8, #quant_block.scheme<ui4 : f32, block = [4], scale = f16, zero_point = ui4>>
!y = !quant_block.tensor<?x3, #quant_block.scheme<i8 : f32, block = [1, *]>>

func.func @linear(%x: tensor<?x8xf32>, %w: !w) -> tensor<?x3xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<?x8xf32>, !w -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

func.func @linear_requantized(%x: tensor<?x8xf32>, %w: !w) -> tensor<?x3xf32> {
  %yq = quant_block.matmul %x, %w transpose_rhs accumulate(f32) propagate : tensor<?x8xf32>, !w -> !y
  %y = quant_block.dequantize %yq : !y -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, -1.0, 1.0, -1.0, 0.5, 0.5, 0.5, 0.5]]> : tensor<2x8xf32>
  %d = arith.constant dense<[[0, 1, 2, 3, 15, 14, 13, 12],
                             [8, 8, 8, 8, 8, 8, 8, 8],
                             [1, 0, 1, 0, 1, 0, 1, 0]]> : tensor<3x8xui4>
  %s = arith.constant dense<[[1.0, 0.5], [0.25, 2.0], [1.0, 1.0]]> : tensor<3x2xf16>
  %z = arith.constant dense<[[0, 8], [8, 0], [0, 1]]> : tensor<3x2xui4>
  %w = quant_block.pack %d scales(%s : tensor<3x2xf16>) zero_points(%z : tensor<3x2xui4>) : tensor<3x8xui4> -> !w
  %xd = tensor.cast %x : tensor<2x8xf32> to tensor<?x8xf32>

  // Dequantized weight rows: [0, 1, 2, 3, 3.5, 3, 2.5, 2], [0 x4, 16 x4],
  // [1, 0, 1, 0, 0, -1, 0, -1].
  // CHECK: [89,   416,   -10]
  // CHECK: [3.5,   32,   1]
  %y = func.call @linear(%xd, %w) : (tensor<?x8xf32>, !w) -> tensor<?x3xf32>
  %u = tensor.cast %y : tensor<?x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()

  // Per token absmax int8: s = 416 / 127, 89 / s = 27.17 -> 27, -10 / s ->
  // -3; s = 32 / 127, 3.5 / s = 13.89 -> 14, 1 / s = 3.97 -> 4.
  // CHECK: [88.4409,   416,   -9.82677]
  // CHECK: [3.52756,   32,   1.00787]
  %yq = func.call @linear_requantized(%xd, %w) : (tensor<?x8xf32>, !w) -> tensor<?x3xf32>
  %uq = tensor.cast %yq : tensor<?x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%uq) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
