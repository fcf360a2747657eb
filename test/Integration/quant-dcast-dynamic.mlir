// Upstream quant.dcast on dynamically shaped tensors (per tensor, and per
// axis along a static dimension), raised by the CPU pipeline to quant_block
// and executed; the results are printed as f32 bit patterns.
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

func.func @per_tensor(%q: tensor<?x4xi8>) -> tensor<?x4xf32> {
  %0 = quant.scast %q : tensor<?x4xi8> to tensor<?x4x!quant.uniform<i8:f32, 0.5:3>>
  %1 = quant.dcast %0 : tensor<?x4x!quant.uniform<i8:f32, 0.5:3>> to tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

func.func @per_axis(%q: tensor<?x4xi8>) -> tensor<?x4xf32> {
  %0 = quant.scast %q : tensor<?x4xi8> to tensor<?x4x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 2.0:0, 1.0:127}>>
  %1 = quant.dcast %0 : tensor<?x4x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 2.0:0, 1.0:127}>> to tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

func.func @main() {
  %c = arith.constant dense<[[-128, 0, 3, 4], [127, 10, -3, 1], [5, -1, 2, -128]]> : tensor<3x4xi8>
  %q = tensor.cast %c : tensor<3x4xi8> to tensor<?x4xi8>

  // (q - 3) * 0.5: [-65.5, -1.5, 0, 0.5], [62, 3.5, -3, -1], [1, -2, -0.5,
  // -65.5].
  // CHECK: [-1031602176, -1077936128, 0, 1056964608]
  // CHECK: [1115160576, 1080033280, -1069547520, -1082130432]
  // CHECK: [1065353216, -1073741824, -1090519040, -1031602176]
  %t = func.call @per_tensor(%q) : (tensor<?x4xi8>) -> tensor<?x4xf32>
  %tb = arith.bitcast %t : tensor<?x4xf32> to tensor<?x4xi32>
  %tu = tensor.cast %tb : tensor<?x4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%tu) : (tensor<*xi32>) -> ()

  // Column scales 0.5, 0.25, 2, 1 and zero points 1, -2, 0, 127:
  // [-64.5, 0.5, 6, -123], [63, 3, -6, -126], [2, 0.25, 4, -255].
  // CHECK: [-1031733248, 1056964608, 1086324736, -1024065536]
  // CHECK: [1115422720, 1077936128, -1061158912, -1023672320]
  // CHECK: [1073741824, 1048576000, 1082130432, -1015087104]
  %a = func.call @per_axis(%q) : (tensor<?x4xi8>) -> tensor<?x4xf32>
  %ab = arith.bitcast %a : tensor<?x4xf32> to tensor<?x4xi32>
  %au = tensor.cast %ab : tensor<?x4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%au) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
