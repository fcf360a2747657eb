// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{workgroup-size=64 chunk-words=4 max-workgroups=2 report=true}))" -verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{workgroup-size=64 chunk-words=4 vector-loads=false}))" | FileCheck %s --check-prefix=SCALAR
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{workgroup-size=64 chunk-words=4 rows-per-warp=1}))" | FileCheck %s --check-prefix=ONE-ROW
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{workgroup-size=48}))" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{rows-per-warp=-1}))" 2>&1 | FileCheck %s --check-prefix=BAD-ROWS

// BAD: error: workgroup-size must be a positive multiple of 32 (warps of weight rows), not 48, max-workgroups positive and rows-per-warp not negative
// BAD-ROWS: error: workgroup-size must be a positive multiple of 32 (warps of weight rows), not 128, max-workgroups positive and rows-per-warp not negative
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{split-k=3}))" 2>&1 | FileCheck %s --check-prefix=BAD-SPLIT3
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{workgroup-size=64 split-k=4}))" 2>&1 | FileCheck %s --check-prefix=BAD-SPLIT4
// BAD-SPLIT3: error: split-k must be 0 (automatic) or a power of two dividing the 4 warps of a workgroup, not 3
// BAD-SPLIT4: error: split-k must be 0 (automatic) or a power of two dividing the 2 warps of a workgroup, not 4
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{chunk-words=3}))" 2>&1 | FileCheck %s --check-prefix=BAD-CHUNK
// BAD-CHUNK: error: chunk-words must be 1, 2 or 4, not 3
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{chunk-words=1}))" | FileCheck %s --check-prefix=WORD
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels))" | FileCheck %s --check-prefix=SPLIT
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-gpu-matmul-kernels{workgroup-size=64 byte-dot-products=true}))" | FileCheck %s --check-prefix=DOT

