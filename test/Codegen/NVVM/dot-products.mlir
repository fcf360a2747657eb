// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(quant-block-nvvm-dot-products))" | FileCheck %s

// The form of --quant-block-gpu-matmul-kernels' byte dot products: each
// factor's signedness becomes the operand's type, the accumulator `c`.
// CHECK-LABEL: gpu.func @signed_by_signed
// CHECK-SAME: (%[[A:.*]]: vector<4xi8>, %[[B:.*]]: vector<4xi8>, %[[ACC:.*]]: i32)
// CHECK-NEXT: %[[D:.*]] = nvvm.dot.accumulate.4way %[[A]] <signed>, %[[B]] <signed>, %[[ACC]] : vector<4xi8>, vector<4xi8>
// CHECK-NEXT: gpu.return %[[D]] : i32
// CHECK-LABEL: gpu.func @unsigned_by_signed_without_accumulator
// CHECK-SAME: (%[[A:.*]]: vector<4xi8>, %[[B:.*]]: vector<4xi8>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: nvvm.dot.accumulate.4way %[[A]] <unsigned>, %[[B]] <signed>, %[[ZERO]]
gpu.module @kernels {
  gpu.func @signed_by_signed(%a: vector<4xi8>, %b: vector<4xi8>, %acc: i32) -> i32 {
    %a32 = arith.extsi %a : vector<4xi8> to vector<4xi32>
    %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
    %p = arith.muli %a32, %b32 : vector<4xi32>
    %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
    gpu.return %s : i32
  }
  gpu.func @unsigned_by_signed_without_accumulator(%a: vector<4xi8>, %b: vector<4xi8>) -> i32 {
    %a32 = arith.extui %a : vector<4xi8> to vector<4xi32>
    %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
    %p = arith.muli %a32, %b32 : vector<4xi32>
    %s = vector.reduction <add>, %p : vector<4xi32> into i32
    gpu.return %s : i32
  }
}

// -----

// A constant factor (the ones that sum the activations, whose extension
// the canonicalizer folds) becomes a constant of bytes: signed where every
// value fits, else unsigned.
// CHECK-LABEL: gpu.func @sum_of_bytes
// CHECK: %[[ONES:.*]] = arith.constant dense<1> : vector<4xi8>
// CHECK: nvvm.dot.accumulate.4way %[[ONES]] <signed>, %{{.*}} <signed>, %{{.*}}
// CHECK-LABEL: gpu.func @unsigned_constant
// CHECK: %[[C:.*]] = arith.constant dense<[-1, 0, -128, 1]> : vector<4xi8>
// CHECK: nvvm.dot.accumulate.4way %{{.*}} <signed>, %[[C]] <unsigned>, %{{.*}}
gpu.module @kernels {
  gpu.func @sum_of_bytes(%b: vector<4xi8>, %acc: i32) -> i32 {
    %ones = arith.constant dense<1> : vector<4xi32>
    %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
    %p = arith.muli %ones, %b32 : vector<4xi32>
    %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
    gpu.return %s : i32
  }
  gpu.func @unsigned_constant(%b: vector<4xi8>, %acc: i32) -> i32 {
    %c = arith.constant dense<[255, 0, 128, 1]> : vector<4xi32>
    %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
    %p = arith.muli %b32, %c : vector<4xi32>
    %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
    gpu.return %s : i32
  }
}

// -----

// Not a 4-way byte dot product: left alone.
// CHECK-LABEL: gpu.func @not_byte_dots
// CHECK-NOT: nvvm.dot.accumulate.4way
// CHECK-COUNT-5: vector.reduction
// CHECK-NOT: nvvm.dot.accumulate.4way
gpu.module @kernels {
  gpu.func @not_byte_dots(%a: vector<4xi8>, %b: vector<4xi8>, %h: vector<4xi16>,
                          %w: vector<8xi8>, %x: vector<4xi32>) -> (i32, i32, i32, i32, i32) {
    %a32 = arith.extsi %a : vector<4xi8> to vector<4xi32>
    %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
    // Another combining kind.
    %p = arith.muli %a32, %b32 : vector<4xi32>
    %r0 = vector.reduction <mul>, %p : vector<4xi32> into i32
    // 16-bit factors.
    %h32 = arith.extsi %h : vector<4xi16> to vector<4xi32>
    %q = arith.muli %h32, %b32 : vector<4xi32>
    %r1 = vector.reduction <add>, %q : vector<4xi32> into i32
    // Eight bytes.
    %w32 = arith.extsi %w : vector<8xi8> to vector<8xi32>
    %v = arith.muli %w32, %w32 : vector<8xi32>
    %r2 = vector.reduction <add>, %v : vector<8xi32> into i32
    // A factor that is not an extension of bytes.
    %t = arith.muli %x, %b32 : vector<4xi32>
    %r3 = vector.reduction <add>, %t : vector<4xi32> into i32
    // A constant beyond a byte.
    %big = arith.constant dense<[300, 0, 0, 0]> : vector<4xi32>
    %u = arith.muli %big, %b32 : vector<4xi32>
    %r4 = vector.reduction <add>, %u : vector<4xi32> into i32
    gpu.return %r0, %r1, %r2, %r3, %r4 : i32, i32, i32, i32, i32
  }
}

// -----

// The sum of 4 extended bytes (a product by ones, which the canonicalizer
// folds away) is their dot product with ones.
// CHECK-LABEL: gpu.func @sum_of_extended_bytes
// CHECK-SAME: (%[[B:.*]]: vector<4xi8>, %[[ACC:.*]]: i32)
// CHECK: %[[ONES:.*]] = arith.constant dense<1> : vector<4xi8>
// CHECK: nvvm.dot.accumulate.4way %[[ONES]] <signed>, %[[B]] <unsigned>, %[[ACC]]
gpu.module @kernels {
  gpu.func @sum_of_extended_bytes(%b: vector<4xi8>, %acc: i32) -> i32 {
    %b32 = arith.extui %b : vector<4xi8> to vector<4xi32>
    %s = vector.reduction <add>, %b32, %acc : vector<4xi32> into i32
    gpu.return %s : i32
  }
}
