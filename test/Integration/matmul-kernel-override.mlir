// A quant_block.cpu_kernel attribute (a user's choice of kernel family and
// tiles, docs/CPU.md) changes the code, never the bits: products of
// matmul-kernels-order.mlir with other kernels and tiles than
// --quant-block-cpu-select-matmul-kernels picks, compiled and run by
// quant-run, are checked against the same numpy model of the contract's
// order. The VNNI and AMX families run where the host has them (a
// kernel the target lacks is a compile error, invalid-matmul-kernel.mlir).
// REQUIRES: libomp
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/matmul_kernels_order.py gen %t
// Portable families, any host.
// RUN: quant-run %s -e i4_i8act_m8_tiles_1x1 --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_data.npy -i %t/i4_i8act_m8_scales.npy -o %t/i4_i8act_m8.t1x1.npy
// RUN: quant-run %s -e i4_i8act_m8_tiles_2x4 --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_data.npy -i %t/i4_i8act_m8_scales.npy -o %t/i4_i8act_m8.t2x4.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e i4_zp_tiles_3x4 -i %t/i4_zp_x.npy -i %t/i4_zp_data.npy -i %t/i4_zp_scales.npy -i %t/i4_zp_zp.npy -o %t/i4_zp.t3x4.npy
// RUN: quant-run %s -e i4_zp_tiles_1x2 -i %t/i4_zp_x.npy -i %t/i4_zp_data.npy -i %t/i4_zp_scales.npy -i %t/i4_zp_zp.npy -o %t/i4_zp.t1x2.npy
// RUN: %python %S/Inputs/matmul_kernels_order.py check %t i4_i8act_m8.t1x1 i4_i8act_m8.t2x4 i4_zp.t3x4 i4_zp.t1x2 | FileCheck %s
// CHECK: i4_i8act_m8.t1x1: bit-exact
// CHECK-NEXT: i4_i8act_m8.t2x4: bit-exact
// CHECK-NEXT: i4_zp.t3x4: bit-exact
// CHECK-NEXT: i4_zp.t1x2: bit-exact
// On VNNI hosts, the VNNI families with other tiles.
// RUN: %if x86-avx512-vnni %{ quant-run %s -e i4_i8act_m8_vnni_tiles --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_data.npy -i %t/i4_i8act_m8_scales.npy -o %t/i4_i8act_m8.vt.npy %}
// RUN: %if x86-avx512-vnni %{ quant-run %s -e i4_i8act_m8_row_lanes_2 --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_data.npy -i %t/i4_i8act_m8_scales.npy -o %t/i4_i8act_m8.rl2.npy %}
// RUN: %if x86-avx512-vnni %{ quant-run %s -e q4k_i8act_m20_row_lanes_4 --quantized-as-parts -i %t/q4k_i8act_m20_xq.npy -i %t/q4k_i8act_m20_xs.npy -i %t/q4k_i8act_m20_data.npy -i %t/q4k_i8act_m20_scales.npy -i %t/q4k_i8act_m20_zp.npy -i %t/q4k_i8act_m20_outer.npy -i %t/q4k_i8act_m20_outermin.npy -o %t/q4k_i8act_m20.rl4.npy %}
// RUN: %if x86-avx512-vnni %{ %python %S/Inputs/matmul_kernels_order.py check %t i4_i8act_m8.vt i4_i8act_m8.rl2 q4k_i8act_m20.rl4 | FileCheck %s --check-prefix=VNNI %}
// VNNI: i4_i8act_m8.vt: bit-exact
// VNNI-NEXT: i4_i8act_m8.rl2: bit-exact
// VNNI-NEXT: q4k_i8act_m20.rl4: bit-exact
// On AMX hosts, one and two blocks per AMX step (the choice is four).
// RUN: %if x86-amx %{ quant-run %s -e q4k_i8act_m20_amx_1 --quantized-as-parts -i %t/q4k_i8act_m20_xq.npy -i %t/q4k_i8act_m20_xs.npy -i %t/q4k_i8act_m20_data.npy -i %t/q4k_i8act_m20_scales.npy -i %t/q4k_i8act_m20_zp.npy -i %t/q4k_i8act_m20_outer.npy -i %t/q4k_i8act_m20_outermin.npy -o %t/q4k_i8act_m20.amx1.npy %}
// RUN: %if x86-amx %{ quant-run %s -e q4k_i8act_m20_amx_2 --quantized-as-parts -i %t/q4k_i8act_m20_xq.npy -i %t/q4k_i8act_m20_xs.npy -i %t/q4k_i8act_m20_data.npy -i %t/q4k_i8act_m20_scales.npy -i %t/q4k_i8act_m20_zp.npy -i %t/q4k_i8act_m20_outer.npy -i %t/q4k_i8act_m20_outermin.npy -o %t/q4k_i8act_m20.amx2.npy %}
// RUN: %if x86-amx %{ %python %S/Inputs/matmul_kernels_order.py check %t q4k_i8act_m20.amx1 q4k_i8act_m20.amx2 | FileCheck %s --check-prefix=AMX %}
// AMX: q4k_i8act_m20.amx1: bit-exact
// AMX-NEXT: q4k_i8act_m20.amx2: bit-exact

