// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-cpu-matmul-kernels="x86-avx512-vnni=true"

// Every rule checkCPUMatmulKernel applies to a quant_block.cpu_kernel
// attribute that --quant-block-cpu-matmul-kernels is asked to emit (here on
// a target with AVX512-VNNI and without AMX), one case each.

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @reassociation_not_allowed(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x32xf32> {
  // expected-error @+1 {{'quant_block.matmul' op cannot emit 'quant_block.cpu_kernel' = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 4>: the kernel 'partial_sums' reassociates the sum over k, and the product has no fastmath<reassoc>}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 4>} : tensor<1x128xf32>, !w -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @integer_kernel_for_floats(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x32xf32> {
  // expected-error @+1 {{the kernel 'vnni_row_lanes' multiplies int8 activations (accumulate(i32)); the activations are floats}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [1, 16], blocks_per_step = 2>} : tensor<1x128xf32>, !w -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

!w = !quant_block.tensor<32x256, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!a = !quant_block.tensor<2x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @six_bit_codes_need_row_lanes(%x: !a, %w: !w) -> tensor<2x32xf32> {
  // expected-error @+1 {{the kernel 'vnni_tiles' does not read 6-bit codes, blocks of 16, two-level scales or mins (only vnni_row_lanes and amx do)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_tiles, tile = [2, 8], blocks_per_step = 4>} : !a, !w -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @float_kernel_for_integers(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'ordered_rows' multiplies float activations; the product has int8 activations (accumulate(i32))}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<ordered_rows, tile = [8, 16], blocks_per_step = 1>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<24x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @ordered_rows_not_a_multiple_of_16(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x24xf32> {
  // expected-error @+1 {{the kernel 'ordered_rows' takes one weight row per lane: N (24) must be a multiple of 16 and the blocks not [1, 16]}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<ordered_rows, tile = [1, 16], blocks_per_step = 1>} : tensor<1x128xf32>, !w -> tensor<1x24xf32>
  return %y : tensor<1x24xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @amx_not_on_target(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'amx' needs AMX-INT8 (the x86-amx option)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x96, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<8x96, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @vnni_blocks_do_not_pair(%x: !a, %w: !w) -> tensor<8x32xf32> {
  // expected-error @+1 {{the kernel 'vnni_tiles' takes two chunks of 32 codes per vpdpbusd: the blocks of a row must pair up}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_tiles, tile = [2, 8], blocks_per_step = 2>} : !a, !w -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

!w = !quant_block.tensor<32x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
!a = !quant_block.tensor<8x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @mins_need_row_lanes(%x: !a, %w: !w) -> tensor<8x32xf32> {
  // expected-error @+1 {{the kernel 'integer_tiles' does not read 6-bit codes, blocks of 16, two-level scales or mins (only vnni_row_lanes and amx do)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<integer_tiles, tile = [8, 2], blocks_per_step = 8>} : !a, !w -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @row_lane_tile_shape(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'vnni_row_lanes' takes 16 weight rows (one per lane) and at most 8 activation rows, not [8, 8]}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [8, 8], blocks_per_step = 2>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @tile_rows_do_not_divide_m(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the tile [3, 16] does not divide M = 32}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [3, 16], blocks_per_step = 2>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @tile_does_not_divide_n(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x32xf32> {
  // expected-error @+1 {{the tile [1, 5] does not divide N = 32}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 5], blocks_per_step = 4>} : tensor<1x128xf32>, !w -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @too_many_accumulators(%x: tensor<4x128xf32>, %w: !w) -> tensor<4x32xf32> {
  // expected-error @+1 {{the tile [4, 8] needs 32 accumulators, more than 16}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [4, 8], blocks_per_step = 4>} : tensor<4x128xf32>, !w -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @dynamic_rows_need_one_row_tiles(%x: tensor<?x128xf32>, %w: !w) -> tensor<?x32xf32> {
  // expected-error @+1 {{the kernel 'partial_sums' takes one activation row per tile with a dynamic M, not [2, 4]}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [2, 4], blocks_per_step = 4>} : tensor<?x128xf32>, !w -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @step_not_allowed(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{blocks_per_step 4 is not one the kernel 'vnni_row_lanes' takes for 4 blocks per row (allowed: 2)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [8, 16], blocks_per_step = 4>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
func.func @step_across_outer_scales(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x32xf32> {
  // expected-error @+1 {{blocks_per_step 3 is not one the kernel 'partial_sums' takes for 8 blocks per row under outer scales of 8 blocks (allowed: 8, 4, 2, 1)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 3>} : tensor<1x256xf32>, !w -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

!w = !quant_block.tensor<128x32, #quant_block.scheme<i4 : f32, block = [32, 1], scale = f16>>
func.func @product_not_covered(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x32xf32> {
  // expected-error @+1 {{'quant_block.matmul' op has 'quant_block.cpu_kernel' = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 4>, but no register-tiled kernel covers it: the weight is not transposed ([N, K])}}
  %y = quant_block.matmul %x, %w accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 4], blocks_per_step = 4>} : tensor<1x128xf32>, !w -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @amx_bf16_without_the_target(%x: tensor<16x128xbf16>, %w: !w) -> tensor<16x32xbf16> {
  // expected-error @+1 {{the kernel 'amx_bf16' needs AMX-BF16 (the x86-amx-bf16 option)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>} : tensor<16x128xbf16>, !w -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}
