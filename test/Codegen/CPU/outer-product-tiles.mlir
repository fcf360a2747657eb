// RUN: quant-opt %s --split-input-file --quant-block-cpu-vectorize="vector-bits=512" --canonicalize | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-cpu-vectorize="vector-bits=256" --canonicalize | FileCheck %s --check-prefix=AVX2

// A matrix product is a sum of outer products: with AVX-512, tiles of 4 rows
// times 4 vectors of 16 columns, the accumulators a loop-carried vector of
// the k loop, which runs innermost; columns outside rows, so that the row
// tiles reuse a panel of B. Without `contract`, a multiplication and an
// addition per term (the scalar order and rounding).

// CHECK-LABEL: func.func @matmul(
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %c64
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %c4
// CHECK: %[[INIT:.*]] = vector.transfer_read %{{.*}}[%[[M]], %[[N]]]{{.*}} vector<4x64xf32>
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4x64xf32>)
// CHECK: %[[B:.*]] = vector.transfer_read %{{.*}} vector<1x64xf32>
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %{{.*}} : vector<4x64xf32>
// CHECK: scf.yield %[[S]] : vector<4x64xf32>
// CHECK: vector.transfer_write %{{.*}}[%[[M]], %[[N]]]
// AVX2-LABEL: func.func @matmul(
// AVX2: -> (vector<2x32xf32>)
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x256xf32>) -> tensor<64x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %c : tensor<64x256xf32>
}

// -----

// With `contract`, each term is one math.fma (rounded once on every host;
// without flags, which would let LLVM split it again).

// CHECK-LABEL: func.func @contract(
// CHECK: iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<4x64xf32>)
// CHECK: math.fma %{{.*}}, %{{.*}}, %[[ACC]] : vector<4x64xf32>
// CHECK-NOT: arith.addf
func.func @contract(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x256xf32>) -> tensor<64x256xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%init : tensor<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y fastmath<reassoc,contract> : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %c : tensor<64x256xf32>
}

// -----

// Two reduction loops (positions in blocks, the first dynamic): both run
// innermost, in order, and the accumulators are carried by both.

// CHECK-LABEL: func.func @two_reductions(
// CHECK: %[[INIT:.*]] = vector.transfer_read {{.*}} vector<4x1x64xf32>
// CHECK: scf.for {{.*}} iter_args(%[[OUTER:.*]] = %[[INIT]]) -> (vector<4x1x64xf32>)
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[OUTER]]) -> (vector<4x1x64xf32>)
// CHECK: math.fma
func.func @two_reductions(%p: tensor<8x4x?x64xf32>, %v: tensor<4x?x64x128xf32>) -> tensor<8x4x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x4x128xf32>) -> tensor<8x4x128xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(t, h, i, b, l) -> (t, h, b, l)>, affine_map<(t, h, i, b, l) -> (h, b, l, i)>, affine_map<(t, h, i, b, l) -> (t, h, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%p, %v : tensor<8x4x?x64xf32>, tensor<4x?x64x128xf32>) outs(%init : tensor<8x4x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y fastmath<reassoc,contract> : f32
    %s = arith.addf %acc, %m fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  } -> tensor<8x4x128xf32>
  return %c : tensor<8x4x128xf32>
}

// -----

// Not sums of outer products: columns that are not whole vectors (40 of
// 16 lanes), and a body that does more than multiply and add. They take
// the ordered-sum tiles of the general rule (no loop-carried vector).

// CHECK-LABEL: func.func @partial_vectors(
// CHECK-NOT: -> (vector<
// CHECK-LABEL: func.func @scaled_terms(
// CHECK-NOT: -> (vector<
func.func @partial_vectors(%a: tensor<64x128xf32>, %b: tensor<128x40xf32>) -> tensor<64x40xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x40xf32>) -> tensor<64x40xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x40xf32>) outs(%init : tensor<64x40xf32>) -> tensor<64x40xf32>
  return %c : tensor<64x40xf32>
}

func.func @scaled_terms(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x256xf32>) -> tensor<64x256xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%init : tensor<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %two = arith.constant 2.0 : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %two : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %c : tensor<64x256xf32>
}
