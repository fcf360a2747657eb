// --quant-block-propagate: layout(dequantize(q)) -> dequantize(layout(q)) for
// transposes, reshapes, slices and broadcasts, every refusal, and the
// propagate / inhibit choice for quant_block.matmul.
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-propagate | FileCheck %s
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-propagate=propagation=inhibit | FileCheck %s --check-prefix=INHIBIT
// RUN: not quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-propagate=propagation=sideways 2>&1 | FileCheck %s --check-prefix=BAD
// The same values before and after, bit for bit, compiled and run:
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/propagate-semantics.mlir --pass='quant-block-propagate' --expect-change | FileCheck %s --check-prefix=SEMANTICS
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/propagate-inhibit-semantics.mlir --pass='quant-block-propagate{propagation=inhibit}' --expect-change | FileCheck %s --check-prefix=SEMANTICS

// The option parser rejects an unknown mode before the pass runs.
// BAD: for the --propagation option: Cannot find option named 'sideways'!
// SEMANTICS: PASS

!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32], zero_point = i8>>

// CHECK-LABEL: func.func @linalg_transpose
// CHECK-SAME: (%[[Q:.*]]: !quant_block.tensor
// CHECK: %[[T:.*]] = quant_block.transpose %[[Q]] permutation = [1, 0]
// CHECK-SAME: -> !quant_block.tensor<64x4, #quant_block.scheme<i8 : f32, block = [32, 1], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[T]]
// CHECK-SAME: -> tensor<64x4xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[D]]
func.func @linalg_transpose(%q: !q) -> tensor<64x4xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %e = tensor.empty() : tensor<64x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x64xf32>) outs(%e : tensor<64x4xf32>) permutation = [1, 0]
  return %t : tensor<64x4xf32>
}

// -----

!q = !quant_block.tensor<2x4x64, #quant_block.scheme<f8E4M3FN : bf16, block = [32], scale = bf16>>

// CHECK-LABEL: func.func @tosa_transpose
// CHECK: %[[T:.*]] = quant_block.transpose %{{.*}} permutation = [2, 0, 1]
// CHECK-SAME: -> !quant_block.tensor<64x2x4, #quant_block.scheme<f8E4M3FN : bf16, block = [32, 1, 1], scale = bf16>>
// CHECK: quant_block.dequantize %[[T]]
// CHECK-NOT: tosa.transpose
func.func @tosa_transpose(%q: !q) -> tensor<64x2x4xbf16> {
  %x = quant_block.dequantize %q : !q -> tensor<2x4x64xbf16>
  %t = tosa.transpose %x {perms = array<i32: 2, 0, 1>} : (tensor<2x4x64xbf16>) -> tensor<64x2x4xbf16>
  return %t : tensor<64x2x4xbf16>
}

// -----

// A blocked outer scale (K-quant super-blocks) is permuted with the blocks.
!q = !quant_block.tensor<4x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>

// CHECK-LABEL: func.func @transpose_blocked_outer
// CHECK: quant_block.transpose %{{.*}} permutation = [1, 0]
// CHECK-SAME: -> !quant_block.tensor<256x4, #quant_block.scheme<ui4 : f32, block = [32, 1], scale = ui6, zero_point = ui6, outer = <f16, block = [8, 1], min = f16>>>
func.func @transpose_blocked_outer(%q: !q) -> tensor<256x4xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x256xf32>
  %e = tensor.empty() : tensor<256x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x256xf32>) outs(%e : tensor<256x4xf32>) permutation = [1, 0]
  return %t : tensor<256x4xf32>
}

// -----

// A per-tensor scheme stays per-tensor.
!q = !quant_block.tensor<4x8, #quant_block.scheme<i8 : f32>>

// CHECK-LABEL: func.func @transpose_per_tensor
// CHECK: quant_block.transpose %{{.*}} permutation = [1, 0]
// CHECK-SAME: -> !quant_block.tensor<8x4, #quant_block.scheme<i8 : f32>>
func.func @transpose_per_tensor(%q: !q) -> tensor<8x4xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  return %t : tensor<8x4xf32>
}

