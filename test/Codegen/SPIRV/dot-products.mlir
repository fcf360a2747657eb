// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(quant-block-spirv-dot-products))" | FileCheck %s

// A target with the dot-product capabilities: each byte dot product is one
// SDot (both factors signed), SUDot (the signed factor first) or UDot, its
// accumulator added by a plain (wrapping) addi; the module becomes a
// SPIR-V 1.6 module, in its targets and in its target_env attribute.
// CHECK: gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.6, [Shader, Int8, DotProduct, DotProductInput4x8Bit], []>
// CHECK-SAME: attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6,
// CHECK-LABEL: gpu.func @signed_by_signed
// CHECK-SAME: (%[[A:.*]]: vector<4xi8>, %[[B:.*]]: vector<4xi8>, %[[ACC:.*]]: i32)
// CHECK-NEXT: %[[D:.*]] = spirv.SDot %[[A]], %[[B]] : vector<4xi8> -> i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[ACC]], %[[D]] : i32
// CHECK-NEXT: gpu.return %[[S]] : i32
// CHECK-LABEL: gpu.func @unsigned_by_signed
// CHECK-SAME: (%[[A:.*]]: vector<4xi8>, %[[B:.*]]: vector<4xi8>)
// CHECK-NEXT: %[[D:.*]] = spirv.SUDot %[[B]], %[[A]] : vector<4xi8> -> i32
// CHECK-NEXT: gpu.return %[[D]] : i32
// CHECK-LABEL: gpu.func @unsigned_by_unsigned
// CHECK: spirv.UDot
// CHECK-LABEL: gpu.func @sum_of_bytes
// CHECK: %[[ONES:.*]] = arith.constant dense<1> : vector<4xi8>
// CHECK: spirv.SDot {{.*}}%[[ONES]]{{.*}} : vector<4xi8> -> i32
// CHECK-LABEL: gpu.func @sum_of_extended_bytes
// CHECK-SAME: (%[[B:.*]]: vector<4xi8>
// CHECK: %[[ONES:.*]] = arith.constant dense<1> : vector<4xi8>
// CHECK: spirv.SDot %[[B]], %[[ONES]] : vector<4xi8> -> i32
module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int8, DotProduct, DotProductInput4x8Bit], []>, #spirv.resource_limits<>>] attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, Int8, DotProduct, DotProductInput4x8Bit], []>, #spirv.resource_limits<>>} {
    gpu.func @signed_by_signed(%a: vector<4xi8>, %b: vector<4xi8>, %acc: i32) -> i32 {
      %a32 = arith.extsi %a : vector<4xi8> to vector<4xi32>
      %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
      %p = arith.muli %a32, %b32 : vector<4xi32>
      %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
      gpu.return %s : i32
    }
    gpu.func @unsigned_by_signed(%a: vector<4xi8>, %b: vector<4xi8>) -> i32 {
      %a32 = arith.extui %a : vector<4xi8> to vector<4xi32>
      %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
      %p = arith.muli %a32, %b32 : vector<4xi32>
      %s = vector.reduction <add>, %p : vector<4xi32> into i32
      gpu.return %s : i32
    }
    gpu.func @unsigned_by_unsigned(%a: vector<4xi8>, %b: vector<4xi8>) -> i32 {
      %a32 = arith.extui %a : vector<4xi8> to vector<4xi32>
      %b32 = arith.extui %b : vector<4xi8> to vector<4xi32>
      %p = arith.muli %a32, %b32 : vector<4xi32>
      %s = vector.reduction <add>, %p : vector<4xi32> into i32
      gpu.return %s : i32
    }
    gpu.func @sum_of_bytes(%b: vector<4xi8>, %acc: i32) -> i32 {
      %ones = arith.constant dense<1> : vector<4xi32>
      %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
      %p = arith.muli %ones, %b32 : vector<4xi32>
      %s = vector.reduction <add>, %p, %acc : vector<4xi32> into i32
      gpu.return %s : i32
    }
    gpu.func @sum_of_extended_bytes(%b: vector<4xi8>, %acc: i32) -> i32 {
      %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
      %s = vector.reduction <add>, %b32, %acc : vector<4xi32> into i32
      gpu.return %s : i32
    }
  }
}

// -----

// Without the capabilities (a device without shaderIntegerDotProduct) the
// form stays, for the element-wise lowering; a module without dot products
// keeps its version.
// CHECK: gpu.module @no_capability [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int8], []>
// CHECK-LABEL: gpu.func @left_alone
// CHECK: vector.reduction <add>
// CHECK-NOT: spirv.SDot
// CHECK: gpu.module @no_dot_products [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int8, DotProduct, DotProductInput4x8Bit], []>
module attributes {gpu.container_module} {
  gpu.module @no_capability [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int8], []>, #spirv.resource_limits<>>] {
    gpu.func @left_alone(%a: vector<4xi8>, %b: vector<4xi8>) -> i32 {
      %a32 = arith.extsi %a : vector<4xi8> to vector<4xi32>
      %b32 = arith.extsi %b : vector<4xi8> to vector<4xi32>
      %p = arith.muli %a32, %b32 : vector<4xi32>
      %s = vector.reduction <add>, %p : vector<4xi32> into i32
      gpu.return %s : i32
    }
  }
  gpu.module @no_dot_products [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int8, DotProduct, DotProductInput4x8Bit], []>, #spirv.resource_limits<>>] {
    gpu.func @sum(%a: vector<4xi32>) -> i32 {
      %s = vector.reduction <add>, %a : vector<4xi32> into i32
      gpu.return %s : i32
    }
  }
}
