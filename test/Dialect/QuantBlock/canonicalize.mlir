// Folders and canonicalization patterns of the quant_block ops.
// RUN: quant-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @pack_of_unpack
// CHECK-SAME: (%[[Q:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.unpack
// CHECK-NOT: quant_block.pack
// CHECK: return %[[Q]]
func.func @pack_of_unpack(%q: !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f16, block = [32], scale = f16, zero_point = ui4>>)
    -> !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f16, block = [32], scale = f16, zero_point = ui4>> {
  %d, %s, %z = quant_block.unpack %q : !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f16, block = [32], scale = f16, zero_point = ui4>>
      -> tensor<8x64xui4>, tensor<8x2xf16>, tensor<8x2xui4>
  %p = quant_block.pack %d scales(%s : tensor<8x2xf16>) zero_points(%z : tensor<8x2xui4>)
      : tensor<8x64xui4> -> !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f16, block = [32], scale = f16, zero_point = ui4>>
  return %p : !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f16, block = [32], scale = f16, zero_point = ui4>>
}

// -----

// Parts taken from two different quantized tensors must not be re-packed
// into either of them.
// CHECK-LABEL: func.func @pack_of_mixed_unpacks
// CHECK: %[[A:.*]]:2 = quant_block.unpack %arg0
// CHECK: %[[B:.*]]:2 = quant_block.unpack %arg1
// CHECK: %[[P:.*]] = quant_block.pack %[[A]]#0 scales(%[[B]]#1 : tensor<2x1xf8E8M0FNU>)
// CHECK: return %[[P]]
func.func @pack_of_mixed_unpacks(%a: !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>, %b: !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>)
    -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>> {
  %ad, %as = quant_block.unpack %a : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>> -> tensor<2x32xf4E2M1FN>, tensor<2x1xf8E8M0FNU>
  %bd, %bs = quant_block.unpack %b : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>> -> tensor<2x32xf4E2M1FN>, tensor<2x1xf8E8M0FNU>
  %p = quant_block.pack %ad scales(%bs : tensor<2x1xf8E8M0FNU>) : tensor<2x32xf4E2M1FN> -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
  return %p : !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
}

// -----

