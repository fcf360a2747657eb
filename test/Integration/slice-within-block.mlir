// quant_block.extract_slice smaller than a block: the result has as many
// scales as elements, and the scales must still be sliced at offset / block
// (not at the element offsets). Compiled for the CPU and executed.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!q = !quant_block.tensor<1x16, #quant_block.scheme<i8 : f32, block = [1, 2]>>
!s = !quant_block.tensor<1x1, #quant_block.scheme<i8 : f32, block = [1, 2]>>
func.func @slice(%q: !q) -> (tensor<1x1xf32>, tensor<1x1xf32>) {
  // Columns [2, 3) lie in block 1 and [14, 15) in block 7.
  %a = quant_block.extract_slice %q offsets = [0, 2] sizes = [1, 1] : !q -> !s
  %b = quant_block.extract_slice %q offsets = [0, 14] sizes = [1, 1] : !q -> !s
  %x = quant_block.dequantize %a : !s -> tensor<1x1xf32>
  %y = quant_block.dequantize %b : !s -> tensor<1x1xf32>
  return %x, %y : tensor<1x1xf32>, tensor<1x1xf32>
}
func.func @main() {
  %d = arith.constant dense<[[1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 1]]> : tensor<1x16xi8>
  %sc = arith.constant dense<[[1.0, 10.0, 100.0, 1000.0, 1.0, 1.0, 1.0, 0.5]]> : tensor<1x8xf32>
  %q = quant_block.pack %d scales(%sc : tensor<1x8xf32>) : tensor<1x16xi8> -> !q
  %r:2 = func.call @slice(%q) : (!q) -> (tensor<1x1xf32>, tensor<1x1xf32>)
  // 3 * 10 and 5 * 0.5.
  // CHECK: {{\[}}[30]]
  // CHECK: {{\[}}[2.5]]
  %u = tensor.cast %r#0 : tensor<1x1xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %r#1 : tensor<1x1xf32> to tensor<*xf32>
  func.call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
