// Weights in the row-tiled layout (`row_tile = 16`, docs/Packing.md) give
// the same bits as in the row-major layout: the products of
// matmul-kernels-order.mlir whose weights tile (N a multiple of 16, blocks
// of whole 32-bit words), with the weight's parts passed tiled (written by
// quant_block.reference.tile_rows in Inputs/matmul_kernels_order.py) and
// checked against the same numpy model of the kernels' order. With
// AVX512-VNNI (quant-run on such a host) the int8-activation products run
// the row-lane kernel that streams the tiles; the strict-order f32 ones run
// the ordered kernel on any host. A kernel that does not read tiles (the
// -Dtarget reruns for x86-64-v2/v3 compile the others) gets the weight
// repacked row-major on each call, so every host computes the same bits;
// without the kernels (matmul-kernels=false below) the lowering repacks it
// too, and the products without fast-math flags keep the same order there.
// A constant weight, packed and tiled at compile time, gives the bits of
// the same weight row-major. A dynamic M,
// and a row-major weight repacked in the function (quant_block.repack,
// lowered to transposes of the parts), too.
// Every function must have been given a kernel that reads the tiles.
// REQUIRES: libomp
// RUN: quant-opt %s --quant-block-cpu-matmul-kernels="report=true x86-avx512-vnni=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COVERED --allow-empty
// COVERED-NOT: no register-tiled kernel
// RUN: quant-opt %s --quant-block-cpu-matmul-kernels="x86-avx512-vnni=true" | FileCheck %s --check-prefix=KERNEL
// KERNEL-NOT: quant_block.matmul
// KERNEL-LABEL: func.func @i4_i8act_tiled(
// KERNEL: vector.transfer_read {{.*}} : tensor<4x8x16xf16>, vector<2x16xf16>
// KERNEL-NOT: vector.transpose
// KERNEL: vector.transfer_read {{.*}} : tensor<4x32x16x4xi8>, vector<4x16x4xi8>
// KERNEL-NOT: vector.shuffle
// KERNEL: memref.prefetch {{.*}} : memref<4x32x16x4xi8
// KERNEL-LABEL: func.func @i4zp_strict_tiled(
// Q4_K: the step's scales, outer scale, outer min and mins of the tile's
// 16 rows, one read each, then its codes; nothing transposed.
// KERNEL-LABEL: func.func @q4k_i8act_tiled(
// KERNEL: vector.transfer_read {{.*}} : tensor<1x16x16xi8>, vector<2x16xi8>
// KERNEL-NEXT: arith.uitofp
// KERNEL-NOT: vector.transpose
// KERNEL: vector.transfer_read {{.*}} : tensor<1x2x16xf16>, vector<1x16xf16>
// KERNEL: vector.transfer_read {{.*}} : tensor<1x2x16xf16>, vector<1x16xf16>
// KERNEL: vector.transfer_read {{.*}} : tensor<1x16x16xi8>, vector<2x16xi8>
// KERNEL-NOT: vector.shuffle
// KERNEL: vector.transfer_read {{.*}} : tensor<1x64x16x4xi8>, vector<4x16x4xi8>
// KERNEL-NOT: vector.shuffle
// KERNEL: memref.prefetch {{.*}} : memref<1x64x16x4xi8
// KERNEL-LABEL: func.func @q6k_i8_i8act_tiled(
// KERNEL: vector.transfer_read {{.*}} : tensor<1x32x16xi8>, vector<4x16xi8>
// KERNEL-NOT: vector.transpose
// KERNEL: vector.transfer_read {{.*}} : tensor<1x2x16xf16>, vector<1x16xf16>
// KERNEL-NOT: vector.shuffle
// KERNEL: vector.transfer_read {{.*}} : tensor<1x128x16x4xi8>, vector<8x16x4xi8>
// The constant weight's tiled parts are constants of the compiled module.
// RUN: quant-opt %s --quant-block-cpu-pipeline=x86-avx512-vnni=true | FileCheck %s --check-prefix=GLOBAL
// GLOBAL-DAG: llvm.mlir.global private constant @__constant_1x8x16x4xi8(dense<"0x{{[0-9A-F]+}}"> : tensor<1x8x16x4xi8>)
// GLOBAL-DAG: llvm.mlir.global private constant @__constant_1x2x16xf16(dense<

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/matmul_kernels_order.py gen %t
// RUN: quant-run %s -e i4_i8act_tiled --quantized-as-parts -i %t/i4_i8act_xq.npy -i %t/i4_i8act_xs.npy -i %t/i4_i8act_tdata.npy -i %t/i4_i8act_tscales.npy -o %t/i4_i8act.tiled.npy
// RUN: quant-run %s -e i4_i8act_m8_tiled --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_tdata.npy -i %t/i4_i8act_m8_tscales.npy -o %t/i4_i8act_m8.tiled.npy
// RUN: quant-run %s -e u4zp_i8act_m4_tiled --quantized-as-parts -i %t/u4zp_i8act_m4_xq.npy -i %t/u4zp_i8act_m4_xs.npy -i %t/u4zp_i8act_m4_tdata.npy -i %t/u4zp_i8act_m4_tscales.npy -i %t/u4zp_i8act_m4_tzp.npy -o %t/u4zp_i8act_m4.tiled.npy
// RUN: quant-run %s -e i4_i8act_b128_tiled --quantized-as-parts -i %t/i4_i8act_b128_xq.npy -i %t/i4_i8act_b128_xs.npy -i %t/i4_i8act_b128_tdata.npy -i %t/i4_i8act_b128_tscales.npy -o %t/i4_i8act_b128.tiled.npy
// RUN: quant-run %s -e i8_i8act_rows_tiled --quantized-as-parts -i %t/i8_i8act_rows_xq.npy -i %t/i8_i8act_rows_xs.npy -i %t/i8_i8act_rows_tdata.npy -i %t/i8_i8act_rows_tscales.npy -o %t/i8_i8act_rows.tiled.npy
// RUN: quant-run %s -e u8zp_i8act_rows_tiled --quantized-as-parts -i %t/u8zp_i8act_rows_xq.npy -i %t/u8zp_i8act_rows_xs.npy -i %t/u8zp_i8act_rows_tdata.npy -i %t/u8zp_i8act_rows_tscales.npy -i %t/u8zp_i8act_rows_tzp.npy -o %t/u8zp_i8act_rows.tiled.npy
// RUN: quant-run %s -e i4zp_strict_tiled --quantized-as-parts -i %t/i4zp_strict_x.npy -i %t/i4zp_strict_tdata.npy -i %t/i4zp_strict_tscales.npy -i %t/i4zp_strict_tzp.npy -o %t/i4zp_strict.tiled.npy
// RUN: quant-run %s -e u8_strict_tiled --quantized-as-parts -i %t/u8_strict_x.npy -i %t/u8_strict_tdata.npy -i %t/u8_strict_tscales.npy -o %t/u8_strict.tiled.npy
// RUN: quant-run %s -e i8_strict_tiled --quantized-as-parts -i %t/i8_strict_x.npy -i %t/i8_strict_tdata.npy -i %t/i8_strict_tscales.npy -o %t/i8_strict.tiled.npy
// RUN: quant-run %s -e i4_i8act_m8_dyn_tiled --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_tdata.npy -i %t/i4_i8act_m8_tscales.npy -o %t/i4_i8act_m8.dyntiled.npy
// RUN: quant-run %s -e i4_i8act_m8_repack --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_data.npy -i %t/i4_i8act_m8_scales.npy -o %t/i4_i8act_m8.repack.npy
// RUN: quant-run %s -e i4_i8act_m8_tiled --quantized-as-parts --pipeline="quant-block-cpu-pipeline{matmul-kernels=false}" -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_tdata.npy -i %t/i4_i8act_m8_tscales.npy -o %t/i4_i8act_m8.generic.npy
// RUN: quant-run %s -e i4zp_strict_tiled --quantized-as-parts --pipeline="quant-block-cpu-pipeline{matmul-kernels=false}" -i %t/i4zp_strict_x.npy -i %t/i4zp_strict_tdata.npy -i %t/i4zp_strict_tscales.npy -i %t/i4zp_strict_tzp.npy -o %t/i4zp_strict.generic.npy
// RUN: quant-run %s -e q4k_strict_tiled --quantized-as-parts -i %t/q4k_strict_x.npy -i %t/q4k_strict_tdata.npy -i %t/q4k_strict_tscales.npy -i %t/q4k_strict_tzp.npy -i %t/q4k_strict_touter.npy -i %t/q4k_strict_toutermin.npy -o %t/q4k_strict.tiled.npy
// RUN: quant-run %s -e q4k_i8act_tiled --quantized-as-parts -i %t/q4k_i8act_xq.npy -i %t/q4k_i8act_xs.npy -i %t/q4k_i8act_tdata.npy -i %t/q4k_i8act_tscales.npy -i %t/q4k_i8act_tzp.npy -i %t/q4k_i8act_touter.npy -i %t/q4k_i8act_toutermin.npy -o %t/q4k_i8act.tiled.npy
// RUN: quant-run %s -e q4k_i8act_m20_tiled --quantized-as-parts -i %t/q4k_i8act_m20_xq.npy -i %t/q4k_i8act_m20_xs.npy -i %t/q4k_i8act_m20_tdata.npy -i %t/q4k_i8act_m20_tscales.npy -i %t/q4k_i8act_m20_tzp.npy -i %t/q4k_i8act_m20_touter.npy -i %t/q4k_i8act_m20_toutermin.npy -o %t/q4k_i8act_m20.tiled.npy
// RUN: quant-run %s -e q4_1_i8act_tiled --quantized-as-parts -i %t/q4_1_i8act_xq.npy -i %t/q4_1_i8act_xs.npy -i %t/q4_1_i8act_tdata.npy -i %t/q4_1_i8act_tscales.npy -i %t/q4_1_i8act_tzp.npy -o %t/q4_1_i8act.tiled.npy
// RUN: quant-run %s -e q6k_i8_i8act_tiled --quantized-as-parts -i %t/q6k_i8_i8act_xq.npy -i %t/q6k_i8_i8act_xs.npy -i %t/q6k_i8_i8act_tdata.npy -i %t/q6k_i8_i8act_tscales.npy -i %t/q6k_i8_i8act_touter.npy -o %t/q6k_i8_i8act.tiled.npy
// RUN: quant-run %s -e q6k_i8_i8act_m20_tiled --quantized-as-parts -i %t/q6k_i8_i8act_m20_xq.npy -i %t/q6k_i8_i8act_m20_xs.npy -i %t/q6k_i8_i8act_m20_tdata.npy -i %t/q6k_i8_i8act_m20_tscales.npy -i %t/q6k_i8_i8act_m20_touter.npy -o %t/q6k_i8_i8act_m20.tiled.npy
// RUN: quant-run %s -e q4k_i8act_tiled --quantized-as-parts --pipeline="quant-block-cpu-pipeline{matmul-kernels=false}" -i %t/q4k_i8act_xq.npy -i %t/q4k_i8act_xs.npy -i %t/q4k_i8act_tdata.npy -i %t/q4k_i8act_tscales.npy -i %t/q4k_i8act_tzp.npy -i %t/q4k_i8act_touter.npy -i %t/q4k_i8act_toutermin.npy -o %t/q4k_i8act.generic.npy
// RUN: quant-run %s -e constant_weight -i %t/i4_i8act_xq.npy -i %t/i4_i8act_xs.npy -o %t/constant.row.npy -o %t/constant.tiled.npy
// RUN: %python %S/Inputs/matmul_kernels_order.py same %t constant.row constant.tiled | FileCheck %s --check-prefix=CONSTANT
// CONSTANT: constant.row constant.tiled: bit-exact
// RUN: %python %S/Inputs/matmul_kernels_order.py check %t i4_i8act.tiled i4_i8act_m8.tiled u4zp_i8act_m4.tiled i4_i8act_b128.tiled i8_i8act_rows.tiled u8zp_i8act_rows.tiled i4zp_strict.tiled u8_strict.tiled i8_strict.tiled i4_i8act_m8.dyntiled i4_i8act_m8.repack i4_i8act_m8.generic i4zp_strict.generic q4k_strict.tiled q4k_i8act.tiled q4k_i8act_m20.tiled q4_1_i8act.tiled q6k_i8_i8act.tiled q6k_i8_i8act_m20.tiled q4k_i8act.generic | FileCheck %s
// CHECK: i4_i8act.tiled: bit-exact
// CHECK-NEXT: i4_i8act_m8.tiled: bit-exact
// CHECK-NEXT: u4zp_i8act_m4.tiled: bit-exact
// CHECK-NEXT: i4_i8act_b128.tiled: bit-exact
// CHECK-NEXT: i8_i8act_rows.tiled: bit-exact
// CHECK-NEXT: u8zp_i8act_rows.tiled: bit-exact
// CHECK-NEXT: i4zp_strict.tiled: bit-exact
// CHECK-NEXT: u8_strict.tiled: bit-exact
// CHECK-NEXT: i8_strict.tiled: bit-exact
// CHECK-NEXT: i4_i8act_m8.dyntiled: bit-exact
// CHECK-NEXT: i4_i8act_m8.repack: bit-exact
// CHECK-NEXT: i4_i8act_m8.generic: bit-exact
// CHECK-NEXT: i4zp_strict.generic: bit-exact
// CHECK-NEXT: q4k_strict.tiled: bit-exact
// CHECK-NEXT: q4k_i8act.tiled: bit-exact
// CHECK-NEXT: q4k_i8act_m20.tiled: bit-exact
// CHECK-NEXT: q4_1_i8act.tiled: bit-exact
// CHECK-NEXT: q6k_i8_i8act.tiled: bit-exact
// CHECK-NEXT: q6k_i8_i8act_m20.tiled: bit-exact
// CHECK-NEXT: q4k_i8act.generic: bit-exact