// CHECK-LABEL: func.func @unpack_of_pack
// CHECK-SAME: (%[[D:.*]]: tensor<4x32xf4E2M1FN>, %[[S:.*]]: tensor<4x2xf8E4M3FN>, %[[G:.*]]: tensor<1x1xf32>)
// CHECK-NOT: quant_block
// CHECK: return %[[D]], %[[S]], %[[G]]
func.func @unpack_of_pack(%d: tensor<4x32xf4E2M1FN>, %s: tensor<4x2xf8E4M3FN>, %g: tensor<1x1xf32>)
    -> (tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>, tensor<1x1xf32>) {
  %q = quant_block.pack %d scales(%s : tensor<4x2xf8E4M3FN>) outer_scales(%g : tensor<1x1xf32>)
      : tensor<4x32xf4E2M1FN> -> !quant_block.tensor<4x32, #quant_block.scheme<nvfp4>>
  %p:3 = quant_block.unpack %q : !quant_block.tensor<4x32, #quant_block.scheme<nvfp4>> -> tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>, tensor<1x1xf32>
  return %p#0, %p#1, %p#2 : tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_folds
// CHECK-SAME: (%[[Q:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.transpose
// CHECK: return %[[Q]], %[[Q]]
func.func @transpose_folds(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>)
    -> (!quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>, !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>) {
  %id = quant_block.transpose %q permutation = [0, 1]
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
  %t = quant_block.transpose %q permutation = [1, 0]
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [32, 1]>>
  %tt = quant_block.transpose %t permutation = [1, 0]
      : !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [32, 1]>> -> !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
  return %id, %tt : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>, !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
}

// -----

// A transpose of a 3-D tensor followed by one that does not undo it stays.
// CHECK-LABEL: func.func @transpose_not_inverse
// CHECK: quant_block.transpose %{{.*}} permutation = [1, 2, 0]
// CHECK: quant_block.transpose %{{.*}} permutation = [1, 2, 0]
func.func @transpose_not_inverse(%q: !quant_block.tensor<2x3x4, #quant_block.scheme<i8 : f32>>) -> !quant_block.tensor<4x2x3, #quant_block.scheme<i8 : f32>> {
  %a = quant_block.transpose %q permutation = [1, 2, 0] : !quant_block.tensor<2x3x4, #quant_block.scheme<i8 : f32>> -> !quant_block.tensor<3x4x2, #quant_block.scheme<i8 : f32>>
  %b = quant_block.transpose %a permutation = [1, 2, 0] : !quant_block.tensor<3x4x2, #quant_block.scheme<i8 : f32>> -> !quant_block.tensor<4x2x3, #quant_block.scheme<i8 : f32>>
  return %b : !quant_block.tensor<4x2x3, #quant_block.scheme<i8 : f32>>
}

// -----

// CHECK-LABEL: func.func @reshape_and_slice_folds
// CHECK-SAME: (%[[Q:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.reshape
// CHECK-NOT: quant_block.extract_slice
// CHECK: return %[[Q]], %[[Q]]
func.func @reshape_and_slice_folds(%q: !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>)
    -> (!quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>, !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>) {
  %r = quant_block.reshape %q : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<64x4x32, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>>
  %rr = quant_block.reshape %r : !quant_block.tensor<64x4x32, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>> -> !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
  %s = quant_block.extract_slice %q offsets = [0, 0] sizes = [64, 128]
      : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>> -> !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
  return %rr, %s : !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>, !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
}

// -----

// quantize(dequantize(q)) with q's own constant parameters is q exactly: every
// i8 value times 0.5 or 0.25 divides back without rounding.
// CHECK-LABEL: func.func @requantize_exact_int
// CHECK-SAME: (%[[D:.*]]: tensor<2x64xi8>)
// CHECK: %[[Q:.*]] = quant_block.pack %[[D]]
// CHECK-NOT: quant_block.quantize
// CHECK: return %[[Q]]
func.func @requantize_exact_int(%d: tensor<2x64xi8>) -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>> {
  %s = arith.constant dense<[[0.5, 0.25], [2.0, 0.125]]> : tensor<2x2xf32>
  %z = arith.constant dense<[[3, -4], [0, 1]]> : tensor<2x2xi8>
  %q = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi8>)
      : tensor<2x64xi8> -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
  %x = quant_block.dequantize %q : !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>> -> tensor<2x64xf32>
  %r = quant_block.quantize %x scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi8>)
      : tensor<2x64xf32> -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
  return %r : !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
}

// -----

// The same for MXFP4 with E8M0 scales: powers of two never round.
// CHECK-LABEL: func.func @requantize_exact_mxfp4
// CHECK-NOT: quant_block.quantize
// CHECK: return
func.func @requantize_exact_mxfp4(%d: tensor<2x32xf4E2M1FN>) -> !quant_block.tensor<2x32, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU>> {
  %s = arith.constant dense<[[1.0], [0.25]]> : tensor<2x1xf8E8M0FNU>
  %q = quant_block.pack %d scales(%s : tensor<2x1xf8E8M0FNU>) : tensor<2x32xf4E2M1FN> -> !quant_block.tensor<2x32, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU>>
  %x = quant_block.dequantize %q : !quant_block.tensor<2x32, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU>> -> tensor<2x32xf32>
  %r = quant_block.quantize %x scales(%s : tensor<2x1xf8E8M0FNU>) : tensor<2x32xf32> -> !quant_block.tensor<2x32, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU>>
  return %r : !quant_block.tensor<2x32, #quant_block.scheme<f4E2M1FN : f32, block = [32], scale = f8E8M0FNU>>
}

// -----

// i16 values through bf16 (8 significant bits) do not survive: kept.
// CHECK-LABEL: func.func @requantize_inexact_bf16
// CHECK: quant_block.dequantize
// CHECK: quant_block.quantize
func.func @requantize_inexact_bf16(%d: tensor<4xi16>) -> !quant_block.tensor<4, #quant_block.scheme<i16 : bf16>> {
  %s = arith.constant dense<1.0> : tensor<1xf32>
  %q = quant_block.pack %d scales(%s : tensor<1xf32>) : tensor<4xi16> -> !quant_block.tensor<4, #quant_block.scheme<i16 : bf16>>
  %x = quant_block.dequantize %q : !quant_block.tensor<4, #quant_block.scheme<i16 : bf16>> -> tensor<4xbf16>
  %r = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<4xbf16> -> !quant_block.tensor<4, #quant_block.scheme<i16 : bf16>>
  return %r : !quant_block.tensor<4, #quant_block.scheme<i16 : bf16>>
}

