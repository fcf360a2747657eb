// A linear layer written as torch-mlir writes aten.linear (the dequantized
// weight transposed by linalg.transpose, then linalg.matmul) and the same
// layer in the form fusion gives before the transpose is folded
// (quant_block.transpose of the packed weight, then a non-transposed
// quant_block.matmul), compiled two ways and executed; every result must
// have the same bits:
//   1. --quant-block-cpu-pipeline="propagate=false fuse=false": the
//      aten.linear form dequantizes the weight into a tensor and multiplies
//      it separately; the unfolded form transposes the packed weight, then
//      multiplies;
//   2. --quant-block-cpu-pipeline (propagation and fusion by default): both
//      forms become one transpose_rhs matmul on the packed weight as stored.
// RUN: quant-opt %s --quant-block-cpu-pipeline="propagate=false fuse=false" | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so > %t.unfused
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so > %t.fused
// RUN: cat %t.unfused %t.fused | FileCheck %s

!w = !quant_block.tensor<3x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>

// The multiply-add written as a generic: the sum runs over k in order in
// every form, so arbitrary values give the same bits.
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @strict_linear(%x: tensor<2x64xf32>, %w: !w) -> tensor<2x3xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<3x64xf32>
  %et = tensor.empty() : tensor<64x3xf32>
  %wt = linalg.transpose ins(%wd : tensor<3x64xf32>) outs(%et : tensor<64x3xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<2x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wt : tensor<2x64xf32>, tensor<64x3xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// linalg.matmul has no written order: its fused form may reassociate
// (fastmath<reassoc,contract>). With halves as activations, int4 codes and
// power-of-two scales every product and partial sum is exact in f32, so
// every order gives the same bits here too.
func.func @aten_linear(%x: tensor<2x64xf32>, %w: !w) -> tensor<2x3xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<3x64xf32>
  %et = tensor.empty() : tensor<64x3xf32>
  %wt = linalg.transpose ins(%wd : tensor<3x64xf32>) outs(%et : tensor<64x3xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<2x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<2x64xf32>, tensor<64x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// The form --quant-block-fuse gives before the transpose folds.
!wt = !quant_block.tensor<64x3, #quant_block.scheme<i4 : f32, block = [32, 1], scale = f16>>
func.func @strict_unfolded(%x: tensor<2x64xf32>, %w: !w) -> tensor<2x3xf32> {
  %t = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %y = quant_block.matmul %x, %t accumulate(f32) inhibit : tensor<2x64xf32>, !wt -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
func.func @aten_unfolded(%x: tensor<2x64xf32>, %w: !w) -> tensor<2x3xf32> {
  %t = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %y = quant_block.matmul %x, %t accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<2x64xf32>, !wt -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func @print_bits(%y: tensor<2x3xf32>) {
  %b = arith.bitcast %y : tensor<2x3xf32> to tensor<2x3xi32>
  %u = tensor.cast %b : tensor<2x3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}

func.func @main() {
  %d = arith.constant dense<[[1, 6, 7, -2, 3, 3, 0, 3, 5, -1, 7, 5, -1, 7, -3, 7, 1, -2, -5, -6, -5, 4, 3, 7, 0, 0, 6, -4, 3, 6, 2, 5, 0, -1, 5, 5, 5, -2, -7, -8, 4, -7, -4, -1, -3, -4, 5, -8, 5, -5, 6, 4, -6, -6, -3, -5, -2, 6, 4, -7, -3, -3, 3, -7], [-8, 2, -6, -8, 7, 5, -2, -6, -3, 5, -3, 1, -6, -2, -6, -1, 4, -2, -4, -4, -5, 7, -5, -2, 4, -1, 1, 5, 0, -7, 4, -7, 2, 7, 6, 2, 3, -3, 4, 7, -6, 0, -6, -1, -3, -5, -6, 0, -4, -3, -8, 2, -1, -4, 1, 2, -7, -2, -3, -3, -6, -7, -5, -6], [6, -3, 1, 7, -2, 1, -6, -6, -5, 0, 6, -3, 4, -7, -2, -3, -4, -5, -2, 4, -5, 3, 4, -4, 4, 4, 4, -2, -2, 7, -8, 4, 7, -2, -4, -1, 7, -1, -4, 1, -4, -6, 0, -5, -5, -3, -2, 0, -2, -6, 6, 6, -1, -6, -2, 5, 0, -6, -8, 0, -7, -6, 7, 0]]> : tensor<3x64xi4>
  %s = arith.constant dense<[[0.0299, 0.1298], [0.0384, 0.1419], [0.0367, 0.1913]]> : tensor<3x2xf16>
  %w = quant_block.pack %d scales(%s : tensor<3x2xf16>) : tensor<3x64xi4> -> !w
  %x = arith.constant dense<[[1.824, -1.169, 1.314, -1.403, 0.051, -1.456, 0.756, 1.367, -0.298, 1.828, 1.301, -0.647, 0.303, 1.013, 1.308, 1.734, -1.42, 0.982, -1.443, 1.626, -1.096, 1.413, -0.775, 1.879, 0.071, -0.71, -0.87, 0.423, -0.665, 0.715, -1.382, -1.001, 1.48, 0.401, -0.952, -1.402, -1.453, -1.004, -0.469, 0.596, 1.35, 1.104, -0.642, -1.406, -0.172, -0.249, 0.297, -0.507, 0.535, -1.541, -1.068, 1.069, 1.948, 1.232, 1.372, 1.183, -0.173, 0.955, 0.314, -0.197, -0.916, 1.458, -1.725, 1.267], [1.527, -0.306, 1.333, -0.636, 0.079, 0.197, -1.228, -0.667, -0.89, -0.17, 0.699, 0.735, 0.094, -0.143, 0.035, -0.702, -1.31, -0.803, 0.594, -1.741, 0.535, -0.884, -1.256, -0.044, -0.585, -1.615, 0.838, 1.166, -1.823, 0.504, -1.001, -0.291, 1.162, 0.126, -1.948, -1.92, -0.438, 1.581, -1.074, -0.223, -1.424, 1.239, -0.471, -0.572, -0.973, 1.343, -0.254, -1.801, 1.215, -0.986, -1.272, -1.065, 0.174, 1.851, -0.863, -0.174, 0.452, 1.903, 1.814, -0.402, -0.509, -0.284, -1.557, 1.321]]> : tensor<2x64xf32>
  %y = func.call @strict_linear(%x, %w) : (tensor<2x64xf32>, !w) -> tensor<2x3xf32>
  func.call @print_bits(%y) : (tensor<2x3xf32>) -> ()

  %se = arith.constant dense<[[0.5, 2.0], [0.25, 1.0], [1.0, 0.125]]> : tensor<3x2xf16>
  %we = quant_block.pack %d scales(%se : tensor<3x2xf16>) : tensor<3x64xi4> -> !w
  %xe = arith.constant dense<[[-0.5, 0.0, -1.0, -1.0, -1.5, -2.0, 0.5, -1.0, -1.5, 2.0, 0.5, -0.5, -1.0, 2.0, 1.5, -2.0, -0.5, -1.0, -2.0, 2.0, -1.0, -0.5, 0.0, -2.0, 0.0, 1.0, -0.5, 1.0, -0.5, -1.0, -0.5, 0.5, -2.0, 2.0, -0.5, -0.5, -1.0, -1.5, -1.0, 1.5, -0.5, 0.0, -1.5, 0.5, 0.5, 1.0, -1.5, -2.0, -1.0, -1.0, 0.5, 1.0, 1.0, 1.5, -1.0, -0.5, -1.0, 0.0, -2.0, 2.0, -1.0, 0.5, 1.5, 2.0], [-1.0, 1.0, 1.5, 0.5, -1.5, -0.5, -1.5, -0.5, 2.0, 0.0, -1.0, -0.5, 1.0, 0.5, -1.5, -2.0, 1.0, -1.5, -2.0, 0.5, -2.0, 0.0, 0.0, -1.0, -0.5, -2.0, 1.0, -1.5, -2.0, 2.0, 0.0, -0.5, 0.5, -1.5, -1.5, -2.0, 1.5, 1.5, 0.5, -1.5, 0.0, 0.0, -2.0, 0.0, 2.0, 0.0, 1.5, 2.0, -1.5, 0.0, 0.5, -2.0, 2.0, 1.0, 0.5, 1.0, 1.5, 1.5, -1.0, -2.0, 1.5, 2.0, -0.5, 1.0]]> : tensor<2x64xf32>
  %ye = func.call @aten_linear(%xe, %we) : (tensor<2x64xf32>, !w) -> tensor<2x3xf32>
  func.call @print_bits(%ye) : (tensor<2x3xf32>) -> ()

  %yu = func.call @strict_unfolded(%x, %w) : (tensor<2x64xf32>, !w) -> tensor<2x3xf32>
  func.call @print_bits(%yu) : (tensor<2x3xf32>) -> ()
  %yeu = func.call @aten_unfolded(%xe, %we) : (tensor<2x64xf32>, !w) -> tensor<2x3xf32>
  func.call @print_bits(%yeu) : (tensor<2x3xf32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)

// The strict and the exact layer, unfused ...
// CHECK: data =
// CHECK-NEXT: [[STRICT0:.*[0-9].*]]
// CHECK-NEXT: [[STRICT1:.*[0-9].*]]
// CHECK: data =
// CHECK-NEXT: [[EXACT0:.*[0-9].*]]
// CHECK-NEXT: [[EXACT1:.*[0-9].*]]
// ... are the unfolded ones ...
// CHECK: data =
// CHECK-NEXT: {{^}}[[STRICT0]]{{$}}
// CHECK-NEXT: {{^}}[[STRICT1]]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[[EXACT0]]{{$}}
// CHECK-NEXT: {{^}}[[EXACT1]]{{$}}
// ... and the fused ones, from either form.
// CHECK: data =
// CHECK-NEXT: {{^}}[[STRICT0]]{{$}}
// CHECK-NEXT: {{^}}[[STRICT1]]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[[EXACT0]]{{$}}
// CHECK-NEXT: {{^}}[[EXACT1]]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[[STRICT0]]{{$}}
// CHECK-NEXT: {{^}}[[STRICT1]]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[[EXACT0]]{{$}}
// CHECK-NEXT: {{^}}[[EXACT1]]{{$}}
// CHECK-NOT: data =
