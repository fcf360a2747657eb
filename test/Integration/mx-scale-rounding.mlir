// quantize_dynamic mx with the scheme's scale_rounding = ceil and
// half_to_even (docs/Numerics.md), compiled for the CPU and executed. The
// ideal scale is max|x| / max_normal (6 for FP4 E2M1, 127/64 for MXINT8);
// ceil takes the next power of two at or above it, half_to_even the nearest
// one in the linear domain, ties (a mantissa of exactly 1.5) to the even
// exponent. The E8M0 codes (exponent + 127) are printed.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!ceil = !quant_block.tensor<8x32, #quant_block.scheme<mxfp4, scale_rounding = ceil>>
!even = !quant_block.tensor<8x32, #quant_block.scheme<mxfp4, scale_rounding = half_to_even>>
!iceil = !quant_block.tensor<3x32, #quant_block.scheme<mxint8, scale_rounding = ceil>>
!ieven = !quant_block.tensor<3x32, #quant_block.scheme<mxint8, scale_rounding = half_to_even>>

func.func @fp4_scales(%x: tensor<8x32xf32>) -> (tensor<8x1xi32>, tensor<8x1xi32>) {
  %c = quant_block.quantize_dynamic mx %x : tensor<8x32xf32> -> !ceil
  %e = quant_block.quantize_dynamic mx %x : tensor<8x32xf32> -> !even
  %cp:2 = quant_block.unpack %c : !ceil -> tensor<8x32xf4E2M1FN>, tensor<8x1xf8E8M0FNU>
  %ep:2 = quant_block.unpack %e : !even -> tensor<8x32xf4E2M1FN>, tensor<8x1xf8E8M0FNU>
  %cb = arith.bitcast %cp#1 : tensor<8x1xf8E8M0FNU> to tensor<8x1xi8>
  %eb = arith.bitcast %ep#1 : tensor<8x1xf8E8M0FNU> to tensor<8x1xi8>
  %cw = arith.extui %cb : tensor<8x1xi8> to tensor<8x1xi32>
  %ew = arith.extui %eb : tensor<8x1xi8> to tensor<8x1xi32>
  return %cw, %ew : tensor<8x1xi32>, tensor<8x1xi32>
}

func.func @int8_scales(%x: tensor<3x32xf32>) -> (tensor<3x1xi32>, tensor<3x1xi32>) {
  %c = quant_block.quantize_dynamic mx %x : tensor<3x32xf32> -> !iceil
  %e = quant_block.quantize_dynamic mx %x : tensor<3x32xf32> -> !ieven
  %cp:2 = quant_block.unpack %c : !iceil -> tensor<3x32xi8>, tensor<3x1xf8E8M0FNU>
  %ep:2 = quant_block.unpack %e : !ieven -> tensor<3x32xi8>, tensor<3x1xf8E8M0FNU>
  %cb = arith.bitcast %cp#1 : tensor<3x1xf8E8M0FNU> to tensor<3x1xi8>
  %eb = arith.bitcast %ep#1 : tensor<3x1xf8E8M0FNU> to tensor<3x1xi8>
  %cw = arith.extui %cb : tensor<3x1xi8> to tensor<3x1xi32>
  %ew = arith.extui %eb : tensor<3x1xi8> to tensor<3x1xi32>
  return %cw, %ew : tensor<3x1xi32>, tensor<3x1xi32>
}

func.func @main() {
  // Block maxima: 6, 7, 4, 4.5, 18, 36, -7 and an all-zero block.
  %x = arith.constant dense<[[6.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 1.75, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.5, 1.125, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 18.0, 4.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 36.0, 9.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -7.0, -1.75],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x32xf32>
  %s:2 = func.call @fp4_scales(%x) : (tensor<8x32xf32>) -> (tensor<8x1xi32>, tensor<8x1xi32>)
  // ceil: 6/6 = 1 -> 2^0; 7/6 -> 2^1; 4/6 -> 2^0; 4.5/6 -> 2^0; 18/6 = 3
  // -> 2^2; 36/6 = 6 -> 2^3; |-7|/6 -> 2^1; zeros -> 2^-127.
  // CHECK: {{\[}}[127],
  // CHECK-NEXT: [128],
  // CHECK-NEXT: [127],
  // CHECK-NEXT: [127],
  // CHECK-NEXT: [129],
  // CHECK-NEXT: [130],
  // CHECK-NEXT: [128],
  // CHECK-NEXT: [0]]
  %c = tensor.cast %s#0 : tensor<8x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c) : (tensor<*xi32>) -> ()
  // half_to_even: 1 -> 2^0; 1.17 -> 2^0; 0.67 (below 0.75) -> 2^-1;
  // 0.75 is the tie between 2^-1 and 2^0 -> 2^0; 3 is the tie between 2^1
  // and 2^2 -> 2^2; 6 between 2^2 and 2^3 -> 2^2; 1.17 -> 2^0; zeros.
  // CHECK: {{\[}}[127],
  // CHECK-NEXT: [127],
  // CHECK-NEXT: [126],
  // CHECK-NEXT: [127],
  // CHECK-NEXT: [129],
  // CHECK-NEXT: [129],
  // CHECK-NEXT: [127],
  // CHECK-NEXT: [0]]
  %e = tensor.cast %s#1 : tensor<8x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%e) : (tensor<*xi32>) -> ()

  // MXINT8 (max 127/64 = 1.984375): maxima 1.984375, 1.99 and 3.
  %xi = arith.constant dense<[[1.984375, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.99, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<3x32xf32>
  %t:2 = func.call @int8_scales(%xi) : (tensor<3x32xf32>) -> (tensor<3x1xi32>, tensor<3x1xi32>)
  // ceil: exactly 1 -> 2^0; 1.003 -> 2^1; 1.51 -> 2^1.
  // CHECK: {{\[}}[127],
  // CHECK-NEXT: [128],
  // CHECK-NEXT: [128]]
  %ic = tensor.cast %t#0 : tensor<3x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%ic) : (tensor<*xi32>) -> ()
  // half_to_even: 1 -> 2^0; 1.003 -> 2^0; 1.51 (above 1.5) -> 2^1.
  // CHECK: {{\[}}[127],
  // CHECK-NEXT: [127],
  // CHECK-NEXT: [128]]
  %ie = tensor.cast %t#1 : tensor<3x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%ie) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
