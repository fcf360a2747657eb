// GGUF K-quant style super-blocks: ui4 codes in blocks of 4, ui6 block
// scales and ui6 block mins, under f16 super-scales and f16 super-mins, one
// per 2 blocks (Q4_K has blocks of 32 and super-blocks of 8; the structure
// is the same). s_eff = scale * super_scale, m_eff = min * super_min (the
// super-min is ggml's dmin negated), x = fma(q, s_eff, m_eff). Compiled for
// the CPU and executed: dequantize, quantize with the same parameters, the
// fused matmul, and an outer block that does not divide the scales (ragged).
// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!k = !quant_block.tensor<1x16, #quant_block.scheme<ui4 : f32, block = [4], scale = ui6, zero_point = ui6, outer = <f16, block = [2], min = f16>>>
!r = !quant_block.tensor<1x12, #quant_block.scheme<ui4 : f32, block = [4], scale = ui6, outer = <f32, block = [2]>>>

func.func @weight() -> !k {
  %q = arith.constant dense<[[0, 1, 2, 15, 3, 4, 5, 15, 0, 1, 2, 15, 0, 1, 2, 15]]> : tensor<1x16xui4>
  %s = arith.constant dense<[[1, 2, 3, 63]]> : tensor<1x4xui6>
  %m = arith.constant dense<[[0, 1, 5, 63]]> : tensor<1x4xui6>
  %d = arith.constant dense<[[0.5, 0.25]]> : tensor<1x2xf16>
  %dmin = arith.constant dense<[[-0.125, -1.0]]> : tensor<1x2xf16>
  %w = quant_block.pack %q scales(%s : tensor<1x4xui6>) zero_points(%m : tensor<1x4xui6>) outer_scales(%d : tensor<1x2xf16>) outer_mins(%dmin : tensor<1x2xf16>) : tensor<1x16xui4> -> !k
  return %w : !k
}

func.func @requantize(%x: tensor<1x16xf32>, %w: !k) -> tensor<1x16xui4> {
  %p:5 = quant_block.unpack %w : !k -> tensor<1x16xui4>, tensor<1x4xui6>, tensor<1x4xui6>, tensor<1x2xf16>, tensor<1x2xf16>
  %q = quant_block.quantize %x scales(%p#1 : tensor<1x4xui6>) zero_points(%p#2 : tensor<1x4xui6>) outer_scales(%p#3 : tensor<1x2xf16>) outer_mins(%p#4 : tensor<1x2xf16>) : tensor<1x16xf32> -> !k
  %c:5 = quant_block.unpack %q : !k -> tensor<1x16xui4>, tensor<1x4xui6>, tensor<1x4xui6>, tensor<1x2xf16>, tensor<1x2xf16>
  return %c#0 : tensor<1x16xui4>
}

// Widens codes for printing (arith works on signless integers only).
func.func @widen(%c: tensor<1x16xui4>) -> tensor<1x16xi32> {
  %init = tensor.empty() : tensor<1x16xi32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<1x16xui4>) outs(%init : tensor<1x16xi32>) {
  ^bb0(%a: ui4, %o: i32):
    %s = builtin.unrealized_conversion_cast %a : ui4 to i4
    %e = arith.extui %s : i4 to i32
    linalg.yield %e : i32
  } -> tensor<1x16xi32>
  return %w : tensor<1x16xi32>
}

func.func @linear(%x: tensor<2x16xf32>, %w: !k) -> tensor<2x1xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<2x16xf32>, !k -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}

func.func @ragged() -> tensor<1x12xf32> {
  %q = arith.constant dense<[[1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]]> : tensor<1x12xui4>
  %s = arith.constant dense<[[1, 2, 4]]> : tensor<1x3xui6>
  %d = arith.constant dense<[[0.5, 3.0]]> : tensor<1x2xf32>
  %w = quant_block.pack %q scales(%s : tensor<1x3xui6>) outer_scales(%d : tensor<1x2xf32>) : tensor<1x12xui4> -> !r
  %x = quant_block.dequantize %w : !r -> tensor<1x12xf32>
  return %x : tensor<1x12xf32>
}

