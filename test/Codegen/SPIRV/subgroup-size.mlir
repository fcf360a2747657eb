// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(quant-block-spirv-subgroup-size{subgroup-size=8}))" | FileCheck %s
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(quant-block-spirv-subgroup-size{subgroup-size=12}))" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(quant-block-spirv-subgroup-size{subgroup-size=8}),convert-gpu-to-spirv,quant-block-gpu-nest-spirv-modules,gpu.module(spirv.module(quant-block-spirv-record-subgroup-size)))" | FileCheck %s --check-prefix=RECORD

// The target's resource limits get the device's subgroup size, in its
// targets and its target_env attribute, so that convert-gpu-to-spirv lowers
// the width-8 shuffles to subgroup shuffles. The module records that size
// as the specialization constant the Vulkan runtime reads.
// CHECK: gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformShuffle], []>, #spirv.resource_limits<subgroup_size = 8, min_subgroup_size = 8, max_subgroup_size = 8>>]
// CHECK-SAME: attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformShuffle], []>, #spirv.resource_limits<subgroup_size = 8, min_subgroup_size = 8, max_subgroup_size = 8>>}
// BAD: error: subgroup-size must be a power of two from 1 to 128, not 12
// RECORD-LABEL: spirv.module @__spv__kernels
// RECORD: spirv.SpecConstant @quant_block_subgroup_size spec_id(20802) = 8 : i32
// RECORD: spirv.GroupNonUniformShuffleXor <Subgroup>
module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformShuffle], []>, #spirv.resource_limits<>>] attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformShuffle], []>, #spirv.resource_limits<>>} {
    gpu.func @butterfly_step(%out: memref<8xf32, #spirv.storage_class<StorageBuffer>>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 1, 1]>} {
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %v = arith.sitofp %ti : i32 to f32
      %o4 = arith.constant 4 : i32
      %w8 = arith.constant 8 : i32
      %s, %ok = gpu.shuffle xor %v, %o4, %w8 : f32
      %a = arith.addf %v, %s : f32
      memref.store %a, %out[%t] : memref<8xf32, #spirv.storage_class<StorageBuffer>>
      gpu.return
    }
  }
}

// -----

// A kernel module without subgroup operations records nothing: its
// pipeline needs no subgroup size.
// RECORD-LABEL: spirv.module @__spv__plain
// RECORD-NOT: spirv.SpecConstant
// RECORD: spirv.func
module attributes {gpu.container_module} {
  gpu.module @plain [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
    gpu.func @copy(%out: memref<8xf32, #spirv.storage_class<StorageBuffer>>) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 1, 1]>} {
      %t = gpu.thread_id x
      %c = arith.constant 1.0 : f32
      memref.store %c, %out[%t] : memref<8xf32, #spirv.storage_class<StorageBuffer>>
      gpu.return
    }
  }
}
