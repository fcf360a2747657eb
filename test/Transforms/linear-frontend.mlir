// RUN: quant-opt %s --split-input-file --quant-block-raise --quant-block-propagate --quant-block-fuse --canonicalize | FileCheck %s
// --quant-block-fuse alone already folds the transpose:
// RUN: quant-opt %s --split-input-file --quant-block-raise --quant-block-propagate --quant-block-fuse | FileCheck %s

// A linear layer as torch-mlir writes aten.linear with a group-quantized
// weight: the weight dequantized by broadcasting generics (codes one per
// byte, groups of 32 along K, f32 scales and i8 zero points), transposed by
// linalg.transpose and multiplied by linalg.matmul from a zero fill. The
// raise makes the dequantization one quant_block op, propagation moves it
// below the transpose (a quant_block.transpose of the packed weight), fusion
// makes the matmul read the packed weight, and canonicalization folds the
// transpose into transpose_rhs: one matmul on the weight as stored, nothing
// weight-sized left.

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#drop = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @aten_linear(
// CHECK-SAME: %[[X:.*]]: tensor<4x128xf32>, %[[Q:.*]]: tensor<64x128xi8>, %[[S:.*]]: tensor<64x4xf32>, %[[ZP:.*]]: tensor<64x4xi8>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<64x4xf32>) zero_points(%[[ZP]] : tensor<64x4xi8>)
// CHECK-NOT: quant_block.transpose
// CHECK-NOT: quant_block.dequantize
// CHECK-NOT: linalg.
// CHECK: %[[Y:.*]] = quant_block.matmul %[[X]], %[[P]] transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<4x128xf32>, !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>> -> tensor<4x64xf32>
// CHECK-NOT: quant_block.transpose
// CHECK-NOT: linalg.
// CHECK: return %[[Y]]
func.func @aten_linear(%x: tensor<4x128xf32>, %q: tensor<64x128xi8>, %s: tensor<64x4xf32>, %zp: tensor<64x4xi8>) -> tensor<4x64xf32> {
  %e3 = tensor.empty() : tensor<64x4x32xf32>
  %sb = linalg.generic {indexing_maps = [#drop, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<64x4xf32>) outs(%e3 : tensor<64x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x4x32xf32>
  %zb = linalg.generic {indexing_maps = [#drop, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%zp : tensor<64x4xi8>) outs(%e3 : tensor<64x4x32xf32>) {
  ^bb0(%in: i8, %out: f32):
    %f = arith.sitofp %in : i8 to f32
    linalg.yield %f : f32
  } -> tensor<64x4x32xf32>
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<64x4x32xf32> into tensor<64x128xf32>
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<64x4x32xf32> into tensor<64x128xf32>
  %qf = arith.sitofp %q : tensor<64x128xi8> to tensor<64x128xf32>
  %c = arith.subf %qf, %ze : tensor<64x128xf32>
  %w = arith.mulf %c, %se : tensor<64x128xf32>
  // aten.t(weight)
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%w : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  // aten.mm(input, weight^T)
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<4x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<4x128xf32>, tensor<128x64xf32>) outs(%init : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// The same layer with the weight a quantized argument (int4, f16 scales, as
// quant-run --quantized-as-parts passes it) and a dynamic token count.
!w = !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
// CHECK-LABEL: func.func @aten_linear_quantized_argument(
// CHECK-SAME: %[[X:.*]]: tensor<?x128xf32>, %[[W:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.transpose
// CHECK: %[[Y:.*]] = quant_block.matmul %[[X]], %[[W]] transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<?x128xf32>, !quant_block.tensor<64x128, {{.*}}> -> tensor<?x64xf32>
// CHECK-NOT: quant_block.transpose
// CHECK: return %[[Y]]
func.func @aten_linear_quantized_argument(%x: tensor<?x128xf32>, %w: !w) -> tensor<?x64xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x128xf32>
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%wd : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x128xf32>
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty(%m) : tensor<?x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<?x128xf32>, tensor<128x64xf32>) outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// A strict multiply-add generic instead of linalg.matmul: no fast-math flags
// (the order over k is the written one), the same single matmul.
!w = !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @strict_linear(
// CHECK-SAME: %[[X:.*]]: tensor<4x128xf32>, %[[W:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.transpose
// CHECK: quant_block.matmul %[[X]], %[[W]] transpose_rhs accumulate(f32) inhibit : tensor<4x128xf32>
func.func @strict_linear(%x: tensor<4x128xf32>, %w: !w) -> tensor<4x64xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x128xf32>
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%wd : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<4x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wt : tensor<4x128xf32>, tensor<128x64xf32>) outs(%init : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
