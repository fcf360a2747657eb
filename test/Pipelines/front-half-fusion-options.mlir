// The fusion options of the front half (--quant-block-linalg-pipeline, the
// start of every target pipeline): by default --quant-block-propagate and
// --quant-block-fuse run, so neither a dequantized weight nor a transposed
// copy of it is left; `propagate=false` keeps aten.linear's transpose of the
// dequantized weight (fusion cannot see through it), `fuse=false` dequantizes
// the propagated, transposed weight into a tensor, and `integer-dot=false`
// keeps the product of dynamically quantized int8 activations in floats.
// RUN: quant-opt %s --quant-block-linalg-pipeline | FileCheck %s
// RUN: quant-opt %s --quant-block-linalg-pipeline="propagate=false" | FileCheck %s --check-prefix=NOPROP
// RUN: quant-opt %s --quant-block-linalg-pipeline="fuse=false" | FileCheck %s --check-prefix=NOFUSE
// RUN: quant-opt %s --quant-block-linalg-pipeline="integer-dot=false" | FileCheck %s --check-prefix=NOINT

// The weight's parts: packed data [64, 64] i8, f16 scales [64, 4]; in the
// block space the dequantized weight is [64, 4, 16, 2].
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: tensor<64x64xi8>, %{{.*}}: tensor<64x4xf16>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor<64x4x16x2xf32>
// CHECK-NOT: tensor<4x16x2x64xf32>
// CHECK: return
// NOPROP-LABEL: func.func @linear(
// NOPROP: linalg.generic {{.*}} outs(%{{.*}} : tensor<64x4x16x2xf32>)
// NOPROP: linalg.transpose
// NOFUSE-LABEL: func.func @linear(
// NOFUSE: tensor<128x64xf32>
!w = !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<4x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @linear(%x: tensor<4x128xf32>, %w: !w) -> tensor<4x64xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x128xf32>
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%wd : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<4x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<4x128xf32>, tensor<128x64xf32>) outs(%init : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// i32 block sums [4, 64, 4] by default; float partial sums with
// integer-dot=false.
// CHECK-LABEL: func.func @linear_int8_activations(
// CHECK: linalg.fill {{.*}} -> tensor<4x64x4xi32>
// NOINT-LABEL: func.func @linear_int8_activations(
// NOINT-NOT: xi32>
// NOINT: linalg.fill {{.*}} -> tensor<4x64x16x2xf32>
// NOINT-NOT: xi32>
// NOINT: return
func.func @linear_int8_activations(%x: tensor<4x128xf32>, %w: !w) -> tensor<4x64xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x128xf32> -> !a
  %xd = quant_block.dequantize %xq : !a -> tensor<4x128xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<64x128xf32>
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<4x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wd : tensor<4x128xf32>, tensor<64x128xf32>) outs(%init : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// The same with the weight transposed before the product, as torch-mlir
// writes aten.linear: propagation moves the transpose onto the packed
// weight and fusion folds it into transpose_rhs, so the product is the
// integer one too (before the fold, the transposed int4 weight has one
// scale per packed code along its rows, which no i32 lowering reads).
// CHECK-LABEL: func.func @linear_int8_activations_transposed(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.fill {{.*}} -> tensor<4x64x4xi32>
// NOINT-LABEL: func.func @linear_int8_activations_transposed(
// NOINT-NOT: xi32>
// NOINT: return
func.func @linear_int8_activations_transposed(%x: tensor<4x128xf32>, %w: !w) -> tensor<4x64xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x128xf32> -> !a
  %xd = quant_block.dequantize %xq : !a -> tensor<4x128xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<64x128xf32>
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%wd : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<4x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%xd, %wt : tensor<4x128xf32>, tensor<128x64xf32>) outs(%init : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
