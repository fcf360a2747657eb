// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{tensor-cores=true report=true}))" -verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels))" | FileCheck %s --check-prefix=OFF
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{tensor-cores=true tensor-core-rows=64}))" | FileCheck %s --check-prefix=ROWS64
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{tensor-cores=true tensor-core-rows=24}))" 2>&1 | FileCheck %s --check-prefix=BAD-ROWS
// BAD-ROWS: error: tensor-core-rows must be 0 (automatic), 16, 32, 48 or 64, not 24

// The tensor-core kernel of --quant-block-gpu-matmul-kernels (integer
// products of 16 or more activation rows against 4- or 8-bit integer
// weights): 128 threads, 4 warps side by side along N, each 16 activation
// rows by up to 4 tiles of 8 weight rows (here N = 12: two tiles, the
// second partial); M = 19: two y workgroups, the second a partial tile
// (activation rows clamped to 18, weight rows to 11). Per block of 32 and
// tile one 16x8x32 product: lane l = 4 g + t loads the activation words
// 2 t, 2 t + 1 of rows g and g + 8 (one 8-byte load each) and shuffles
// their even and odd bytes into registers 0 / 2 and 1 / 3 of A; word t of
// the weight row g of the tile gives the even codes (shifted into the high
// nibbles) and the odd codes (masked in place) as B's two registers. The
// block sums come back shifted right by 4 (16 times the codes), then each
// term f32(isum) * (sl * sr) is added, a rounded product and sum without
// contract.
// CHECK-LABEL: func.func @int4_m19
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c2{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}})
// CHECK: arith.minui %{{.*}}, %c18 : index
// CHECK: arith.minui %{{.*}}, %c11 : index
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<19x16xi32>, vector<2xi32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6] : vector<4xi8>, vector<4xi8>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7] : vector<4xi8>, vector<4xi8>
// CHECK: vector.insert %{{.*}}, %{{.*}} [0] : vector<4xi8> into vector<4x4xi8>
// CHECK: vector.insert %{{.*}}, %{{.*}} [2] : vector<4xi8> into vector<4x4xi8>
// CHECK: vector.insert %{{.*}}, %{{.*}} [1] : vector<4xi8> into vector<4x4xi8>
// CHECK: vector.insert %{{.*}}, %{{.*}} [3] : vector<4xi8> into vector<4x4xi8>
// CHECK: %[[WORD:.*]] = memref.load %{{.*}} : memref<12x8xi32>
// CHECK: %[[HIGH:.*]] = arith.shli %[[WORD]], %c4_i32 : i32
// CHECK: arith.andi %[[HIGH]], %c-252645136_i32 : i32
// CHECK: arith.andi %[[WORD]], %c-252645136_i32 : i32
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: memref.load %{{.*}} : memref<19x2xf32>
// CHECK: memref.load %{{.*}} : memref<12x2xf16>
// CHECK: vector.extract %{{.*}}[0, 0] : i32 from vector<2x2xi32>
// CHECK: arith.shrsi %{{.*}}, %c4_i32{{.*}} : i32
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: math.fma
// CHECK: scf.yield
// CHECK-COUNT-8: memref.store %{{.*}} : memref<19x12xf32>
// CHECK-NOT: gpu.shuffle
// With tensor-core-rows=64: four fragments of 16 activation rows per warp
// (rows g + 8 i of the 64, clamped to 18), one y workgroup, 32
// accumulators; per block each tile's weight word is loaded and unpacked
// once and serves the four fragments' products (8 in all).
// ROWS64-LABEL: func.func @int4_m19
// ROWS64: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}})
// ROWS64-COUNT-8: arith.minui %{{.*}}, %c18 : index
// ROWS64: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args({{.*}}) -> ({{(f32, ){31}f32}})
// ROWS64-COUNT-8: vector.load %{{.*}} {alignment = 8 : i64} : memref<19x16xi32>, vector<2xi32>
// ROWS64: memref.load %{{.*}} : memref<12x8xi32>
// ROWS64-COUNT-4: nvgpu.mma.sync
// ROWS64: memref.load %{{.*}} : memref<12x8xi32>
// ROWS64-COUNT-4: nvgpu.mma.sync
// ROWS64-NOT: nvgpu.mma.sync
// ROWS64-COUNT-8: memref.load %{{.*}} : memref<19x2xf32>
// ROWS64: scf.yield
// ROWS64-COUNT-32: memref.store %{{.*}} : memref<19x12xf32>
// ROWS64-NOT: memref.store
// ROWS64: gpu.terminator
// Without tensor-cores: the warp kernel (tiles of 8 rows, lane 0's sum).
// OFF-LABEL: func.func @int4_m19
// OFF-NOT: nvgpu.mma.sync
// OFF: gpu.shuffle xor
!w4 = !quant_block.tensor<12x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a4 = !quant_block.tensor<19x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @int4_m19(%x: !a4, %w: !w4) -> tensor<19x12xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a4, !w4 -> tensor<19x12xf32>
  return %y : tensor<19x12xf32>
}