// An int4 product with f16 scales, M = 3, N = 5: the weight's lowered parts
// as buffers, the packed bytes viewed as i32 words [5, 8] on the host; 64
// threads per workgroup (two rows, one warp each), at most two workgroups
// (each takes row groups b, b + 2 of the three); one y workgroup for the
// three activation rows. Lane = thread % 32 loads chunks of 4 words
// (chunks lane, lane + 32, ...: the row has 2), one scale per chunk (a
// block of 32 codes), 8 activations per row and word; then five xor
// shuffles per activation row, and lane 0 of an in-range row stores.
// CHECK-LABEL: func.func @int4_m3
// CHECK: %[[PARTS:.*]]:2 = builtin.unrealized_conversion_cast %{{.*}} to tensor<5x32xi8>, tensor<5x2xf16>
// CHECK: %[[X:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<3x64xf32> to memref<3x64xf32>
// CHECK: %[[BYTES:.*]] = bufferization.to_buffer %[[PARTS]]#0 read_only : tensor<5x32xi8> to memref<5x32xi8>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[BYTES]] {{\[}}[0, 1]] : memref<5x32xi8> into memref<160xi8>
// CHECK: %[[WORDS:.*]] = memref.view %[[FLAT]][%{{.*}}][] : memref<160xi8> to memref<5x8xi32>
// CHECK: %[[SCALES:.*]] = bufferization.to_buffer %[[PARTS]]#1 read_only : tensor<5x2xf16> to memref<5x2xf16>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<3x5xf32>
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %c2{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK: scf.for %[[G:.*]] = %[[BX]] to %c3{{.*}} step %c2
// CHECK: %[[N:.*]] = arith.minui %{{.*}}, %c4
// CHECK: scf.for %[[C:.*]] = %[[LANE]] to %c2{{.*}} step %c32{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32, f32)
// CHECK: vector.load %[[WORDS]][%[[N]], %{{.*}}] {alignment = 16 : i64} : memref<5x8xi32>, vector<4xi32>
// CHECK: memref.load %[[SCALES]][%[[N]], %{{.*}}] : memref<5x2xf16>
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}] {alignment = 32 : i64} : memref<3x64xf32>, vector<8xf32>
// CHECK-NOT: memref.load %[[SCALES]]
// CHECK: scf.yield
// CHECK-COUNT-15: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if
// CHECK-COUNT-3: memref.store %{{.*}}, %[[OUT]][%{{.*}}, %[[N]]] : memref<3x5xf32>
// CHECK: gpu.terminator
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable : memref<3x5xf32> to tensor<3x5xf32>
// SCALAR-LABEL: func.func @int4_m3
// SCALAR-NOT: vector.load
// SCALAR: memref.load %{{.*}} : memref<5x8xi32>
// SCALAR-NOT: vector.load
// SCALAR: gpu.terminator
!w = !quant_block.tensor<5x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @int4_m3(%x: tensor<3x64xf32>, %w: !w) -> tensor<3x5xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<3x64xf32>, !w -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// M = 1: four weight rows per warp (N = 5: one group of 8 rows, rows 5 to
// 7 clamped to row 4, computed and not stored). Each lane loads its chunk of
// every row, then each word's activations once for the four rows; the four
// rows' sums in one loop, five shuffles each, and lane 0 stores each
// in-range row. rows-per-warp=1 gives the one-row kernel.
// CHECK-LABEL: func.func @int4_rows_per_warp
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK: scf.for %[[G:.*]] = %[[BX]] to %c1{{.*}} step %c1
// CHECK-DAG: %[[GROUP:.*]] = arith.muli %[[G]], %c8
// CHECK-DAG: %[[FIRST:.*]] = arith.muli %[[WARP]], %c4
// CHECK: %[[ROW0:.*]] = arith.addi %[[GROUP]], %[[FIRST]]
// CHECK-COUNT-4: arith.minui %{{.*}}, %c4
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32)
// CHECK-COUNT-4: vector.load %{{.*}} : memref<5x8xi32>, vector<4xi32>
// CHECK-COUNT-4: memref.load %{{.*}} : memref<5x2xf16>
// CHECK: vector.load %{{.*}} : memref<1x64xf32>, vector<8xf32>
// CHECK-NOT: vector.load %{{.*}} : memref<1x64xf32>
// CHECK: vector.load %{{.*}} : memref<1x64xf32>, vector<8xf32>
// CHECK: scf.yield
// CHECK-COUNT-20: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-4: memref.store
// CHECK: gpu.terminator
// ONE-ROW-LABEL: func.func @int4_rows_per_warp
// ONE-ROW: scf.for {{.*}} -> (f32)
// ONE-ROW-COUNT-1: vector.load %{{.*}} : memref<5x8xi32>, vector<4xi32>
// ONE-ROW-NOT: vector.load %{{.*}} : memref<5x8xi32>
// ONE-ROW-COUNT-5: gpu.shuffle xor
// ONE-ROW-NOT: gpu.shuffle
// ONE-ROW: gpu.terminator
!w5 = !quant_block.tensor<5x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @int4_rows_per_warp(%x: tensor<1x64xf32>, %w: !w5) -> tensor<1x5xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xf32>, !w5 -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// -----

