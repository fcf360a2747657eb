// 6-bit codes (GGUF Q6_K's, `i6`: 4 codes per 24 bits, the lowest first)
// times int8 activations take the kernels with one weight row per lane
// (vnni_row_lanes, and amx from 16 activation rows where the target has
// it), which unpack each row's 6 words per chunk of 32 to a code per byte.
// Their bits equal those of the same codes as bytes (`i8`, the form the
// LLaMA model used to widen Q6_K to; matmul-kernels-order.mlir checks those
// against numpy) and of the generic lowering (x86-avx512-vnni=false): the
// block sums are exact and the f32 sum over the blocks keeps its order.
// Blocks of 16 under an outer scale (Q6_K) with 3, 20 (AMX) and a dynamic
// number of rows, the row-tiled layout, and plain blocks of 32.
// REQUIRES: x86-avx512-vnni
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/i6_codes.py %t
// RUN: quant-opt %s --quant-block-cpu-matmul-kernels="report=true x86-avx512-vnni=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COVERED --allow-empty
// COVERED-NOT: no register-tiled kernel
// RUN: quant-run %s -e q6k --print-ir-after-pipeline --quantized-as-parts -i %t/q6k_xq.npy -i %t/q6k_xs.npy -i %t/q6k_data6.npy -i %t/q6k_scales.npy -i %t/q6k_outer.npy -o %t/q6k.npy | FileCheck %s --check-prefix=KERNEL
// KERNEL: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// RUN: quant-run %s -e q6k --pipeline='quant-block-cpu-pipeline{x86-avx512-vnni=false}' --print-ir-after-pipeline --quantized-as-parts -i %t/q6k_xq.npy -i %t/q6k_xs.npy -i %t/q6k_data6.npy -i %t/q6k_scales.npy -i %t/q6k_outer.npy -o %t/q6k.generic.npy | FileCheck %s --check-prefix=GENERIC
// GENERIC-NOT: vpdpbusd
// GENERIC: llvm.func @q6k(
// RUN: quant-run %s -e q6k_i8 --quantized-as-parts -i %t/q6k_xq.npy -i %t/q6k_xs.npy -i %t/q6k_data8.npy -i %t/q6k_scales.npy -i %t/q6k_outer.npy -o %t/q6k.i8.npy
// RUN: cmp %t/q6k.npy %t/q6k.i8.npy
// RUN: cmp %t/q6k.npy %t/q6k.generic.npy
//
// RUN: quant-run %s -e q6k_m20 --quantized-as-parts -i %t/q6k_m20_xq.npy -i %t/q6k_m20_xs.npy -i %t/q6k_m20_data6.npy -i %t/q6k_m20_scales.npy -i %t/q6k_m20_outer.npy -o %t/q6k_m20.npy
// RUN: quant-run %s -e q6k_m20 --pipeline='quant-block-cpu-pipeline{x86-avx512-vnni=false}' --quantized-as-parts -i %t/q6k_m20_xq.npy -i %t/q6k_m20_xs.npy -i %t/q6k_m20_data6.npy -i %t/q6k_m20_scales.npy -i %t/q6k_m20_outer.npy -o %t/q6k_m20.generic.npy
// RUN: quant-run %s -e q6k_m20_i8 --quantized-as-parts -i %t/q6k_m20_xq.npy -i %t/q6k_m20_xs.npy -i %t/q6k_m20_data8.npy -i %t/q6k_m20_scales.npy -i %t/q6k_m20_outer.npy -o %t/q6k_m20.i8.npy
// RUN: cmp %t/q6k_m20.npy %t/q6k_m20.i8.npy
// RUN: cmp %t/q6k_m20.npy %t/q6k_m20.generic.npy
// Where quant-run spreads the codes with vpmultishiftqb (AVX512-VBMI hosts),
// also without it: the shifts and masks give the same bits.
// RUN: quant-run %s -e q6k_m20 --pipeline='quant-block-cpu-pipeline{x86-avx512-vbmi=false}' --quantized-as-parts -i %t/q6k_m20_xq.npy -i %t/q6k_m20_xs.npy -i %t/q6k_m20_data6.npy -i %t/q6k_m20_scales.npy -i %t/q6k_m20_outer.npy -o %t/q6k_m20.shifts.npy
// RUN: cmp %t/q6k_m20.npy %t/q6k_m20.shifts.npy
//
// RUN: quant-run %s -e q6k_dyn --quantized-as-parts -i %t/q6k_dyn_xq.npy -i %t/q6k_dyn_xs.npy -i %t/q6k_dyn_data6.npy -i %t/q6k_dyn_scales.npy -i %t/q6k_dyn_outer.npy -o %t/q6k_dyn.npy
// RUN: quant-run %s -e q6k_dyn --pipeline='quant-block-cpu-pipeline{x86-avx512-vnni=false}' --quantized-as-parts -i %t/q6k_dyn_xq.npy -i %t/q6k_dyn_xs.npy -i %t/q6k_dyn_data6.npy -i %t/q6k_dyn_scales.npy -i %t/q6k_dyn_outer.npy -o %t/q6k_dyn.generic.npy
// RUN: quant-run %s -e q6k_dyn_i8 --quantized-as-parts -i %t/q6k_dyn_xq.npy -i %t/q6k_dyn_xs.npy -i %t/q6k_dyn_data8.npy -i %t/q6k_dyn_scales.npy -i %t/q6k_dyn_outer.npy -o %t/q6k_dyn.i8.npy
// RUN: cmp %t/q6k_dyn.npy %t/q6k_dyn.i8.npy
// RUN: cmp %t/q6k_dyn.npy %t/q6k_dyn.generic.npy
//
// RUN: quant-run %s -e q6k_tiled --quantized-as-parts -i %t/q6k_tiled_xq.npy -i %t/q6k_tiled_xs.npy -i %t/q6k_tiled_data6_tiled.npy -i %t/q6k_tiled_scales_tiled.npy -i %t/q6k_tiled_outer_tiled.npy -o %t/q6k_tiled.npy
// RUN: quant-run %s -e q6k_tiled_i8 --quantized-as-parts -i %t/q6k_tiled_xq.npy -i %t/q6k_tiled_xs.npy -i %t/q6k_tiled_data8.npy -i %t/q6k_tiled_scales.npy -i %t/q6k_tiled_outer.npy -o %t/q6k_tiled.i8.npy
// RUN: cmp %t/q6k_tiled.npy %t/q6k_tiled.i8.npy
// RUN: quant-run %s -e q6k_tiled --pipeline='quant-block-cpu-pipeline{x86-avx512-vbmi=false}' --quantized-as-parts -i %t/q6k_tiled_xq.npy -i %t/q6k_tiled_xs.npy -i %t/q6k_tiled_data6_tiled.npy -i %t/q6k_tiled_scales_tiled.npy -i %t/q6k_tiled_outer_tiled.npy -o %t/q6k_tiled.shifts.npy
// RUN: cmp %t/q6k_tiled.npy %t/q6k_tiled.shifts.npy
//
// RUN: quant-run %s -e i6_b32 --quantized-as-parts -i %t/i6_b32_xq.npy -i %t/i6_b32_xs.npy -i %t/i6_b32_data6.npy -i %t/i6_b32_scales.npy -o %t/i6_b32.npy
// RUN: quant-run %s -e i6_b32 --pipeline='quant-block-cpu-pipeline{x86-avx512-vnni=false}' --quantized-as-parts -i %t/i6_b32_xq.npy -i %t/i6_b32_xs.npy -i %t/i6_b32_data6.npy -i %t/i6_b32_scales.npy -o %t/i6_b32.generic.npy
// RUN: quant-run %s -e i6_b32_i8 --quantized-as-parts -i %t/i6_b32_xq.npy -i %t/i6_b32_xs.npy -i %t/i6_b32_data8.npy -i %t/i6_b32_scales.npy -o %t/i6_b32.i8.npy
// RUN: cmp %t/i6_b32.npy %t/i6_b32.i8.npy
// RUN: cmp %t/i6_b32.npy %t/i6_b32.generic.npy

