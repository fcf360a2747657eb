// RUN: quant-opt %s --split-input-file --verify-diagnostics --quant-block-cpu-matmul-kernels="x86-amx-bf16=true"

// The rules checkCPUMatmulKernel applies to the kernel 'amx_bf16' on a
// target with AMX-BF16, one case each (without it: the last case).

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @amx_bf16_f32_activations(%x: tensor<16x128xf32>, %w: !w) -> tensor<16x32xf32> {
  // expected-error @+1 {{the kernel 'amx_bf16' multiplies bf16 activations}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>} : tensor<16x128xf32>, !w -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @amx_bf16_int8_activations(%x: !a, %w: !w) -> tensor<16x32xf32> {
  // expected-error @+1 {{the kernel 'amx_bf16' multiplies float activations; the product has int8 activations (accumulate(i32))}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>} : !a, !w -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @amx_bf16_strict_order(%x: tensor<16x128xbf16>, %w: !w) -> tensor<16x32xbf16> {
  // expected-error @+1 {{the kernel 'amx_bf16' reassociates the sum over k, and the product has no fastmath<reassoc>}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>} : tensor<16x128xbf16>, !w -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// -----

!w = !quant_block.tensor<24x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @amx_bf16_weight_rows(%x: tensor<16x128xbf16>, %w: !w) -> tensor<16x24xbf16> {
  // expected-error @+1 {{the kernel 'amx_bf16' takes tiles of 16 weight rows: N (24) must be a multiple of 16}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>} : tensor<16x128xbf16>, !w -> tensor<16x24xbf16>
  return %y : tensor<16x24xbf16>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 16], scale = f16>>
func.func @amx_bf16_blocks_of_16(%x: tensor<16x128xbf16>, %w: !w) -> tensor<16x32xbf16> {
  // expected-error @+1 {{the kernel 'amx_bf16' decodes whole chunks of 32 codes of one block: the blocks must be a multiple of 32}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>} : tensor<16x128xbf16>, !w -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @amx_bf16_too_few_rows(%x: tensor<8x128xbf16>, %w: !w) -> tensor<8x32xbf16> {
  // expected-error @+1 {{the kernel 'amx_bf16' needs at least 16 activation rows (M = 8)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 4>} : tensor<8x128xbf16>, !w -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @amx_bf16_tile_shape(%x: tensor<32x128xbf16>, %w: !w) -> tensor<32x32xbf16> {
  // expected-error @+1 {{the kernel 'amx_bf16' has tiles of [16, 16], not [8, 16]}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [8, 16], blocks_per_step = 4>} : tensor<32x128xbf16>, !w -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @amx_bf16_step(%x: tensor<32x128xbf16>, %w: !w) -> tensor<32x32xbf16> {
  // expected-error @+1 {{blocks_per_step 3 is not one the kernel 'amx_bf16' takes for 4 blocks per row (allowed: 4, 2, 1)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx_bf16, tile = [16, 16], blocks_per_step = 3>} : tensor<32x128xbf16>, !w -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}
