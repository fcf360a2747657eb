// quantize_dynamic on tensors whose last block is ragged (ONNX block_size
// semantics: the scale count is ceil(dim / block)), compiled for the CPU and
// executed. The statistics of a ragged block cover only its own elements.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!a = !quant_block.tensor<2x30, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!m = !quant_block.tensor<1x6, #quant_block.scheme<ui4 : f32, block = [4], zero_point = ui4>>
!x = !quant_block.tensor<1x40, #quant_block.scheme<mxfp8_e4m3>>

func.func @absmax(%x: tensor<2x30xf32>) -> (tensor<2x30xi32>, tensor<2x2xf32>) {
  %q = quant_block.quantize_dynamic absmax %x : tensor<2x30xf32> -> !a
  %p:2 = quant_block.unpack %q : !a -> tensor<2x30xi8>, tensor<2x2xf32>
  %c = arith.extsi %p#0 : tensor<2x30xi8> to tensor<2x30xi32>
  return %c, %p#1 : tensor<2x30xi32>, tensor<2x2xf32>
}

func.func @minmax(%x: tensor<1x6xf32>) -> (tensor<1x6xf32>, tensor<1x2xf32>) {
  %q = quant_block.quantize_dynamic minmax %x : tensor<1x6xf32> -> !m
  %p:3 = quant_block.unpack %q : !m -> tensor<1x6xui4>, tensor<1x2xf32>, tensor<1x2xui4>
  %y = quant_block.dequantize %q : !m -> tensor<1x6xf32>
  return %y, %p#1 : tensor<1x6xf32>, tensor<1x2xf32>
}

func.func @mx(%x: tensor<1x40xf32>) -> tensor<1x2xi32> {
  %q = quant_block.quantize_dynamic mx %x : tensor<1x40xf32> -> !x
  %p:2 = quant_block.unpack %q : !x -> tensor<1x40xf8E4M3FN>, tensor<1x2xf8E8M0FNU>
  %b = arith.bitcast %p#1 : tensor<1x2xf8E8M0FNU> to tensor<1x2xi8>
  %w = arith.extui %b : tensor<1x2xi8> to tensor<1x2xi32>
  return %w : tensor<1x2xi32>
}

func.func @main() {
  // Row 0: blocks of 16 and 14 with max |x| 127 and 254 (s = 1 and 2).
  // Row 1: max |x| 63.5 (s = 0.5), and an all-zero ragged block (s = 1).
  %x = arith.constant dense<[[127.0, 1.5, 2.5, -3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 254.0, 3.0, 5.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [-63.5, 32.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x30xf32>
  %r:2 = func.call @absmax(%x) : (tensor<2x30xf32>) -> (tensor<2x30xi32>, tensor<2x2xf32>)
  // 1.5 -> 2 and 2.5 -> 2 (half to even); 1.5 -> 2, 2.5 -> 2, -0.5 -> -0.
  // CHECK: {{\[}}[127,   2,   2,   -3,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   127,   2,   2,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0],
  // CHECK-NEXT: [-127,   64,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0]]
  %c = tensor.cast %r#0 : tensor<2x30xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c) : (tensor<*xi32>) -> ()
  // [1, 2]
  // CHECK: {{\[}}[1065353216, 1073741824],
  // [0.5, 1]
  // CHECK-NEXT: [1056964608, 1065353216]]
  %sb = arith.bitcast %r#1 : tensor<2x2xf32> to tensor<2x2xi32>
  %s = tensor.cast %sb : tensor<2x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%s) : (tensor<*xi32>) -> ()

  // Blocks of 4 and 2: [-5, 10] spans 15 (s = 1, zp = 5); the ragged block
  // [0, 7.5] (widened to include 0) gives s = 0.5, zp = 0. The values are
  // on the grid except 0.5 (-> 0 + 5) and 1.5 (-> 2 + 5).
  %xm = arith.constant dense<[[-5.0, 10.0, 0.5, 1.5, 7.5, 1.0]]> : tensor<1x6xf32>
  %m:2 = func.call @minmax(%xm) : (tensor<1x6xf32>) -> (tensor<1x6xf32>, tensor<1x2xf32>)
  // [-5, 10, 0, 2, 7.5, 1]
  // CHECK: {{\[}}[-1063256064, 1092616192, 0, 1073741824, 1089470464, 1065353216]]
  %mub = arith.bitcast %m#0 : tensor<1x6xf32> to tensor<1x6xi32>
  %mu = tensor.cast %mub : tensor<1x6xi32> to tensor<*xi32>
  func.call @printMemrefI32(%mu) : (tensor<*xi32>) -> ()
  // [1, 0.5]
  // CHECK: {{\[}}[1065353216, 1056964608]]
  %msb = arith.bitcast %m#1 : tensor<1x2xf32> to tensor<1x2xi32>
  %ms = tensor.cast %msb : tensor<1x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%ms) : (tensor<*xi32>) -> ()

  // MXFP8 E4M3 (emax 8) over 40 elements: blocks of 32 and 8, max |x| 448
  // (2^8 -> exponent 0, code 127) and 3 (2^1 -> exponent -7, code 120).
  %xx = arith.constant dense<[[448.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<1x40xf32>
  %e = func.call @mx(%xx) : (tensor<1x40xf32>) -> tensor<1x2xi32>
  // CHECK: {{\[}}[127,   120]]
  %eu = tensor.cast %e : tensor<1x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%eu) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