// -----

// 8-bit codes in blocks of 64 (two products per block, summed in the
// accumulator) with contract: lane t's two words 2 t, 2 t + 1 of a step
// are B's registers as they are (one 8-byte load), no shift of the sums,
// one FMA per term. N = 40: 4 tiles per warp, 32 rows.
// CHECK-LABEL: func.func @int8_g64_contract
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-8: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK-NOT: arith.shrsi
// CHECK: math.fma
// CHECK: scf.yield
!w8 = !quant_block.tensor<40x128, #quant_block.scheme<i8 : f32, block = [1, 64]>>
!a8 = !quant_block.tensor<32x128, #quant_block.scheme<i8 : f32, block = [1, 64]>>
func.func @int8_g64_contract(%x: !a8, %w: !w8) -> tensor<32x40xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a8, !w8 -> tensor<32x40xf32>
  return %y : tensor<32x40xf32>
}

// -----

// Unsigned 4-bit codes with uint4 zero points (ONNX MatMulNBits): each
// word's nibbles flipped (q - 8) before they become bytes, one more
// product per step against ones (the activations' sums), and each block
// sum corrected by (8 - z) times its row's activation sum.
// CHECK-LABEL: func.func @uint4_zero_points
// CHECK: %[[ONE:.*]] = arith.constant 16843009 : i32
// CHECK: %[[ONEV:.*]] = vector.from_elements %[[ONE]] : vector<1xi32>
// CHECK: %[[ONES:.*]] = vector.bitcast %[[ONEV]] : vector<1xi32> to vector<4xi8>
// CHECK: vector.insert %[[ONES]], %{{.*}} [0] : vector<4xi8> into vector<2x4xi8>
// CHECK: vector.insert %[[ONES]], %{{.*}} [1] : vector<4xi8> into vector<2x4xi8>
// CHECK: nvgpu.mma.sync
// CHECK: %[[WORD:.*]] = memref.load %{{.*}} : memref<8x8xi32>
// CHECK: arith.xori %[[WORD]], %c-2004318072_i32 : i32
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: vector.extract %{{.*}}[0, 0] : i32 from vector<2x2xi32>
// CHECK: vector.extract %{{.*}}[1, 0] : i32 from vector<2x2xi32>
// CHECK: %[[Z:.*]] = memref.load %{{.*}} : memref<8x2xi8>
// CHECK: %[[ZE:.*]] = arith.extui %[[Z]] : i8 to i32
// CHECK: %[[C:.*]] = arith.subi %c8_i32, %[[ZE]] : i32
// CHECK: arith.shrsi
// CHECK: %[[CS:.*]] = arith.muli %[[C]], %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %[[CS]] : i32
!wz = !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = ui4>>
!az = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @uint4_zero_points(%x: !az, %w: !wz) -> tensor<16x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !az, !wz -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// A dynamic M (a frontend's batch or sequence): both kernels, the
// tensor-core one launched for 16 rows or more (32-row tiles over the y
// workgroups, two fragments per warp, the rows read from the buffer in the
// kernel), the warp kernel
// for fewer (a decode step's one row; tiles of 8), none for no rows.
// CHECK-LABEL: func.func @dynamic_m
// CHECK: %[[M:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x16xi32>
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[M]], %c0{{.*}} : index
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[LARGE:.*]] = arith.cmpi uge, %[[M]], %c16{{.*}} : index
// CHECK: scf.if %[[LARGE]] {
// CHECK: %[[T32:.*]] = arith.addi %{{.*}}, %c31{{.*}} : index
// CHECK: arith.divui %[[T32]], %c32{{.*}} : index
// CHECK: gpu.launch
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.terminator
// CHECK: } else {
// CHECK: %[[T8:.*]] = arith.addi %{{.*}}, %c7{{.*}} : index
// CHECK: arith.divui %[[T8]], %c8{{.*}} : index
// CHECK: gpu.launch
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.shuffle xor
// CHECK: gpu.terminator
!xdyn = !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wdyn = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @dynamic_m(%x: !xdyn, %w: !wdyn) -> tensor<?x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !xdyn, !wdyn -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// Integer products the tensor-core kernel leaves to the warp kernel, with
// the reason (report=true).
// CHECK-LABEL: func.func @warp_kernel
// CHECK-NOT: nvgpu.mma.sync
// CHECK: return
!x8 = !quant_block.tensor<8x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!x16 = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!x16b16 = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!wi4 = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!wu2 = !quant_block.tensor<8x64, #quant_block.scheme<ui2 : f32, block = [1, 32]>>
!wouter = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, outer = <f32>>>
!wb16 = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 16], scale = f16>>
!wmx = !quant_block.tensor<8x64, #quant_block.scheme<f4E2M1FN : f32, block = [1, 32], scale = f8E8M0FNU>>
!wmins = !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = f16>>
!wq4k = !quant_block.tensor<8x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
!wq6k = !quant_block.tensor<8x256, #quant_block.scheme<i8 : f32, block = [32], scale = i8, outer = <f16, block = [8]>>>
!x16k = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @warp_kernel(%x8: !x8, %x16: !x16, %x16b16: !x16b16, %wi4: !wi4, %wu2: !wu2, %wb16: !wb16, %wmx: !wmx, %wouter: !wouter, %wmins: !wmins, %x16k: !x16k, %wq4k: !wq4k, %wq6k: !wq6k) {
  // expected-remark @below {{no tensor cores: fewer than 16 activation rows}}
  %0 = quant_block.matmul %x8, %wi4 transpose_rhs accumulate(i32) inhibit : !x8, !wi4 -> tensor<8x8xf32>
  // expected-remark @below {{no tensor cores: the weight's codes are not 4- or 8-bit integers}}
  %3 = quant_block.matmul %x16, %wu2 transpose_rhs accumulate(i32) inhibit : !x16, !wu2 -> tensor<16x8xf32>
  // expected-remark @below {{no tensor cores: the blocks are not a multiple of 32 codes}}
  %4 = quant_block.matmul %x16b16, %wb16 transpose_rhs accumulate(i32) inhibit : !x16b16, !wb16 -> tensor<16x8xf32>
  // expected-remark @below {{no tensor cores: the weight's codes are not 4- or 8-bit integers}}
  %5 = quant_block.matmul %x16, %wmx transpose_rhs accumulate(i32) inhibit : !x16, !wmx -> tensor<16x8xf32>
  // expected-remark @below {{no tensor cores: the weight has an outer scale}}
  %6 = quant_block.matmul %x16, %wouter transpose_rhs accumulate(i32) inhibit : !x16, !wouter -> tensor<16x8xf32>
  // expected-remark @below {{no tensor cores: the weight has mins (float zero points or an outer min)}}
  %7 = quant_block.matmul %x16, %wmins transpose_rhs accumulate(i32) inhibit : !x16, !wmins -> tensor<16x8xf32>
  // expected-remark @below {{no tensor cores: the weight has mins (float zero points or an outer min)}}
  %8 = quant_block.matmul %x16k, %wq4k transpose_rhs accumulate(i32) inhibit : !x16k, !wq4k -> tensor<16x8xf32>
  // expected-remark @below {{no tensor cores: the weight has an outer scale}}
  %9 = quant_block.matmul %x16k, %wq6k transpose_rhs accumulate(i32) inhibit : !x16k, !wq6k -> tensor<16x8xf32>
  return
}

