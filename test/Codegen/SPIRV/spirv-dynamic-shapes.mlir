// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-gpu-spirv-dynamic-shapes --canonicalize | FileCheck %s

// A [?, ?] input and a [?, 4] output become flat buffers; the three dynamic
// sizes (two of %in, one of %out) are the elements of a shape buffer that
// the kernel reads first. Loads and stores index the flat buffers row-major;
// memref.dim reads the sizes, also through a reshape that only its size is
// read of. Static buffers are untouched.
// CHECK-LABEL: gpu.func @copy
// CHECK-SAME: (%[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>, %[[STATIC:.*]]: memref<4xf32>, %[[SHAPE:.*]]: memref<3xi32>) kernel
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[R0:.*]] = memref.load %[[SHAPE]][%[[C0]]] : memref<3xi32>
// CHECK: %[[D0:.*]] = arith.index_castui %[[R0]] : i32 to index
// CHECK: %[[R1:.*]] = memref.load %[[SHAPE]][%[[C1]]] : memref<3xi32>
// CHECK: %[[D1:.*]] = arith.index_castui %[[R1]] : i32 to index
// CHECK: %[[R2:.*]] = memref.load %[[SHAPE]][%[[C2]]] : memref<3xi32>
// CHECK: %[[D2:.*]] = arith.index_castui %[[R2]] : i32 to index
// CHECK: %[[I:.*]] = gpu.thread_id x
// CHECK: %[[J:.*]] = gpu.thread_id y
// CHECK: %[[IN_AT:.*]] = affine.linearize_index disjoint [%[[I]], %[[J]]] by (%[[D0]], %[[D1]]) : index
// CHECK: %[[V:.*]] = memref.load %[[IN]][%[[IN_AT]]] : memref<?xf32>
// CHECK: %[[OUT_AT:.*]] = affine.linearize_index disjoint [%[[I]], %[[J]]] by (%[[D2]], 4) : index
// CHECK: memref.store %[[V]], %[[OUT]][%[[OUT_AT]]] : memref<?xf32>
// CHECK: %[[ALL:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK: %[[T:.*]] = arith.index_cast %[[ALL]] : index to i32
// CHECK: %[[D2F:.*]] = arith.index_cast %[[D2]] : index to i32
// CHECK: %[[S:.*]] = arith.addi %[[T]], %[[D2F]] : i32
// CHECK: %[[SF:.*]] = arith.sitofp %[[S]] : i32 to f32
// CHECK: memref.store %[[SF]], %[[STATIC]][%[[C0]]] : memref<4xf32>

// The host fills the shape buffer (allocated once at the function's entry)
// from the buffers it launches with and passes flat views of them.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[HIN:.*]]: memref<?x?xf32>, %[[HOUT:.*]]: memref<?x4xf32>, %[[HSTATIC:.*]]: memref<4xf32>)
// CHECK: %[[ALLOCA:.*]] = memref.alloca() : memref<3xi32>
// CHECK: %[[A:.*]] = memref.dim %[[HIN]], %[[HC0:.*]] : memref<?x?xf32>
// CHECK: %[[AI:.*]] = arith.index_castui %[[A]] : index to i32
// CHECK: memref.store %[[AI]], %[[ALLOCA]][%[[HC0]]] : memref<3xi32>
// CHECK: %[[B:.*]] = memref.dim %[[HIN]], %[[HC1:.*]] : memref<?x?xf32>
// CHECK: %[[BI:.*]] = arith.index_castui %[[B]] : index to i32
// CHECK: memref.store %[[BI]], %[[ALLOCA]][%[[HC1]]] : memref<3xi32>
// CHECK: %[[FLAT_IN:.*]] = memref.collapse_shape %[[HIN]] {{\[\[}}0, 1]] : memref<?x?xf32> into memref<?xf32>
// CHECK: %[[C:.*]] = memref.dim %[[HOUT]], %[[HC0]] : memref<?x4xf32>
// CHECK: %[[CI:.*]] = arith.index_castui %[[C]] : index to i32
// CHECK: memref.store %[[CI]], %[[ALLOCA]][%{{.*}}] : memref<3xi32>
// CHECK: %[[FLAT_OUT:.*]] = memref.collapse_shape %[[HOUT]] {{\[\[}}0, 1]] : memref<?x4xf32> into memref<?xf32>
// CHECK: gpu.launch_func @kernels::@copy {{.*}} args(%[[FLAT_IN]] : memref<?xf32>, %[[FLAT_OUT]] : memref<?xf32>, %[[HSTATIC]] : memref<4xf32>, %[[ALLOCA]] : memref<3xi32>)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%in: memref<?x?xf32>, %out: memref<?x4xf32>, %static: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %v = memref.load %in[%i, %j] : memref<?x?xf32>
      memref.store %v, %out[%i, %j] : memref<?x4xf32>
      %rows = memref.dim %in, %c0 : memref<?x?xf32>
      %flat = memref.collapse_shape %in [[0, 1]] : memref<?x?xf32> into memref<?xf32>
      %n = memref.dim %flat, %c0 : memref<?xf32>
      %m = memref.dim %out, %c0 : memref<?x4xf32>
      %ni = arith.index_cast %n : index to i32
      %mi = arith.index_cast %m : index to i32
      %s = arith.addi %ni, %mi : i32
      %sf = arith.sitofp %s : i32 to f32
      memref.store %sf, %static[%c0] : memref<4xf32>
      gpu.return
    }
  }
  func.func @host(%in: memref<?x?xf32>, %out: memref<?x4xf32>, %static: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%in : memref<?x?xf32>, %out : memref<?x4xf32>, %static : memref<4xf32>)
    return
  }
}

