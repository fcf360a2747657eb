// quantize_dynamic compiled for the CPU and executed: MX shared exponents
// (OCP floor rule, zero blocks), symmetric absmax per token with a dynamic
// token count, asymmetric minmax with int (including 32-bit) and float zero
// points. Float results are printed as their f32 bit patterns (the decimals
// in the comment above each CHECK; the minmax bits come from
// python/quant_block/reference.py).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!mx = !quant_block.tensor<2x32, #quant_block.scheme<mxfp8_e4m3>>
!a = !quant_block.tensor<?x8, #quant_block.scheme<i8 : f32, block = [1, *]>>
!m = !quant_block.tensor<2x8, #quant_block.scheme<ui4 : f32, block = [4], zero_point = ui4>>
!mf = !quant_block.tensor<2x8, #quant_block.scheme<ui4 : f16, block = [4], scale = f16, zero_point = f16>>
func.func @mx(%x: tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>) {
  %q = quant_block.quantize_dynamic mx %x : tensor<2x32xf32> -> !mx
  %y = quant_block.dequantize %q : !mx -> tensor<2x32xf32>
  %p:2 = quant_block.unpack %q : !mx -> tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>
  return %y, %p#1 : tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>
}
func.func @absmax(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %q = quant_block.quantize_dynamic absmax %x : tensor<?x8xf32> -> !a
  %y = quant_block.dequantize %q : !a -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
func.func @minmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %q = quant_block.quantize_dynamic minmax %x : tensor<2x8xf32> -> !m
  %y = quant_block.dequantize %q : !m -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
func.func @minmaxf(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %q = quant_block.quantize_dynamic minmax %x : tensor<2x8xf16> -> !mf
  %y = quant_block.dequantize %q : !mf -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}
func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 1000.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x32xf32>
  %y:2 = func.call @mx(%x) : (tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>)
  %ub = arith.bitcast %y#0 : tensor<2x32xf32> to tensor<2x32xi32>
  %u = tensor.cast %ub : tensor<2x32xi32> to tensor<*xi32>
  // max |x| = 1000: floor(log2 1000) - emax(E4M3) = 9 - 8 = 1, scale 2;
  // 17 / 2 = 8.5 ties to 8 (16), 19 / 2 = 9.5 ties to 10 (20), 500 saturates
  // to 448 (896). An all-zero block gets the smallest scale, 2^-127.
  // [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 16, 18, 20, 20, 20, 22, 24, 24, 24, 26, 28, 28, 28, 30, 32, 896]
  // CHECK: [1065353216, 1073741824, 1077936128, 1082130432, 1084227584, 1086324736, 1088421888, 1090519040, 1091567616, 1092616192, 1093664768, 1094713344, 1095761920, 1096810496, 1097859072, 1098907648, 1098907648, 1099956224, 1101004800, 1101004800, 1101004800, 1102053376, 1103101952, 1103101952, 1103101952, 1104150528, 1105199104, 1105199104, 1105199104, 1106247680, 1107296256, 1147142144]
  // [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  // E8M0 codes: 127 + 1, and 0 (2^-127).
  // CHECK: [128]
  // CHECK: [0]
  %sb = arith.bitcast %y#1 : tensor<2x1xf8E8M0FNU> to tensor<2x1xi8>
  %sw = arith.extui %sb : tensor<2x1xi8> to tensor<2x1xi32>
  %su = tensor.cast %sw : tensor<2x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%su) : (tensor<*xi32>) -> ()
  %a = arith.constant dense<[[1.0, -2.0, 3.0, 127.0, 0.5, 0.25, -63.5, 10.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x8xf32>
  %ad = tensor.cast %a : tensor<2x8xf32> to tensor<?x8xf32>
  %ya = func.call @absmax(%ad) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %uab = arith.bitcast %ya : tensor<?x8xf32> to tensor<?x8xi32>
  %ua = tensor.cast %uab : tensor<?x8xi32> to tensor<*xi32>
  // Per token: s = 127 / 127 = 1, so 0.5 and 0.25 round to 0 and -63.5 to
  // -64 (half to even); the all-zero token gets s = 1.
  // [1, -2, 3, 127, 0, 0, -64, 10]
  // CHECK: [1065353216, -1073741824, 1077936128, 1123942400, 0, 0, -1031798784, 1092616192]
  // [0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: [0, 0, 0, 0, 0, 0, 0, 0]
  func.call @printMemrefI32(%ua) : (tensor<*xi32>) -> ()
  %m = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, -1.0, 0.0, 0.5, 1.0], [10.0, 10.0, 10.0, 10.0, -3.0, -2.0, -1.0, -0.5]]> : tensor<2x8xf32>
  %ym = func.call @minmax(%m) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %umb = arith.bitcast %ym : tensor<2x8xf32> to tensor<2x8xi32>
  %um = tensor.cast %umb : tensor<2x8xi32> to tensor<*xi32>
  // Blocks of 4, [min, max] widened to include 0, s = (max - min) / 15,
  // zp = round(-min / s): [1..4] -> s = 4/15; [-1, 1] -> s = 2/15, zp = 7
  // (7.4999996 in f32), so -1 comes back as -7 * s.
  // [1.06667, 1.86667, 2.93333, 4, -0.933333, 0, 0.533333, 0.933333]
  // CHECK: [1065912457, 1072623344, 1077656508, 1082130432, -1083248912, 0, 1057523849, 1064234736]
  // [10, 10, 10, 10, -3, -2, -1, -0.4]
  // CHECK: [1092616192, 1092616192, 1092616192, 1092616192, -1069547520, -1073741824, -1082130432, -1093874483]
  func.call @printMemrefI32(%um) : (tensor<*xi32>) -> ()
  %mh = arith.truncf %m : tensor<2x8xf32> to tensor<2x8xf16>
  %yh = func.call @minmaxf(%mh) : (tensor<2x8xf16>) -> tensor<2x8xf16>
  %yhf = arith.extf %yh : tensor<2x8xf16> to tensor<2x8xf32>
  %uhb = arith.bitcast %yhf : tensor<2x8xf32> to tensor<2x8xi32>
  %uh = tensor.cast %uhb : tensor<2x8xi32> to tensor<*xi32>
  // Float zero points (m = min) with f16 scales: x = q * s + m.
  // [1.06641, 2.13281, 2.93359, 4, -1, 0.0664062, 0.466309, 0.999512]
  // CHECK: [1065910272, 1074298880, 1077657600, 1082130432, -1082130432, 1032323072, 1055834112, 1065345024]
  // [10, 10, 10, 10, -3, -2, -1, -0.400635]
  // CHECK: [1092616192, 1092616192, 1092616192, 1092616192, -1069547520, -1073741824, -1082130432, -1093853184]
  func.call @printMemrefI32(%uh) : (tensor<*xi32>) -> ()
  // minmax with 32-bit zero points: a block with max 0 gets zp = qmax,
  // 2^31 - 1, which is not an f32 (it rounds up to 2^31); the zero point is
  // clamped again as an integer. s = 3 / 2^32 (the range 2^32 - 1 in f32).
  // CHECK: {{\[}}[2147483647]]
  // CHECK: {{\[}}[-2147483648,   2147483647,   715827882,   -715827884]]
  %x32 = arith.constant dense<[[-3.0, 0.0, -1.0, -2.0]]> : tensor<1x4xf32>
  %q32 = quant_block.quantize_dynamic minmax %x32 : tensor<1x4xf32> -> !quant_block.tensor<1x4, #quant_block.scheme<i32 : f32, block = [4], zero_point = i32>>
  %p32:3 = quant_block.unpack %q32 : !quant_block.tensor<1x4, #quant_block.scheme<i32 : f32, block = [4], zero_point = i32>> -> tensor<1x4xi32>, tensor<1x1xf32>, tensor<1x1xi32>
  %z32 = tensor.cast %p32#2 : tensor<1x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%z32) : (tensor<*xi32>) -> ()
  %c32 = tensor.cast %p32#0 : tensor<1x4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c32) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
