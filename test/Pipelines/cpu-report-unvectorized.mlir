// --quant-block-cpu-pipeline="report-unvectorized" remarks on every linalg
// op that the vectorizer left scalar, with the reason, and on no other.
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="report-unvectorized" -verify-diagnostics -o /dev/null
// Without the option, nothing is reported (the expected-* lines removed:
// quant-opt checks them even without -verify-diagnostics).
// RUN: sed -e 's/expected-remark.*//' %s | quant-opt --split-input-file --quant-block-cpu-pipeline -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: remark

// Vectorized: an elementwise op, a reduction, a dequantization and an int4
// matmul (the kernels of the quant_block lowering). No remark.
!q = !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @vectorized(%x: tensor<4x128xf32>, %a: tensor<8x16xf32>, %q: !q)
    -> (tensor<8x16xf32>, tensor<8xf32>, tensor<64x128xf32>, tensor<4x64xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %sum = linalg.add ins(%a, %a : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %red = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %acc, %in : f32
      linalg.yield %r : f32
    }
  %d = quant_block.dequantize %q : !q -> tensor<64x128xf32>
  %y = quant_block.matmul %x, %q transpose_rhs accumulate(f32) inhibit : tensor<4x128xf32>, !q -> tensor<4x64xf32>
  return %sum, %red, %d, %y : tensor<8x16xf32>, tensor<8xf32>, tensor<64x128xf32>, tensor<4x64xf32>
}

// -----

// Sub-byte elements in memory stay scalar.
func.func @sub_byte(%x: tensor<64xi4>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  // expected-remark @+1 {{not vectorized: it reads or writes i4 elements in memory}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<64xi4>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: i4, %out: f32):
    %f = arith.sitofp %in : i4 to f32
    linalg.yield %f : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// An indexing map that is not a projected permutation (as K-quant outer
// scales are read) stays whole and scalar.
func.func @floordiv_map(%s: tensor<4xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  // expected-remark @+1 {{not vectorized: its indexing map (d0) -> (d0 floordiv 4) is not a projected permutation}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 floordiv 4)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%s : tensor<4xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A reduction whose body is not one combining op of the accumulator: the
// tile is made, the upstream vectorizer refuses it.
func.func @unrecognized_combiner(%a: tensor<8x16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %er = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{not vectorized: the upstream vectorizer recognizes no combiner in its reduction}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %d = arith.mulf %acc, %two : f32
    %s = arith.addf %d, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
