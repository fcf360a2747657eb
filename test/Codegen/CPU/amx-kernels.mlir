// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="x86-avx512-vnni=true x86-amx=true" | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-cpu-matmul-kernels="x86-avx512-vnni=true" | FileCheck %s --check-prefix=NO-AMX
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="x86-avx512-vnni=true x86-amx=true parallel=false" | FileCheck %s --check-prefix=LLVM

// --quant-block-cpu-matmul-kernels{x86-amx}: accumulate(i32) products whose
// weight rows come 16 to a tile (N a multiple of 16, VNNI) take AMX tiles
// for every whole 16 activation rows. Each weight-row tile's codes are
// decoded once per chunk of activation rows into an AMX operand ([K / 4,
// 64] bytes: 4 consecutive codes of each of the 16 rows per 64-byte row,
// the exact signed q - zero point) and its scales into [block][row] f32;
// then per K step up to 4 blocks' 16 x 16 block sums (one tile_muli each
// for blocks of 32) are stored and read back a row at a time, and added in
// block order as the vpdpbusd kernel adds its own: the same bits. In the
// first row tile of each chunk, each K step prefetches the next weight
// tile's bytes of that step (the panel decoder then reads them from L2).
// The rows left over (here 35 = 2 x 16 + 3) take the vpdpbusd tiles.
// Without x86-amx nothing changes.

// CHECK-LABEL: func.func @int4_rows_left_over
// CHECK: %[[CODES:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<35x128xi8> to memref<35x128xi8, strided<[?, 1], offset: ?>>
// CHECK: %[[LEFT:.*]] = arith.remui %c35, %c16
// CHECK: %[[WHOLE:.*]] = arith.subi %c35, %[[LEFT]]
// CHECK: %[[PANEL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xi8>
// CHECK: %[[SUMS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x16xi32>
// CHECK: %[[SCALES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK: scf.for
// CHECK-COUNT-8: vector.store %{{.*}}, %[[PANEL]][%{{.*}}, %{{.*}}] : memref<32x64xi8>, vector<64xi8>
// CHECK: scf.for
// CHECK: vector.store %{{.*}}, %[[SCALES]][%{{.*}}, %{{.*}}] : memref<4x16xf32>, vector<16xf32>
// CHECK: scf.for %[[M0:.*]] = %[[FIRST:.*]] to %{{.*}} step %c16
// CHECK: %[[FIRSTPASS:.*]] = arith.cmpi eq, %[[M0]], %[[FIRST]] : index
// CHECK: scf.if %[[FIRSTPASS]] {
// CHECK: memref.prefetch %{{.*}}, read, locality<2>, data
// CHECK: }
// CHECK: %[[ZERO:.*]] = amx.tile_zero : !amx.tile<16x16xi32>
// CHECK: %[[X:.*]] = amx.tile_load %[[CODES]][%[[M0]], %{{.*}}] : memref<35x128xi8, strided<[?, 1], offset: ?>> into !amx.tile<16x32xi8>
// CHECK: %[[W:.*]] = amx.tile_load %[[PANEL]][%{{.*}}, %{{.*}}] : memref<32x64xi8> into !amx.tile<8x64xi8>
// CHECK: %[[T:.*]] = amx.tile_muli %[[X]], %[[W]], %[[ZERO]] : !amx.tile<16x32xi8>, !amx.tile<8x64xi8>, !amx.tile<16x16xi32>
// CHECK-COUNT-3: amx.tile_muli
// CHECK: amx.tile_store %[[SUMS]][%{{.*}}, %{{.*}}], %[[T]] : memref<64x16xi32>, !amx.tile<16x16xi32>
// CHECK-COUNT-3: amx.tile_store
// CHECK-COUNT-64: vector.load %[[SUMS]]
// CHECK: vector.load %[[SCALES]]
// The three rows left over, one at a time, with byte dot products.
// CHECK: scf.for %{{.*}} = %[[WHOLE]] to %c35 step %c1
// CHECK-NOT: amx.
// CHECK: return
// NO-AMX-LABEL: func.func @int4_rows_left_over
// NO-AMX-NOT: amx.
// NO-AMX: return
// LLVM-LABEL: llvm.func @int4_rows_left_over
// LLVM: llvm.call_intrinsic "llvm.x86.tilezero.internal"
// LLVM: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// LLVM: llvm.call_intrinsic "llvm.x86.tdpbssd.internal"
// LLVM: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
!w = !quant_block.tensor<32x128, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<35x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @int4_rows_left_over(%x: !a, %w: !w) -> tensor<35x32xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<35x32xf32>
  return %y : tensor<35x32xf32>
}

// -----

