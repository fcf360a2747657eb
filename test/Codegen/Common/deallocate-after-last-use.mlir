// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-deallocate-after-last-use | FileCheck %s

// The dealloc moves up to the last use of the buffer or of a view of it;
// the work after that runs with the buffer freed.

// CHECK-LABEL: func.func @after_last_view_use(
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK: memref.store %{{.*}}, %[[V]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc()
func.func @after_last_view_use(%x: f32, %i: index) -> memref<8xf32> {
  %a = memref.alloc() : memref<64xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  memref.store %x, %v[%i, %i] : memref<8x8xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.store %x, %b[%i] : memref<8xf32>
  memref.dealloc %a : memref<64xf32>
  return %b : memref<8xf32>
}

// -----

// A use inside a loop counts as a use by the loop; a value loaded from the
// buffer is data and does not keep it alive.

// CHECK-LABEL: func.func @nested_use_and_loaded_value(
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[X:.*]] = memref.load %[[A]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: arith.addf %[[X]], %[[X]]
func.func @nested_use_and_loaded_value(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<16xf32>
  %x = memref.load %a[%c0] : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %x, %a[%i] : memref<16xf32>
  }
  %y = arith.addf %x, %x : f32
  memref.dealloc %a : memref<16xf32>
  return %y : f32
}

// -----

// A pointer taken from the buffer keeps it alive as long as the pointer is
// used.

// CHECK-LABEL: func.func @pointer_use(
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[Q:.*]] = arith.addi %[[P]]
// CHECK: "test.use"(%[[Q]])
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: "test.other"
func.func @pointer_use(%c: index) {
  %a = memref.alloc() : memref<16xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  %q = arith.addi %p, %c : index
  "test.use"(%q) : (index) -> ()
  "test.other"() : () -> ()
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// A buffer that leaves its block (yielded by a region, or stored as a
// value) keeps its dealloc where it is.

// CHECK-LABEL: func.func @yielded(
// CHECK: scf.if
// CHECK: "test.other"
// CHECK-NEXT: memref.dealloc
func.func @yielded(%cond: i1) {
  %a = memref.alloc() : memref<16xf32>
  %r = scf.if %cond -> memref<16xf32> {
    scf.yield %a : memref<16xf32>
  } else {
    scf.yield %a : memref<16xf32>
  }
  "test.other"() : () -> ()
  memref.dealloc %a : memref<16xf32>
  return
}

// CHECK-LABEL: func.func @stored_as_value(
// CHECK: memref.store
// CHECK: "test.other"
// CHECK-NEXT: memref.dealloc
func.func @stored_as_value(%slot: memref<1xmemref<16xf32>>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32>
  memref.store %a, %slot[%c0] : memref<1xmemref<16xf32>>
  "test.other"() : () -> ()
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// A buffer a call returned (the caller owns it) is freed after its last
// use too: a layer's output, after the next layer read it.

// CHECK-LABEL: func.func @call_results(
// CHECK: %[[X:.*]] = call @layer(%{{.*}})
// CHECK-NEXT: %[[Y:.*]] = call @layer(%[[X]])
// CHECK-NEXT: memref.dealloc %[[X]]
// CHECK-NEXT: %[[Z:.*]] = call @layer(%[[Y]])
// CHECK-NEXT: memref.dealloc %[[Y]]
func.func private @layer(memref<8xf32>) -> memref<8xf32>
func.func @call_results(%x: memref<8xf32>) -> memref<8xf32> {
  %a = call @layer(%x) : (memref<8xf32>) -> memref<8xf32>
  %b = call @layer(%a) : (memref<8xf32>) -> memref<8xf32>
  %c = call @layer(%b) : (memref<8xf32>) -> memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return %c : memref<8xf32>
}