// -----

// A scale so large that (q - zp) * s overflows to Inf loses the value: kept.
// (Tiny scales do not lose anything: q * s is an exact multiple of the
// smallest subnormal.)
// CHECK-LABEL: func.func @requantize_inexact_overflow
// CHECK: quant_block.quantize
func.func @requantize_inexact_overflow(%d: tensor<4xi8>) -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>> {
  %s = arith.constant dense<1.0e38> : tensor<1xf32>
  %q = quant_block.pack %d scales(%s : tensor<1xf32>) : tensor<4xi8> -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
  %x = quant_block.dequantize %q : !quant_block.tensor<4, #quant_block.scheme<i8 : f32>> -> tensor<4xf32>
  %r = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<4xf32> -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
  return %r : !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
}

// -----

// Scales only known at run time cannot be proven exact: kept.
// CHECK-LABEL: func.func @requantize_runtime_scales
// CHECK: quant_block.quantize
func.func @requantize_runtime_scales(%d: tensor<4xi8>, %s: tensor<1xf32>) -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>> {
  %q = quant_block.pack %d scales(%s : tensor<1xf32>) : tensor<4xi8> -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
  %x = quant_block.dequantize %q : !quant_block.tensor<4, #quant_block.scheme<i8 : f32>> -> tensor<4xf32>
  %r = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<4xf32> -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
  return %r : !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
}

// -----

// Requantizing with other parameters than the dequantized value's: kept.
// CHECK-LABEL: func.func @requantize_other_scales
// CHECK: quant_block.quantize
func.func @requantize_other_scales(%d: tensor<4xi8>) -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>> {
  %s = arith.constant dense<0.5> : tensor<1xf32>
  %t = arith.constant dense<0.25> : tensor<1xf32>
  %q = quant_block.pack %d scales(%s : tensor<1xf32>) : tensor<4xi8> -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
  %x = quant_block.dequantize %q : !quant_block.tensor<4, #quant_block.scheme<i8 : f32>> -> tensor<4xf32>
  %r = quant_block.quantize %x scales(%t : tensor<1xf32>) : tensor<4xf32> -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
  return %r : !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
}

// -----

// dequantize(quantize(x)) loses information and is never folded.
// CHECK-LABEL: func.func @dequantize_of_quantize_kept
// CHECK: %[[Q:.*]] = quant_block.quantize
// CHECK: %[[X:.*]] = quant_block.dequantize %[[Q]]
// CHECK: return %[[X]]
func.func @dequantize_of_quantize_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant dense<0.5> : tensor<1xf32>
  %q = quant_block.quantize %x scales(%s : tensor<1xf32>) : tensor<4xf32> -> !quant_block.tensor<4, #quant_block.scheme<i8 : f32>>
  %y = quant_block.dequantize %q : !quant_block.tensor<4, #quant_block.scheme<i8 : f32>> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A transposed weight folds into transpose_rhs: the matmul reads the weight
