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
  // 3 * 10 = 30 (0x41f00000) and 5 * 0.5 = 2.5 (0x40200000), printed as
  // bit patterns.
  // CHECK: {{\[}}[1106247680]]
  // CHECK: {{\[}}[1075838976]]
  %rb0 = arith.bitcast %r#0 : tensor<1x1xf32> to tensor<1x1xi32>
  %u = tensor.cast %rb0 : tensor<1x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  %rb1 = arith.bitcast %r#1 : tensor<1x1xf32> to tensor<1x1xi32>
  %v = tensor.cast %rb1 : tensor<1x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%v) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
