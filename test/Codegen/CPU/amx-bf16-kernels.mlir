// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="x86-amx-bf16=true" --canonicalize | FileCheck %s

// amx_bf16 (docs/CPU.md): the whole 16-row tiles of bf16 activations are
// packed once per call as tdpbf16ps's second operand ([M / 16, K / 32, 16,
// 32]); each 16-row weight tile is dequantized to bf16 into its panel ([K /
// 32, 16, 32]) in the group's buffer (both tiles here); 4 activation tiles at a time, then one at a time, sum in
// f32 tile registers carried over the K loop (one panel chunk loaded per
// step for all of them); each sum tile passes through a 16 x 16 buffer into
// the result's rows. M = 83: 80 rows on tiles (a group of 4 and one alone),
// 3 rows left over on partial_sums (no tiles).

// CHECK-LABEL: func.func @bf16_prefill
// CHECK: %[[PACKED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<5x4x16x32xbf16>
// CHECK: vector.bitcast %{{.*}} : vector<32xbf16> to vector<16xi32>
// CHECK: vector.store %{{.*}}, %[[PACKED]]
// CHECK: %[[PANELS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x16x32xbf16>
// CHECK: %[[SUMS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
// CHECK: %[[PANEL:.*]] = memref.subview %[[PANELS]]
// CHECK: vector.interleave %{{.*}}, %{{.*}} : vector<16xi16> -> vector<32xi16>
// CHECK: vector.store %{{.*}}, %[[PANEL]]
// The group of 4 activation tiles.
// CHECK: amx.tile_zero : !amx.tile<16x16xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK: %[[W:.*]] = amx.tile_load %[[PANEL]][{{.*}}] : memref<4x16x32xbf16, strided<[512, 32, 1], offset: ?>> into !amx.tile<16x32xbf16>
// CHECK: %[[X0:.*]] = amx.tile_load %{{.*}} : memref<?x4x16x32xbf16> into !amx.tile<16x32xbf16>
// CHECK: amx.tile_mulf %[[W]], %[[X0]], %{{.*}} : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
// CHECK-COUNT-3: amx.tile_mulf %[[W]]
// CHECK: amx.tile_store %[[SUMS]][%{{.*}}, %{{.*}}]
// The tile left over.
// CHECK: scf.for {{.*}} -> (!amx.tile<16x16xf32>)
// CHECK: amx.tile_mulf
// CHECK: amx.tile_store %[[SUMS]]{{.*}}
// The rows left over: partial sums.
// CHECK-NOT: amx.tile
// CHECK: math.fma %{{.*}} : vector<16xf32>
// CHECK: return
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @bf16_prefill(%x: tensor<83x128xbf16>, %w: !w) -> tensor<83x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<83x128xbf16>, !w -> tensor<83x32xbf16>
  return %y : tensor<83x32xbf16>
}

// -----

// More rows than a chunk (1 MiB of packed activations: 128 rows of K =
// 4096): each weight tile's panel is dequantized by the first chunk only
// and read back by the second.
// CHECK-LABEL: func.func @bf16_two_chunks
// CHECK: %[[PANELS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x128x16x32xbf16>
// CHECK: %[[PANEL:.*]] = memref.subview %[[PANELS]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] {
// CHECK: vector.store %{{.*}}, %[[PANEL]]
// CHECK: amx.tile_load %[[PANEL]]
!w = !quant_block.tensor<32x4096, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @bf16_two_chunks(%x: tensor<144x4096xbf16>, %w: !w) -> tensor<144x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<144x4096xbf16>, !w -> tensor<144x32xbf16>
  return %y : tensor<144x32xbf16>
}