// -----

// Every user of the dequantize gets its own: the layout op's, and the rest
// keep the original.
!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>

// CHECK-LABEL: func.func @transpose_other_users
// CHECK-DAG: %[[D:.*]] = quant_block.dequantize %[[Q:[^ ]*]] : {{.*}} -> tensor<4x64xf32>
// CHECK-DAG: %[[T:.*]] = quant_block.transpose %[[Q]]
// CHECK-DAG: %[[DT:.*]] = quant_block.dequantize %[[T]]
// CHECK: return %[[DT]], %[[D]]
func.func @transpose_other_users(%q: !q) -> (tensor<64x4xf32>, tensor<4x64xf32>) {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %e = tensor.empty() : tensor<64x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x64xf32>) outs(%e : tensor<64x4xf32>) permutation = [1, 0]
  return %t, %x : tensor<64x4xf32>, tensor<4x64xf32>
}

// -----

!q = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [1, 32], zero_point = i4>>

// Blocks are merged with their rows: [4, 64] in blocks [1, 32] is [256] in
// blocks [32].
// CHECK-LABEL: func.func @collapse_shape
// CHECK: %[[R:.*]] = quant_block.reshape %{{.*}} : !quant_block.tensor<4x64, {{.*}}> -> !quant_block.tensor<256, #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>>
// CHECK: quant_block.dequantize %[[R]] {{.*}} -> tensor<256xf32>
// CHECK-NOT: tensor.collapse_shape
func.func @collapse_shape(%q: !q) -> tensor<256xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x64xf32> into tensor<256xf32>
  return %c : tensor<256xf32>
}

// -----

!q = !quant_block.tensor<64, #quant_block.scheme<i4 : f32, block = [32]>>

