// RUN: quant-opt %s --split-input-file --quant-block-cpu-select-matmul-kernels | FileCheck %s --check-prefix=PLAIN
// RUN: quant-opt %s --split-input-file --quant-block-cpu-select-matmul-kernels="x86-avx512-vnni=true" | FileCheck %s --check-prefix=VNNI
// RUN: quant-opt %s --split-input-file --quant-block-cpu-select-matmul-kernels="x86-avx512-vnni=true x86-amx=true" | FileCheck %s --check-prefix=AMX
// RUN: quant-opt %s --split-input-file --quant-block-cpu-select-matmul-kernels="x86-amx-bf16=true" | FileCheck %s --check-prefix=AMXBF16
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="target-cpu=sapphirerapids parallel=false" --mlir-print-ir-after=quant-block-cpu-select-matmul-kernels 2>&1 >/dev/null | FileCheck %s --check-prefix=SPR
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="x86-avx512-vnni=true x86-amx=true parallel=false" --mlir-print-ir-after=quant-block-cpu-select-matmul-kernels 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPELINE

// --quant-block-cpu-select-matmul-kernels records the kernel of each
// product (chooseCPUMatmulKernel, MatmulKernelSelection.h) as
// quant_block.cpu_kernel; the CPU pipeline runs it with the target's
// options just before --quant-block-cpu-matmul-kernels.

// Float activations, reassociated: 16 partial sums per output; one
// activation row, so `rows` (4) weight rows per tile; the 4 blocks of a
// row in one K step.
// PLAIN-LABEL: func.func @float_reassociated
// PLAIN: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 4>
// AMX-LABEL: func.func @float_reassociated
// AMX: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 4>
// PIPELINE-LABEL: func.func @float_reassociated
// PIPELINE: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 4>
!w = !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @float_reassociated(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x64xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x128xf32>, !w -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// The strict order: one weight row per lane, the largest tile of rows
// dividing M = 6 (2), one block per step.
// PLAIN-LABEL: func.func @float_strict
// PLAIN: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<ordered_rows, tile = [2, 16], blocks_per_step = 1>
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @float_strict(%x: tensor<6x128xf32>, %w: !w) -> tensor<6x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<6x128xf32>, !w -> tensor<6x32xf32>
  return %y : tensor<6x32xf32>
}

// -----

// int8 activations, M = 32: generic i32 tiles of 8 x 2 without VNNI;
// vpdpbusd with one weight row per lane (8 activation rows, pairs of
// blocks of 32) with it; AMX tiles (16 x 16, 4 blocks per step) with AMX.
// PLAIN-LABEL: func.func @int8_activations
// PLAIN: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<integer_tiles, tile = [8, 2], blocks_per_step = 4>
// VNNI-LABEL: func.func @int8_activations
// VNNI: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [8, 16], blocks_per_step = 2>
// AMX-LABEL: func.func @int8_activations
// AMX: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>
// PIPELINE-LABEL: func.func @int8_activations
// PIPELINE: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @int8_activations(%x: !a, %w: !w) -> tensor<32x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// N = 24 is not a multiple of 16: with VNNI the tiles that add their lanes
// with shuffles (2 x 8), not the one-row-per-lane kernel, and no AMX.
// VNNI-LABEL: func.func @rows_not_a_multiple_of_16
// VNNI: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_tiles, tile = [2, 8], blocks_per_step = 4>
// AMX-LABEL: func.func @rows_not_a_multiple_of_16
// AMX: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_tiles, tile = [2, 8], blocks_per_step = 4>
!w = !quant_block.tensor<24x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @rows_not_a_multiple_of_16(%x: !a, %w: !w) -> tensor<32x24xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<32x24xf32>
  return %y : tensor<32x24xf32>
}

// -----

// A choice already on the op (a user's) stands, even where another would
// be picked.
// AMX-LABEL: func.func @choice_kept
// AMX: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [4, 16], blocks_per_step = 2>
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @choice_kept(%x: !a, %w: !w) -> tensor<32x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [4, 16], blocks_per_step = 2>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Products no kernel covers get no attribute (here an untransposed weight).
// PLAIN-LABEL: func.func @not_covered
// PLAIN-NOT: quant_block.cpu_kernel
// PLAIN: return
!w = !quant_block.tensor<128x32, #quant_block.scheme<i4 : f32, block = [32, 1], scale = f16>>
func.func @not_covered(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x32xf32> {
  %y = quant_block.matmul %x, %w accumulate(f32) inhibit fastmath<reassoc> : tensor<1x128xf32>, !w -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// bf16 activations, reassociated, M >= 16: AMX-BF16 tiles where the target
// has them (sapphirerapids does), with partial_sums's step (the weight is
// decoded with it); partial sums without.
// PLAIN-LABEL: func.func @bf16_reassociated
// PLAIN: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [8, 2], blocks_per_step = 4>
// AMXBF16-LABEL: func.func @bf16_reassociated
// AMXBF16: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>
// SPR-LABEL: func.func @bf16_reassociated
// SPR: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @bf16_reassociated(%x: tensor<40x128xbf16>, %w: !w) -> tensor<40x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<40x128xbf16>, !w -> tensor<40x32xbf16>
  return %y : tensor<40x32xbf16>
}

// -----

// Fewer than 16 rows, the strict order, or f32 activations: no AMX-BF16.
// AMXBF16-LABEL: func.func @bf16_few_rows
// AMXBF16: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums
// AMXBF16-LABEL: func.func @bf16_strict
// AMXBF16: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<ordered_rows
// AMXBF16-LABEL: func.func @f32_reassociated
// AMXBF16: quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
!wf = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @bf16_few_rows(%x: tensor<8x128xbf16>, %w: !w) -> tensor<8x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<8x128xbf16>, !w -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}
func.func @bf16_strict(%x: tensor<32x128xbf16>, %w: !w) -> tensor<32x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<32x128xbf16>, !w -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}
func.func @f32_reassociated(%x: tensor<32x128xf32>, %w: !wf) -> tensor<32x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<32x128xf32>, !wf -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}