!a256 = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!t4a = !quant_block.tensor<64x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
func.func @i4_i8act_tiled(%xq: tensor<1x256xi8>, %xs: tensor<1x8xf32>, %w: !t4a) -> tensor<1x64xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<1x256xi8>, tensor<1x8xf32> to !a256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a256, !t4a -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

!a8x256 = !quant_block.tensor<8x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w4m8 = !quant_block.tensor<32x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!t4m8 = !quant_block.tensor<32x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
func.func @i4_i8act_m8_tiled(%xq: tensor<8x256xi8>, %xs: tensor<8x8xf32>, %w: !t4m8) -> tensor<8x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<8x256xi8>, tensor<8x8xf32> to !a8x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a8x256, !t4m8 -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// uint4 zero points come as i8 and are narrowed.
!a4x256 = !quant_block.tensor<4x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
!tu4zp = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 64], zero_point = ui4, row_tile = 16>>
func.func @u4zp_i8act_m4_tiled(%xq: tensor<4x256xi8>, %xs: tensor<4x4xf32>, %data: tensor<1x32x16x4xi8>, %scales: tensor<1x4x16xf32>, %zp8: tensor<1x4x16xi8>) -> tensor<4x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<4x256xi8>, tensor<4x4xf32> to !a4x256
  %zp = arith.trunci %zp8 : tensor<1x4x16xi8> to tensor<1x4x16xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<1x32x16x4xi8>, tensor<1x4x16xf32>, tensor<1x4x16xi4> to !tu4zp
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<reassoc,contract> : !a4x256, !tu4zp -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

