// Float products that are sums of outer products (a matrix product, the
// two products of a prefill's attention) take register tiles in
// --quant-block-cpu-vectorize: a few rows times a few vectors of
// accumulators, kept in registers across the reduction loops, which run
// innermost. Each output still adds its terms in increasing reduction index
// (several reduction loops: lexicographically), so the compiled bits are
// those of that order, computed in numpy (Inputs/outer_product_order.py):
// without `contract` each product and sum rounds, with it each term is one
// fused multiply-add (math.fma: the same bits on hosts without FMA
// instructions; the -Dtarget reruns check x86-64-v2 and v3). The
// attention-shaped case has a dynamic number of position blocks, runs its
// heads on threads, and gives the same bits with 1 and 3 of them.
// REQUIRES: libomp
// RUN: quant-opt %s --quant-block-cpu-pipeline --mlir-print-ir-after=quant-block-cpu-vectorize --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILED
// TILED-LABEL: func.func @mm_strict(
// TILED: scf.for {{.*}} -> ({{.*}}vector<{{[0-9]+}}x{{[0-9]+}}xf32>)
// TILED-NOT: math.fma
// TILED: arith.addf
// TILED-LABEL: func.func @mm_fast(
// TILED: scf.for {{.*}} -> ({{.*}}vector<{{[0-9]+}}x{{[0-9]+}}xf32>)
// TILED: math.fma
// TILED-LABEL: func.func @pv_fast(
// TILED: scf.forall
// TILED: scf.for {{.*}} -> ({{.*}}vector<
// TILED: scf.for {{.*}} -> ({{.*}}vector<
// TILED: math.fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/outer_product_order.py gen %t
// RUN: quant-run %s -e mm_strict -i %t/mm_strict_a.npy -i %t/mm_strict_b.npy -o %t/mm_strict.npy
// RUN: quant-run %s -e mm_fast -i %t/mm_fast_a.npy -i %t/mm_fast_b.npy -o %t/mm_fast.npy
// RUN: env OMP_NUM_THREADS=1 quant-run %s -e pv_fast -i %t/pv_fast_a.npy -i %t/pv_fast_b.npy -o %t/pv_fast.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e pv_fast -i %t/pv_fast_a.npy -i %t/pv_fast_b.npy -o %t/pv_fast.t3.npy
// RUN: %python %S/Inputs/outer_product_order.py check %t | FileCheck %s
// CHECK: mm_strict: same bits
// CHECK: mm_fast: same bits
// CHECK: pv_fast: same bits
// RUN: %python %S/Inputs/outer_product_order.py check %t .t3 pv_fast | FileCheck %s --check-prefix=THREADS
// THREADS: pv_fast.t3: same bits

func.func @mm_strict(%a: tensor<12x64xf32>, %b: tensor<64x48xf32>) -> tensor<12x48xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<12x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<12x48xf32>) -> tensor<12x48xf32>
  %c = linalg.matmul ins(%a, %b : tensor<12x64xf32>, tensor<64x48xf32>) outs(%init : tensor<12x48xf32>) -> tensor<12x48xf32>
  return %c : tensor<12x48xf32>
}

func.func @mm_fast(%a: tensor<12x64xf32>, %b: tensor<64x48xf32>) -> tensor<12x48xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<12x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<12x48xf32>) -> tensor<12x48xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<12x64xf32>, tensor<64x48xf32>) outs(%init : tensor<12x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y fastmath<reassoc,contract> : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  } -> tensor<12x48xf32>
  return %c : tensor<12x48xf32>
}

// out[t, h, i] = sum over (block, l) of p[t, h, block, l] * v[h, block, l, i].
func.func @pv_fast(%p: tensor<8x4x?x64xf32>, %v: tensor<4x?x64x128xf32>) -> tensor<8x4x128xf32> {
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