// NVFP4: E4M3 scales of blocks of 16 (two words), a per-tensor outer
// scale read once per thread; chunks of 4 words span two blocks, so each
// chunk reads two scales of each of the warp's two weight rows (M = 1: up
// to 4 rows per warp, no more than N). With contract, FMAs.
// CHECK-LABEL: func.func @nvfp4
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to tensor<2x64xi8>, tensor<2x8xf8E4M3FN>, tensor<1x1xf32>
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x1xf32>
// CHECK: scf.for
// CHECK-COUNT-2: vector.load %{{.*}} : memref<2x16xi32>, vector<4xi32>
// CHECK-COUNT-2: memref.load %{{.*}} : memref<2x8xf8E4M3FN>
// CHECK: vector.load %{{.*}} : memref<1x128xf32>, vector<8xf32>
// CHECK-COUNT-2: memref.load %{{.*}} : memref<2x8xf8E4M3FN>
// CHECK-NOT: memref.load %{{.*}} : memref<2x8xf8E4M3FN>
// CHECK: math.fma
// CHECK: scf.yield
!nv = !quant_block.tensor<2x128, #quant_block.scheme<f4E2M1FN : f32, block = [1, 16], scale = f8E4M3FN, outer = <f32>>>
func.func @nvfp4(%x: tensor<1x128xf32>, %w: !nv) -> tensor<1x2xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<1x128xf32>, !nv -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// uint4 zero points (ONNX's MatMulNBits) are extended to i8 on tensors.
// CHECK-LABEL: func.func @uint4_zero_points
// CHECK: %[[Z:.*]] = arith.extui %{{.*}} : tensor<4x2xi4> to tensor<4x2xi8>
// CHECK: bufferization.to_buffer %[[Z]] read_only : tensor<4x2xi8> to memref<4x2xi8>
// CHECK: gpu.launch
!z = !quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = ui4>>
func.func @uint4_zero_points(%x: tensor<1x64xf32>, %w: !z) -> tensor<1x4xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xf32>, !z -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// bf16 activations: each dequantized weight rounded to bf16 (as
// dequantize) and extended, the activations extended, f32 sums, the result
// rounded once to bf16 and stored into a bf16 buffer.
// CHECK-LABEL: func.func @bf16_activations
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x4xbf16>
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} : memref<1x64xbf16>, vector<8xbf16>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: gpu.shuffle xor
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %[[R]], %[[OUT]]
!b = !quant_block.tensor<4x64, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = bf16>>
func.func @bf16_activations(%x: tensor<1x64xbf16>, %w: !b) -> tensor<1x4xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xbf16>, !b -> tensor<1x4xbf16>
  return %y : tensor<1x4xbf16>
}

// -----

// i8 activations with accumulate(i32): both sides viewed as i32 words; per
// round of 32 blocks each lane's block sum in i32, then lane 0 adds the 32
// terms in block order (32 xor shuffles per activation row, of every
// lane's term, lane 0's own too: each rounded in its own lane, without
// contract the block sum times the scale product, then lane 0's add).
// CHECK-LABEL: func.func @int8_activations
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to tensor<1x64xi8>, tensor<1x2xf32>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to tensor<5x32xi8>, tensor<5x2xf16>
// CHECK: memref.view %{{.*}} : memref<64xi8> to memref<1x16xi32>
// CHECK: memref.view %{{.*}} : memref<160xi8> to memref<5x8xi32>
// CHECK: gpu.launch
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c1{{.*}} step %c1{{.*}} iter_args
// CHECK: arith.muli %{{.*}} : i32
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK-COUNT-32: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: math.fma
// CHECK: scf.yield
// With byte-dot-products: a word of 8 signed 4-bit codes gives its even
// codes (shifted into the high nibbles) and its odd ones (masked in place)
// as two vectors of 4 bytes, 16 times the codes; the activations' two
// words are shuffled into the same order; 2 dot products per word, 8 per
// block, and the block's sum shifted back by 4.
// DOT-LABEL: func.func @int8_activations
// DOT: gpu.launch
// DOT: %[[PACKED:.*]] = vector.extract %{{.*}}[0] : i32 from vector<4xi32>
// DOT: %[[HIGH:.*]] = arith.shli %[[PACKED]], %c4_i32 : i32
// DOT: arith.andi %[[HIGH]], %c-252645136_i32 : i32
// DOT: arith.andi %[[PACKED]], %c-252645136_i32{{.*}} : i32
// DOT: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6] : vector<4xi8>, vector<4xi8>
// DOT: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7] : vector<4xi8>, vector<4xi8>
// DOT: arith.extsi %{{.*}} : vector<4xi8> to vector<4xi32>
// DOT: arith.muli %{{.*}}, %{{.*}} : vector<4xi32>
// DOT: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<4xi32> into i32
// DOT-COUNT-7: vector.reduction <add>
// DOT-NOT: vector.reduction
// DOT: arith.shrsi %{{.*}}, %c4_i32{{.*}} : i32
// DOT: arith.sitofp %{{.*}} : i32 to f32
!w8 = !quant_block.tensor<5x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a8 = !quant_block.tensor<1x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @int8_activations(%x: !a8, %w: !w8) -> tensor<1x5xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a8, !w8 -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

