// quant-run gives the CPU pipeline x86-avx512-vnni=true when its target has
// AVX512-VNNI and AVX512BW (adaptPipelineToTarget), so accumulate(i32)
// kernels sum their byte products with vpdpbusd; for a target without them
// (x86-64-v3), or when the pipeline sets the option itself, it stays off.
// REQUIRES: x86-avx512-vnni
// RUN: quant-run %s -e f --print-ir-after-pipeline -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.host.npy > %t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// RUN: quant-run %s -e f --print-ir-after-pipeline --target-cpu=x86-64-v3 -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.v3.npy > %t.v3
// RUN: FileCheck %s --check-prefix=GENERIC < %t.v3
// RUN: quant-run %s -e f --print-ir-after-pipeline --pipeline='quant-block-cpu-pipeline{x86-avx512-vnni=false}' -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.off.npy > %t.off
// RUN: FileCheck %s --check-prefix=GENERIC < %t.off
// The three give the same bits.
// RUN: cmp %t.host.npy %t.v3.npy
// RUN: cmp %t.host.npy %t.off.npy
// HOST: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// GENERIC-NOT: vpdpbusd
// GENERIC: llvm.func @f(

!w = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!a = !quant_block.tensor<2x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @f(%x: tensor<2x128xf32>, %wf: tensor<16x128xf32>) -> tensor<2x16xf32> {
  %w = quant_block.quantize_dynamic absmax %wf : tensor<16x128xf32> -> !w
  %xq = quant_block.quantize_dynamic absmax %x : tensor<2x128xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
