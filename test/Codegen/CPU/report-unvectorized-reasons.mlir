// Each reason of --quant-block-cpu-report-unvectorized, on ops as they are
// (the pass alone, without the vectorizer before it).
// RUN: quant-opt %s --split-input-file --quant-block-cpu-report-unvectorized -verify-diagnostics | FileCheck %s

// The pass changes nothing.
// CHECK-LABEL: func.func @dynamic_shape
// CHECK: linalg.generic
func.func @dynamic_shape(%x: tensor<?x8xf32>, %e: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-remark @+1 {{not vectorized: dynamic shape: loop ranges [?, 8] (the vectorizer makes static tiles and uses no masks)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

func.func @buffers(%x: memref<8xf32>, %y: memref<8xf32>) {
  // expected-remark @+1 {{not vectorized: it works on buffers}}
  linalg.copy ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
  return
}

// -----

// A body op with no vector form.
func.func @region_in_body(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{not vectorized: its body's 'scf.if' has no vector form}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cond = arith.cmpf ogt, %in, %zero : f32
    %v = scf.if %cond -> f32 {
      scf.yield %in : f32
    } else {
      %n = arith.negf %in : f32
      scf.yield %n : f32
    }
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A vectorizable op that nothing vectorized is reported as such.
func.func @not_run(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @+1 {{not vectorized: the vectorizer's preconditions hold but it was not vectorized}}
  %r = linalg.negf ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
