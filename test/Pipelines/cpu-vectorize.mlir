// --quant-block-cpu-vectorize tiles linalg ops to a few registers and
// vectorizes the tiles; tiles are static (divisors of static loop sizes,
// dynamic loops tiled by 1) and ops on sub-byte element types stay scalar.
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg --quant-block-cpu-vectorize --canonicalize | FileCheck %s
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg --quant-block-cpu-vectorize="vector-bits=128 registers=2" --canonicalize | FileCheck %s --check-prefix=SMALL

// int4 groups of 32 along rows of 4096: a tile is 64 f32 results (8 AVX2
// registers), i.e. two groups: scales are read two at a time.
// CHECK-LABEL: func.func @dequantize_int4
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c4096 step %c1
// CHECK: scf.for %[[GROUP:.*]] = %c0 to %c128 step %c2
// CHECK: vector.transfer_read %{{.*}}[%[[ROW]], %[[GROUP]], %c0]{{.*}} : tensor<4096x128x16xi8>, vector<1x2x16xi8>
// CHECK: vector.transfer_read %{{.*}}[%[[ROW]], %[[GROUP]]]{{.*}} : tensor<4096x128xf16>, vector<1x2xf16>
// CHECK: arith.mulf %{{.*}} : vector<1x2x16x2xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<1x2x16x2xf32>, tensor<4096x128x16x2xf32>
// 128-bit registers, two of them: 8 f32 per tile, a quarter of a group.
// SMALL-LABEL: func.func @dequantize_int4
// SMALL: scf.for %{{.*}} = %c0 to %c16 step %c4
// SMALL: arith.mulf %{{.*}} : vector<1x1x4x2xf32>
!q = !quant_block.tensor<4096x4096, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @dequantize_int4(%q: !q) -> tensor<4096x4096xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4096x4096xf32>
  return %x : tensor<4096x4096xf32>
}

// -----

// A dynamic token count: that loop is tiled by 1, the static ones vectorize.
// CHECK-LABEL: func.func @quantize_dynamic_tokens
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK: vector.multi_reduction <maximumf>
// CHECK: math.roundeven %{{.*}} : vector<1x1x64xf32>
!t = !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [1, *]>>
func.func @quantize_dynamic_tokens(%x: tensor<?x64xf32>) -> !t {
  %q = quant_block.quantize_dynamic absmax %x : tensor<?x64xf32> -> !t
  return %q : !t
}

// -----

// Tensors of sub-byte element types are stored one element per byte by the
// scalar code but bit-packed by vector loads: such ops are left to loops.
// CHECK-LABEL: func.func @sub_byte_stays_scalar
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<64xi4>)
// CHECK-NOT: vector<{{.*}}xi4>
func.func @sub_byte_stays_scalar(%x: tensor<64xi4>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xi4>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: i4, %out: f32):
    %f = arith.sitofp %in : i4 to f32
    linalg.yield %f : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Float sums are ordered (each output adds its terms one after the other),
// so the tile spans 8 outputs (one 256-bit register of f32 lanes, each lane
// its own chain) and the rest of the budget (8 of 64 elements) along k:
// the 32-element blocks are tiled to 4 bytes of two int4 each.
// CHECK-LABEL: func.func @int4_matvec
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<256x8x16xi8>, vector<8x1x4xi8>
// CHECK: %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<1x256xf32>, vector<1x8xf32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %[[ACC]] [2, 3, 4] : vector<1x8x1x4x2xf32> to vector<1x8xf32>
// SMALL-LABEL: func.func @int4_matvec
// SMALL: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [2, 3, 4] : vector<1x4x1x1x2xf32> to vector<1x4xf32>
!w = !quant_block.tensor<256x256, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @int4_matvec(%x: tensor<1x256xf32>, %w: !w) -> tensor<1x256xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<1x256xf32>, !w -> tensor<1x256xf32>
  return %y : tensor<1x256xf32>
}

// -----

// A map that is not a projected permutation (what upstream --lower-quant-ops
// writes) is neither tiled (tiling slices such operands wrongly) nor
// vectorized (the vectorizer refuses it): the op stays whole.
// CHECK-LABEL: func.func @floordiv_map_stays_whole
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<4x2xf32>)
// CHECK-NOT: vector.
func.func @floordiv_map_stays_whole(%x: tensor<4x64xf32>, %s: tensor<4x2xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x64xf32>, tensor<4x2xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// tensor.extract from a slice: a vector.gather would linearize its indices
// over the slice's shape, but the slice bufferizes to a strided view, so the
// op stays scalar.
// CHECK-LABEL: func.func @extract_from_slice_stays_scalar
// CHECK: %[[SLICE:.+]] = tensor.extract_slice
// CHECK: linalg.generic
// CHECK: tensor.extract %[[SLICE]]
// CHECK-NOT: vector.gather
func.func @extract_from_slice_stays_scalar(%t: tensor<4x6xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<4x6xf32> to tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %k = arith.divui %j, %c2 : index
    %v = tensor.extract %s[%i, %k] : tensor<4x4xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
