// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-cpu-select-matmul-kernels{x86-avx512-vnni=true},quant-block-cpu-tile-constant-weights))" | FileCheck %s

// A weight packed from constants whose kernel reads 16-row tiles
// (vnni_row_lanes: int8 activations with AVX512-VNNI): the same constant
// parts packed with row_tile = 16, the row-major pack gone.
// CHECK-LABEL: func.func @constant_weight
// CHECK: %[[W:.*]] = quant_block.pack %{{.*}} scales(%{{.*}} : tensor<32x2xf16>) : tensor<32x64xi4> -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
// CHECK-NOT: quant_block.pack
// CHECK: quant_block.matmul %{{.*}}, %[[W]] transpose_rhs accumulate(i32) {{.*}}vnni_row_lanes
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @constant_weight(%x: !a) -> tensor<2x32xf32> {
  %d = arith.constant dense<3> : tensor<32x64xi4>
  %s = arith.constant dense<5.000000e-01> : tensor<32x2xf16>
  %w = quant_block.pack %d scales(%s : tensor<32x2xf16>) : tensor<32x64xi4> -> !w
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

// -----

// The row-major pack stays for its other users; the product takes a tiled
// one of the same parts.
// CHECK-LABEL: func.func @shared_pack
// CHECK-DAG: %[[ROWS:.*]] = quant_block.pack {{.*}} -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
// CHECK-DAG: %[[TILES:.*]] = quant_block.pack {{.*}} row_tile = 16>>
// CHECK: quant_block.matmul %{{.*}}, %[[TILES]]
// CHECK: quant_block.dequantize %[[ROWS]]
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @shared_pack(%x: !a) -> (tensor<2x32xf32>, tensor<32x64xf32>) {
  %d = arith.constant dense<3> : tensor<32x64xi4>
  %s = arith.constant dense<5.000000e-01> : tensor<32x2xf16>
  %w = quant_block.pack %d scales(%s : tensor<32x2xf16>) : tensor<32x64xi4> -> !w
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x32xf32>
  %f = quant_block.dequantize %w : !w -> tensor<32x64xf32>
  return %y, %f : tensor<2x32xf32>, tensor<32x64xf32>
}

// -----

// Two products of one constant weight share one tiled pack.
// CHECK-LABEL: func.func @two_products
// CHECK: %[[W:.*]] = quant_block.pack {{.*}} row_tile = 16>>
// CHECK-NOT: quant_block.pack
// CHECK: quant_block.matmul %{{.*}}, %[[W]]
// CHECK: quant_block.matmul %{{.*}}, %[[W]]
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @two_products(%x: !a, %x2: !a) -> (tensor<2x32xf32>, tensor<2x32xf32>) {
  %d = arith.constant dense<3> : tensor<32x64xi4>
  %s = arith.constant dense<5.000000e-01> : tensor<32x2xf16>
  %w = quant_block.pack %d scales(%s : tensor<32x2xf16>) : tensor<32x64xi4> -> !w
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x32xf32>
  %y2 = quant_block.matmul %x2, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x32xf32>
  return %y, %y2 : tensor<2x32xf32>, tensor<2x32xf32>
}

// -----

// Left as they are: a weight that is an argument (the caller's buffers), a
// pack of non-constant parts, N = 8 (no kernel reads 16-row tiles of it,
// nor could the layout take it), and a kernel that reads rows
// (partial_sums: f32 activations with reassoc).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: row_tile
// CHECK: return
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!w8 = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @kept(%x: !a, %xf: tensor<2x64xf32>, %arg: !w, %data: tensor<32x64xi4>) -> (tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x8xf32>, tensor<2x32xf32>) {
  %y0 = quant_block.matmul %x, %arg transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x32xf32>
  %s = arith.constant dense<5.000000e-01> : tensor<32x2xf16>
  %w1 = quant_block.pack %data scales(%s : tensor<32x2xf16>) : tensor<32x64xi4> -> !w
  %y1 = quant_block.matmul %x, %w1 transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x32xf32>
  %d8 = arith.constant dense<3> : tensor<8x64xi4>
  %s8 = arith.constant dense<5.000000e-01> : tensor<8x2xf16>
  %w8 = quant_block.pack %d8 scales(%s8 : tensor<8x2xf16>) : tensor<8x64xi4> -> !w8
  %y2 = quant_block.matmul %x, %w8 transpose_rhs accumulate(i32) inhibit : !a, !w8 -> tensor<2x8xf32>
  %d = arith.constant dense<3> : tensor<32x64xi4>
  %w3 = quant_block.pack %d scales(%s : tensor<32x2xf16>) : tensor<32x64xi4> -> !w
  %y3 = quant_block.matmul %xf, %w3 transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<2x64xf32>, !w -> tensor<2x32xf32>
  return %y0, %y1, %y2, %y3 : tensor<2x32xf32>, tensor<2x32xf32>, tensor<2x8xf32>, tensor<2x32xf32>
}