!a3 = !quant_block.tensor<3x512, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!w6 = !quant_block.tensor<16x512, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!w8 = !quant_block.tensor<16x512, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
func.func @q6k(%x: !a3, %w: !w6) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3, !w6 -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}
func.func @q6k_i8(%x: !a3, %w: !w8) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3, !w8 -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

!a20 = !quant_block.tensor<20x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!w6m20 = !quant_block.tensor<16x256, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!w8m20 = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
func.func @q6k_m20(%x: !a20, %w: !w6m20) -> tensor<20x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a20, !w6m20 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
func.func @q6k_m20_i8(%x: !a20, %w: !w8m20) -> tensor<20x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a20, !w8m20 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}

!ad = !quant_block.tensor<?x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @q6k_dyn(%xq: tensor<?x256xi8>, %xs: tensor<?x16xf32>, %w: !w6m20) -> tensor<?x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<?x256xi8>, tensor<?x16xf32> to !ad
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !ad, !w6m20 -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
func.func @q6k_dyn_i8(%xq: tensor<?x256xi8>, %xs: tensor<?x16xf32>, %w: !w8m20) -> tensor<?x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<?x256xi8>, tensor<?x16xf32> to !ad
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !ad, !w8m20 -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

!w6t = !quant_block.tensor<32x512, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>, row_tile = 16>>
!w8t = !quant_block.tensor<32x512, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
func.func @q6k_tiled(%x: !a3, %w: !w6t) -> tensor<3x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3, !w6t -> tensor<3x32xf32>
  return %y : tensor<3x32xf32>
}
func.func @q6k_tiled_i8(%x: !a3, %w: !w8t) -> tensor<3x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3, !w8t -> tensor<3x32xf32>
  return %y : tensor<3x32xf32>
}

!a2 = !quant_block.tensor<2x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w6b32 = !quant_block.tensor<32x256, #quant_block.scheme<i6 : f32, block = [1, 32]>>
!w8b32 = !quant_block.tensor<32x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i6_b32(%x: !a2, %w: !w6b32) -> tensor<2x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a2, !w6b32 -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
func.func @i6_b32_i8(%x: !a2, %w: !w8b32) -> tensor<2x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a2, !w8b32 -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
