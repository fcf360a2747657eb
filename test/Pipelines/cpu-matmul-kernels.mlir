// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="report=true" --verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="parallel=true parallel-min-iterations=1" 2>/dev/null | FileCheck %s --check-prefix=PAR

// An int4 GEMV with f16 scales: the weight's lowered parts, the activations
// de-interleaved (even elements of each chunk of 32 first), one loop over
// the row tiles (4 rows), the K loop carrying 4 accumulators of 16 lanes,
// scales read as one vector per K step and converted, nibbles unpacked with
// shifts, fused multiply-adds with `contract`.
// CHECK-LABEL: func.func @gemv_i4(
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !quant_block.tensor<{{.*}}> to tensor<8x128xi8>, tensor<8x8xf16>
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 1, 3, 5
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<1x8xf32>)
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<8x8xf16>, vector<8xf16>
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: arith.extsi {{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: arith.shli
// CHECK: arith.shrsi
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: math.fma
// CHECK-NOT: quant_block.matmul
// PAR-LABEL: func.func @gemv_i4(
// PAR: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x8xf32>)
// PAR: tensor.parallel_insert_slice {{.*}} [1, 4] [1, 1] : tensor<1x4xf32> into tensor<1x8xf32>
!w = !quant_block.tensor<8x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @gemv_i4(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x256xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// 8-bit storage with integer zero points, M = 8: tiles of 8 activation rows
// by 2 weight rows (16 accumulators); `reassoc` alone multiplies and adds
// separately; no de-interleaving.
// CHECK-LABEL: func.func @gemm_u8_zp(
// CHECK-NOT: vector.shuffle
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: tensor.extract {{.*}} : tensor<6x2xi8>
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: arith.extui {{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: arith.subi
// CHECK-NOT: math.fma
// CHECK: arith.addf
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<6x64, #quant_block.scheme<ui8 : f32, block = [1, 32], zero_point = ui8>>
func.func @gemm_u8_zp(%x: tensor<8x64xf32>, %w: !w) -> tensor<8x6xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<8x64xf32>, !w -> tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}

// -----

// What the kernels do not cover keeps the generic lowering, with the reason.
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
// CHECK-LABEL: func.func @strict(
// CHECK: quant_block.matmul
func.func @strict(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the sum over k is ordered (no fastmath<reassoc>)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<contract> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<64x8, #quant_block.scheme<i4 : f32, block = [32, 1]>>
func.func @not_transposed(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the weight is not transposed ([N, K])}}
  %y = quant_block.matmul %x, %w accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 16]>>
func.func @block16(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the blocks are not [1, B] with B a multiple of 32 that divides K}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<mxfp4>>
func.func @mxfp4(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the weight's storage is not a 4- or 8-bit integer}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], zero_point = f16>>
func.func @float_zero_points(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the zero points are floats}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : bf16, block = [1, 32]>>
func.func @bf16_expressed(%x: tensor<1x64xbf16>, %w: !w) -> tensor<1x8xbf16> {
  // expected-remark @below {{no register-tiled kernel: the lhs is not a static rank-2 f32 tensor}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xbf16>, !w -> tensor<1x8xbf16>
  return %y : tensor<1x8xbf16>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @dynamic_m(%x: tensor<?x64xf32>, %w: !w) -> tensor<?x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the lhs is not a static rank-2 f32 tensor}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<?x64xf32>, !w -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