// -----

// f16 activations (reassoc): the f16 kernel. Per step of 16 codes (a loop
// over K's 4 steps, 8 f32 accumulators for N = 16: two tiles), lane t's
// four activations of rows g and g + 8 (one 8-byte load each, their halves
// A's registers i and 2 + i), per tile the word of its four codes (shifted
// by 16 bits for odd t), four weights dequantized to f16 into B, and one
// nvgpu.mma.sync [16, 8, 16] on the accumulators.
// With four fragments per warp: each tile's four weights are dequantized
// once for four products.
// ROWS64-LABEL: func.func @f16_activations
// ROWS64: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args({{.*}}) -> ({{(f32, ){31}f32}})
// ROWS64-COUNT-8: vector.load %{{.*}} {alignment = 8 : i64} : memref<16x64xf16>, vector<4xf16>
// ROWS64: memref.load %{{.*}} : memref<16x8xi32>
// ROWS64-COUNT-4: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]}
// ROWS64: memref.load %{{.*}} : memref<16x8xi32>
// ROWS64-COUNT-4: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]}
// ROWS64-NOT: nvgpu.mma.sync
// ROWS64: scf.yield
// CHECK-LABEL: func.func @f16_activations
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<16x64xf16>, vector<4xf16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1] : vector<4xf16>, vector<4xf16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [2, 3] : vector<4xf16>, vector<4xf16>
// CHECK: memref.load %{{.*}} : memref<16x8xi32>
// CHECK: arith.shrui
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: gpu.shuffle
!wh = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f16, block = [1, 32], scale = f16>>
func.func @f16_activations(%x: tensor<16x64xf16>, %w: !wh) -> tensor<16x16xf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<16x64xf16>, !wh -> tensor<16x16xf16>
  return %y : tensor<16x16xf16>
}

