// Dynamically shaped tensors through pack + dequantize of int4 (plus a
// bias whose both dimensions are unknown to the compiler), quantize_dynamic
// absmax and a linear layer with a dynamic batch (and K), compiled for the CPU here and for the GPUs in
// test/GPU/SPIRV and test/GPU/NVVM. On Vulkan every such buffer is a flat
// runtime array and the sizes travel in a buffer of their own
// (--quant-block-gpu-spirv-dynamic-shapes). The values are exact in f32 in
// any order of summation, so every pipeline prints the same numbers.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!i4 = !quant_block.tensor<?x16, #quant_block.scheme<i4 : f32, block = [1, 8], scale = f16>>
!w = !quant_block.tensor<3x16, #quant_block.scheme<i4 : f32, block = [1, 8], scale = f16>>
!a = !quant_block.tensor<?x16, #quant_block.scheme<i8 : f32, block = [1, 8]>>

// The codes arrive as i8 (kernels have no i4 buffers on SPIR-V).
func.func @dequantize(%codes: tensor<?x16xi8>, %s: tensor<?x2xf16>, %bias: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %d = arith.trunci %codes : tensor<?x16xi8> to tensor<?x16xi4>
  %q = quant_block.pack %d scales(%s : tensor<?x2xf16>) : tensor<?x16xi4> -> !i4
  %y = quant_block.dequantize %q : !i4 -> tensor<?x16xf32>
  %yd = tensor.cast %y : tensor<?x16xf32> to tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %bias, %c0 : tensor<?x?xf32>
  %n = tensor.dim %bias, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %sum = linalg.add ins(%yd, %bias : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %sum : tensor<?x?xf32>
}

func.func @roundtrip(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %q = quant_block.quantize_dynamic absmax %x : tensor<?x16xf32> -> !a
  %y = quant_block.dequantize %q : !a -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

func.func @linear(%x: tensor<?x16xf32>, %w: !w) -> tensor<?x3xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<?x16xf32>, !w -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// The same layer with K unknown too (it takes the weight's).
func.func @linear_dynamic_k(%x: tensor<?x?xf32>, %w: !w) -> tensor<?x3xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<?x?xf32>, !w -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

func.func @main() {
  %d = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1],
                             [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                             [-1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1]]> : tensor<3x16xi8>
  %s = arith.constant dense<[[1.0, 0.5], [2.0, -1.0], [0.25, 4.0]]> : tensor<3x2xf16>
  %dd = tensor.cast %d : tensor<3x16xi8> to tensor<?x16xi8>
  %sd = tensor.cast %s : tensor<3x2xf16> to tensor<?x2xf16>
  %bias = arith.constant dense<0.0> : tensor<3x16xf32>
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %thousand = arith.constant 1000.0 : f32
  %b = tensor.insert %thousand into %bias[%c2, %c15] : tensor<3x16xf32>
  %bd = tensor.cast %b : tensor<3x16xf32> to tensor<?x?xf32>

  // code x scale, per block of 8 along a row, plus the bias (1000 at the
  // last element).
  // CHECK:      [0,   1,   2,   3,   4,   5,   6,   7,   -4,   -3.5,   -3,   -2.5,   -2,   -1.5,   -1,   -0.5]
  // CHECK-NEXT: [2,   2,   2,   2,   2,   2,   2,   2,   -1,   -1,   -1,   -1,   -1,   -1,   -1,   -1]
  // CHECK-NEXT: [-0.25,   0.25,   -0.25,   0.25,   -0.25,   0.25,   -0.25,   0.25,   -4,   4,   -4,   4,   -4,   4,   -4,   1004]
  %y = func.call @dequantize(%dd, %sd, %bd) : (tensor<?x16xi8>, tensor<?x2xf16>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %yu = tensor.cast %y : tensor<?x?xf32> to tensor<*xf32>
  func.call @printMemrefF32(%yu) : (tensor<*xf32>) -> ()

  // absmax per block of 8: the first block's scale is 127 / 127 = 1, so
  // its integers come back; the second's is 63.5 / 127 = 0.5, so 2.25 / 0.5
  // = 4.5 rounds to even (4, i.e. 2) and -1.25 / 0.5 = -2.5 to -2 (-1).
  // CHECK:      [127,   -3,   0,   1,   -127,   5,   6,   7,   63.5,   2,   -1,   0.5,   -63.5,   0,   10,   -20]
  // CHECK-NEXT: [0,   0,   0,   0,   0,   0,   0,   0,   1,   -1,   1,   -1,   1,   -1,   1,   -1]
  %x = arith.constant dense<[[127.0, -3.0, 0.0, 1.0, -127.0, 5.0, 6.0, 7.0, 63.5, 2.25, -1.25, 0.5, -63.5, 0.0, 10.0, -20.0],
                             [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]]> : tensor<2x16xf32>
  %xd = tensor.cast %x : tensor<2x16xf32> to tensor<?x16xf32>
  %r = func.call @roundtrip(%xd) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %ru = tensor.cast %r : tensor<?x16xf32> to tensor<*xf32>
  func.call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()

  // Rows of ones and of ones at even k against the dequantized rows above:
  // [28 - 18, 16 - 8, 0] and [12 - 10, 8 - 4, -1 - 16].
  // CHECK:      [10,   8,   0]
  // CHECK-NEXT: [2,   4,   -17]
  %d4 = arith.trunci %d : tensor<3x16xi8> to tensor<3x16xi4>
  %w = quant_block.pack %d4 scales(%s : tensor<3x2xf16>) : tensor<3x16xi4> -> !w
  %ones = arith.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                                [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]]> : tensor<2x16xf32>
  %od = tensor.cast %ones : tensor<2x16xf32> to tensor<?x16xf32>
  %l = func.call @linear(%od, %w) : (tensor<?x16xf32>, !w) -> tensor<?x3xf32>
  %lu = tensor.cast %l : tensor<?x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()

  // CHECK:      [10,   8,   0]
  // CHECK-NEXT: [2,   4,   -17]
  %odk = tensor.cast %ones : tensor<2x16xf32> to tensor<?x?xf32>
  %lk = func.call @linear_dynamic_k(%odk, %w) : (tensor<?x?xf32>, !w) -> tensor<?x3xf32>
  %lku = tensor.cast %lk : tensor<?x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%lku) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