// in its stored [N, K] layout, and the transposed copy goes away.
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!wt = !quant_block.tensor<64x16, #quant_block.scheme<i4 : f32, block = [32, 1], scale = f16>>
// CHECK-LABEL: func.func @matmul_transposed_rhs
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.transpose
// CHECK: %[[Y:.*]] = quant_block.matmul %[[X]], %[[W]] transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<4x64xf32>, !quant_block.tensor<16x64, {{.*}}> -> tensor<4x16xf32>
// CHECK: return %[[Y]]
func.func @matmul_transposed_rhs(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %t = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %y = quant_block.matmul %x, %t accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<4x64xf32>, !wt -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The inverse: a transposed [K, N] weight of a transpose_rhs matmul drops
// the flag.
!w = !quant_block.tensor<64x16, #quant_block.scheme<i8 : f32, block = [32, 1]>>
!wt = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
// CHECK-LABEL: func.func @transpose_rhs_matmul_transposed_rhs
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.transpose
// CHECK: %[[Y:.*]] = quant_block.matmul %[[X]], %[[W]] accumulate(f32) inhibit : tensor<4x64xf32>, !quant_block.tensor<64x16, {{.*}}> -> tensor<4x16xf32>
func.func @transpose_rhs_matmul_transposed_rhs(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %t = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %y = quant_block.matmul %x, %t transpose_rhs accumulate(f32) inhibit : tensor<4x64xf32>, !wt -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The i32-accumulating form (both sides keep blocks of 32 along K), with
// `propagate`: only the operand and the flag change. The transpose has
// another user, so it stays for that one.
!a = !quant_block.tensor<1x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!wt = !quant_block.tensor<64x16, #quant_block.scheme<i4 : f32, block = [32, 1], scale = f16>>
!y = !quant_block.tensor<1x16, #quant_block.scheme<i8 : f32, block = [1, *]>>
// CHECK-LABEL: func.func @integer_dot_transposed_rhs
// CHECK-SAME: (%[[A:.*]]: !quant_block.tensor<1x64, {{.*}}>, %[[W:.*]]: !quant_block.tensor
// CHECK: %[[T:.*]] = quant_block.transpose %[[W]]
// CHECK: %[[Y:.*]] = quant_block.matmul %[[A]], %[[W]] transpose_rhs accumulate(i32) propagate : {{.*}}, !quant_block.tensor<16x64, {{.*}}> -> !quant_block.tensor<1x16,
// CHECK: return %[[Y]], %[[T]]
func.func @integer_dot_transposed_rhs(%a: !a, %w: !w) -> (!y, !wt) {
  %t = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %y = quant_block.matmul %a, %t accumulate(i32) propagate : !a, !wt -> !y
  return %y, %t : !y, !wt
}

// -----

// A batched weight whose last two dimensions are swapped; a rank-2 weight
// shared by every batch.
!w = !quant_block.tensor<2x16x64, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>>
!wt = !quant_block.tensor<2x64x16, #quant_block.scheme<i8 : f32, block = [1, 32, 1]>>
!v = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!vt = !quant_block.tensor<64x16, #quant_block.scheme<i8 : f32, block = [32, 1]>>
// CHECK-LABEL: func.func @batched_transposed_rhs
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x64xf32>, %[[W:.*]]: !quant_block.tensor<2x16x64, {{.*}}>, %[[V:.*]]: !quant_block.tensor<16x64
// CHECK-NOT: quant_block.transpose
// CHECK: quant_block.matmul %[[X]], %[[W]] transpose_rhs accumulate(f32) inhibit : tensor<2x4x64xf32>, !quant_block.tensor<2x16x64,
// CHECK: quant_block.matmul %[[X]], %[[V]] transpose_rhs accumulate(f32) inhibit : tensor<2x4x64xf32>, !quant_block.tensor<16x64,
func.func @batched_transposed_rhs(%x: tensor<2x4x64xf32>, %w: !w, %v: !v) -> (tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %t = quant_block.transpose %w permutation = [0, 2, 1] : !w -> !wt
  %y = quant_block.matmul %x, %t accumulate(f32) inhibit : tensor<2x4x64xf32>, !wt -> tensor<2x4x16xf32>
  %u = quant_block.transpose %v permutation = [1, 0] : !v -> !vt
  %z = quant_block.matmul %x, %u accumulate(f32) inhibit : tensor<2x4x64xf32>, !vt -> tensor<2x4x16xf32>
  return %y, %z : tensor<2x4x16xf32>, tensor<2x4x16xf32>
}

// -----

// A transpose that moves a batch dimension is not a transposed weight.
!w = !quant_block.tensor<64x2x16, #quant_block.scheme<i8 : f32, block = [32, 1, 1]>>
!wt = !quant_block.tensor<2x64x16, #quant_block.scheme<i8 : f32, block = [1, 32, 1]>>
// CHECK-LABEL: func.func @refuse_batch_permutation
// CHECK: %[[T:.*]] = quant_block.transpose
// CHECK: quant_block.matmul %{{.*}}, %[[T]] accumulate(f32)
func.func @refuse_batch_permutation(%x: tensor<2x4x64xf32>, %w: !w) -> tensor<2x4x16xf32> {
  %t = quant_block.transpose %w permutation = [1, 0, 2] : !w -> !wt
  %y = quant_block.matmul %x, %t accumulate(f32) inhibit : tensor<2x4x64xf32>, !wt -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// int4 with one scale per element along the stored innermost dimension: the
// lowering cannot read that weight in whole blocks (the transposed one it
// can), so the transpose stays.
!w = !quant_block.tensor<64x8, #quant_block.scheme<i4 : f32, block = [32, 1]>>
!wt = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
// CHECK-LABEL: func.func @refuse_unpackable_source
// CHECK: %[[T:.*]] = quant_block.transpose
// CHECK: quant_block.matmul %{{.*}}, %[[T]] accumulate(f32)
func.func @refuse_unpackable_source(%x: tensor<4x8xf32>, %w: !w) -> tensor<4x64xf32> {
  %t = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %y = quant_block.matmul %x, %t accumulate(f32) inhibit : tensor<4x8xf32>, !wt -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// There is no transpose_lhs: a transposed quantized activation stays.
!a = !quant_block.tensor<64x4, #quant_block.scheme<i8 : f32, block = [32, 1]>>
!at = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
// CHECK-LABEL: func.func @transposed_lhs_stays
// CHECK: %[[T:.*]] = quant_block.transpose
// CHECK: quant_block.matmul %[[T]], %{{.*}} transpose_rhs accumulate(i32)
func.func @transposed_lhs_stays(%a: !a, %w: !w) -> tensor<4x16xf32> {
  %t = quant_block.transpose %a permutation = [1, 0] : !a -> !at
  %y = quant_block.matmul %t, %w transpose_rhs accumulate(i32) inhibit : !at, !w -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// TOSA's batched linear layer: the weight is transposed, then given a unit
// batch dimension. Both fold: one transpose_rhs matmul on the stored weight.
!w = !quant_block.tensor<128x64, #quant_block.scheme<i4 : f32, block = [1, 32], zero_point = i4>>
!wt = !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [32, 1], zero_point = i4>>
!wb = !quant_block.tensor<1x64x128, #quant_block.scheme<i4 : f32, block = [1, 32, 1], zero_point = i4>>
// CHECK-LABEL: func.func @unit_batch_reshape_of_transposed_rhs
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x64xf32>, %[[W:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.transpose
// CHECK-NOT: quant_block.reshape
// CHECK: quant_block.matmul %[[X]], %[[W]] transpose_rhs accumulate(f32) inhibit : tensor<1x16x64xf32>, !quant_block.tensor<128x64, {{.*}}> -> tensor<1x16x128xf32>
func.func @unit_batch_reshape_of_transposed_rhs(%x: tensor<1x16x64xf32>, %w: !w) -> tensor<1x16x128xf32> {
  %t = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %b = quant_block.reshape %t : !wt -> !wb
  %y = quant_block.matmul %x, %b accumulate(f32) inhibit : tensor<1x16x64xf32>, !wb -> tensor<1x16x128xf32>
  return %y : tensor<1x16x128xf32>
}

// -----

// A reshape that regroups a batched weight is not a unit batch dimension.
!w = !quant_block.tensor<128x64, #quant_block.scheme<i8 : f32, block = [32, 1]>>
!wb = !quant_block.tensor<2x64x64, #quant_block.scheme<i8 : f32, block = [1, 32, 1]>>
// CHECK-LABEL: func.func @refuse_batch_reshape
// CHECK: %[[B:.*]] = quant_block.reshape
// CHECK: quant_block.matmul %{{.*}}, %[[B]] accumulate(f32)
func.func @refuse_batch_reshape(%x: tensor<2x16x64xf32>, %w: !w) -> tensor<2x16x64xf32> {
  %b = quant_block.reshape %w : !w -> !wb
  %y = quant_block.matmul %x, %b accumulate(f32) inhibit : tensor<2x16x64xf32>, !wb -> tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// A repack to the same layout is its input; a repack back to the input's
// layout cancels the first.
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
!t = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], row_tile = 16>>
!t8 = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], row_tile = 8>>
// CHECK-LABEL: func.func @repack_folds
// CHECK-SAME: (%[[W:.*]]: !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>, %[[T:.*]]: !quant_block.tensor
// CHECK: %[[T8:.*]] = quant_block.repack %[[T]] {{.*}} row_tile = 16>> -> {{.*}} row_tile = 8>>
// CHECK: return %[[W]], %[[T]], %[[T8]]
func.func @repack_folds(%w: !w, %t: !t) -> (!w, !t, !t8) {
  %a = quant_block.repack %w : !w -> !t
  %b = quant_block.repack %a : !t -> !w
  %same = quant_block.repack %t : !t -> !t
  %c = quant_block.repack %same : !t -> !t8
  return %b, %same, %c : !w, !t, !t8
}