// -----

// bf16 activations (reassoc): the same kernel with bf16 fragments (the
// weights dequantized and rounded to bf16), MXFP4 weights here.
// CHECK-LABEL: func.func @bf16_activations
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<16x64xbf16>, vector<4xbf16>
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: gpu.shuffle
!wbf = !quant_block.tensor<8x64, #quant_block.scheme<f4E2M1FN : bf16, block = [1, 32], scale = f8E8M0FNU>>
func.func @bf16_activations(%x: tensor<16x64xbf16>, %w: !wbf) -> tensor<16x8xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<16x64xbf16>, !wbf -> tensor<16x8xbf16>
  return %y : tensor<16x8xbf16>
}

// -----

// Float products the f16 / bf16 kernel leaves to the warp kernel, with the
// reason.
// CHECK-LABEL: func.func @float_warp_kernel
// CHECK-NOT: nvgpu.mma.sync
// CHECK: return
!wf = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!wh2 = !quant_block.tensor<8x64, #quant_block.scheme<ui2 : f16, block = [1, 32], scale = f16>>
!wh8 = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f16, block = [1, 8], scale = f16>>
func.func @float_warp_kernel(%xf: tensor<16x64xf32>, %xh: tensor<16x64xf16>, %xh8: tensor<8x64xf16>, %wf: !wf, %wh2: !wh2, %wh8: !wh8) {
  // expected-remark @below {{no tensor cores: the activations are not f16 or bf16}}
  %0 = quant_block.matmul %xf, %wf transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<16x64xf32>, !wf -> tensor<16x8xf32>
  // expected-remark @below {{no tensor cores: the weight's codes are not 4- or 8-bit integers or E2M1}}
  %1 = quant_block.matmul %xh, %wh2 transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<16x64xf16>, !wh2 -> tensor<16x8xf16>
  // expected-remark @below {{no tensor cores: the blocks are not a multiple of 16 codes}}
  %2 = quant_block.matmul %xh, %wh8 transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<16x64xf16>, !wh8 -> tensor<16x8xf16>
  // expected-remark @below {{no tensor cores: fewer than 16 activation rows}}
  %3 = quant_block.matmul %xh8, %wh8 transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<8x64xf16>, !wh8 -> tensor<8x8xf16>
  return
}

// -----

// Activation fragments per warp chosen automatically: the most of 4, 2
// and 1 that leave the launch 1024 warps. M = 64 by N = 16384 (512 warps
// of 32 weight rows along N): 2 fragments (two y workgroups of 32 rows,
// 1024 warps), 32 accumulators; N = 4096 (128 warps): 1 fragment (four y
// workgroups, 512 warps, the most there are).
// CHECK-LABEL: func.func @automatic_rows
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c2{{.*}}, {{.*}})
// CHECK: iter_args({{.*}}) -> ({{(f32, ){31}f32}})
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}})
// CHECK: iter_args({{.*}}) -> ({{(f32, ){15}f32}})
!wwide = !quant_block.tensor<16384x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!wnarrow = !quant_block.tensor<4096x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a64 = !quant_block.tensor<64x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @automatic_rows(%x: !a64, %wide: !wwide, %narrow: !wnarrow) -> (tensor<64x16384xf32>, tensor<64x4096xf32>) {
  %0 = quant_block.matmul %x, %wide transpose_rhs accumulate(i32) inhibit : !a64, !wwide -> tensor<64x16384xf32>
  %1 = quant_block.matmul %x, %narrow transpose_rhs accumulate(i32) inhibit : !a64, !wnarrow -> tensor<64x4096xf32>
  return %0, %1 : tensor<64x16384xf32>, tensor<64x4096xf32>
}
