// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="report=true" --verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="parallel=true parallel-min-iterations=1" 2>/dev/null | FileCheck %s --check-prefix=PAR
// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="x86-avx512-vnni=true" 2>/dev/null | FileCheck %s --check-prefix=VNNI
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="x86-avx512-vnni=true x86-avx512-vbmi=true" 2>/dev/null | FileCheck %s --check-prefix=VBMI
// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="prefetch=false" 2>/dev/null | FileCheck %s --check-prefix=NOPF
// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="x86-avx512=true" 2>/dev/null | FileCheck %s --check-prefix=LOOKUP
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="x86-avx512=true" 2>/dev/null | FileCheck %s --check-prefix=VPERMPS
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="x86-avx512-vnni=true" 2>/dev/null | FileCheck %s --check-prefix=DOT
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="x86-avx512-vnni=true x86-avx512=true" 2>/dev/null | FileCheck %s --check-prefix=PSHUFB

// An int4 GEMV with f16 scales: the weight's lowered parts, the activations
// de-interleaved (even elements of each chunk of 32 first), one loop over
// the row tiles (4 rows), the K loop carrying 4 accumulators of 16 lanes,
// scales read as one vector per K step and converted, nibbles unpacked with
// shifts, fused multiply-adds with `contract`.
// With x86-avx512 the int4 nibbles (unsigned, as stored) index the table of
// their two's-complement values; 8-bit storage and zero points keep the
// integer decoding.
// LOOKUP-LABEL: func.func @gemv_i4(
// LOOKUP: arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, -8.000000e+00, -7.000000e+00, -6.000000e+00, -5.000000e+00, -4.000000e+00, -3.000000e+00, -2.000000e+00, -1.000000e+00]> : tensor<16xf32>
// LOOKUP: arith.extui {{.*}} : vector<16xi8> to vector<16xi32>
// LOOKUP: vector.gather
// LOOKUP-LABEL: func.func @gemm_u8_zp(
// LOOKUP-NOT: vector.gather
// LOOKUP: arith.sitofp
// CHECK-LABEL: func.func @gemv_i4(
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !quant_block.tensor<{{.*}}> to tensor<8x128xi8>, tensor<8x8xf16>
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 1, 3, 5
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<1x8xf32>)
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<8x8xf16>, vector<8xf16>
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// The next tile's 128 bytes of this K step (8 blocks of 16 bytes) in two
// cache lines per row, row clamped to the last one (7):
// CHECK: arith.minui %{{.*}}, %c7 : index
// CHECK: memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}], read, locality<2>, data : memref<8x128xi8, strided<[?, ?], offset: ?>>
// CHECK: memref.prefetch
// CHECK: arith.extsi {{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: arith.shli
// CHECK: arith.shrsi
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: math.fma
// CHECK-NOT: quant_block.matmul
// NOPF-LABEL: func.func @gemv_i4(
// NOPF-NOT: memref.prefetch
// NOPF: return
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

// Without reassoc, and N a multiple of 16: one weight row per lane, each
// output summed over k in increasing order in its lane (the strict order).
// Each chunk's packed bytes of the 16 rows are transposed as dwords, the
// code j of every word is shifted out, converted and scaled, and every
// activation row adds its x[m, k] (broadcast) times it: a rounded product
// and a rounded sum, no FMA without contract.
// CHECK-LABEL: func.func @ordered(
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<16x4xf16>, vector<16x1xf16>
// CHECK: arith.extf {{.*}} : vector<1x16xf16> to vector<1x16xf32>
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<16x128xi8>, vector<16x16xi8>
// CHECK: vector.shuffle {{.*}} : vector<64xi32>, vector<64xi32>
// CHECK: arith.shli {{.*}} : vector<16xi32>
// CHECK: arith.shrsi {{.*}} : vector<16xi32>
// CHECK: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: %[[X:.+]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x256xf32>
// CHECK: %[[XV:.+]] = vector.broadcast %[[X]] : f32 to vector<16xf32>
// CHECK: %[[P:.+]] = arith.mulf %[[XV]], %{{.*}} : vector<16xf32>
// CHECK: arith.addf %{{.*}}, %[[P]] : vector<16xf32>
// CHECK-NOT: math.fma
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<16x256, #quant_block.scheme<i4 : f32, block = [1, 64], scale = f16>>
func.func @ordered(%x: tensor<2x256xf32>, %w: !w) -> tensor<2x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<2x256xf32>, !w -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// What the kernels do not cover keeps the generic lowering, with the reason.
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
// CHECK-LABEL: func.func @strict(
// CHECK: quant_block.matmul
func.func @strict(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the sum over k is ordered (no fastmath<reassoc>), and N is not a multiple of 16 (or the blocks are [1, 16])}}
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

