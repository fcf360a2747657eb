// quant-run gives the CPU pipeline x86-avx512=true when its target has
// AVX512F (adaptPipelineToTarget), so the register-tiled kernels decode
// 4-bit weight codes (here MXFP4's E2M1 and int4) with vpermps table
// lookups; for a target without AVX-512 (x86-64-v3), or when the pipeline
// sets the option itself, the codes are decoded with integer arithmetic.
// The three give the same bits.
// REQUIRES: x86-avx512
// RUN: quant-run %s -e f --print-ir-after-pipeline -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.host.mx.npy -o %t.host.i4.npy > %t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// RUN: quant-run %s -e f --print-ir-after-pipeline --target-cpu=x86-64-v3 -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.v3.mx.npy -o %t.v3.i4.npy > %t.v3
// RUN: FileCheck %s --check-prefix=GENERIC < %t.v3
// RUN: quant-run %s -e f --print-ir-after-pipeline --pipeline='quant-block-cpu-pipeline{x86-avx512=false}' -i %S/Inputs/vnni_x.npy -i %S/Inputs/vnni_w.npy -o %t.off.mx.npy -o %t.off.i4.npy > %t.off
// RUN: FileCheck %s --check-prefix=GENERIC < %t.off
// RUN: cmp %t.host.mx.npy %t.v3.mx.npy
// RUN: cmp %t.host.mx.npy %t.off.mx.npy
// RUN: cmp %t.host.i4.npy %t.v3.i4.npy
// RUN: cmp %t.host.i4.npy %t.off.i4.npy
// HOST: llvm.call_intrinsic "llvm.x86.avx512.permvar.sf.512"
// GENERIC-NOT: permvar
// GENERIC: llvm.func @f(

!mx = !quant_block.tensor<16x128, #quant_block.scheme<mxfp4>>
!i4 = !quant_block.tensor<16x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @f(%x: tensor<2x128xf32>, %wf: tensor<16x128xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %wmx = quant_block.quantize_dynamic mx %wf : tensor<16x128xf32> -> !mx
  %ymx = quant_block.matmul %x, %wmx transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x128xf32>, !mx -> tensor<2x16xf32>
  %wi4 = quant_block.quantize_dynamic absmax %wf : tensor<16x128xf32> -> !i4
  %yi4 = quant_block.matmul %x, %wi4 transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<2x128xf32>, !i4 -> tensor<2x16xf32>
  return %ymx, %yi4 : tensor<2x16xf32>, tensor<2x16xf32>
}