// -----

// Unsigned 8-bit codes with zero points: each word is 4 unsigned bytes as
// it is (one dot product against the activations' word), and the
// activations' sum (a dot product with ones) times the zero point is
// subtracted from the block's sum.
// DOT-LABEL: func.func @uint8_zero_points_int8_activations
// DOT: gpu.launch
// DOT: %[[ONES:.*]] = arith.constant dense<1> : vector<4xi8>
// DOT: %[[W:.*]] = arith.extui %{{.*}} : vector<4xi8> to vector<4xi32>
// DOT: %[[X:.*]] = arith.extsi %{{.*}} : vector<4xi8> to vector<4xi32>
// DOT: %[[P:.*]] = arith.muli %[[W]], %[[X]] : vector<4xi32>
// DOT: vector.reduction <add>, %[[P]]
// DOT: %[[O:.*]] = arith.extui %[[ONES]] : vector<4xi8> to vector<4xi32>
// DOT: %[[X2:.*]] = arith.extsi %{{.*}} : vector<4xi8> to vector<4xi32>
// DOT: arith.muli %[[O]], %[[X2]] : vector<4xi32>
// DOT-COUNT-15: vector.reduction <add>
// DOT-NOT: vector.reduction
// DOT: %[[ZS:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// DOT: arith.subi %{{.*}}, %[[ZS]] : i32
// DOT-NOT: arith.shrsi
// DOT: arith.sitofp %{{.*}} : i32 to f32
!wu8 = !quant_block.tensor<3x32, #quant_block.scheme<ui8 : f32, block = [1, 32], scale = f16, zero_point = ui8>>
!au8 = !quant_block.tensor<1x32, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @uint8_zero_points_int8_activations(%x: !au8, %w: !wu8) -> tensor<1x3xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !au8, !wu8 -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// Q4_K with int8 activations (GGUF's two-level parameters): the 6-bit
// scales and mins widened to bytes on the host, the f16 outer scales and
// mins passed as they are. Each lane's block b: the effective scale
// f32(s) * f32(d[b / 8]) and the min f32(m) * f32(dmin[b / 8]), each
// rounded once; the codes summed uncentered (no zero point subtracted)
// and the block's 32 activation codes summed by four byte dot products
// with ones (0x01010101); lane 0 adds the block's term and then its min term,
// for each of the 32 lanes in turn (every lane's rounded products of both
// terms by shuffles, lane 0's own by xor 0).
// CHECK-LABEL: func.func @q4_k_int8_activations
// CHECK: %[[S:.*]] = arith.extui %{{.*}} : tensor<4x16xi6> to tensor<4x16xi8>
// CHECK: %[[SB:.*]] = bufferization.to_buffer %[[S]] read_only : tensor<4x16xi8> to memref<4x16xi8>
// CHECK: %[[M:.*]] = arith.extui %{{.*}} : tensor<4x16xi6> to tensor<4x16xi8>
// CHECK: %[[MB:.*]] = bufferization.to_buffer %[[M]] read_only : tensor<4x16xi8> to memref<4x16xi8>
// CHECK: %[[D:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x2xf16> to memref<4x2xf16>
// CHECK: %[[DMIN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x2xf16> to memref<4x2xf16>
// CHECK: gpu.launch
// CHECK: %[[SV:.*]] = memref.load %[[SB]][%{{.*}}, %[[B:.*]]] : memref<4x16xi8>
// CHECK: %[[SW:.*]] = arith.extui %[[SV]] : i8 to i32
// CHECK: %[[SF:.*]] = arith.sitofp %[[SW]] : i32 to f32
// CHECK: %[[G:.*]] = arith.divui %[[B]], %c8 : index
// CHECK: %[[DV:.*]] = memref.load %[[D]][%{{.*}}, %[[G]]] : memref<4x2xf16>
// CHECK: %[[DF:.*]] = arith.extf %[[DV]] : f16 to f32
// CHECK: %[[SCALE:.*]] = arith.mulf %[[SF]], %[[DF]] : f32
// CHECK: memref.load %[[MB]][%{{.*}}, %[[B]]] : memref<4x16xi8>
// CHECK: %[[DMINV:.*]] = memref.load %[[DMIN]][%{{.*}}, %[[G]]] : memref<4x2xf16>
// CHECK: arith.extf %[[DMINV]] : f16 to f32
// CHECK-NOT: arith.subi
// CHECK: arith.constant 16843009 : i32
// CHECK-COUNT-4: vector.reduction <add>
// CHECK-COUNT-64: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: bufferization.to_tensor
!a = !quant_block.tensor<1x512, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wq4k = !quant_block.tensor<4x512, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>
func.func @q4_k_int8_activations(%x: !a, %w: !wq4k) -> tensor<1x4xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !wq4k -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// Products the kernels leave to the generic lowering, with the reason.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-8: quant_block.matmul
// CHECK-NOT: gpu.launch
!w = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
!a = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 256]>>
!wl = !quant_block.tensor<4x256, #quant_block.scheme<i8 : f32, block = [1, 256]>>
!s = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [1, 4]>>
!t = !quant_block.tensor<64x4, #quant_block.scheme<i4 : f32, block = [32, 1]>>
!rt = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], row_tile = 16>>
!k = !quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [2], min = f16>>>
!ko = !quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, outer = <f16, block = [3, 2]>>>
!a32 = !quant_block.tensor<1x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @left_alone(%x: tensor<1x64xf32>, %xd: tensor<1x?xf32>, %w: !w, %a: !a, %wl: !wl, %s: !s, %t: !t, %rt: !rt, %k: !k, %a32: !a32, %ko: !ko) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x16xf32>) {
  // expected-remark @below {{no GPU matmul kernel: the outer scale is not one f32 for the tensor}}
  %6 = quant_block.matmul %x, %k transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xf32>, !k -> tensor<1x4xf32>
  // expected-remark @below {{no GPU matmul kernel: the outer blocks are not [1, B] with B dividing a row's blocks}}
  %7 = quant_block.matmul %a32, %ko transpose_rhs accumulate(i32) inhibit : !a32, !ko -> tensor<1x4xf32>
  // expected-remark @below {{no GPU matmul kernel: the sum over k is ordered (no fastmath<reassoc>): one thread per output keeps the contract's order}}
  %0 = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<1x64xf32>, !w -> tensor<1x4xf32>
  // expected-remark @below {{no GPU matmul kernel: the blocks are longer than 1024 bits (one lane sums a block)}}
  %1 = quant_block.matmul %a, %wl transpose_rhs accumulate(i32) inhibit fastmath<reassoc> : !a, !wl -> tensor<1x4xf32>
  // expected-remark @below {{no GPU matmul kernel: the blocks are not [1, B] with B dividing K and B codes filling whole 32-bit words}}
  %2 = quant_block.matmul %x, %s transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xf32>, !s -> tensor<1x4xf32>
  // expected-remark @below {{no GPU matmul kernel: the weight is not transposed ([N, K])}}
  %3 = quant_block.matmul %x, %t accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xf32>, !t -> tensor<1x4xf32>
  // expected-remark @below {{no GPU matmul kernel: the lhs is not a rank-2 tensor with a static K}}
  %4 = quant_block.matmul %xd, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x?xf32>, !w -> tensor<1x4xf32>
  // expected-remark @below {{no GPU matmul kernel: the weight is row-tiled (a CPU layout: the lowering repacks it row-major)}}
  %5 = quant_block.matmul %x, %rt transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x64xf32>, !rt -> tensor<1x16xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x16xf32>
}