!a8x256 = !quant_block.tensor<8x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w4m8 = !quant_block.tensor<32x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @i4_i8act_m8_tiles_1x1(%xq: tensor<8x256xi8>, %xs: tensor<8x8xf32>, %w: !w4m8) -> tensor<8x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<8x256xi8>, tensor<8x8xf32> to !a8x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<integer_tiles, tile = [1, 1], blocks_per_step = 2>} : !a8x256, !w4m8 -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
func.func @i4_i8act_m8_tiles_2x4(%xq: tensor<8x256xi8>, %xs: tensor<8x8xf32>, %w: !w4m8) -> tensor<8x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<8x256xi8>, tensor<8x8xf32> to !a8x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<integer_tiles, tile = [2, 4], blocks_per_step = 4>} : !a8x256, !w4m8 -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
func.func @i4_i8act_m8_vnni_tiles(%xq: tensor<8x256xi8>, %xs: tensor<8x8xf32>, %w: !w4m8) -> tensor<8x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<8x256xi8>, tensor<8x8xf32> to !a8x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_tiles, tile = [1, 8], blocks_per_step = 2>} : !a8x256, !w4m8 -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
func.func @i4_i8act_m8_row_lanes_2(%xq: tensor<8x256xi8>, %xs: tensor<8x8xf32>, %w: !w4m8) -> tensor<8x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<8x256xi8>, tensor<8x8xf32> to !a8x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [2, 16], blocks_per_step = 2>} : !a8x256, !w4m8 -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

!w4zp = !quant_block.tensor<96x256, #quant_block.scheme<i4 : f32, block = [1, 64], scale = f16, zero_point = i4>>
func.func @i4_zp_tiles_3x4(%x: tensor<3x256xf32>, %data: tensor<96x128xi8>, %scales: tensor<96x4xf16>, %zp8: tensor<96x4xi8>) -> tensor<3x96xf32> {
  %zp = arith.trunci %zp8 : tensor<96x4xi8> to tensor<96x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<96x128xi8>, tensor<96x4xf16>, tensor<96x4xi4> to !w4zp
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [3, 4], blocks_per_step = 1>} : tensor<3x256xf32>, !w4zp -> tensor<3x96xf32>
  return %y : tensor<3x96xf32>
}
func.func @i4_zp_tiles_1x2(%x: tensor<3x256xf32>, %data: tensor<96x128xi8>, %scales: tensor<96x4xf16>, %zp8: tensor<96x4xi8>) -> tensor<3x96xf32> {
  %zp = arith.trunci %zp8 : tensor<96x4xi8> to tensor<96x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<96x128xi8>, tensor<96x4xf16>, tensor<96x4xi4> to !w4zp
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<partial_sums, tile = [1, 2], blocks_per_step = 4>} : tensor<3x256xf32>, !w4zp -> tensor<3x96xf32>
  return %y : tensor<3x96xf32>
}

!a20 = !quant_block.tensor<20x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wq4k256 = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
func.func @q4k_i8act_m20_row_lanes_4(%x: !a20, %w: !wq4k256) -> tensor<20x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [4, 16], blocks_per_step = 2>} : !a20, !wq4k256 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
func.func @q4k_i8act_m20_amx_1(%x: !a20, %w: !wq4k256) -> tensor<20x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 1>} : !a20, !wq4k256 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
func.func @q4k_i8act_m20_amx_2(%x: !a20, %w: !wq4k256) -> tensor<20x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 2>} : !a20, !wq4k256 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