// Unsigned 8-bit codes without zero points (0..255) do not fit a signed
// byte: the weight operand is zero-extended (tdpbsud). Blocks of 64: one
// tile instruction of K = 64 per block, two blocks per K step.
// CHECK-LABEL: func.func @uint8_blocks_of_64
// CHECK: amx.tile_load %{{.*}} into !amx.tile<16x64xi8>
// CHECK: amx.tile_load %{{.*}} : memref<32x64xi8> into !amx.tile<16x64xi8>
// CHECK: amx.tile_muli %{{.*}}, %{{.*}} zext, %{{.*}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// CHECK-COUNT-1: amx.tile_muli
// CHECK-NOT: amx.tile_muli
// CHECK: return
// LLVM-LABEL: llvm.func @uint8_blocks_of_64
// LLVM: llvm.call_intrinsic "llvm.x86.tdpbsud.internal"
!w = !quant_block.tensor<16x128, #quant_block.scheme<ui8 : f32, block = [1, 64]>>
!a = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 64]>>
func.func @uint8_blocks_of_64(%x: !a, %w: !w) -> tensor<16x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// Blocks of 128: two tile instructions per block, into one tile.
// CHECK-LABEL: func.func @int4_blocks_of_128
// CHECK: %[[Z:.*]] = amx.tile_zero
// CHECK: %[[T0:.*]] = amx.tile_muli %{{.*}}, %{{.*}}, %[[Z]] : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// CHECK: amx.tile_muli %{{.*}}, %{{.*}}, %[[T0]]
!w = !quant_block.tensor<16x256, #quant_block.scheme<i4 : f32, block = [1, 128], scale = bf16, zero_point = i4>>
!a = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 128]>>
func.func @int4_blocks_of_128(%x: !a, %w: !w) -> tensor<16x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// 8-bit codes in blocks of 16 under a blocked outer scale (GGUF Q6_K
// widened at load): one tile instruction of K = 16 per block, four blocks
// per K step; each block's scale times its outer scale is converted once
// with the panel. 4-bit codes in blocks of 16 (NVFP4) stay on vpdpbusd:
// their activations are de-interleaved per 32, so a block is not 16
// consecutive bytes.
// CHECK-LABEL: func.func @int8_blocks_of_16
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<64x64xi8>
// CHECK: amx.tile_load %{{.*}} into !amx.tile<16x16xi8>
// CHECK: amx.tile_load %{{.*}} : memref<64x64xi8> into !amx.tile<4x64xi8>
// CHECK: amx.tile_muli %{{.*}}, %{{.*}}, %{{.*}} : !amx.tile<16x16xi8>, !amx.tile<4x64xi8>, !amx.tile<16x16xi32>
// CHECK-COUNT-3: amx.tile_muli
// CHECK-NOT: amx.tile_muli
// CHECK: return
// CHECK-LABEL: func.func @nvfp4_blocks_of_16
// CHECK-NOT: amx.
// CHECK: return
// LLVM-LABEL: llvm.func @int8_blocks_of_16
// LLVM: llvm.call_intrinsic "llvm.x86.tdpbssd.internal"
!w = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
!a = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @int8_blocks_of_16(%x: !a, %w: !w) -> tensor<16x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
!w4 = !quant_block.tensor<16x256, #quant_block.scheme<nvfp4>>
func.func @nvfp4_blocks_of_16(%x: !a, %w: !w4) -> tensor<16x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w4 -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// A dynamic M: its whole 16-row tiles with AMX, the rest one row at a
// time.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[M:.*]] = tensor.dim
// CHECK: %[[LEFT:.*]] = arith.remui %[[M]], %c16
// CHECK: %[[WHOLE:.*]] = arith.subi %[[M]], %[[LEFT]]
// CHECK: amx.tile_muli
// CHECK: scf.for %{{.*}} = %[[WHOLE]] to %[[M]] step %c1
// CHECK-NOT: amx.
// CHECK: return
!w = !quant_block.tensor<16x64, #quant_block.scheme<f4E2M1FN : f32, block = [1, 32], scale = f8E8M0FNU>>
!a = !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @dynamic_rows(%x: !a, %w: !w) -> tensor<?x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// No AMX: fewer than 16 activation rows, 8-bit codes with zero points
// (q - zp may not fit a byte), f32 activations, N not a multiple of 16.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: amx.
// CHECK: return
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
!w8 = !quant_block.tensor<16x64, #quant_block.scheme<ui8 : f32, block = [1, 32], zero_point = ui8>>
!w24 = !quant_block.tensor<24x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
!a8 = !quant_block.tensor<8x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!a = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @left_alone(%x8: !a8, %x: !a, %xf: tensor<16x64xf32>, %w: !w, %w8: !w8, %w24: !w24) -> (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x24xf32>) {
  %0 = quant_block.matmul %x8, %w transpose_rhs accumulate(i32) inhibit : !a8, !w -> tensor<8x16xf32>
  %1 = quant_block.matmul %x, %w8 transpose_rhs accumulate(i32) inhibit : !a, !w8 -> tensor<16x16xf32>
  %2 = quant_block.matmul %xf, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<16x64xf32>, !w -> tensor<16x16xf32>
  %3 = quant_block.matmul %x, %w24 transpose_rhs accumulate(i32) inhibit : !a, !w24 -> tensor<16x24xf32>
  return %0, %1, %2, %3 : tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x24xf32>
}
