// --print-ir-after-pipeline prints the lowered module before the call, and
// --shared-libs lets the module call the runner utilities.
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.arange(4, dtype=np.float32))"
// RUN: quant-run %s -e twice -i %t.npy --print-ir-after-pipeline --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s
// CHECK: llvm.func @twice(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CHECK: Unranked Memref
// CHECK-NEXT: [0,  1,  4,  9]
// CHECK: result #0 of @twice: tensor<4xf32> as <f4 (4,) = [0, 2, 4, 6]

func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  %square = arith.mulf %x, %x : tensor<4xf32>
  %u = tensor.cast %square : tensor<4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return %y : tensor<4xf32>
}
func.func private @printMemrefF32(tensor<*xf32>)
