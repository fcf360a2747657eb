// arith.extf from FP8 / FP6 / FP4 / E8M0 outside quant_block compiles with
// --quant-block-cpu-pipeline and decodes exactly: largest and smallest
// values, -0.0, Inf and NaN of each format, from their codes. The results
// are printed as f32 bit patterns (NaN: the quiet 0x7fc00000).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

func.func @print(%x: tensor<4xf32>) {
  %b = arith.bitcast %x : tensor<4xf32> to tensor<4xi32>
  %u = tensor.cast %b : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}

func.func @main() {
  // E4M3FN: max 448, -2^-9 (smallest subnormal), -0, NaN (S.1111.111).
  // [448, -2^-9, -0, NaN]
  // CHECK: [1138753536, -1157627904, -2147483648, 2143289344]
  %c4 = arith.constant dense<[126, -127, -128, 127]> : tensor<4xi8>
  %e4 = arith.bitcast %c4 : tensor<4xi8> to tensor<4xf8E4M3FN>
  %x4 = arith.extf %e4 : tensor<4xf8E4M3FN> to tensor<4xf32>
  func.call @print(%x4) : (tensor<4xf32>) -> ()
  // E5M2: max 57344, 2^-16 (smallest subnormal), -Inf, NaN.
  // [57344, 2^-16, -Inf, NaN]
  // CHECK: [1197473792, 931135488, -8388608, 2143289344]
  %c5 = arith.constant dense<[123, 1, -4, 126]> : tensor<4xi8>
  %e5 = arith.bitcast %c5 : tensor<4xi8> to tensor<4xf8E5M2>
  %x5 = arith.extf %e5 : tensor<4xf8E5M2> to tensor<4xf32>
  func.call @print(%x5) : (tensor<4xf32>) -> ()
  // E3M2FN (6 bits): max 28, -0.0625 (smallest subnormal), -0, 1.
  // [28, -0.0625, -0, 1]
  // CHECK: [1105199104, -1115684864, -2147483648, 1065353216]
  %c6 = arith.constant dense<[31, -31, -32, 12]> : tensor<4xi6>
  %e6 = arith.bitcast %c6 : tensor<4xi6> to tensor<4xf6E3M2FN>
  %x6 = arith.extf %e6 : tensor<4xf6E3M2FN> to tensor<4xf32>
  func.call @print(%x6) : (tensor<4xf32>) -> ()
  // E2M1FN (4 bits): max 6, -0.5 (the subnormal), -0, 1.5.
  // [6, -0.5, -0, 1.5]
  // CHECK: [1086324736, -1090519040, -2147483648, 1069547520]
  %c2 = arith.constant dense<[7, -7, -8, 3]> : tensor<4xi4>
  %e2 = arith.bitcast %c2 : tensor<4xi4> to tensor<4xf4E2M1FN>
  %x2 = arith.extf %e2 : tensor<4xf4E2M1FN> to tensor<4xf32>
  func.call @print(%x2) : (tensor<4xf32>) -> ()
  // E8M0: 2^-127, 1, 2^127, NaN.
  // [2^-127, 1, 2^127, NaN]
  // CHECK: [4194304, 1065353216, 2130706432, 2143289344]
  %c8 = arith.constant dense<[0, 127, -2, -1]> : tensor<4xi8>
  %e8 = arith.bitcast %c8 : tensor<4xi8> to tensor<4xf8E8M0FNU>
  %x8 = arith.extf %e8 : tensor<4xf8E8M0FNU> to tensor<4xf32>
  func.call @print(%x8) : (tensor<4xf32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
