// RUN: quant-opt %s --split-input-file --quant-block-cpu-legalize-bf16-vectors --canonicalize | FileCheck %s

// A bf16 vector loaded in one block and bitcast in another: LLVM 22's X86
// back end crashed on it with AVX512-FP16 ("Do not know how to soft promote
// this operator's operand!"). The bits are loaded as i16.
// CHECK-LABEL: llvm.func @load_across_blocks
// CHECK: %[[BITS:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<9xi16>
// CHECK-NOT: bf16
// CHECK: llvm.return %[[BITS]] : vector<9xi16>
llvm.func @load_across_blocks(%p: !llvm.ptr) -> vector<9xi16> {
  %v = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> vector<9xbf16>
  llvm.br ^bb1
^bb1:
  %b = llvm.bitcast %v : vector<9xbf16> to vector<9xi16>
  llvm.return %b : vector<9xi16>
}

// -----

// A bf16 vector made from bits is stored as those bits.
// CHECK-LABEL: llvm.func @store_bits
// CHECK-NOT: bf16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : vector<5xi16>, !llvm.ptr
llvm.func @store_bits(%bits: vector<5xi16>, %p: !llvm.ptr) {
  %v = llvm.bitcast %bits : vector<5xi16> to vector<5xbf16>
  llvm.store %v, %p {alignment = 2 : i64} : vector<5xbf16>, !llvm.ptr
  llvm.return
}

// -----

// A copy of bf16 vectors moves i16 vectors; a use that needs the bf16 value
// gets it bitcast back right after the load.
// CHECK-LABEL: llvm.func @copy_and_extract
// CHECK: %[[BITS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<3xi16>
// CHECK: %[[VALUE:.*]] = llvm.bitcast %[[BITS]] : vector<3xi16> to vector<3xbf16>
// CHECK: llvm.store %[[BITS]], %{{.*}} : vector<3xi16>, !llvm.ptr
// CHECK: %[[LANE:.*]] = llvm.extractelement %[[VALUE]]
// CHECK: llvm.return %[[LANE]] : bf16
llvm.func @copy_and_extract(%p: !llvm.ptr, %q: !llvm.ptr) -> bf16 {
  %v = llvm.load %p : !llvm.ptr -> vector<3xbf16>
  llvm.store %v, %q : vector<3xbf16>, !llvm.ptr
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %e = llvm.extractelement %v[%c0 : i32] : vector<3xbf16>
  llvm.return %e : bf16
}