!a3x512 = !quant_block.tensor<3x512, #quant_block.scheme<i8 : f32, block = [1, 128]>>
!t4b128 = !quant_block.tensor<16x512, #quant_block.scheme<i4 : f32, block = [1, 128], scale = f16, row_tile = 16>>
func.func @i4_i8act_b128_tiled(%xq: tensor<3x512xi8>, %xs: tensor<3x4xf32>, %w: !t4b128) -> tensor<3x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<3x512xi8>, tensor<3x4xf32> to !a3x512
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3x512, !t4b128 -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

!a2x128 = !quant_block.tensor<2x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!t8rows = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 32], row_tile = 16>>
func.func @i8_i8act_rows_tiled(%xq: tensor<2x128xi8>, %xs: tensor<2x4xf32>, %w: !t8rows) -> tensor<2x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<2x128xi8>, tensor<2x4xf32> to !a2x128
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<fast> : !a2x128, !t8rows -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

!a1x256 = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
!tu8rows = !quant_block.tensor<32x256, #quant_block.scheme<ui8 : f32, block = [1, 64], scale = f16, zero_point = ui8, row_tile = 16>>
func.func @u8zp_i8act_rows_tiled(%xq: tensor<1x256xi8>, %xs: tensor<1x4xf32>, %w: !tu8rows) -> tensor<1x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<1x256xi8>, tensor<1x4xf32> to !a1x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a1x256, !tu8rows -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

