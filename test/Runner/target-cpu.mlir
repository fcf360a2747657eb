// A module compiled by the CPU pipeline for a target CPU runs where that
// CPU's instructions are, and is refused where they are not: quant-run
// checks the target the lowered functions record (target-cpu /
// target-features) against its own (the host, or --target-cpu) before it
// compiles anything, instead of failing with SIGILL.
// target-cpu=host gives the same bits as portable code (the int8 block
// sums are exact in any order).
// RUN: quant-run %s -e f --pipeline='quant-block-cpu-pipeline{target-cpu=host}' -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.host.npy
// RUN: quant-run %s -e f --pipeline='quant-block-cpu-pipeline' --target-cpu=x86-64-v2 -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.v2.npy
// RUN: cmp %t.host.npy %t.v2.npy
// Compiled for an Ice Lake server (AVX-512), run for x86-64-v2: an error
// naming what the JIT's target lacks.
// RUN: not quant-run %s -e f --pipeline='quant-block-cpu-pipeline{target-cpu=icelake-server}' --target-cpu=x86-64-v2 -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.bad.npy 2>&1 | FileCheck %s
// CHECK: quant-run: error: the lowered module cannot run on this target: @f was compiled for target-cpu=icelake-server, and the JIT's target (x86-64-v2) lacks {{.*}}avx512f{{.*}}avx512vnni

!w = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!a = !quant_block.tensor<2x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @f(%x: tensor<2x128xf32>, %wf: tensor<16x128xf32>) -> tensor<2x16xf32> {
  %w = quant_block.quantize_dynamic absmax %wf : tensor<16x128xf32> -> !w
  %xq = quant_block.quantize_dynamic absmax %x : tensor<2x128xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
