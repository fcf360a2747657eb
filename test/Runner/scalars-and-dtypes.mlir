// Scalar arguments and results (0-d arrays), f16, bool and int16 tensors,
// index; the results are printed as a summary (no -o).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arrays.py gen-mixed %t
// RUN: quant-run %s -e mixed -i %t/h.npy -i %t/a.npy -i %t/b.npy -i %t/c.npy -i %t/n.npy | FileCheck %s
// CHECK: result #0 of @mixed: tensor<4xf16> as <f2 (4,) = [1, 4, 9, 16]
// CHECK-NEXT: result #1 of @mixed: f32 as <f4 () = 2.25
// CHECK-NEXT: result #2 of @mixed: tensor<4xi1> as |b1 (4,) = [False, True, False, True]
// CHECK-NEXT: result #3 of @mixed: tensor<4xi16> as <i2 (4,) = [-4, 0, 14, -5536]
// CHECK-NEXT: result #4 of @mixed: index as <i8 () = 6

// A scalar takes a 0-d array.
// RUN: not quant-run %s -e mixed -i %t/h.npy -i %t/h.npy -i %t/b.npy -i %t/c.npy -i %t/n.npy 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: quant-run: error: input #1 '{{.*}}h.npy' has dtype <f2 but argument #1 of @mixed expects f32 (<f4)
// RUN: %python -c "import numpy as np; np.save('%t/a1.npy', np.ones(1, np.float32))"
// RUN: not quant-run %s -e mixed -i %t/h.npy -i %t/a1.npy -i %t/b.npy -i %t/c.npy -i %t/n.npy 2>&1 | FileCheck %s --check-prefix=ZERO-D
// ZERO-D: quant-run: error: input #1 '{{.*}}a1.npy' has shape (1,) but argument #1 of @mixed is the scalar f32, which takes a 0-d array

func.func @mixed(%h: tensor<4xf16>, %a: f32, %b: tensor<4xi1>, %c: tensor<4xi16>, %n: index)
    -> (tensor<4xf16>, f32, tensor<4xi1>, tensor<4xi16>, index) {
  %h2 = arith.mulf %h, %h : tensor<4xf16>
  %a2 = arith.mulf %a, %a : f32
  %true = arith.constant dense<true> : tensor<4xi1>
  %nb = arith.xori %b, %true : tensor<4xi1>
  %c2 = arith.addi %c, %c : tensor<4xi16>
  %one = arith.constant 1 : index
  %n1 = arith.addi %n, %one : index
  return %h2, %a2, %nb, %c2, %n1 : tensor<4xf16>, f32, tensor<4xi1>, tensor<4xi16>, index
}