// Splitting the blocked dimension: a block of 32 becomes 2 rows of 16.
// CHECK-LABEL: func.func @expand_shape
// CHECK: quant_block.reshape %{{.*}} -> !quant_block.tensor<4x16, #quant_block.scheme<i4 : f32, block = [2, 16]>>
// CHECK: quant_block.reshape %{{.*}} -> !quant_block.tensor<2x32, #quant_block.scheme<i4 : f32, block = [32]>>
// CHECK-NOT: tensor.expand_shape
func.func @expand_shape(%q: !q) -> (tensor<4x16xf32>, tensor<2x32xf32>) {
  %x = quant_block.dequantize %q : !q -> tensor<64xf32>
  %a = tensor.expand_shape %x [[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
  %b = tensor.expand_shape %x [[0, 1]] output_shape [2, 32] : tensor<64xf32> into tensor<2x32xf32>
  return %a, %b : tensor<4x16xf32>, tensor<2x32xf32>
}

// -----

!q = !quant_block.tensor<8x4x32, #quant_block.scheme<i4 : f32, block = [1, 32]>>

// The WebNN/ONNX (M, K/32, 32) view folded back to (M, K), through
// tensor.reshape and tosa.reshape.
// CHECK-LABEL: func.func @reshape_ops
// CHECK: quant_block.reshape %{{.*}} -> !quant_block.tensor<8x128, #quant_block.scheme<i4 : f32, block = [32]>>
// CHECK: quant_block.reshape %{{.*}} -> !quant_block.tensor<32x32, #quant_block.scheme<i4 : f32, block = [32]>>
// CHECK-NOT: tensor.reshape
// CHECK-NOT: tosa.reshape
func.func @reshape_ops(%q: !q) -> (tensor<8x128xf32>, tensor<32x32xf32>) {
  %x = quant_block.dequantize %q : !q -> tensor<8x4x32xf32>
  %shape = arith.constant dense<[8, 128]> : tensor<2xindex>
  %a = tensor.reshape %x(%shape) : (tensor<8x4x32xf32>, tensor<2xindex>) -> tensor<8x128xf32>
  %s = tosa.const_shape {values = dense<[32, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.reshape %x, %s : (tensor<8x4x32xf32>, !tosa.shape<2>) -> tensor<32x32xf32>
  return %a, %b : tensor<8x128xf32>, tensor<32x32xf32>
}

// -----

!q = !quant_block.tensor<24, #quant_block.scheme<i8 : f32, block = [4]>>

// Rows of 6 would cut the blocks of 4: refused, not miscompiled.
// CHECK-LABEL: func.func @reshape_cuts_block
// CHECK: %[[D:.*]] = quant_block.dequantize
// CHECK: tensor.expand_shape %[[D]]
// CHECK-NOT: quant_block.reshape
func.func @reshape_cuts_block(%q: !q) -> tensor<4x6xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<24xf32>
  %r = tensor.expand_shape %x [[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

!q = !quant_block.tensor<2x40, #quant_block.scheme<i8 : f32, block = [32]>>

// A ragged last block cannot take part in a regrouped dimension.
// CHECK-LABEL: func.func @reshape_ragged
// CHECK: tensor.collapse_shape
// CHECK-NOT: quant_block.reshape
func.func @reshape_ragged(%q: !q) -> tensor<80xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<2x40xf32>
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<2x40xf32> into tensor<80xf32>
  return %r : tensor<80xf32>
}

// -----

!q = !quant_block.tensor<64, #quant_block.scheme<mxfp4>>

// MX blocks must stay 32 elements along one dimension: [4, 16] would need a
// [2, 16] block, which no MX scheme has.
// CHECK-LABEL: func.func @reshape_mx
// CHECK: quant_block.reshape %{{.*}} -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 16]
func.func @reshape_mx(%q: !q) -> (tensor<2x32xf32>, tensor<4x16xf32>) {
  %x = quant_block.dequantize %q : !q -> tensor<64xf32>
  %a = tensor.expand_shape %x [[0, 1]] output_shape [2, 32] : tensor<64xf32> into tensor<2x32xf32>
  %b = tensor.expand_shape %x [[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
  return %a, %b : tensor<2x32xf32>, tensor<4x16xf32>
}

// -----

!q = !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [32]>>

// quant_block.reshape needs static shapes.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK: tensor.collapse_shape
// CHECK-NOT: quant_block.reshape
func.func @reshape_dynamic(%q: !q) -> tensor<?xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<?x64xf32>
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<?x64xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

!q = !quant_block.tensor<4x64, #quant_block.scheme<mxfp4>>

// CHECK-LABEL: func.func @slice_aligned
// CHECK: %[[S:.*]] = quant_block.extract_slice %{{.*}} offsets = [2, 32] sizes = [2, 32]
// CHECK-SAME: -> !quant_block.tensor<2x32, #quant_block.scheme<mxfp4>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[S]]
// CHECK-NOT: tensor.extract_slice
// CHECK: return %[[D]]
func.func @slice_aligned(%q: !q) -> tensor<2x32xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %s = tensor.extract_slice %x[2, 32] [2, 32] [1, 1] : tensor<4x64xf32> to tensor<2x32xf32>
  return %s : tensor<2x32xf32>
}

// -----

!q = !quant_block.tensor<4x128, #quant_block.scheme<i4 : f16, block = [32], scale = f16>>

// A slice that does not start on a block boundary, or is strided, keeps the
// smallest block-aligned window quantized and slices the rest in float.
// CHECK-LABEL: func.func @slice_unaligned
// CHECK: %[[W:.*]] = quant_block.extract_slice %{{.*}} offsets = [1, 32] sizes = [2, 64]
// CHECK: %[[D:.*]] = quant_block.dequantize %[[W]] {{.*}} -> tensor<2x64xf16>
// CHECK: tensor.extract_slice %[[D]][0, 8] [2, 40] [1, 1] : tensor<2x64xf16> to tensor<2x40xf16>
// CHECK: %[[V:.*]] = quant_block.extract_slice %{{.*}} offsets = [0, 0] sizes = [4, 96]
// CHECK: %[[E:.*]] = quant_block.dequantize %[[V]] {{.*}} -> tensor<4x96xf16>
// CHECK: tensor.extract_slice %[[E]][0, 3] [2, 30] [3, 3] : tensor<4x96xf16> to tensor<2x30xf16>
func.func @slice_unaligned(%q: !q) -> (tensor<2x40xf16>, tensor<2x30xf16>) {
  %x = quant_block.dequantize %q : !q -> tensor<4x128xf16>
  %a = tensor.extract_slice %x[1, 40] [2, 40] [1, 1] : tensor<4x128xf16> to tensor<2x40xf16>
  %b = tensor.extract_slice %x[0, 3] [2, 30] [3, 3] : tensor<4x128xf16> to tensor<2x30xf16>
  return %a, %b : tensor<2x40xf16>, tensor<2x30xf16>
}

// -----

!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>

// A rank-reducing slice drops its unit dimension with a quant_block.reshape.
// CHECK-LABEL: func.func @slice_rank_reducing
// CHECK: %[[S:.*]] = quant_block.extract_slice %{{.*}} offsets = [3, 0] sizes = [1, 64]
// CHECK: %[[R:.*]] = quant_block.reshape %[[S]] {{.*}} -> !quant_block.tensor<64, #quant_block.scheme<i8 : f32, block = [32]>>
// CHECK: quant_block.dequantize %[[R]] {{.*}} -> tensor<64xf32>
// CHECK-NOT: tensor.
func.func @slice_rank_reducing(%q: !q) -> tensor<64xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %s = tensor.extract_slice %x[3, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32>>

// Per-tensor blocks cover every dimension: the window would be the whole
// tensor, so nothing moves.
// CHECK-LABEL: func.func @slice_whole_window
// CHECK: %[[D:.*]] = quant_block.dequantize
// CHECK: tensor.extract_slice %[[D]][1, 1] [2, 2] [1, 1]
// CHECK-NOT: quant_block.extract_slice
func.func @slice_whole_window(%q: !q) -> tensor<2x2xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %s = tensor.extract_slice %x[1, 1] [2, 2] [1, 1] : tensor<4x64xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// -----

!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>

// CHECK-LABEL: func.func @slice_dynamic_offset
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 32] [1, 1]
// CHECK-NOT: quant_block.extract_slice
func.func @slice_dynamic_offset(%q: !q, %i: index) -> tensor<1x32xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %s = tensor.extract_slice %x[%i, 0] [1, 32] [1, 1] : tensor<4x64xf32> to tensor<1x32xf32>
  return %s : tensor<1x32xf32>
}

// -----

!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32], zero_point = i8>>

// New dimensions get whole-dimension blocks: the scales stay contracted.
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[B:.*]] = quant_block.broadcast %{{.*}} dimensions = [0, 2]
// CHECK-SAME: -> !quant_block.tensor<3x4x5x64, #quant_block.scheme<i8 : f32, block = [*, 1, *, 32], zero_point = i8>>
// CHECK: quant_block.dequantize %[[B]]
// CHECK-NOT: linalg.broadcast
func.func @broadcast(%q: !q) -> tensor<3x4x5x64xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %e = tensor.empty() : tensor<3x4x5x64xf32>
  %b = linalg.broadcast ins(%x : tensor<4x64xf32>) outs(%e : tensor<3x4x5x64xf32>) dimensions = [0, 2]
  return %b : tensor<3x4x5x64xf32>
}

// -----

!q = !quant_block.tensor<64, #quant_block.scheme<mxfp8_e4m3>>

// MX blocks are 32 elements along one dimension only: a new dimension gets
// a block of 1 (the scales are replicated with the data).
// CHECK-LABEL: func.func @broadcast_mx
// CHECK: quant_block.broadcast %{{.*}} dimensions = [0]
// CHECK-SAME: -> !quant_block.tensor<2x64, #quant_block.scheme<mxfp8_e4m3>>
func.func @broadcast_mx(%q: !q) -> tensor<2x64xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<64xf32>
  %e = tensor.empty() : tensor<2x64xf32>
  %b = linalg.broadcast ins(%x : tensor<64xf32>) outs(%e : tensor<2x64xf32>) dimensions = [0]
  return %b : tensor<2x64xf32>
}

// -----

!q = !quant_block.tensor<64, #quant_block.scheme<i8 : f32, block = [32]>>

// quant_block.broadcast has no size operands for a new dynamic dimension.
// CHECK-LABEL: func.func @broadcast_dynamic
// CHECK: linalg.broadcast
// CHECK-NOT: quant_block.broadcast
func.func @broadcast_dynamic(%q: !q, %n: index) -> tensor<?x64xf32> {
  %x = quant_block.dequantize %q : !q -> tensor<64xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %b = linalg.broadcast ins(%x : tensor<64xf32>) outs(%e : tensor<?x64xf32>) dimensions = [0]
  return %b : tensor<?x64xf32>
}

// -----

!q = !quant_block.tensor<8x64, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = ui4>>

// A chain of layout ops moves step by step until the dequantize is last.
// Flattening the transposed tensor would interleave its column blocks, so
// the final collapse_shape stays on the float side.
// CHECK-LABEL: func.func @chain
// CHECK: quant_block.transpose
// CHECK: quant_block.extract_slice %{{.*}} offsets = [32, 0] sizes = [32, 8]
// CHECK: quant_block.reshape %{{.*}} -> !quant_block.tensor<2x16x8, #quant_block.scheme<ui4 : f32, block = [2, 16, 1], scale = f16, zero_point = ui4>>
// CHECK: %[[D:.*]] = quant_block.dequantize
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[D]]
// CHECK-NEXT: return %[[D]], %[[C]]
func.func @chain(%q: !q) -> (tensor<2x16x8xf32>, tensor<256xf32>) {
  %x = quant_block.dequantize %q : !q -> tensor<8x64xf32>
  %e = tensor.empty() : tensor<64x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x64xf32>) outs(%e : tensor<64x8xf32>) permutation = [1, 0]
  %s = tensor.extract_slice %t[32, 0] [32, 8] [1, 1] : tensor<64x8xf32> to tensor<32x8xf32>
  %r = tensor.expand_shape %s [[0, 1], [2]] output_shape [2, 16, 8] : tensor<32x8xf32> into tensor<2x16x8xf32>
  %c = tensor.collapse_shape %r [[0, 1, 2]] : tensor<2x16x8xf32> into tensor<256xf32>
  return %r, %c : tensor<2x16x8xf32>, tensor<256xf32>
}

