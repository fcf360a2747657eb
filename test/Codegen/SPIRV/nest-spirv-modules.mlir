// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-gpu-nest-spirv-modules | FileCheck %s

// The spirv.module convert-gpu-to-spirv put beside gpu.module @k moves into
// it, where gpu-module-to-binary serializes it from.
// CHECK: gpu.module @k [#spirv.target_env
// CHECK-NEXT: spirv.module @__spv__k Logical GLSL450
// CHECK-NOT: spirv.module
module attributes {gpu.container_module} {
  spirv.module @__spv__k Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  }
  gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{gpu.module with a SPIR-V target has no spirv.module (was convert-gpu-to-spirv run?)}}
  gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
  }
}
