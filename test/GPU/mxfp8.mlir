// MXFP8 (E4M3 elements, E8M0 shared exponents, blocks of 32) through
// quantize_dynamic mx and dequantize, compiled for the CPU here and for the
// GPUs in test/GPU/SPIRV and test/GPU/NVVM; f32 results printed as bits.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!mx = !quant_block.tensor<2x32, #quant_block.scheme<mxfp8_e4m3>>

func.func @mxfp8(%x: tensor<2x32xf32>) -> tensor<2x32xf32> {
  %q = quant_block.quantize_dynamic mx %x : tensor<2x32xf32> -> !mx
  %y = quant_block.dequantize %q : !mx -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

func.func @main() {
  %x = arith.constant dense<[
    [448.0, -1.5, 0.015625, 0.001953125, 3.25, 0.3, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [7.0, 0.3, -0.75, 1.5625, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x32xf32>
  %y = func.call @mxfp8(%x) : (tensor<2x32xf32>) -> tensor<2x32xf32>
  %yb = arith.bitcast %y : tensor<2x32xf32> to tensor<2x32xi32>
  %u = tensor.cast %yb : tensor<2x32xi32> to tensor<*xi32>
  // Row 0: max 448 = 1.75 * 2^8, E4M3's emax is 8: scale 2^0. 448, -1.5,
  // 2^-6 (smallest normal) and 2^-9 (smallest subnormal), 3.25 are exact;
  // 0.3 rounds to 0.3125 (1.25 * 2^-2); -0 stays -0.
  // CHECK: [1138753536, -1077936128, 1015021568, 989855744, 1078984704, 1050673152, -2147483648, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  // Row 1: max 7, floor(log2 7) = 2, scale 2^(2 - 8): 7 -> 448 exact;
  // 0.3 * 64 = 19.2 -> 20 -> 0.3125; -0.75 exact; 1.5625 * 64 = 100, a tie
  // between 96 and 104 -> 96 (even mantissa) -> 1.5.
  // CHECK-NEXT: [1088421888, 1050673152, -1086324736, 1069547520, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
