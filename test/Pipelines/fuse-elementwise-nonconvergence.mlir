// RUN: quant-opt %s --quant-block-fuse-elementwise --verify-diagnostics -o /dev/null

// A contraction whose k extent is static in one operand (64, a collapse of
// the dequantized weight) and dynamic in the other: the reshape-by-expansion
// and reshape canonicalization patterns rewrite each other's results
// forever. The pass says so (the matmul lowering no longer produces this:
// it gives the lhs the weight's K).
// expected-error @below {{elementwise fusion did not converge (its rewrite patterns kept rewriting each other's results)}}
func.func @dynamic_k(%x: tensor<2x?xf32>, %w: tensor<8x2x16x2xf32>) -> tensor<2x8xf32> {
  %collapsed = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<8x2x16x2xf32> into tensor<8x64xf32>
  %init = tensor.empty() : tensor<2x8xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %zero = linalg.fill ins(%cst : f32) outs(%init : tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %collapsed : tensor<2x?xf32>, tensor<8x64xf32>) outs(%zero : tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