!t4zps = !quant_block.tensor<32x256, #quant_block.scheme<i4 : f32, block = [1, 64], scale = f16, zero_point = i4, row_tile = 16>>
func.func @i4zp_strict_tiled(%x: tensor<3x256xf32>, %data: tensor<2x32x16x4xi8>, %scales: tensor<2x4x16xf16>, %zp8: tensor<2x4x16xi8>) -> tensor<3x32xf32> {
  %zp = arith.trunci %zp8 : tensor<2x4x16xi8> to tensor<2x4x16xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<2x32x16x4xi8>, tensor<2x4x16xf16>, tensor<2x4x16xi4> to !t4zps
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<3x256xf32>, !t4zps -> tensor<3x32xf32>
  return %y : tensor<3x32xf32>
}

!tu8s = !quant_block.tensor<16x128, #quant_block.scheme<ui8 : f32, block = [1, 128], scale = f16, row_tile = 16>>
func.func @u8_strict_tiled(%x: tensor<1x128xf32>, %w: !tu8s) -> tensor<1x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<contract> : tensor<1x128xf32>, !tu8s -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

!t8s = !quant_block.tensor<16x96, #quant_block.scheme<i8 : f32, block = [1, 32], row_tile = 16>>
func.func @i8_strict_tiled(%x: tensor<9x96xf32>, %w: !t8s) -> tensor<9x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<nnan> : tensor<9x96xf32>, !t8s -> tensor<9x16xf32>
  return %y : tensor<9x16xf32>
}