func.func @main() {
  %w = func.call @weight() : () -> !k
  %x = quant_block.dequantize %w : !k -> tensor<1x16xf32>
  // Block 0: s = 1 * 0.5, m = 0. Block 1: s = 2 * 0.5, m = 1 * -0.125.
  // Block 2: s = 3 * 0.25, m = 5 * -1. Block 3: s = 63 * 0.25, m = 63 * -1.
  // [0, 0.5, 1, 7.5, 2.875, 3.875, 4.875, 14.875, -5, -4.25, -3.5, 6.25, -63, -47.25, -31.5, 173.25]
  // CHECK: {{\[}}[0, 1056964608, 1065353216, 1089470464, 1077411840, 1081606144, 1083965440, 1097728000, -1063256064, -1064828928, -1067450368, 1086849024, -1032060928, -1036189696, -1040449536, 1127038976]]
  %xub = arith.bitcast %x : tensor<1x16xf32> to tensor<1x16xi32>
  %xu = tensor.cast %xub : tensor<1x16xi32> to tensor<*xi32>
  func.call @printMemrefI32(%xu) : (tensor<*xi32>) -> ()

  // q = clamp(round_half_even((x - m) / s), 0, 15): 0.25 / 0.5 = 0.5 -> 0,
  // 1.5 -> 2, 200 -> 15, -2 -> 0 | 3.5 -> 4, 4.5 -> 4, -8.875 -> 0,
  // 0.125 -> 0 | 0.5 -> 0, 6.67 -> 7, 8, 16 -> 15 | 0, 0.5 -> 0, 67.5 -> 15,
  // -59.5 -> 0.
  %x2 = arith.constant dense<[[0.25, 0.75, 100.0, -1.0, 3.375, 4.375, -9.0, 0.0, -4.625, 0.0, 1.0, 7.0, -63.0, -55.125, 1000.0, -1000.0]]> : tensor<1x16xf32>
  %c = func.call @requantize(%x2, %w) : (tensor<1x16xf32>, !k) -> tensor<1x16xui4>
  %ci = func.call @widen(%c) : (tensor<1x16xui4>) -> tensor<1x16xi32>
  // CHECK: {{\[}}[0,   2,   15,   0,   4,   4,   0,   0,   0,   7,   8,   15,   0,   0,   15,   0]]
  %cu = tensor.cast %ci : tensor<1x16xi32> to tensor<*xi32>
  func.call @printMemrefI32(%cu) : (tensor<*xi32>) -> ()
  // The dequantized weight requantizes to its own codes.
  %back = func.call @requantize(%x, %w) : (tensor<1x16xf32>, !k) -> tensor<1x16xui4>
  %bi = func.call @widen(%back) : (tensor<1x16xui4>) -> tensor<1x16xi32>
  // CHECK: {{\[}}[0,   1,   2,   15,   3,   4,   5,   15,   0,   1,   2,   15,   0,   1,   2,   15]]
  %bu = tensor.cast %bi : tensor<1x16xi32> to tensor<*xi32>
  func.call @printMemrefI32(%bu) : (tensor<*xi32>) -> ()

  // Row 0 sums the weight (9 + 26.5 - 6.5 + 31.5); row 1 picks elements
  // 3 and 15 (7.5 + 173.25) and subtracts element 8 (-5).
  %lhs = arith.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                               [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]> : tensor<2x16xf32>
  %y = func.call @linear(%lhs, %w) : (tensor<2x16xf32>, !k) -> tensor<2x1xf32>
  // [60.5]
  // CHECK: {{\[}}[1114767360],
  // [185.75]
  // CHECK-NEXT: [1127858176]]
  %yub = arith.bitcast %y : tensor<2x1xf32> to tensor<2x1xi32>
  %yu = tensor.cast %yub : tensor<2x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%yu) : (tensor<*xi32>) -> ()

  // Three scales under outer blocks of 2: the third block has a super-block
  // of its own (s = 4 * 3).
  // [0.5, 1, 1.5, 2, 1, 2, 3, 4, 12, 24, 36, 48]
  // CHECK: {{\[}}[1056964608, 1065353216, 1069547520, 1073741824, 1065353216, 1073741824, 1077936128, 1082130432, 1094713344, 1103101952, 1108344832, 1111490560]]
  %r = func.call @ragged() : () -> tensor<1x12xf32>
  %rub = arith.bitcast %r : tensor<1x12xf32> to tensor<1x12xi32>
  %ru = tensor.cast %rub : tensor<1x12xi32> to tensor<*xi32>
  func.call @printMemrefI32(%ru) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
