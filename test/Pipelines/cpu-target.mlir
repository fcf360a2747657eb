// The CPU pipeline's target options: a named CPU (or the host) sets every
// option that depends on the target's instructions and was not given
// (vector-bits, x86-avx512, x86-avx512-vnni, x86-avx512-vbmi, x86-amx,
// x86-f16c), and the lowered
// functions record it. Named CPUs resolve from LLVM's tables, so these
// checks do not depend on the host.
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-cpu=icelake-server" | FileCheck %s --check-prefix=ICX
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-cpu=x86-64-v3" | FileCheck %s --check-prefix=V3
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-cpu=cascadelake" | FileCheck %s --check-prefix=CLX
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-cpu=sapphirerapids" | FileCheck %s --check-prefix=SPR
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-cpu=sapphirerapids x86-amx=false" | FileCheck %s --check-prefix=SPR-OFF
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-features=+avx512f,+avx512bw,+avx512vnni" | FileCheck %s --check-prefix=FEATURES
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-cpu=icelake-server x86-avx512-vnni=false vector-bits=256" | FileCheck %s --check-prefix=GIVEN
// RUN: quant-opt %s --quant-block-cpu-pipeline | FileCheck %s --check-prefix=PORTABLE
// RUN: quant-opt %s --quant-block-cpu-pipeline="target-cpu=host" | FileCheck %s --check-prefix=HOST
// RUN: not quant-opt %s --quant-block-cpu-pipeline="target-cpu=bogus" 2>&1 | FileCheck %s --check-prefix=BAD-CPU
// RUN: not quant-opt %s --quant-block-cpu-pipeline="target-features=+avx512foo" 2>&1 | FileCheck %s --check-prefix=BAD-FEATURE
// RUN: not quant-opt %s --quant-block-cpu-pipeline="target-features=avx512f" 2>&1 | FileCheck %s --check-prefix=BAD-SIGN
// RUN: quant-opt %s --pass-pipeline="builtin.module(quant-block-cpu-pipeline,quant-block-cpu-record-target{cpu=znver4 features=-avx512vnni})" | FileCheck %s --check-prefix=RECORD

// icelake-server has AVX512-VNNI and AVX512BW: the int8 products use
// vpdpbusd on 512-bit vectors (vector-bits=512 from the target).
// ICX-LABEL: llvm.func @f(
// ICX-SAME: target_cpu = "icelake-server"
// ICX: vector<16xf32>
// ICX: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"

// icelake-server has no AMX: the 16-row product takes vpdpbusd too.
// ICX-LABEL: llvm.func @prefill(
// ICX-NOT: llvm.x86.tdp
// ICX: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"

// icelake-server has AVX512-VBMI: 6-bit codes are spread to bytes by
// vpmultishiftqb (x86-avx512-vbmi from the target); cascadelake has
// AVX512-VNNI without VBMI: shifts and masks.
// ICX-LABEL: llvm.func @q6k(
// ICX: llvm.call_intrinsic "llvm.x86.avx512.pmultishift.qb.512"
// CLX-LABEL: llvm.func @q6k(
// CLX-SAME: target_cpu = "cascadelake"
// CLX-NOT: pmultishift
// CLX: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CLX-NOT: pmultishift
// CLX: llvm.return

// sapphirerapids has AMX-TILE and AMX-INT8: the product of 16 activation
// rows takes AMX tiles (x86-amx from the target), the one of 2 rows does
// not; x86-amx=false wins.
// SPR-LABEL: llvm.func @f(
// SPR-NOT: llvm.x86.tdp
// SPR-LABEL: llvm.func @prefill(
// SPR-SAME: target_cpu = "sapphirerapids"
// SPR: llvm.call_intrinsic "llvm.x86.tdpbssd.internal"
// SPR-OFF-LABEL: llvm.func @prefill(
// SPR-OFF-NOT: llvm.x86.tdp
// SPR-OFF: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"

// x86-64-v3 (AVX2, F16C): no AVX-512 instruction.
// V3-LABEL: llvm.func @f(
// V3-SAME: target_cpu = "x86-64-v3"
// V3-NOT: vpdpbusd
// V3-NOT: vector<16xf32>
// V3-LABEL: llvm.func @prefill(

// Features alone, on the triple's generic CPU.
// FEATURES-LABEL: llvm.func @f(
// FEATURES-SAME: target_features = #llvm.target_features<["+avx512f", "+avx512bw", "+avx512vnni"]>
// FEATURES: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"

// Options given win over the target's.
// GIVEN-LABEL: llvm.func @f(
// GIVEN-SAME: target_cpu = "icelake-server"
// GIVEN-NOT: vpdpbusd
// GIVEN-NOT: vector<16xf32>
// GIVEN-LABEL: llvm.func @prefill(

// Without target options: portable code, nothing recorded.
// PORTABLE-LABEL: llvm.func @f(
// PORTABLE-NOT: target_cpu
// PORTABLE-NOT: vpdpbusd

// The host: its processor name and its own feature flags.
// HOST-LABEL: llvm.func @f(
// HOST-SAME: target_cpu = "{{[a-z0-9-]+}}"
// HOST-SAME: target_features = #llvm.target_features<[

// BAD-CPU: error: the CPU target does not resolve: target-cpu: 'bogus' is not a processor LLVM knows for x86_64
// BAD-FEATURE: error: the CPU target does not resolve: target-features: 'avx512foo' is not a feature LLVM knows for x86_64
// BAD-SIGN: error: the CPU target does not resolve: target-features: 'avx512f' must be a feature name after '+' or '-'

// The pass alone records on every function definition.
// RECORD-LABEL: llvm.func @f(
// RECORD-SAME: target_cpu = "znver4"
// RECORD-SAME: target_features = #llvm.target_features<["-avx512vnni"]>

!w = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!a = !quant_block.tensor<2x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @f(%x: tensor<2x128xf32>, %w: !w) -> tensor<2x16xf32> {
  %a = quant_block.quantize_dynamic absmax %x : tensor<2x128xf32> -> !a
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

!a16 = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @prefill(%x: tensor<16x128xf32>, %w: !w) -> tensor<16x16xf32> {
  %a = quant_block.quantize_dynamic absmax %x : tensor<16x128xf32> -> !a16
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a16, !w -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

!w6 = !quant_block.tensor<16x256, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!a6 = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @q6k(%x: !a6, %w: !w6) -> tensor<1x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a6, !w6 -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
