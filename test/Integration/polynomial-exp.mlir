// The CPU pipeline computes f32 math.exp with upstream's polynomial
// approximation (--quant-block-cpu-polynomial-exp): vector arithmetic
// instead of a libm call per lane, the same on every host (its fused
// multiply-adds are math.fma). Its error over the finite range, against exp
// in float64 rounded to f32: at most 5 ulp for normal results; results
// below the smallest normal f32 come out as zero or nearly; the special
// values exactly.
// RUN: quant-opt %s --quant-block-cpu-pipeline | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: expf
// LOWERED-NOT: llvm.intr.exp
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/polynomial_exp.py gen %t
// RUN: quant-run %s -e exp -i %t/x.npy -o %t/e.npy
// RUN: %python %S/Inputs/polynomial_exp.py check %t | FileCheck %s
// CHECK: normal results: max {{[0-9]+}} ulp (within 5)
// CHECK: subnormal results: within the smallest normal of zero: True
// CHECK: exp(0.0) = 1.0
// CHECK: exp(-0.0) = 1.0
// CHECK: exp(inf) = inf
// CHECK: exp(-inf) = 0.0
// CHECK: exp(nan) = nan
// CHECK: exp(1.0) = 2.7182817
// CHECK: exp(-1.0) = 0.36787945
// CHECK: exp(0.5) = 1.6487212
// CHECK: exp(88.72284) = inf
// CHECK: exp(-150.0) = 0.0

func.func @exp(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = math.exp %x : tensor<65536xf32>
  return %e : tensor<65536xf32>
}
