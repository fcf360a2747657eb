// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="x86-avx512-vnni=true x86-amx=true" | FileCheck %s

// A quant_block.cpu_kernel attribute (a user's override of
// --quant-block-cpu-select-matmul-kernels) decides the kernel that
// --quant-block-cpu-matmul-kernels emits: here the VNNI kernel with tiles of
// 4 activation rows on a target that has AMX (which the pass would pick).

// CHECK-LABEL: func.func @vnni_instead_of_amx
// CHECK-NOT: amx.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2 step %c1
// The activation-row tiles: 4 rows each.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32 step %c4
// Two blocks per K step, four accumulators (one per activation row).
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c2{{.*}} iter_args(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NOT: amx.
// CHECK: return
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @vnni_instead_of_amx(%x: !a, %w: !w) -> tensor<32x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<vnni_row_lanes, tile = [4, 16], blocks_per_step = 2>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// AMX with one block per K step (the pass picks 4): one tile product per
// step.
// CHECK-LABEL: func.func @amx_one_block_per_step
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args(
// CHECK: amx.tile_muli
// CHECK-NOT: amx.tile_muli
// CHECK: amx.tile_store
// CHECK-NOT: amx.tile_muli
// CHECK: scf.yield
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @amx_one_block_per_step(%x: !a, %w: !w) -> tensor<32x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<amx, tile = [16, 16], blocks_per_step = 1>} : !a, !w -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// The strict-order kernel for a reassociated float product (stricter than
// it needs: allowed).
// CHECK-LABEL: func.func @ordered_for_reassociated
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2 step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1 step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args(%{{[^)]*}}) -> (vector<16xf32>)
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @ordered_for_reassociated(%x: tensor<1x128xf32>, %w: !w) -> tensor<1x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> {quant_block.cpu_kernel = #quant_block.cpu_matmul_kernel<ordered_rows, tile = [1, 16], blocks_per_step = 1>} : tensor<1x128xf32>, !w -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}