// -----

// Layout ops on anything else, and other consumers of a dequantize, are left
// alone.
!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>

// CHECK-LABEL: func.func @unrelated
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x64xf32>)
// CHECK: %[[D:.*]] = quant_block.dequantize
// CHECK: arith.addf %[[D]], %[[D]]
// CHECK: "some.op"(%[[D]])
// CHECK-NOT: quant_block.transpose
func.func @unrelated(%q: !q, %f: tensor<4x64xf32>) -> (tensor<64x4xf32>, tensor<4x64xf32>) {
  %e = tensor.empty() : tensor<64x4xf32>
  %t = linalg.transpose ins(%f : tensor<4x64xf32>) outs(%e : tensor<64x4xf32>) permutation = [1, 0]
  %x = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  %a = arith.addf %x, %x : tensor<4x64xf32>
  "some.op"(%x) : (tensor<4x64xf32>) -> ()
  return %t, %a : tensor<64x4xf32>, tensor<4x64xf32>
}

// -----

!w = !quant_block.tensor<256x512, #quant_block.scheme<ui4 : f32, block = [128], scale = f16, zero_point = ui4>>
!y = !quant_block.tensor<8x256, #quant_block.scheme<ui8 : f32, block = [1, *], zero_point = ui8>>

// A matmul whose float result is only requantized returns it quantized
// (propagate); inhibit leaves it.
// CHECK-LABEL: func.func @matmul_requantized
// CHECK: %[[M:.*]] = quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(f32) propagate
// CHECK-SAME: -> !quant_block.tensor<8x256, #quant_block.scheme<ui8 : f32, block = [1, *], zero_point = ui8>>
// CHECK-NOT: quantize_dynamic
// CHECK: return %[[M]]
// INHIBIT-LABEL: func.func @matmul_requantized
// INHIBIT: %[[P:.*]] = quant_block.matmul {{.*}} inhibit
// INHIBIT: %[[Q:.*]] = quant_block.quantize_dynamic minmax %[[P]]
// INHIBIT: return %[[Q]]
func.func @matmul_requantized(%x: tensor<8x512xf32>, %w: !w) -> !y {
  %p = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<8x512xf32>, !w -> tensor<8x256xf32>
  %q = quant_block.quantize_dynamic minmax %p : tensor<8x256xf32> -> !y
  return %q : !y
}