!ad256 = !quant_block.tensor<?x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i4_i8act_m8_dyn_tiled(%xq: tensor<?x256xi8>, %xs: tensor<?x8xf32>, %w: !t4m8) -> tensor<?x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<?x256xi8>, tensor<?x8xf32> to !ad256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !ad256, !t4m8 -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// A row-major weight argument, repacked in the function.
func.func @i4_i8act_m8_repack(%xq: tensor<8x256xi8>, %xs: tensor<8x8xf32>, %w: !w4m8) -> tensor<8x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<8x256xi8>, tensor<8x8xf32> to !a8x256
  %t = quant_block.repack %w : !w4m8 -> !t4m8
  %y = quant_block.matmul %a, %t transpose_rhs accumulate(i32) inhibit : !a8x256, !t4m8 -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// A constant weight (packed and tiled at compile time) beside the same
// weight row-major: the same bits (activations: the first 64 of i4_i8act's).
!a64 = !quant_block.tensor<1x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wc = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!tc = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
func.func @constant_weight(%xq256: tensor<1x256xi8>, %xs8: tensor<1x8xf32>) -> (tensor<1x16xf32>, tensor<1x16xf32>) {
  %xq = tensor.extract_slice %xq256[0, 0] [1, 64] [1, 1] : tensor<1x256xi8> to tensor<1x64xi8>
  %xs = tensor.extract_slice %xs8[0, 0] [1, 2] [1, 1] : tensor<1x8xf32> to tensor<1x2xf32>
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<1x64xi8>, tensor<1x2xf32> to !a64
  %d = arith.constant dense<[[2, 4, -8, 4, -1, 0, 2, -4, 7, -8, -4, -2, 1, -2, -6, -8, -8, -8, -6, 7, -5, 2, 4, -5, -4, -2, -4, 7, -6, 6, 4, 5, -7, -2, 2, -1, 2, 2, 2, -8, 7, 0, 6, -4, -3, 6, -6, -7, -3, 2, -7, 5, -3, -5, 0, 6, 6, 5, -4, -8, 4, 3, 4, -8],
    [-8, 0, -3, -2, 6, -5, 0, -3, -4, 4, -6, -3, -7, -6, -4, 3, 1, -1, -6, 4, 4, -5, -8, -3, -6, 4, 0, 0, -4, 0, 7, -5, 4, -8, -3, 6, 5, -7, 5, 5, -1, -3, 7, 7, 2, -2, -5, 6, -4, 0, 2, -5, -3, 3, -5, 2, 7, 2, 2, -1, 7, -5, -3, 2],
    [2, -7, -6, 3, 5, 2, 6, -2, -3, 4, -8, -5, -5, -2, -6, 4, 5, -2, -8, 3, -7, 1, -6, 7, 2, 7, 1, 3, -2, 4, -7, -6, -3, 3, -1, 5, 7, -2, -2, 0, 2, -1, 1, 7, 3, -3, -2, -2, -6, -8, 4, -2, -3, 2, 1, 6, 1, 6, 1, -3, -3, 7, 1, -5],
    [5, 5, -8, -6, 3, -2, -3, -7, -5, 5, 5, 5, 1, -6, -3, 0, 7, -4, 0, -1, 0, 0, 3, -7, 7, 5, 4, -4, -1, -1, -4, -8, 3, -8, 4, -5, 2, -3, -5, 6, -1, 6, -5, -1, -3, -1, -8, 2, -3, 5, -5, -3, -8, 4, 0, -2, 6, 1, 7, 3, 1, 0, -5, 3],
    [4, 3, -2, -8, 3, -8, 4, -6, -4, -5, 0, -5, -4, -8, 7, -5, -5, 1, -6, 6, 4, -3, -2, -3, 3, -2, -4, 2, -6, 4, -2, 7, -4, -2, 5, 3, -8, -3, -8, 5, -2, -5, 3, 5, -7, 0, -3, 3, 6, 0, 3, -3, 1, -1, 3, -8, -5, -8, 7, 0, -1, -1, -8, 5],
    [5, -8, 1, 0, -2, -1, 6, 1, -1, 3, 3, 0, 5, 1, 1, -1, 1, 1, 6, -5, -3, 0, -3, 2, 5, -5, -8, 7, 0, 3, 4, 7, -8, -4, 7, -1, -2, -4, -8, -8, 7, -8, -6, -5, -4, 5, -3, -6, -2, 3, -1, -5, -7, -7, -1, -5, 1, 2, -2, 0, -8, 0, -6, -1],
    [-7, -4, -2, -1, -8, 6, -2, -5, -5, 3, -1, -4, -1, -5, -6, -3, 7, -7, 0, 6, -1, -3, 0, -6, 3, -8, 1, -8, -8, -5, 3, -2, -2, 1, -7, 7, -1, 6, 4, -5, -4, 1, 5, 6, -1, -7, 7, 5, 3, -2, -6, 4, -5, -3, 5, 2, -4, 0, 1, -7, -4, 4, 2, 5],
    [3, -1, -4, -2, -5, 7, -8, -3, -7, 6, 2, -2, 4, -3, -1, -3, 4, -8, 0, -4, 7, -5, -2, -8, -1, 0, 4, -1, -5, -8, 6, -6, 4, 6, -3, -6, 3, -3, -8, 7, 6, -7, 3, -2, -7, 4, 5, -8, -7, -7, 7, 6, 5, 2, -7, -4, 0, -1, -7, -5, 3, 6, -7, 7],
    [-3, -7, 6, 0, 2, -6, 6, -2, -3, 3, 4, 3, -5, -5, 1, -3, -8, -2, 4, -2, -2, 2, 7, 4, -6, -3, 0, -1, -5, -7, 2, -3, -3, 7, 5, 0, 6, 0, 6, 1, -3, 1, 3, 4, 7, -4, -7, -3, 1, 6, 6, -1, -8, 7, -5, -6, -5, 4, 0, -1, -3, -1, 3, 6],
    [7, -6, 3, 0, -3, -5, -7, -3, -5, 5, 6, -2, -2, 4, -6, -8, -5, 7, -1, 7, -8, 2, -4, -5, 2, 2, 4, -5, 5, -3, -8, -8, -7, -7, 2, -6, 0, -6, 4, 5, 5, -5, -1, 5, 4, -8, 2, -8, 2, -8, 1, 6, -2, 5, -4, -8, 0, 6, 3, -5, -4, -4, 1, 1],
    [1, -5, 3, 7, -5, -3, -1, 1, 6, 1, 7, -4, 2, 3, 5, 7, -1, 1, 3, -7, 3, 4, 0, 2, 4, -1, -7, 2, 1, -4, -2, -4, -7, 0, -2, -7, -4, 1, -8, -6, -4, -4, 7, 6, -3, 1, -1, -5, -6, 3, 3, 7, -3, 6, 6, 4, 5, -3, 1, 1, -2, 1, -1, -7],
    [-2, 3, 5, 0, -8, 0, -2, 3, 2, -7, 7, -5, 0, 7, -7, -4, 4, -4, 2, -7, -6, -4, 0, 0, -1, -8, 1, -4, -2, -4, -8, -6, -3, 4, 5, 7, -4, 6, -2, -1, -5, -7, 4, -3, 2, 0, -1, -2, -7, 3, 6, 3, -1, 6, 7, -1, -6, -5, 2, 6, -1, 6, -7, -6],
    [-1, -5, -4, 2, 6, 5, -4, 7, -8, -8, 5, -5, 4, -2, 1, 0, 0, 4, 3, 0, 5, 0, -7, -5, -8, 2, -5, 1, -7, 7, 5, -5, 1, -7, 3, -3, 1, -3, 0, -1, -2, -6, -5, 3, 6, 5, 1, -8, 4, 6, -4, -7, -5, -4, -3, -1, -3, -2, -3, -5, 1, 3, 1, 5],
    [-6, -5, -6, -6, -4, 0, -5, -6, -8, 7, -4, 5, 1, 5, -8, -2, 4, 4, -5, -2, 7, -1, 4, -7, 2, -8, 2, 2, -6, -5, -5, 7, 6, 1, 6, 1, 1, 6, -3, -4, 1, -8, -3, -5, -8, -1, 0, -6, 1, -4, -6, 3, -1, -2, 7, -3, 5, -5, 1, 0, -6, 7, 7, -6],
    [-3, 5, -7, 4, -4, 1, -1, 0, -4, 0, 0, -7, 3, 1, -1, 7, -5, 3, -6, -1, 6, -1, -2, 5, -4, -8, -8, -5, 0, 7, 7, 2, -4, 5, -3, 0, 4, -8, 0, 0, -5, 2, 3, -7, 7, -1, 3, 7, 5, -8, 0, -8, 7, -7, -7, 2, -2, 6, -4, -6, -1, 5, 1, -5],
    [3, 0, 2, 4, 3, -7, -7, -1, -2, 5, -5, -3, -5, 4, -3, -1, 4, 7, -6, -2, 4, 5, 4, -7, 2, -3, -5, -6, 7, -2, 3, -2, 6, -5, 6, -2, 5, 2, 2, 1, -7, -5, -7, 3, -6, 3, -8, -2, 4, -1, 7, -6, -2, 5, 2, -3, -2, -4, 4, 6, 0, -4, -8, -5]]> : tensor<16x64xi4>
  %s = arith.constant dense<[[0.0826416015625, 0.10797119140625], [0.126708984375, 0.085693359375], [0.1400146484375, 0.01436614990234375], [0.18603515625, 0.09765625], [0.09521484375, 0.0948486328125], [0.062408447265625, 0.164794921875], [0.0960693359375, 0.028167724609375], [0.0765380859375, 0.1021728515625], [0.07830810546875, 0.02947998046875], [0.1788330078125, 0.0386962890625], [0.1485595703125, 0.09063720703125], [0.1041259765625, 0.138671875], [0.01322174072265625, 0.10302734375], [0.09722900390625, 0.09149169921875], [0.010223388671875, 0.01214599609375], [0.10308837890625, 0.0965576171875]]> : tensor<16x2xf16>
  %w = quant_block.pack %d scales(%s : tensor<16x2xf16>) : tensor<16x64xi4> -> !wc
  %t = quant_block.repack %w : !wc -> !tc
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a64, !wc -> tensor<1x16xf32>
  %z = quant_block.matmul %a, %t transpose_rhs accumulate(i32) inhibit : !a64, !tc -> tensor<1x16xf32>
  return %y, %z : tensor<1x16xf32>, tensor<1x16xf32>
}

