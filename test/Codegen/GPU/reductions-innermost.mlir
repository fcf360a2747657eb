// RUN: quant-opt %s --split-input-file --mlir-print-local-scope --pass-pipeline="builtin.module(func.func(quant-block-gpu-reductions-innermost))" | FileCheck %s

// An attention's weighted sum of values: out[h, d] += p[h, c] * v[c, d],
// its loops (h, c, d) with the reduction c before d. The parallel loops
// come first, then the reduction: (h, d, c), the maps permuted with them.
// CHECK-LABEL: func.func @weighted_values
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[M]]
// CHECK-NEXT: linalg.yield %[[S]]
#p = affine_map<(h, c, d) -> (h, c)>
#v = affine_map<(h, c, d) -> (c, d)>
#out = affine_map<(h, c, d) -> (h, d)>
func.func @weighted_values(%p: memref<4x16xf32>, %v: memref<16x64xf32>, %out: memref<4x64xf32>) {
  linalg.generic {indexing_maps = [#p, #v, #out], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p, %v : memref<4x16xf32>, memref<16x64xf32>) outs(%out : memref<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// linalg.index follows its loop: the index of c (loop 1 before) is loop 2
// after, that of d (loop 2) loop 1.
// CHECK-LABEL: func.func @indices
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[C:.*]] = affine.apply affine_map<(d0, d1, d2) -> (d2)>
// CHECK: %[[D:.*]] = affine.apply affine_map<(d0, d1, d2) -> (d1)>
// CHECK-NEXT: arith.addi %[[C]], %[[D]]
#x = affine_map<(h, c, d) -> (h, c)>
#o = affine_map<(h, c, d) -> (h, d)>
func.func @indices(%x: memref<4x16xi32>, %out: memref<4x64xi32>) {
  linalg.generic {indexing_maps = [#x, #o], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<4x16xi32>) outs(%out : memref<4x64xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %c = linalg.index 1 : index
    %d = linalg.index 2 : index
    %i = arith.addi %c, %d : index
    %w = arith.index_cast %i : index to i32
    %m = arith.muli %a, %w : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Reductions already last, or no reduction at all: unchanged.
// CHECK-LABEL: func.func @in_order
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
#row = affine_map<(r, k) -> (r, k)>
#sum = affine_map<(r, k) -> (r)>
func.func @in_order(%x: memref<4x16xf32>, %s: memref<4xf32>, %y: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#row, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x16xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  }
  return
}
