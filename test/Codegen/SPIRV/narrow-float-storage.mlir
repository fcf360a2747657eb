// RUN: quant-opt %s --quant-block-gpu-narrow-float-storage --canonicalize | FileCheck %s

// An E8M0 scale buffer becomes an i8 buffer in the kernel (the load and the
// decoding bitcast fold away) and is cast on the host.
// CHECK: gpu.func @scales(%[[S:.*]]: memref<4xi8>, %{{.*}}: memref<4xi8>) kernel
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0
// CHECK-NEXT: %[[V:.*]] = memref.load %[[S]][%[[C0]]] : memref<4xi8>
// CHECK-NEXT: memref.store %[[V]]
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[HS:.*]]: memref<4xf8E8M0FNU>, %[[HO:.*]]: memref<4xi8>)
// CHECK: %[[CAST:.*]] = builtin.unrealized_conversion_cast %[[HS]] : memref<4xf8E8M0FNU> to memref<4xi8>
// CHECK: gpu.launch_func @kernels::@scales {{.*}} args(%[[CAST]] : memref<4xi8>, %[[HO]] : memref<4xi8>)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scales(%s: memref<4xf8E8M0FNU>, %o: memref<4xi8>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %s[%c0] : memref<4xf8E8M0FNU>
      %b = arith.bitcast %v : f8E8M0FNU to i8
      memref.store %b, %o[%c0] : memref<4xi8>
      gpu.return
    }
  }
  func.func @host(%s: memref<4xf8E8M0FNU>, %o: memref<4xi8>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scales blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%s : memref<4xf8E8M0FNU>, %o : memref<4xi8>)
    return
  }
}
