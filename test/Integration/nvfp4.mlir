// NVFP4 (E2M1 elements in blocks of 16, E4M3 block scales, one f32
// per-tensor scale) through quantize_dynamic absmax and dequantize, compiled
// for the CPU and executed.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!nv = !quant_block.tensor<2x32, #quant_block.scheme<nvfp4>>
func.func @nvfp4(%x: tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<1x1xf32>, tensor<2x2xf8E4M3FN>) {
  %q = quant_block.quantize_dynamic absmax %x : tensor<2x32xf32> -> !nv
  %y = quant_block.dequantize %q : !nv -> tensor<2x32xf32>
  %p:3 = quant_block.unpack %q : !nv -> tensor<2x32xf4E2M1FN>, tensor<2x2xf8E4M3FN>, tensor<1x1xf32>
  return %y, %p#2, %p#1 : tensor<2x32xf32>, tensor<1x1xf32>, tensor<2x2xf8E4M3FN>
}
func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 0.5, 0.25, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75],
    [2688.0, -1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x32xf32>
  %r:3 = func.call @nvfp4(%x) : (tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<1x1xf32>, tensor<2x2xf8E4M3FN>)
  %ub = arith.bitcast %r#0 : tensor<2x32xf32> to tensor<2x32xi32>
  %u = tensor.cast %ub : tensor<2x32xi32> to tensor<*xi32>
  // Tensor max 2688 = 6 * 448 gives the outer scale 1. Block (0, 0): max 16,
  // scale 16 / 6 = 2.67 rounds to E4M3 2.75, elements x / 2.75 round to the
  // E2M1 grid (0.36 -> 0.5, 0.73 -> 0.5, 1.09 -> 1, 5.8 -> 6). Block (0, 1):
  // scale 0.75 / 6 = 0.125 exactly. Block (1, 0): scale 448, -1 / 448 rounds
  // to -0. Block (1, 1) is all zeros and gets scale 1.
  // [1.375, 1.375, 2.75, 4.125, 5.5, 5.5, 8.25, 8.25, 8.25, 11, 11, 11, 11, 16.5, 16.5, 16.5, 0.5, 0.25, -0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.75]
  // CHECK: [1068498944, 1068498944, 1076887552, 1082392576, 1085276160, 1085276160, 1090781184, 1090781184, 1090781184, 1093664768, 1093664768, 1093664768, 1093664768, 1099169792, 1099169792, 1099169792, 1056964608, 1048576000, -1090519040, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1061158912]
  // [2688, -0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: [1160249344, -2147483648, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  // [1]
  // CHECK: {{\[}}[1065353216]]
  %gb = arith.bitcast %r#1 : tensor<1x1xf32> to tensor<1x1xi32>
  %g = tensor.cast %gb : tensor<1x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%g) : (tensor<*xi32>) -> ()
  %sb = arith.bitcast %r#2 : tensor<2x2xf8E4M3FN> to tensor<2x2xi8>
  %sw = arith.extui %sb : tensor<2x2xi8> to tensor<2x2xi32>
  %s = tensor.cast %sw : tensor<2x2xi32> to tensor<*xi32>
  // E4M3 codes of the block scales: 2.75, 0.125, 448, 1.
  // CHECK: [67,   32]
  // CHECK: [126,   56]
  func.call @printMemrefI32(%s) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