!w = !quant_block.tensor<8x96, #quant_block.scheme<i4 : f32, block = [1, 48]>>
func.func @block48(%x: tensor<1x96xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the blocks are not [1, B] with B a multiple of 32 that divides K (or [1, 16] without zero points, K a multiple of 32, for 4-bit storage with f32 activations or E2M1 codes, or 6- or 8-bit integer storage)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x96xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 16], zero_point = i4>>
func.func @block16_zero_points(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the blocks are not [1, B] with B a multiple of 32 that divides K (or [1, 16] without zero points, K a multiple of 32, for 4-bit storage with f32 activations or E2M1 codes, or 6- or 8-bit integer storage)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// A per-tensor f16 outer scale, read once and converted.
// CHECK-LABEL: func.func @f16_outer_scale(
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x1xf16>
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK-NOT: quant_block.matmul
// CHECK: return
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, outer = <f16>>>
func.func @f16_outer_scale(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f8E4M3FN>>
!a = !quant_block.tensor<1x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @e4m3_scales_i32(%x: !a, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the scales are not f32, f16 or bf16 (or E4M3, or E8M0, for E2M1 codes or f32 activations, or 8-bit integers under an outer scale)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// Float zero points (mins, Q4_1): each weight is fma(f32(q), s, m), the
// mins read as one vector per K step like the scales.
// CHECK-LABEL: func.func @float_zero_points(
// CHECK: vector.transfer_read {{.*}} : tensor<8x2xf16>, vector<2xf16>
// CHECK: vector.transfer_read {{.*}} : tensor<8x2xf16>, vector<2xf16>
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK-NOT: quant_block.matmul
// CHECK: return
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, zero_point = f16>>
func.func @float_zero_points(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// GGUF Q4_K: 8-bit scales and zero points in blocks of 32 under an f16
// outer scale and outer min per 8 blocks. A K step takes 8 blocks (they
// share one outer scale): the step's scales and zero points converted from
// unsigned bytes, each row's outer scale and outer min read once and
// multiplied in (s_eff, m_eff), each weight fma(f32(q), s_eff, m_eff).
// CHECK-LABEL: func.func @q4_k(
// CHECK: scf.for {{.*}} step %c8{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: arith.uitofp {{.*}} : vector<8xi8> to vector<8xf32>
// CHECK: %[[OUTER:.*]] = arith.divui %{{.*}}, %c8
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[OUTER]]] : tensor<8x2xf16>
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.mulf {{.*}} : vector<8xf32>
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK-NOT: quant_block.matmul
// CHECK: return
!w = !quant_block.tensor<8x512, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
func.func @q4_k(%x: tensor<1x512xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x512xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = i8, outer = <f16, block = [8]>>>
!a = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @outer_blocks_i32(%x: !a, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: integer products with two-level scales or mins need AVX512-VNNI and N a multiple of 16 (one weight row per lane)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<16x256, #quant_block.scheme<f4E2M1FN : f32, block = [1, 32], scale = f16, outer = <f16, block = [8]>>>
!a = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @e2m1_outer_blocks_i32(%x: !a, %w: !w) -> tensor<1x16xf32> {
  // expected-remark @below {{no register-tiled kernel: the outer scale of E2M1 codes is not one for the tensor}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// Q4_K times int8 activations, with AVX512-VNNI: one weight row per lane; the
// step's scales and mins as [blocks, rows] vectors, each row's outer scale
// and outer min as one lane vector; per block, after the block sums'
// term, the activation block sum times f32(activation scale) * m_eff.
// VNNI-LABEL: func.func @q4_k_i32(
// VNNI: arith.uitofp {{.*}} : vector<2x16xi8> to vector<2x16xf32>
// VNNI: vector.transfer_read {{.*}} : tensor<16x2xf16>, vector<16x1xf16>
// VNNI: vector.contract
// VNNI: arith.mulf {{.*}} : vector<16xf32>
// VNNI: %[[ASUMF:.*]] = arith.sitofp %{{.*}} : i32 to f32
// VNNI: vector.broadcast %[[ASUMF]] : f32 to vector<16xf32>
// VNNI-NOT: quant_block.matmul
// VNNI: return
!w = !quant_block.tensor<16x512, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
!a = !quant_block.tensor<1x512, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @q4_k_i32(%x: !a, %w: !w) -> tensor<1x16xf32> {
  // (Without VNNI, the generic lowering.)
  // expected-remark @below {{no register-tiled kernel: integer products with two-level scales or mins need AVX512-VNNI and N a multiple of 16 (one weight row per lane)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [4], min = f16>>>
func.func @ragged_outer_blocks(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the outer scale's blocks are not [1, B] dividing the blocks of a row}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = f16, outer = <f16, block = [8], min = f16>>>
func.func @outer_min_float_zero_points(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the outer min does not scale integer zero points}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x256xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f8E4M3FN, outer = <f16, block = [8]>>>
func.func @e4m3_scales_outer_blocks(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the scales under an outer scale are not 8-bit integers, f32, f16 or bf16}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x256xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui4, outer = <f16, block = [8], min = f16>>>
func.func @four_bit_mins(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the mins are not f32, f16 or bf16 (or 8-bit integers under an outer min)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x256xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

!w = !quant_block.tensor<8x256, #quant_block.scheme<i4 : f32, block = [1, 16], scale = i8, outer = <f16, block = [1]>>>
func.func @block16_outer_per_block(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x8xf32> {
  // expected-remark @below {{no register-tiled kernel: no K step of whole chunks shares one outer scale}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x256xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// bf16 activations (and weights dequantized to bf16): the activations
// extended once, each dequantized weight rounded to bf16 and extended back,
// products and sums in f32, the result rounded once to bf16.
// CHECK-LABEL: func.func @bf16_expressed(
// CHECK: arith.extf %{{.*}} : tensor<1x64xbf16> to tensor<1x64xf32>
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: math.fma
// CHECK: arith.truncf %{{.*}} : tensor<1x8xf32> to tensor<1x8xbf16>
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : bf16, block = [1, 32]>>
func.func @bf16_expressed(%x: tensor<1x64xbf16>, %w: !w) -> tensor<1x8xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xbf16>, !w -> tensor<1x8xbf16>
  return %y : tensor<1x8xbf16>
}

// -----

// A dynamic M (a frontend's batch): the kernel reads M at run time. The
// reassociated f32 kernel's weight-row tile depends on its activation rows,
// so it takes the tiles of M = 1 (a decode step) for every row.
// CHECK-LABEL: func.func @dynamic_m
// CHECK: %[[M:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x64xf32>
// CHECK: tensor.empty(%[[M]]) : tensor<?x8xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[M]] step %{{.*}} iter_args
// CHECK-NOT: arith.remui
// CHECK: return
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @dynamic_m(%x: tensor<?x64xf32>, %w: !w) -> tensor<?x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<?x64xf32>, !w -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// The strict-order kernel (one weight row per lane) keeps tiles of 8
// activation rows with a dynamic M, and the M mod 8 rows left over take
// tiles of one row.
// CHECK-LABEL: func.func @dynamic_m_ordered
// CHECK: %[[M:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x64xf32>
// CHECK: %[[REST:.*]] = arith.remui %[[M]], %c8
// CHECK: %[[WHOLE:.*]] = arith.subi %[[M]], %[[REST]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[WHOLE]] step %{{.*}} iter_args
// CHECK: scf.for %{{.*}} = %[[WHOLE]] to %[[M]] step %{{.*}} iter_args
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @dynamic_m_ordered(%x: tensor<?x64xf32>, %w: !w) -> tensor<?x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<?x64xf32>, !w -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// A dynamic K takes the weight's.
// CHECK-LABEL: func.func @dynamic_k
// CHECK: tensor.cast %{{.*}} : tensor<2x?xf32> to tensor<2x64xf32>
// CHECK-NOT: quant_block.matmul
// CHECK: return
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @dynamic_k(%x: tensor<2x?xf32>, %w: !w) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x?xf32>, !w -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @batched(%x: tensor<2x3x64xf32>, %w: !w) -> tensor<2x3x8xf32> {
  // expected-remark @below {{no register-tiled kernel: the lhs is not a rank-2 tensor}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x3x64xf32>, !w -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// accumulate(i32) with int8 activations (their lowered parts come from a
// cast as well): exact i32 block sums of the activation codes times the
// weight codes plus 8 (non-negative, so LLVM multiplies 16-bit halves),
// corrected by 8 times the activation block sums, added across the lanes
// with a transposed tree of shuffles, then scaled per block, one lane per
// weight row, in block order. With x86-avx512-vnni and N a multiple of 16,
// one weight row per lane (@i8act_rows below).
// CHECK-LABEL: func.func @i8act(
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !quant_block.tensor<{{.*}}> to tensor<16x64xi8>, tensor<16x4xf16>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !quant_block.tensor<{{.*}}> to tensor<1x128xi8>, tensor<1x4xf32>
// CHECK: vector.reduction <add>, %{{.*}} : vector<32xi32> into i32
// CHECK: scf.for {{.*}} -> (vector<4xf32>)
// CHECK: arith.xori {{.*}} : vector<16xi8>
// CHECK: arith.muli {{.*}} : vector<16xi32>
// CHECK: vector.shuffle
// CHECK: arith.sitofp {{.*}} : vector<4xi32> to vector<4xf32>
// CHECK-NOT: math.fma
// CHECK: arith.addf {{.*}} : vector<4xf32>
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<16x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<1x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i8act(%x: !a, %w: !w) -> tensor<1x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// With x86-avx512-vnni and N not a multiple of 16: the
// byte products are contractions of 64 bytes that
// --quant-block-cpu-x86-dot-products makes vpdpbusd, and a tile has 8
// weight rows, added across the lanes as above.
// VNNI-LABEL: func.func @i8act_n8(
// VNNI: scf.for {{.*}} -> (vector<8xf32>)
// VNNI: vector.contract {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %{{.*}}, %{{.*}}, %{{.*}} : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
// VNNI: vector.shuffle
// DOT-LABEL: llvm.func @i8act_n8(
// DOT: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
!w = !quant_block.tensor<8x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<1x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i8act_n8(%x: !a, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// With x86-avx512-vnni and N a multiple of 16: one weight row per lane. The 16 rows' packed bytes of a chunk are transposed as dwords (one
// shuffle), split into nibbles, and each activation row's 4 codes are
// broadcast to the 16 lanes: the block sums end in their lanes, with no
// sums across lanes.
// VNNI-LABEL: func.func @i8act_rows(
// VNNI: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// VNNI: vector.transfer_read {{.*}} : tensor<16x64xi8>, vector<16x16xi8>
// VNNI: vector.shuffle {{.*}} : vector<64xi32>, vector<64xi32>
// VNNI: vector.broadcast {{.*}} : vector<4xi8> to vector<16x4xi8>
// VNNI: vector.contract
// VNNI-NOT: vector.reduction
// VNNI: math.fma
// DOT-LABEL: llvm.func @i8act_rows(
// DOT: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
!w = !quant_block.tensor<16x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<4x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i8act_rows(%x: !a, %w: !w) -> tensor<4x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a, !w -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// MXFP4 weights with int8 activations (accumulate(i32)): the codes enter the
// block sums as twice their E2M1 values plus 12 (0..24, unsigned), the sums
// are corrected by 12 times the activation block sums and halved (exactly)
// before the scales. Without VNNI the generic tiles decode them by integer
// arithmetic in i32 lanes; with x86-avx512-vnni (N a multiple of 16) each
// 64 nibbles are looked up in a 16-byte table, which x86-avx512 makes one
// vpshufb.
// CHECK-LABEL: func.func @mxfp4_i8act(
// CHECK: arith.constant dense<12> : vector<16xi32>
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK: arith.muli {{.*}} : vector<16xi32>
// CHECK: %[[SUM:.+]] = arith.sitofp {{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: %[[HALF:.+]] = arith.constant dense<5.000000e-01> : vector<4xf32>
// CHECK: arith.mulf %[[SUM]], %[[HALF]] : vector<4xf32>
// CHECK-NOT: quant_block.matmul
// VNNI-LABEL: func.func @mxfp4_i8act(
// VNNI: %[[TABLE:.+]] = arith.constant dense<[12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0]> : tensor<16xi8>
// VNNI: vector.gather %[[TABLE]][%{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : tensor<16xi8>, vector<64xi8>, vector<64xi1>, vector<64xi8> into vector<64xi8>
// VNNI: vector.contract
// VNNI: %[[SUM:.+]] = arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// VNNI: %[[HALF:.+]] = arith.constant dense<5.000000e-01> : vector<16xf32>
// VNNI: arith.mulf %[[SUM]], %[[HALF]] : vector<16xf32>
// PSHUFB-LABEL: llvm.func @mxfp4_i8act(
// PSHUFB: llvm.call_intrinsic "llvm.x86.avx512.pshuf.b.512"(%{{.*}}, %{{.*}}) : (vector<64xi8>, vector<64xi8>) -> vector<64xi8>
// PSHUFB: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// PSHUFB-NOT: llvm.intr.masked.gather
// PSHUFB-LABEL: llvm.func @mxfp4(
!w = !quant_block.tensor<16x128, #quant_block.scheme<mxfp4>>
!a = !quant_block.tensor<1x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @mxfp4_i8act(%x: !a, %w: !w) -> tensor<1x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// NVFP4 weights (blocks of 16, E4M3 scales, an outer scale) with int8
// activations in blocks of 16: only the VNNI kernel takes them. A chunk of
// 32 codes is two blocks (its words 0-1 and 2-3), each with its own
// partial sum; K steps of 4 blocks; each block's scales times the outer one
// before the activation scales.
// CHECK-LABEL: func.func @nvfp4_i8act(
// CHECK: quant_block.matmul
// VNNI-LABEL: func.func @nvfp4_i8act(
// VNNI: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// VNNI: %[[OUTER:.+]] = tensor.extract %{{.*}} : tensor<1x1xf32>
// VNNI-COUNT-8: vector.gather {{.*}} : tensor<16xi8>, vector<64xi8>, vector<64xi1>, vector<64xi8> into vector<64xi8>
// VNNI: %[[A0:.+]] = vector.contract {{.*}}, %{{.*}}, %[[ZERO:.+]] : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
// VNNI: %[[A1:.+]] = vector.contract {{.*}}, %{{.*}}, %[[A0]] : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
// VNNI: %[[B0:.+]] = vector.contract {{.*}}, %{{.*}}, %[[ZERO]] : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
// VNNI: vector.contract {{.*}}, %{{.*}}, %[[B0]] : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
// VNNI: vector.contract {{.*}}, %{{.*}}, %[[A1]] : vector<16x4xi32>, vector<16x4xi32> into vector<16xi32>
// VNNI: %[[BOUTER:.+]] = vector.broadcast %[[OUTER]] : f32 to vector<16xf32>
// VNNI: arith.mulf %{{.*}}, %[[BOUTER]] : vector<16xf32>
// VNNI: arith.sitofp {{.*}} : vector<16xi32> to vector<16xf32>
// VNNI: arith.constant dense<5.000000e-01> : vector<16xf32>
!w = !quant_block.tensor<16x128, #quant_block.scheme<nvfp4>>
!a = !quant_block.tensor<1x128, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @nvfp4_i8act(%x: !a, %w: !w) -> tensor<1x16xf32> {
  // expected-remark @below {{no register-tiled kernel: integer products in blocks of 16 need AVX512-VNNI and N a multiple of 16 (one weight row per lane)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// 6-bit codes (GGUF Q6_K's) take only the kernels with one weight row per
// lane, with int8 activations (the VNNI run: each group of 4 codes' 24
// bits funnel-shifted from two words where they straddle them, then
// spread to a byte each); without AVX512-VNNI, with float activations or
// with zero points, the generic lowering.
// VNNI-LABEL: func.func @q6k_i8act(
// VNNI: arith.shrui %{{.*}}, %{{.*}} : vector<16xi32>
// VNNI: arith.shli %{{.*}}, %{{.*}} : vector<16xi32>
// VNNI: arith.ori %{{.*}}, %{{.*}} : vector<16xi32>
// VNNI: vector.contract
// With x86-avx512-vbmi the pipeline spreads each group's codes with one
// vpmultishiftqb (--quant-block-cpu-x86-six-bit-spreads), 8 per chunk.
// VBMI-LABEL: llvm.func @q6k_i8act(
// VBMI-COUNT-8: llvm.call_intrinsic "llvm.x86.avx512.pmultishift.qb.512"
// VBMI: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// VBMI-LABEL: llvm.func @q6k_f32act(
!w = !quant_block.tensor<16x256, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!a = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @q6k_i8act(%x: !a, %w: !w) -> tensor<1x16xf32> {
  // expected-remark @below {{no register-tiled kernel: integer products of 6-bit codes need AVX512-VNNI and N a multiple of 16 (one weight row per lane)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

!w = !quant_block.tensor<16x256, #quant_block.scheme<i6 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
func.func @q6k_f32act(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x16xf32> {
  // expected-remark @below {{no register-tiled kernel: 6-bit codes take int8 activations only (accumulate(i32))}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x256xf32>, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

!w = !quant_block.tensor<16x256, #quant_block.scheme<ui6 : f32, block = [1, 32], zero_point = ui6>>
!a = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i6_zero_points(%x: !a, %w: !w) -> tensor<1x16xf32> {
  // expected-remark @below {{no register-tiled kernel: 6-bit codes have zero points}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// MXFP4: E8M0 scales extended as vectors (--quant-block-expand-narrow-floats
// decodes them from their bits later), E2M1 codes from the nibbles by
// integer arithmetic.
// With x86-avx512, the E2M1 codes are looked up in the table of their
// values (vpermps in the pipeline) instead.
// LOOKUP-LABEL: func.func @mxfp4(
// LOOKUP: %[[TABLE:.+]] = arith.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 6.000000e+00, -0.000000e+00, -5.000000e-01, -1.000000e+00, -1.500000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00, -6.000000e+00]> : tensor<16xf32>
// LOOKUP: vector.gather %[[TABLE]][%{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : tensor<16xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// LOOKUP-NOT: arith.cmpi ult
// LOOKUP: math.fma
// VPERMPS-LABEL: llvm.func @mxfp4(
// VPERMPS: llvm.call_intrinsic "llvm.x86.avx512.permvar.sf.512"
// VPERMPS-NOT: llvm.intr.masked.gather
// VPERMPS-LABEL: llvm.func @nvfp4(
// CHECK-LABEL: func.func @mxfp4(
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !quant_block.tensor<{{.*}}> to tensor<8x32xi8>, tensor<8x2xf8E8M0FNU>
// CHECK: arith.extf {{.*}} : vector<2xf8E8M0FNU> to vector<2xf32>
// CHECK: arith.cmpi ult
// CHECK: arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: math.fma
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<8x64, #quant_block.scheme<mxfp4>>
func.func @mxfp4(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// NVFP4: blocks of 16, half a chunk: the E4M3 scales of a step times the
// per-tensor outer scale (one rounding, as dequantize), then each chunk's
// two scales spread over lanes 0-7 and 8-15 of both halves.
// CHECK-LABEL: func.func @nvfp4(
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !quant_block.tensor<{{.*}}> to tensor<8x32xi8>, tensor<8x4xf8E4M3FN>, tensor<1x1xf32>
// CHECK: arith.extf {{.*}} : vector<4xf8E4M3FN> to vector<4xf32>
// CHECK: %[[OUTER:.+]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x1xf32>
// CHECK: %[[OUTERV:.+]] = vector.broadcast %[[OUTER]] : f32 to vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %[[OUTERV]] : vector<4xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1] : vector<4xf32>, vector<4xf32>
// CHECK: math.fma
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3] : vector<4xf32>, vector<4xf32>
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<8x64, #quant_block.scheme<nvfp4>>
func.func @nvfp4(%x: tensor<1x64xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x64xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// A row-tiled weight: the ordered kernel (one weight row per lane) reads a
// tile's 16 scales of a block and each chunk's words as they are stored,
// with no transposition; the reassociated float kernel does not read tiles
// and gets the weight repacked row-major (a copy per call, reported).
// CHECK-LABEL: func.func @row_tiled_ordered(
// CHECK: vector.transfer_read %{{.*}} : tensor<2x2x16xf16>, vector<1x16xf16>
// CHECK: vector.transfer_read %{{.*}} : tensor<2x8x16x4xi8>, vector<4x16x4xi8>
// CHECK-NOT: vector.shuffle
// CHECK-LABEL: func.func @row_tiled_reassoc(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x16x4xi8>)
// CHECK: vector.transfer_read %{{.*}} : tensor<32x32xi8>, vector<16xi8>
!t = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
func.func @row_tiled_ordered(%x: tensor<1x64xf32>, %t: !t) -> tensor<1x32xf32> {
  %y = quant_block.matmul %x, %t transpose_rhs accumulate(f32) inhibit : tensor<1x64xf32>, !t -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}
func.func @row_tiled_reassoc(%x: tensor<1x64xf32>, %t: !t) -> tensor<1x32xf32> {
  // expected-remark @below {{the row-tiled weight is repacked row-major on every call: this kernel does not read tiles of 16 rows}}
  %y = quant_block.matmul %x, %t transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xf32>, !t -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

// A row-tiled weight with zero points, int8 activations: each K step (2
// blocks of 32) prefetches the next tile's (clamped to the last, 1) words of
// the step, a line per word index, then its scales and zero points of the
// step: one line each (16 f16 scales per block, 2 blocks a line; zero
// points one per byte, 4 blocks a line).
// VNNI-LABEL: func.func @row_tiled_prefetch(
// VNNI: scf.for %[[BLOCK:.*]] = %{{.*}} to %{{.*}} step %c2{{.*}} iter_args
// VNNI: %[[NEXT:.*]] = arith.minui %{{.*}}, %c1{{.*}} : index
// VNNI-COUNT-8: memref.prefetch %{{.*}}[%[[NEXT]], %{{.*}}, %{{.*}}, %{{.*}}], read, locality<2>, data : memref<2x16x16x4xi8, strided<[?, ?, ?, ?], offset: ?>>
// VNNI: memref.prefetch %{{.*}}[%[[NEXT]], %[[BLOCK]], %{{.*}}], read, locality<2>, data : memref<2x4x16xf16, strided<[?, ?, ?], offset: ?>>
// VNNI: memref.prefetch %{{.*}}[%[[NEXT]], %[[BLOCK]], %{{.*}}], read, locality<2>, data : memref<2x4x16xi4, strided<[?, ?, ?], offset: ?>>
// VNNI-NOT: memref.prefetch
// VNNI: return
// NOPF-LABEL: func.func @row_tiled_prefetch(
// NOPF-NOT: memref.prefetch
// NOPF: return
!a = !quant_block.tensor<1x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!t = !quant_block.tensor<32x128, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = ui4, row_tile = 16>>
func.func @row_tiled_prefetch(%x: !a, %t: !t) -> tensor<1x32xf32> {
  // Without VNNI the integer kernel reads rows, not tiles:
  // expected-remark @below {{the row-tiled weight is repacked row-major on every call: this kernel does not read tiles of 16 rows}}
  %y = quant_block.matmul %x, %t transpose_rhs accumulate(i32) inhibit : !a, !t -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}
