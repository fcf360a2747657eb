// quant-run lowers and compiles only the entry and the functions it calls,
// transitively: the other definitions of the module are erased first, so a
// test module with many entries does not pay for all of them on each run.
// Declarations stay (the lowered module still declares @printMemrefF32),
// and what only erased functions call need not link: no --shared-libs here.
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.arange(4, dtype=np.float32))"
// RUN: quant-run %s -e entry -i %t.npy --print-ir-after-pipeline | FileCheck %s
// CHECK-DAG: llvm.func @entry(
// CHECK-DAG: llvm.func @helper(
// CHECK-DAG: llvm.func @leaf(
// CHECK-DAG: llvm.func @printMemrefF32(
// CHECK-NOT: llvm.func @unreached
// CHECK-NOT: llvm.func @also_unreached
// CHECK: result #0 of @entry: tensor<4xf32> as <f4 (4,) = [0, 3, 6, 9]

func.func @entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %twice = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %y = arith.addf %twice, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @unreached(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @also_unreached(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %u = tensor.cast %y : tensor<4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return %y : tensor<4xf32>
}
func.func @also_unreached(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @printMemrefF32(tensor<*xf32>)
