// RUN: quant-opt %s --split-input-file --quant-block-fuse | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-fuse="integer-dot=false" | FileCheck %s --check-prefix=NOINT

// A PyTorch Linear with a group-quantized weight (the transposed-B matmul
// form): the dequantize folds into quant_block.matmul.
// CHECK-LABEL: func.func @linear_transposed_weight
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: !quant_block.tensor
// CHECK-NOT: quant_block.dequantize
// CHECK-NOT: linalg.matmul
// A named linalg.matmul has no written order of summation: the fused op may
// reassociate and contract.
// CHECK: %[[Y:.*]] = quant_block.matmul %[[X]], %[[W]] transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> :
// CHECK: return %[[Y]]
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @linear_transposed_weight(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The [K, N] weight layout, a dynamic token count and a zero splat init.
// CHECK-LABEL: func.func @matmul_kn_weight
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} accumulate(f16) inhibit fastmath<reassoc,contract> : tensor<?x64xf16>, !quant_block.tensor<64x8, {{.*}}> -> tensor<?x8xf16>
!w = !quant_block.tensor<64x8, #quant_block.scheme<ui4 : f16, block = [32, 1], scale = f16, zero_point = ui4>>
func.func @matmul_kn_weight(%x: tensor<?x64xf16>, %w: !w) -> tensor<?x8xf16> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x8xf16>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x8xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<?x8xf16>) -> tensor<?x8xf16>
  %y = linalg.matmul ins(%x, %wd : tensor<?x64xf16>, tensor<64x8xf16>) outs(%init : tensor<?x8xf16>) -> tensor<?x8xf16>
  return %y : tensor<?x8xf16>
}

// -----

// Batched weights (one per batch) through linalg.batch_matmul.
// CHECK-LABEL: func.func @batch_matmul
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<2x4x64xf32>, !quant_block.tensor<2x64x8, {{.*}}> -> tensor<2x4x8xf32>
!w = !quant_block.tensor<2x64x8, #quant_block.scheme<i8 : f32, block = [1, 32, 1]>>
func.func @batch_matmul(%x: tensor<2x4x64xf32>, %w: !w) -> tensor<2x4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<2x64x8xf32>
  %zero = arith.constant dense<0.0> : tensor<2x4x8xf32>
  %y = linalg.batch_matmul ins(%x, %wd : tensor<2x4x64xf32>, tensor<2x64x8xf32>) outs(%zero : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// One weight shared by every batch (a broadcast rhs in a generic with the
// multiply-add body): its body fixes the order over k, so no flags.
// CHECK-LABEL: func.func @generic_shared_weight
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(f32) inhibit : tensor<3x4x64xf32>, !quant_block.tensor<8x64, {{.*}}> -> tensor<3x4x8xf32>
!w = !quant_block.tensor<8x64, #quant_block.scheme<mxfp4 : f32>>
func.func @generic_shared_weight(%x: tensor<3x4x64xf32>, %w: !w) -> tensor<3x4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wd : tensor<3x4x64xf32>, tensor<8x64xf32>) outs(%init : tensor<3x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x4x8xf32>
  return %y : tensor<3x4x8xf32>
}

// -----

