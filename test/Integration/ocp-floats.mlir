// MXFP4 (E8M0 block scales), FP8 E4M3FN and FP8 E5M2 without saturation,
// compiled for the CPU and executed: round-half-to-even ties, saturation,
// overflow to Inf, subnormals, NaN, -0.0 and E8M0 scale decoding. Results are
// printed as f32 bit patterns (the decimals in the comment above each CHECK).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!m = !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
!e = !quant_block.tensor<8, #quant_block.scheme<f8E4M3FN : f32, scale = f32>>
!e5 = !quant_block.tensor<8, #quant_block.scheme<f8E5M2 : f16, scale = f32, saturate = false>>
func.func @mx(%x: tensor<2x32xf32>, %s: tensor<2x1xf8E8M0FNU>) -> tensor<2x32xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<2x1xf8E8M0FNU>) : tensor<2x32xf32> -> !m
  %y = quant_block.dequantize %q : !m -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
func.func @e4(%x: tensor<8xf32>, %s: tensor<1xf32>) -> tensor<8xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<8xf32> -> !e
  %y = quant_block.dequantize %q : !e -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @e5(%x: tensor<8xf16>, %s: tensor<1xf32>) -> tensor<8xf16> {
  %q = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<8xf16> -> !e5
  %y = quant_block.dequantize %q : !e5 -> tensor<8xf16>
  return %y : tensor<8xf16>
}
func.func @main() {
  %x = arith.constant dense<[[0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, -1.0, -1.25, -3.0, -6.0, 100.0, -100.0, 0.1, 0.3, 0x7FC00000, 0x7F800000, 0xFF800000, -0.0, 5.5, 4.5, 0.125, 0.375],
    [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0]]> : tensor<2x32xf32>
  %s = arith.constant dense<[[1.0], [4.0]]> : tensor<2x1xf8E8M0FNU>
  %y = func.call @mx(%x, %s) : (tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>) -> tensor<2x32xf32>
  %ub = arith.bitcast %y : tensor<2x32xf32> to tensor<2x32xi32>
  %u = tensor.cast %ub : tensor<2x32xi32> to tensor<*xi32>
  // E2M1 grid {0, 0.5, 1, 1.5, 2, 3, 4, 6}: ties go to the even code
  // (0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4, 5 -> 4),
  // 7, 100 and Inf saturate to 6, NaN becomes +0 (FP4 has no NaN).
  // [0, 0, 0.5, 1, 1, 1, 1.5, 2, 2, 2, 3, 4, 4, 4, 6, 6, -1, -1, -3, -6, 6, -6, 0, 0.5, 0, 6, -6, -0, 6, 4, 0, 0.5]
  // CHECK: [0, 0, 1056964608, 1065353216, 1065353216, 1065353216, 1069547520, 1073741824, 1073741824, 1073741824, 1077936128, 1082130432, 1082130432, 1082130432, 1086324736, 1086324736, -1082130432, -1082130432, -1069547520, -1061158912, 1086324736, -1061158912, 0, 1056964608, 0, 1086324736, -1061158912, -2147483648, 1086324736, 1082130432, 0, 1056964608]
  // Scale code 2^2: x / 4 is quantized, then multiplied back.
  // [0, 2, 4, 4, 4, 6, 8, 8, 8, 8, 12, 12, 12, 16, 16, 16, 16, 16, 16, 16, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24]
  // CHECK: [0, 1073741824, 1082130432, 1082130432, 1082130432, 1086324736, 1090519040, 1090519040, 1090519040, 1090519040, 1094713344, 1094713344, 1094713344, 1098907648, 1098907648, 1098907648, 1098907648, 1098907648, 1098907648, 1098907648, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952, 1103101952]
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  %x2 = arith.constant dense<[200.0, 464.0, 480.0, 100000.0, -0.001953125, 0.0009765625, 3.0e-3, 0x7FC00000]> : tensor<8xf32>
  %s2 = arith.constant dense<[2.0]> : tensor<1xf32>
  %y2 = func.call @e4(%x2, %s2) : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  %u2b = arith.bitcast %y2 : tensor<8xf32> to tensor<8xi32>
  %u2 = tensor.cast %u2b : tensor<8xi32> to tensor<*xi32>
  // E4M3FN, scale 2: 100 -> 96 (tie to even), 232 -> 224, 240 exact,
  // 50000 saturates to 448, -2^-10 ties down to -0, 2^-11 -> 0, a subnormal.
  // [192, 448, 480, 896, -0, 0, 0.00390625, nan (the quiet NaN 0x7fc00000:
  // NaN bits are the target's, docs/Numerics.md "NaN results")]
  // CHECK: [1128267776, 1138753536, 1139802112, 1147142144, -2147483648, 0, 998244352, 2143289344]
  func.call @printMemrefI32(%u2) : (tensor<*xi32>) -> ()
  %x3 = arith.constant dense<[50000.0, 61440.0, 65504.0, 0x7C00, 1.0, 1.125, 1.375, -0.0000152587890625]> : tensor<8xf16>
  %s3 = arith.constant dense<[1.0]> : tensor<1xf32>
  %y3 = func.call @e5(%x3, %s3) : (tensor<8xf16>, tensor<1xf32>) -> tensor<8xf16>
  %y3f = arith.extf %y3 : tensor<8xf16> to tensor<8xf32>
  %u3b = arith.bitcast %y3f : tensor<8xf32> to tensor<8xi32>
  %u3 = tensor.cast %u3b : tensor<8xi32> to tensor<*xi32>
  // E5M2 with saturate = false: 50000 -> 49152, 61440 ties up past 57344 to
  // Inf, 65504 and Inf -> Inf, 1.125 -> 1, 1.375 -> 1.5, -2^-16 (the smallest
  // subnormal) exact.
  // [49152, inf, inf, inf, 1, 1, 1.5, -2^-16]
  // CHECK: [1195376640, 2139095040, 2139095040, 2139095040, 1065353216, 1065353216, 1069547520, -1216348160]
  func.call @printMemrefI32(%u3) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
