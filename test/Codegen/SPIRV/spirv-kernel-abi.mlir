// RUN: quant-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(quant-block-gpu-spirv-kernel-abi))" | FileCheck %s

// The workgroup size comes from known_block_size. The target environment
// is also put on the gpu.module as an attribute, where conversions such as
// convert-math-to-spirv look for it.
// CHECK: gpu.module @kernels
// CHECK-SAME: attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, Int8, StorageBuffer8BitAccess], [SPV_KHR_8bit_storage]>
module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int8, StorageBuffer8BitAccess], [SPV_KHR_8bit_storage]>, #spirv.resource_limits<>>] {
    // CHECK-LABEL: gpu.func @ok
    // CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
    gpu.func @ok(%a: memref<16xi8>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<16xi8>
      %w = arith.shli %v, %v : i8
      memref.store %w, %a[%c0] : memref<16xi8>
      gpu.return
    }
  }
}

// -----

// Without Int8, i8 shifts would run in 32 bits without wrapping (a silent
// miscompile that spirv-val accepts).
module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader, StorageBuffer8BitAccess], [SPV_KHR_8bit_storage]>, #spirv.resource_limits<>>] {
    gpu.func @no_int8(%a: memref<16xi8>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{result of type 'i8': 8-bit integers need the Int8 capability}}
      %v = memref.load %a[%c0] : memref<16xi8>
      gpu.return
    }
  }
}

// -----

// Without Float16, f16 buffers were read as f32.
module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
    gpu.func @no_float16(%a: memref<16xf16>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{result of type 'f16': f16 needs the Float16 capability}}
      %v = memref.load %a[%c0] : memref<16xf16>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int16, Float16], []>, #spirv.resource_limits<>>] {
    gpu.func @bf16(%a: memref<16xi16>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<16xi16>
      // expected-error @+1 {{result of type 'bf16': bf16 has no SPIR-V type for Vulkan (--quant-block-gpu-bf16-bits carries bf16 values as i16 bits)}}
      %b = arith.bitcast %v : i16 to bf16
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
    // expected-error @+1 {{kernel argument #1 has type 'f32'; SPIR-V kernels take identity-layout memrefs only, statically shaped or one-dimensional (one storage buffer each)}}
    gpu.func @scalar(%a: memref<16xf32>, %s: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// A flat dynamically shaped buffer is a runtime array; a multi-dimensional
// one must have been flattened (--quant-block-gpu-spirv-dynamic-shapes).
module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
    // expected-error @+1 {{kernel argument #1 has type 'memref<?x4xf32>'; SPIR-V kernels take identity-layout memrefs only, statically shaped or one-dimensional}}
    gpu.func @dynamic(%a: memref<?xf32>, %b: memref<?x4xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
    // expected-error @+1 {{kernel argument #0 has type 'memref<4xf32, strided<[2]>>'; SPIR-V kernels take identity-layout memrefs only}}
    gpu.func @strided(%a: memref<4xf32, strided<[2]>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
    // expected-error @+1 {{kernel has no known workgroup size}}
    gpu.func @no_size(%a: memref<16xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// expected-error @+1 {{no SPIR-V target environment}}
gpu.module @no_target {
  gpu.func @k(%a: memref<16xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    gpu.return
  }
}
