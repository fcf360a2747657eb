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
  // Printed as bit patterns: [89, 416, -10] = [0x42b20000, 0x43d00000,
  // 0xc1200000], [3.5, 32, 1] = [0x40600000, 0x42000000, 0x3f800000].
  // CHECK: [1118961664,   1137704960,   -1054867456]
  // CHECK: [1080033280,   1107296256,   1065353216]
  %y = func.call @linear(%xd, %w) : (tensor<?x8xf32>, !w) -> tensor<?x3xf32>
  %yb = arith.bitcast %y : tensor<?x3xf32> to tensor<?x3xi32>
  %u = tensor.cast %yb : tensor<?x3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()

  // Per token absmax int8: s = 416 / 127, 89 / s = 27.17 -> 27, -10 / s ->
  // -3; s = 32 / 127, 3.5 / s = 13.89 -> 14, 1 / s = 3.97 -> 4. In f32:
  // s = 3.2755907 (0x4051a347), 27 * s = 88.44095 (0x42b0e1c4), 127 * s =
  // 416 (0x43d00000), -3 * s = -9.826772 (0xc11d3a75); s = 0.2519685
  // (0x3e810204), 14 * s = 3.527559 (0x4061c387), 127 * s = 32
  // (0x42000000), 4 * s = 1.007874 (0x3f810204).
  // CHECK: [1118888388,   1137704960,   -1055049099]
  // CHECK: [1080148871,   1107296256,   1065419268]
  %yq = func.call @linear_requantized(%xd, %w) : (tensor<?x8xf32>, !w) -> tensor<?x3xf32>
  %yqb = arith.bitcast %yq : tensor<?x3xf32> to tensor<?x3xi32>
  %uq = tensor.cast %yqb : tensor<?x3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%uq) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