// A generic keeps the flags its multiply and add share (fast & (reassoc,
// contract, nnan)).
// CHECK-LABEL: func.func @generic_fastmath
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(f32) inhibit fastmath<reassoc,nnan,contract> : tensor<4x64xf32>
!w = !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
func.func @generic_fastmath(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wd : tensor<4x64xf32>, tensor<8x64xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b fastmath<fast> : f32
    %s = arith.addf %c, %p fastmath<reassoc,contract,nnan> : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// tosa.matmul with zero zero points.
// CHECK-LABEL: func.func @tosa_matmul
// tosa.matmul keeps the strict order.
// CHECK: quant_block.matmul %{{.*}}, %{{.*}} accumulate(f32) inhibit : tensor<1x4x64xf32>, !quant_block.tensor<1x64x8, {{.*}}> -> tensor<1x4x8xf32>
!w = !quant_block.tensor<1x64x8, #quant_block.scheme<i4 : f32, block = [1, 32, 1]>>
func.func @tosa_matmul(%x: tensor<1x4x64xf32>, %w: !w) -> tensor<1x4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<1x64x8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %wd, %zp, %zp : (tensor<1x4x64xf32>, tensor<1x64x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Refusals: each would change the result bits.

// Accumulating into existing values adds them first, not last.
// CHECK-LABEL: func.func @refuse_nonzero_init
// CHECK: quant_block.dequantize
// CHECK: linalg.matmul
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<64x8, #quant_block.scheme<i8 : f32, block = [32, 1]>>
func.func @refuse_nonzero_init(%x: tensor<4x64xf32>, %w: !w, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x8xf32>
  %y = linalg.matmul ins(%x, %wd : tensor<4x64xf32>, tensor<64x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// -0.0 + +0.0 is +0.0: a -0.0 start differs where every product is -0.0.
// CHECK-LABEL: func.func @refuse_negative_zero_init
// CHECK: linalg.matmul
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<64x8, #quant_block.scheme<i8 : f32, block = [32, 1]>>
func.func @refuse_negative_zero_init(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x8xf32>
  %c = arith.constant dense<-0.0> : tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %wd : tensor<4x64xf32>, tensor<64x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// f16 operands accumulated in f32 return f32; quant_block.matmul returns the
// expressed type.
// CHECK-LABEL: func.func @refuse_mixed_precision
// CHECK: linalg.matmul
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<64x8, #quant_block.scheme<i8 : f16, block = [32, 1]>>
func.func @refuse_mixed_precision(%x: tensor<4x64xf16>, %w: !w) -> tensor<4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x8xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %wd : tensor<4x64xf16>, tensor<64x8xf16>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Not a matrix product (a transposed output map).
// CHECK-LABEL: func.func @refuse_transposed_output
// CHECK: linalg.generic
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<64x8, #quant_block.scheme<i8 : f32, block = [32, 1]>>
func.func @refuse_transposed_output(%x: tensor<4x64xf32>, %w: !w) -> tensor<8x4xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<64x8xf32>
  %zero = arith.constant dense<0.0> : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wd : tensor<4x64xf32>, tensor<64x8xf32>) outs(%zero : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// The dequantized value on the left (lhs) is not a weight this pass fuses.
// CHECK-LABEL: func.func @refuse_dequantized_lhs
// CHECK: linalg.matmul
// CHECK-NOT: quant_block.matmul
!w = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @refuse_dequantized_lhs(%w: !w, %y: tensor<64x8xf32>) -> tensor<4x8xf32> {
  %wd = quant_block.dequantize %w : !w -> tensor<4x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x8xf32>
  %r = linalg.matmul ins(%wd, %y : tensor<4x64xf32>, tensor<64x8xf32>) outs(%zero : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Dynamic int8 activation quantization per block of 32 times an int4 weight
// with blocks of 32 along K: an integer dot product accumulating in i32.
// CHECK-LABEL: func.func @integer_dot
// CHECK: %[[XQ:.*]] = quant_block.quantize_dynamic absmax
// CHECK-NOT: quant_block.dequantize
// CHECK: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit fastmath<reassoc,contract> :
// NOINT-LABEL: func.func @integer_dot
// NOINT: %[[X:.*]] = quant_block.dequantize
// NOINT: quant_block.matmul %[[X]], %{{.*}} transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> :
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @integer_dot(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The same with an MXFP4 weight (E2M1 codes, E8M0 scales per 32): its codes
// enter the integer block sums as twice their values (llama.cpp's MXFP4 x
// Q8_0), so it is an integer dot product too.
// CHECK-LABEL: func.func @integer_dot_mxfp4
// CHECK: %[[XQ:.*]] = quant_block.quantize_dynamic absmax
// CHECK-NOT: quant_block.dequantize
// CHECK: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit fastmath<reassoc,contract> :
// NOINT-LABEL: func.func @integer_dot_mxfp4
// NOINT: quant_block.matmul %{{.*}}, %{{.*}} transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> :
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<mxfp4>>
func.func @integer_dot_mxfp4(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// NVFP4 (E4M3 scales per 16, a per-tensor outer scale) with activations in
// blocks of 16: an integer dot product too, the weight's block scales
// multiplied by the outer one.
// CHECK-LABEL: func.func @integer_dot_nvfp4
// CHECK: %[[XQ:.*]] = quant_block.quantize_dynamic absmax
// CHECK: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<nvfp4>>
func.func @integer_dot_nvfp4(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Per-token activations (one block over all of K) against groups of 32: the
// blocks along K differ, so the product stays in floats.
// CHECK-LABEL: func.func @integer_dot_refused_blocks
// CHECK: %[[X:.*]] = quant_block.dequantize
// CHECK: quant_block.matmul %[[X]], %{{.*}} transpose_rhs accumulate(f32) inhibit
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, *]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @integer_dot_refused_blocks(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// 4-bit activations (W4A4): an integer dot product too, the activation codes
// unpacked by the lowering.
// CHECK-LABEL: func.func @integer_dot_sub_byte_lhs
// CHECK: %[[XQ:.*]] = quant_block.quantize_dynamic absmax
// CHECK: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit
!x = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @integer_dot_sub_byte_lhs(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A linear layer as torch-mlir writes it (the weight transposed before the
// product; --quant-block-propagate made it a quant_block.transpose of the
// packed weight). The lowering cannot read the transposed int4 weight (one
// scale per packed code along its rows), but this pass's canonicalization
// folds the transpose into transpose_rhs, so the product it forms is the
// integer one on the weight as stored.
// CHECK-LABEL: func.func @integer_dot_transposed_weight
// CHECK: %[[XQ:.*]] = quant_block.quantize_dynamic absmax
// CHECK-NOT: quant_block.transpose
// CHECK: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!wt = !quant_block.tensor<64x16, #quant_block.scheme<i4 : f32, block = [32, 1], scale = f16>>
func.func @integer_dot_transposed_weight(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %wt = quant_block.transpose %w permutation = [1, 0] : !w -> !wt
  %wd = quant_block.dequantize %wt : !wt -> tensor<64x16xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul ins(%xd, %wd : tensor<4x64xf32>, tensor<64x16xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Activation blocks over two rows: their scales are not per row, which the
// i32 lowering reads; the product stays in floats.
// CHECK-LABEL: func.func @integer_dot_refused_lhs_blocks_over_rows
// CHECK: %[[X:.*]] = quant_block.dequantize
// CHECK: quant_block.matmul %[[X]], %{{.*}} transpose_rhs accumulate(f32) inhibit
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [2, 32]>>
!w = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @integer_dot_refused_lhs_blocks_over_rows(%x: tensor<4x64xf32>, %w: !w) -> tensor<4x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %wd = quant_block.dequantize %w : !w -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Integer block scales under a blocked outer scale (a GGUF K-quant
// super-block) and an integer weight under a per-tensor outer scale: the
// lowering folds them into effective block scales, so both become integer
// dot products.
// CHECK-LABEL: func.func @integer_dot_two_level_scales
// CHECK: %[[XQ:.*]] = quant_block.quantize_dynamic absmax
// CHECK: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit
// CHECK: quant_block.matmul %[[XQ]], %{{.*}} transpose_rhs accumulate(i32) inhibit
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!k = !quant_block.tensor<16x64, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui6, zero_point = ui4, outer = <f16, block = [1, 2]>>>
!t = !quant_block.tensor<16x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, outer = <f32>>>
func.func @integer_dot_two_level_scales(%x: tensor<4x64xf32>, %wk: !k, %wt: !t) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !x
  %xd = quant_block.dequantize %xq : !x -> tensor<4x64xf32>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %wkd = quant_block.dequantize %wk : !k -> tensor<16x64xf32>
  %yk = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wkd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  %wtd = quant_block.dequantize %wt : !t -> tensor<16x64xf32>
  %yt = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xd, %wtd : tensor<4x64xf32>, tensor<16x64xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %yk, %yt : tensor<4x16xf32>, tensor<4x16xf32>
}