// -----

// A buffer the kernel reads only the size of is not passed: its size is in
// the shape buffer. A one-dimensional buffer keeps its type and is passed
// as it is.
// CHECK-LABEL: gpu.func @sizes
// CHECK-SAME: (%[[OUT:.*]]: memref<?xi32>, %[[SHAPE:.*]]: memref<2xi32>) kernel
// CHECK: %[[N:.*]] = memref.load %[[SHAPE]][%{{.*}}] : memref<2xi32>
// CHECK: %[[NI:.*]] = arith.index_castui %[[N]] : i32 to index
// CHECK: %[[NS:.*]] = arith.index_cast %[[NI]] : index to i32
// CHECK: memref.store %[[NS]], %[[OUT]][%{{.*}}] : memref<?xi32>
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[CODES:.*]]: memref<?x8xi4>, %[[HOUT:.*]]: memref<?xi32>)
// CHECK: memref.dim %[[CODES]]
// CHECK: memref.dim %[[HOUT]]
// CHECK-NOT: collapse_shape
// CHECK: gpu.launch_func @kernels::@sizes {{.*}} args(%[[HOUT]] : memref<?xi32>, %{{.*}} : memref<2xi32>)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sizes(%codes: memref<?x8xi4>, %out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %n = memref.dim %codes, %c0 : memref<?x8xi4>
      %ni = arith.index_cast %n : index to i32
      memref.store %ni, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%codes: memref<?x8xi4>, %out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@sizes blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%codes : memref<?x8xi4>, %out : memref<?xi32>)
    return
  }
}

// -----

// A cast to a more static shape is the same buffer: loads through it index
// the flat argument with the argument's sizes.
// CHECK-LABEL: gpu.func @cast
// CHECK-SAME: (%[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<4xf32>, %[[SHAPE:.*]]: memref<2xi32>) kernel
// CHECK: %[[R0:.*]] = memref.load %[[SHAPE]][%c0]
// CHECK: %[[D0:.*]] = arith.index_castui %[[R0]]
// CHECK: %[[R1:.*]] = memref.load %[[SHAPE]][%c1]
// CHECK: %[[D1:.*]] = arith.index_castui %[[R1]]
// CHECK-NOT: memref.cast
// CHECK: %[[AT:.*]] = affine.linearize_index disjoint [%{{.*}}, %{{.*}}] by (%[[D0]], %[[D1]]) : index
// CHECK: memref.load %[[IN]][%[[AT]]] : memref<?xf32>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @cast(%in: memref<?x?xf32>, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %cast = memref.cast %in : memref<?x?xf32> to memref<?x16xf32>
      %v = memref.load %cast[%i, %j] : memref<?x16xf32>
      memref.store %v, %out[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @view(%in: memref<?x8xf32>, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %flat = memref.collapse_shape %in [[0, 1]] : memref<?x8xf32> into memref<?xf32>
      // expected-error @+1 {{a view of dynamically shaped kernel argument #0 is used by 'memref.load'; only its sizes can be read here (run --fold-memref-alias-ops first so that loads and stores index the argument itself)}}
      %v = memref.load %flat[%c0] : memref<?xf32>
      memref.store %v, %out[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @dim(%in: memref<?x?xf32>, %out: memref<4xindex>) kernel {
      %i = gpu.thread_id x
      // expected-error @+1 {{the size of dynamically shaped kernel argument #0 is read with a non-constant or out-of-range dimension}}
      %n = memref.dim %in, %i : memref<?x?xf32>
      memref.store %n, %out[%i] : memref<4xindex>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @other(%in: memref<?xf32>, %out: memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{dynamically shaped kernel argument #0 of type 'memref<?xf32>' is used by 'memref.copy', which cannot be rewritten onto a flat SPIR-V buffer (only memref.load, memref.store, memref.dim, identity-layout casts and the sizes of reshapes can)}}
      memref.copy %in, %out : memref<?xf32> to memref<16xf32>
      gpu.return
    }
  }
}