// -----

!w = !quant_block.tensor<64x128, #quant_block.scheme<mxfp4>>
!y = !quant_block.tensor<4x128, #quant_block.scheme<mxfp8_e4m3>>

// The float product has another user: both results are needed.
// CHECK-LABEL: func.func @matmul_product_used
// CHECK: %[[P:.*]] = quant_block.matmul {{.*}} inhibit
// CHECK: quant_block.quantize_dynamic mx %[[P]]
func.func @matmul_product_used(%x: tensor<4x64xf32>, %w: !w) -> (!y, tensor<4x128xf32>) {
  %p = quant_block.matmul %x, %w accumulate(f32) inhibit : tensor<4x64xf32>, !w -> tensor<4x128xf32>
  %q = quant_block.quantize_dynamic mx %p : tensor<4x128xf32> -> !y
  return %q, %p : !y, tensor<4x128xf32>
}

// -----

!w = !quant_block.tensor<64x128, #quant_block.scheme<mxfp4>>
!y = !quant_block.tensor<4x128, #quant_block.scheme<mxfp8_e4m3>>

// inhibit splits a propagated matmul into its float product and the
// requantization the result's scheme calls for (mx here).
// CHECK-LABEL: func.func @matmul_propagated
// CHECK: %[[M:.*]] = quant_block.matmul %{{.*}}, %{{.*}} accumulate(f32) propagate
// CHECK: return %[[M]]
// INHIBIT-LABEL: func.func @matmul_propagated
// INHIBIT: %[[P:.*]] = quant_block.matmul %{{.*}}, %{{.*}} accumulate(f32) inhibit : tensor<4x64xf32>, !quant_block.tensor<64x128, #quant_block.scheme<mxfp4>> -> tensor<4x128xf32>
// INHIBIT: %[[Q:.*]] = quant_block.quantize_dynamic mx %[[P]] : tensor<4x128xf32> -> !quant_block.tensor<4x128, #quant_block.scheme<mxfp8_e4m3>>
// INHIBIT: return %[[Q]]
func.func @matmul_propagated(%x: tensor<4x64xf32>, %w: !w) -> !y {
  %m = quant_block.matmul %x, %w accumulate(f32) propagate : tensor<4x64xf32>, !w -> !y
  return %m : !y
}

// -----

!w = !quant_block.tensor<64x128, #quant_block.scheme<i8 : f32, block = [32, 1]>>
!y = !quant_block.tensor<4x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>

// absmax requantization (no zero points) propagates too.
// CHECK-LABEL: func.func @matmul_absmax
// CHECK: quant_block.matmul {{.*}} propagate
// INHIBIT-LABEL: func.func @matmul_absmax
// INHIBIT: quant_block.quantize_dynamic absmax
func.func @matmul_absmax(%x: tensor<4x64xf32>, %w: !w) -> !y {
  %p = quant_block.matmul %x, %w accumulate(f32) inhibit : tensor<4x64xf32>, !w -> tensor<4x128xf32>
  %q = quant_block.quantize_dynamic absmax %p : tensor<4x128xf32> -> !y
  return %q : !y
}
