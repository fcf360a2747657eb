// More activation rows than fit one chunk in L2 (docs/CPU.md, "Chunks of
// activation rows"): the matmul kernels take the rows a chunk at a time,
// every weight-row tile passing over each chunk, and every output keeps
// its order of additions, so the bits are those of the numpy model of
// matmul-kernels-order.mlir: f32 activations reassociated (40 rows, chunks
// of 32), in the strict order (40 rows), and int8 activations (136 rows,
// chunks of 128 codes rows; AMX hosts take their own chunks).
// REQUIRES: libomp
// RUN: quant-opt %s --quant-block-cpu-matmul-kernels | FileCheck %s --check-prefix=CHUNKS
// CHUNKS-LABEL: func.func @i4_rowchunks(
// CHUNKS: scf.for %{{.*}} = %c0{{.*}} to %c40 step %c32
// CHUNKS-LABEL: func.func @i4_strict_rowchunks(
// CHUNKS: scf.for %{{.*}} = %c0{{.*}} to %c40 step %c32
// CHUNKS-LABEL: func.func @i4_i8act_rowchunks(
// CHUNKS: scf.for %{{.*}} = %c0{{.*}} to %c136 step %c128
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/matmul_kernels_order.py gen %t
// RUN: quant-run %s -e i4_rowchunks --quantized-as-parts -i %t/i4_rowchunks_x.npy -i %t/i4_rowchunks_data.npy -i %t/i4_rowchunks_scales.npy -o %t/i4_rowchunks.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e i4_rowchunks --quantized-as-parts -i %t/i4_rowchunks_x.npy -i %t/i4_rowchunks_data.npy -i %t/i4_rowchunks_scales.npy -o %t/i4_rowchunks.t3.npy
// RUN: quant-run %s -e i4_strict_rowchunks --quantized-as-parts -i %t/i4_strict_rowchunks_x.npy -i %t/i4_strict_rowchunks_data.npy -i %t/i4_strict_rowchunks_scales.npy -o %t/i4_strict_rowchunks.npy
// RUN: quant-run %s -e i4_i8act_rowchunks --quantized-as-parts -i %t/i4_i8act_rowchunks_xq.npy -i %t/i4_i8act_rowchunks_xs.npy -i %t/i4_i8act_rowchunks_data.npy -i %t/i4_i8act_rowchunks_scales.npy -o %t/i4_i8act_rowchunks.npy
// RUN: %python %S/Inputs/matmul_kernels_order.py check %t i4_rowchunks i4_rowchunks.t3 i4_strict_rowchunks i4_i8act_rowchunks | FileCheck %s
// CHECK: i4_rowchunks: bit-exact
// CHECK-NEXT: i4_rowchunks.t3: bit-exact
// CHECK-NEXT: i4_strict_rowchunks: bit-exact
// CHECK-NEXT: i4_i8act_rowchunks: bit-exact

!w4r = !quant_block.tensor<16x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @i4_rowchunks(%x: tensor<40x4096xf32>, %w: !w4r) -> tensor<40x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<40x4096xf32>, !w4r -> tensor<40x16xf32>
  return %y : tensor<40x16xf32>
}

!w4s = !quant_block.tensor<16x4096, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @i4_strict_rowchunks(%x: tensor<40x4096xf32>, %w: !w4s) -> tensor<40x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<nnan> : tensor<40x4096xf32>, !w4s -> tensor<40x16xf32>
  return %y : tensor<40x16xf32>
}

!a136 = !quant_block.tensor<136x4096, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w4i = !quant_block.tensor<16x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @i4_i8act_rowchunks(%xq: tensor<136x4096xi8>, %xs: tensor<136x128xf32>, %w: !w4i) -> tensor<136x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<136x4096xi8>, tensor<136x128xf32> to !a136
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a136, !w4i -> tensor<136x16xf32>
  return %y : tensor<136x16xf32>
}
