// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-gpu-bf16-bits | FileCheck %s

// A kernel that moves bf16 values: its buffers, loads, stores, vectors,
// constants, selects and loop arguments become i16 (the bitcasts between
// bf16 and i16 left by the expanded conversions disappear), a bf16 scalar
// argument too; the host casts its buffers and scalars.
// CHECK-LABEL: gpu.func @moves
// CHECK-SAME: (%[[X:.*]]: memref<8xi16>, %[[Y:.*]]: memref<8xi32>, %[[Z:.*]]: memref<8xi16>, %[[S:.*]]: i16, %[[P:.*]]: i1) kernel
// CHECK: %[[ONE:.*]] = arith.constant 16256 : i16
// CHECK: %[[ZEROS:.*]] = arith.constant dense<[0, 16256]> : vector<2xi16>
// CHECK: %[[H:.*]] = memref.load %[[X]][%{{.*}}] : memref<8xi16>
// CHECK: %[[W:.*]] = arith.extui %[[H]] : i16 to i32
// CHECK: %[[V:.*]] = vector.from_elements %[[H]], %[[ONE]] : vector<2xi16>
// CHECK: %[[PAIR:.*]] = vector.bitcast %[[V]] : vector<2xi16> to vector<1xi32>
// CHECK: %[[SEL:.*]] = arith.select %[[P]], %[[H]], %[[S]] : i16
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZEROS]]) -> (vector<2xi16>)
// CHECK: vector.insert %[[SEL]], %[[ACC]] [0] : i16 into vector<2xi16>
// CHECK: %[[LAST:.*]] = vector.extract %[[LOOP]][1] : i16 from vector<2xi16>
// CHECK: memref.store %[[LAST]], %[[Z]][%{{.*}}] : memref<8xi16>
// CHECK-NOT: bf16
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[HX:.*]]: memref<8xbf16>, %[[HY:.*]]: memref<8xi32>, %[[HZ:.*]]: memref<8xbf16>, %[[HS:.*]]: bf16, %[[HP:.*]]: i1)
// CHECK-DAG: %[[CX:.*]] = builtin.unrealized_conversion_cast %[[HX]] : memref<8xbf16> to memref<8xi16>
// CHECK-DAG: %[[CZ:.*]] = builtin.unrealized_conversion_cast %[[HZ]] : memref<8xbf16> to memref<8xi16>
// CHECK-DAG: %[[CS:.*]] = arith.bitcast %[[HS]] : bf16 to i16
// CHECK: gpu.launch_func @kernels::@moves {{.*}} args(%[[CX]] : memref<8xi16>, %[[HY]] : memref<8xi32>, %[[CZ]] : memref<8xi16>, %[[CS]] : i16, %[[HP]] : i1)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @moves(%x: memref<8xbf16>, %y: memref<8xi32>, %z: memref<8xbf16>, %s: bf16, %p: i1) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %one = arith.constant 1.0 : bf16
      %zeros = arith.constant dense<[0.0, 1.0]> : vector<2xbf16>
      %h = memref.load %x[%c0] : memref<8xbf16>
      %bits = arith.bitcast %h : bf16 to i16
      %wide = arith.extui %bits : i16 to i32
      memref.store %wide, %y[%c0] : memref<8xi32>
      %v = vector.from_elements %h, %one : vector<2xbf16>
      %pair = vector.bitcast %v : vector<2xbf16> to vector<1xi32>
      %word = vector.extract %pair[0] : i32 from vector<1xi32>
      memref.store %word, %y[%c1] : memref<8xi32>
      %sel = arith.select %p, %h, %s : bf16
      %loop = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zeros) -> (vector<2xbf16>) {
        %next = vector.insert %sel, %acc [0] : bf16 into vector<2xbf16>
        scf.yield %next : vector<2xbf16>
      }
      %last = vector.extract %loop[1] : bf16 from vector<2xbf16>
      memref.store %last, %z[%c0] : memref<8xbf16>
      gpu.return
    }
  }
  func.func @host(%x: memref<8xbf16>, %y: memref<8xi32>, %z: memref<8xbf16>, %s: bf16, %p: i1) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@moves blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xbf16>, %y : memref<8xi32>, %z : memref<8xbf16>, %s : bf16, %p : i1)
    return
  }
}

// -----

// Arithmetic on bf16 left in a kernel cannot be carried as bits.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @computes(%x: memref<8xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %h = memref.load %x[%c0] : memref<8xbf16>
      // expected-error @+1 {{'math.exp' op computes on bf16, which has no SPIR-V type for Vulkan: only loads, stores, constants, selects and vector moves of bf16 values are carried as their i16 bits}}
      %e = math.exp %h : bf16
      memref.store %e, %x[%c0] : memref<8xbf16>
      gpu.return
    }
  }
}

// -----

// bf16 only inside a kernel (f32 rounded to bf16 and widened again, as the
// expanded conversions leave it): its values become i16 too.
// CHECK-LABEL: gpu.func @inside_only
// CHECK-SAME: (%{{.*}}: memref<8xf32>, %{{.*}}: memref<8xi16>) kernel
// CHECK: %[[PAIR:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xi16>
// CHECK: vector.extract %[[PAIR]][1] : i16 from vector<2xi16>
// CHECK-NOT: bf16
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @inside_only(%x: memref<8xf32>, %y: memref<8xi16>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : i32
      %v = memref.load %x[%c0] : memref<8xf32>
      %bits = arith.bitcast %v : f32 to i32
      %high = arith.shrui %bits, %c16 : i32
      %narrow = arith.trunci %high : i32 to i16
      %h = arith.bitcast %narrow : i16 to bf16
      %pair = vector.from_elements %h, %h : vector<2xbf16>
      %second = vector.extract %pair[1] : bf16 from vector<2xbf16>
      %back = arith.bitcast %second : bf16 to i16
      memref.store %back, %y[%c0] : memref<8xi16>
      gpu.return
    }
  }
}

// -----

// Kernels without bf16 are left alone.
// CHECK-LABEL: gpu.func @no_bf16
// CHECK-SAME: (%{{.*}}: memref<8xf16>) kernel
// CHECK: memref.load %{{.*}} : memref<8xf16>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @no_bf16(%x: memref<8xf16>) kernel {
      %c0 = arith.constant 0 : index
      %h = memref.load %x[%c0] : memref<8xf16>
      memref.store %h, %x[%c0] : memref<8xf16>
      gpu.return
    }
  }
}