// -----

// A dynamic M: the result has M rows, the grid ceil(M / 8) tiles of 8 rows,
// no launch at all for M = 0 (an empty grid is an error on CUDA), and the
// kernel reads M from the activations' buffer (a scalar kernel argument
// would not do for SPIR-V): rows past the last are computed as row M - 1
// and not stored.
// CHECK-LABEL: func.func @dynamic_m
// CHECK: %[[X:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<?x64xf32> to memref<?x64xf32>
// CHECK: %[[M:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x64xf32>
// CHECK: %[[Y:.*]] = memref.alloc(%[[M]]) : memref<?x4xf32>
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[M]], %{{.*}} : index
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[UP:.*]] = arith.addi %[[M]], %c7
// CHECK: %[[TILES:.*]] = arith.divui %[[UP]], %c8
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}} = %[[TILES]], {{.*}} = %{{.*}})
// CHECK: %[[KM:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x64xf32>
// CHECK: %[[LAST:.*]] = arith.subi %[[KM]], %c1
// CHECK: arith.minui %{{.*}}, %[[LAST]] : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[KM]] : index
// CHECK: bufferization.to_tensor %[[Y]]
!w = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @dynamic_m(%x: tensor<?x64xf32>, %w: !w) -> tensor<?x4xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<?x64xf32>, !w -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// Split-K: a row of 256 chunks of the default two words (K = 4096, int4)
// in the default workgroups of 128 threads: the four warps share the same
// four rows (one group of rows per workgroup), "lane" = thread % 128
// strides over the chunks by 128 (two steps), each a two-word load per
// row, and after each warp's butterfly (widths 32) the warps' totals are
// added by shuffles of width 128 at offsets 32 and 64; thread 0 stores.
// SPLIT-LABEL: func.func @split_k
// SPLIT: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// SPLIT: %[[LANE:.*]] = arith.remui %[[T]], %c128
// SPLIT: %[[WARP:.*]] = arith.divui %[[T]], %c128
// SPLIT: scf.for %[[C:.*]] = %[[LANE]] to %c256{{.*}} step %c128{{.*}} iter_args
// SPLIT-COUNT-4: vector.load %{{.*}} {alignment = 8 : i64} : memref<8x512xi32>, vector<2xi32>
// SPLIT-COUNT-20: gpu.shuffle xor %{{.*}}, %{{.*}}, %c32_i32
// SPLIT-COUNT-4: gpu.shuffle xor %{{.*}}, %c32_i32{{.*}}, %c128_i32
// SPLIT-COUNT-4: gpu.shuffle xor %{{.*}}, %c64_i32{{.*}}, %c128_i32
// SPLIT-NOT: gpu.shuffle
// SPLIT: arith.cmpi eq, %[[LANE]], %c0
// With chunk-words=1 each lane loads one word of a row at a time (a scalar
// load per row, 512 words per row: 4 steps of 128 lanes).
// WORD-LABEL: func.func @split_k
// WORD: scf.for %{{.*}} = %{{.*}} to %c512{{.*}} step %c128{{.*}} iter_args
// WORD-COUNT-4: vector.load %{{.*}} : memref<8x512xi32>, vector<1xi32>
// WORD: vector.load %{{.*}} {alignment = 32 : i64} : memref<1x4096xf32>, vector<8xf32>
!w = !quant_block.tensor<8x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @split_k(%x: tensor<1x4096xf32>, %w: !w) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x4096xf32>, !w -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
