// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-cpu-matmul-kernels="x86-avx512-vnni=true x86-amx=true"

// The rules checkCPUMatmulKernel applies to the kernels 'amx' and
// 'vnni_tiles' on a target with AMX, one case each (the others:
// invalid-matmul-kernel.mlir).

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @amx_too_few_rows(%x: !a, %w: !w) -> tensor<8x32xf32> {
  // expected-error @+1 {{the kernel 'amx' needs at least 16 activation rows (M = 8)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>} : !a, !w -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @amx_tile_shape(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'amx' has tiles of [16, 16], not [8, 16]}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [8, 16], blocks_per_step = 4>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x1024, #quant_block.scheme<i4 : f32, block = [1, 512], scale = f16>>
!a = !quant_block.tensor<32x1024, #quant_block.scheme<i8 : f32, block = [1, 512]>>
func.func @amx_blocks_too_large(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'amx' reads blocks of at most 256 codes}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 1>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<ui8 : f32, block = [1, 32], scale = f16, zero_point = ui8>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @amx_eight_bit_zero_points(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'amx' needs 8-bit codes without zero points (the centered codes must fit a signed byte)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<f4E2M1FN : f32, block = [1, 16], scale = f8E4M3FN, outer = <f32>>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @amx_four_bit_blocks_of_16(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'amx' reads blocks of 16 only of 6- or 8-bit codes (4-bit codes are de-interleaved per chunk of 32)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 4>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<f4E2M1FN : f32, block = [1, 32], scale = f8E8M0FNU>>
!a = !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @vnni_tiles_e2m1(%x: !a, %w: !w) -> tensor<8x32xf32> {
  // expected-error @+1 {{the kernel 'vnni_tiles' does not decode E2M1 codes (vnni_row_lanes looks them up)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_tiles, tile = [2, 8], blocks_per_step = 4>} : !a, !w -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = i8, outer = <f16, block = [1]>>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @amx_rows_left_over_without_step(%x: !a, %w: !w) -> tensor<32x32xf32> {
  // expected-error @+1 {{the kernel 'amx' takes the rows left over with vnni_row_lanes, and no K step of it shares one outer scale}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 1>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}
