// quant-run gives the CPU pipeline x86-f16c=true when its target has F16C,
// so f16 -> f32 extensions stay llvm.fpext (vcvtph2ps) instead of the
// integer expansion; for x86-64-v2 (no F16C) they are expanded. Both give
// the bits of the numerics contract for every f16 pattern
// (half-float-conversions.test runs through quant-run on each level).
// REQUIRES: x86-f16c
// RUN: quant-run %s -e f --print-ir-after-pipeline -i %S/Inputs/f16c_x.npy -o %t.host.npy | FileCheck %s --check-prefix=NATIVE
// RUN: quant-run %s -e f --print-ir-after-pipeline --target-cpu=x86-64-v2 -i %S/Inputs/f16c_x.npy -o %t.v2.npy | FileCheck %s --check-prefix=EXPANDED
// RUN: cmp %t.host.npy %t.v2.npy
// NATIVE: llvm.fpext %{{.*}} : vector<{{.*}}xf16> to vector<{{.*}}xf32>
// EXPANDED-NOT: llvm.fpext
// EXPANDED: llvm.func @f(

func.func @f(%x: tensor<64xf16>) -> tensor<64xf32> {
  %y = arith.extf %x : tensor<64xf16> to tensor<64xf32>
  return %y : tensor<64xf32>
}