// K-quants and Q4_1: two levels of scales and mins, every part tiled.
!tq4ks = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>, row_tile = 16>>
func.func @q4k_strict_tiled(%x: tensor<3x256xf32>, %w: !tq4ks) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<3x256xf32>, !tq4ks -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

!a2x512 = !quant_block.tensor<2x512, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!tq4k = !quant_block.tensor<16x512, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>, row_tile = 16>>
func.func @q4k_i8act_tiled(%xq: tensor<2x512xi8>, %xs: tensor<2x16xf32>, %w: !tq4k) -> tensor<2x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<2x512xi8>, tensor<2x16xf32> to !a2x512
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a2x512, !tq4k -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

!a20x256 = !quant_block.tensor<20x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!tq4k20 = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>, row_tile = 16>>
func.func @q4k_i8act_m20_tiled(%xq: tensor<20x256xi8>, %xs: tensor<20x8xf32>, %w: !tq4k20) -> tensor<20x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<20x256xi8>, tensor<20x8xf32> to !a20x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a20x256, !tq4k20 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}

!tq41 = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = f16, row_tile = 16>>
func.func @q4_1_i8act_tiled(%xq: tensor<1x256xi8>, %xs: tensor<1x8xf32>, %w: !tq41) -> tensor<1x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<1x256xi8>, tensor<1x8xf32> to !a256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a256, !tq41 -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

!a3x512b16 = !quant_block.tensor<3x512, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!tq6k = !quant_block.tensor<16x512, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>, row_tile = 16>>
func.func @q6k_i8_i8act_tiled(%xq: tensor<3x512xi8>, %xs: tensor<3x32xf32>, %w: !tq6k) -> tensor<3x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<3x512xi8>, tensor<3x32xf32> to !a3x512b16
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3x512b16, !tq6k -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

!a20x256b16 = !quant_block.tensor<20x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!tq6k20 = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>, row_tile = 16>>
func.func @q6k_i8_i8act_m20_tiled(%xq: tensor<20x256xi8>, %xs: tensor<20x16xf32>, %w: !tq6k20) -> tensor<20x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<20x256xi8>, tensor<20x16xf32> to !a20x256b16
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a20x256b16, !tq6k20 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
