// quant-run compiles a quant_block function with --quant-block-spirv-pipeline
// itself and runs its kernels on Vulkan through the project's runtime
// wrappers: the uint4 linear layer of test/Runner/quantized-as-parts.mlir
// (weights as their parts, .npy in and out), checked exactly against numpy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../Runner/Inputs/arrays.py gen-linear %t
// RUN: quant-run %s -e linear --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy -i %t/zero_points.npy -o %t/y.npy \
// RUN:   --pipeline=quant-block-spirv-pipeline --shared-libs=%vulkan_runtime
// RUN: %python %S/../../Runner/Inputs/arrays.py check-linear %t | FileCheck %s
// CHECK: linear: ok

// The same layer with a dynamic batch: the activations and the result are
// flat buffers on the device, their row count in a buffer of sizes.
// RUN: rm %t/y.npy
// RUN: quant-run %s -e linear_dynamic --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy -i %t/zero_points.npy -o %t/y.npy \
// RUN:   --pipeline=quant-block-spirv-pipeline --shared-libs=%vulkan_runtime
// RUN: %python %S/../../Runner/Inputs/arrays.py check-linear %t | FileCheck %s

// A row-tiled weight (a CPU layout): the GPU lowering repacks it row-major
// on the device first, with the same result.
// RUN: rm %t/y.npy
// RUN: quant-run %s -e linear_tiled --quantized-as-parts -i %t/x.npy -i %t/tdata.npy -i %t/tscales.npy -i %t/tzero_points.npy -o %t/y.npy \
// RUN:   --pipeline=quant-block-spirv-pipeline --shared-libs=%vulkan_runtime
// RUN: %python %S/../../Runner/Inputs/arrays.py check-linear %t | FileCheck %s

// Without the runtime library the JIT cannot resolve the mgpu* calls of the
// host code, and says so.
// RUN: not quant-run %s -e linear --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy -i %t/zero_points.npy \
// RUN:   --pipeline=quant-block-spirv-pipeline 2>&1 | FileCheck %s --check-prefix=NO-RUNTIME
// NO-RUNTIME: Symbols not found: {{.*}}mgpu

!w = !quant_block.tensor<16x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = f32>>

func.func @linear(%x: tensor<3x64xf32>, %w: !w) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<3x64xf32>, !w -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

func.func @linear_dynamic(%x: tensor<?x64xf32>, %w: !w) -> tensor<?x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<?x64xf32>, !w -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

!t = !quant_block.tensor<16x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = f32, row_tile = 16>>

func.func @linear_tiled(%x: tensor<3x64xf32>, %w: !t) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<3x64xf32>, !t -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}
