// Upstream quant ops go through --quant-block-cpu-pipeline: the pipeline
// raises them to quant_block first (they have no other lowering here), then
// compiles and runs. q = clamp(round(x / s) + zp), x = (q - zp) * s.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s
// Without the raise, the quant ops stay and the lowering reports each at
// the op (not bufferization, later and far from the cause).
// RUN: not quant-opt %s --quant-block-cpu-pipeline=raise=false 2>&1 | FileCheck %s --check-prefix=NORAISE
// NORAISE: error: cannot lower to linalg: quant.qcast was not raised to quant_block
// NORAISE: error: cannot lower to linalg: quant.dcast was not raised to quant_block
// NORAISE-NOT: not bufferized

!axis = !quant.uniform<i8:f32:1, {0.5:3, 0.25:-2}>
func.func @quantize(%x: tensor<2x2xf32>) -> tensor<2x2xi8> {
  %q = quant.qcast %x : tensor<2x2xf32> to tensor<2x2x!axis>
  %s = quant.scast %q : tensor<2x2x!axis> to tensor<2x2xi8>
  return %s : tensor<2x2xi8>
}
func.func @dequantize(%s: tensor<2x2xi8>) -> tensor<2x2xf32> {
  %q = quant.scast %s : tensor<2x2xi8> to tensor<2x2x!axis>
  %x = quant.dcast %q : tensor<2x2x!axis> to tensor<2x2xf32>
  return %x : tensor<2x2xf32>
}
func.func @main() {
  %x = arith.constant dense<[[1.0, -1.0], [2.6, 100.0]]> : tensor<2x2xf32>
  %q = func.call @quantize(%x) : (tensor<2x2xf32>) -> tensor<2x2xi8>
  // Column 0 (s = 0.5, zp = 3): 2 + 3, 5.2 -> 5, + 3. Column 1 (s = 0.25,
  // zp = -2): -4 - 2, 400 - 2 saturates to 127.
  // CHECK: {{\[}}[5,   -6],
  // CHECK-NEXT: [8,   127]]
  %qi = arith.extsi %q : tensor<2x2xi8> to tensor<2x2xi32>
  %qu = tensor.cast %qi : tensor<2x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%qu) : (tensor<*xi32>) -> ()
  // (5 - 3) * 0.5, (-6 + 2) * 0.25, (8 - 3) * 0.5, (127 + 2) * 0.25.
  // [1, -1]
  // CHECK: {{\[}}[1065353216, -1082130432],
  // [2.5, 32.25]
  // CHECK-NEXT: [1075838976, 1107361792]]
  %y = func.call @dequantize(%q) : (tensor<2x2xi8>) -> tensor<2x2xf32>
  %yub = arith.bitcast %y : tensor<2x2xf32> to tensor<2x2xi32>
  %yu = tensor.cast %yub : tensor<2x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%yu) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
