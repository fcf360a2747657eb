// RUN: quant-opt %s --split-input-file --quant-block-raise | FileCheck %s
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %s \
// RUN:   --pass='quant-block-raise' --expect-change \
// RUN:   | FileCheck %s --check-prefix=SEMANTICS

// Quantization IR as other projects write it (torch-mlir's linalg lowering,
// IREE's dequantization generics, f16 arithmetic), raised where the
// quant_block op computes exactly the same values (first run line) and compiled
// and run before and after --quant-block-raise with the result bits compared
// (second run line, on the whole file as one module). Forms that compute
// something else are left alone. int4 data arrives one value per byte.

// SEMANTICS-NOT: FAIL
// SEMANTICS: PASS

// torch-mlir's aten.quantize_per_tensor: the f64 scale truncated, the i64
// zero point and the i64 qmin / qmax converted with arith.sitofp inside the
// body. The bounds are conversions of constants, so they are known.

// CHECK-LABEL: func.func @torch_quantize_per_tensor(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[Q:.*]] = quant_block.quantize %[[X]] scales(%{{.*}} : tensor<1x1xf32>) zero_points(%{{.*}} : tensor<1x1xi8>)
// CHECK-SAME: -> !quant_block.tensor<4x8, #quant_block.scheme<i8 : f32, zero_point = i8>>
// CHECK: %[[P:.*]]:3 = quant_block.unpack %[[Q]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]#0
func.func @torch_quantize_per_tensor(%x: tensor<4x8xf32>) -> tensor<4x8xi8> {
  %scale = arith.constant 5.000000e-01 : f64
  %zp = arith.constant 3 : i64
  %qmin = arith.constant -128 : i64
  %qmax = arith.constant 127 : i64
  %e = tensor.empty() : tensor<4x8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %s = arith.truncf %scale : f64 to f32
    %z = arith.sitofp %zp : i64 to f32
    %d = arith.divf %in, %s : f32
    %rr = math.roundeven %d : f32
    %a = arith.addf %rr, %z : f32
    %lo = arith.sitofp %qmin : i64 to f32
    %hi = arith.sitofp %qmax : i64 to f32
    %c1 = arith.maximumf %a, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %q = arith.fptosi %c2 : f32 to i8
    linalg.yield %q : i8
  } -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

// The same with per-row scales and the bounds converted outside the body
// (captured), as tensors of arith ops write them, and ui8 storage.

// CHECK-LABEL: func.func @torch_quantize_per_channel_captured_bounds(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<4xf32>)
// CHECK: quant_block.quantize %[[X]] scales(%{{.*}} : tensor<4x1xf32>)
// CHECK-SAME: -> !quant_block.tensor<4x8, #quant_block.scheme<ui8 : f32, block = [*], zero_point = ui8>>
// CHECK-NOT: linalg.generic
func.func @torch_quantize_per_channel_captured_bounds(%x: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4x8xi8> {
  %zp = arith.constant 128 : i64
  %qmin = arith.constant 0 : i64
  %qmax = arith.constant 255 : i64
  %z = arith.sitofp %zp : i64 to f32
  %lo = arith.sitofp %qmin : i64 to f32
  %hi = arith.sitofp %qmax : i64 to f32
  %e = tensor.empty() : tensor<4x8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xi8>) {
  ^bb0(%in: f32, %sc: f32, %out: i8):
    %d = arith.divf %in, %sc : f32
    %rr = math.roundeven %d : f32
    %a = arith.addf %rr, %z : f32
    %c1 = arith.maximumf %a, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %q = arith.fptoui %c2 : f32 to i8
    linalg.yield %q : i8
  } -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

// Bounds that are not constants (here arguments) are not a scheme's range:
// left alone, and nothing crashes on the way (this used to).

// CHECK-LABEL: func.func @refuse_computed_bounds(
// CHECK-NOT: quant_block
func.func @refuse_computed_bounds(%x: tensor<4x8xf32>, %lo: tensor<4x8xf32>) -> tensor<4x8xi8> {
  %hi = arith.constant 127.0 : f32
  %s = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<4x8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %lo : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xi8>) {
  ^bb0(%in: f32, %l: f32, %out: i8):
    %d = arith.divf %in, %s : f32
    %rr = math.roundeven %d : f32
    %c1 = arith.maximumf %rr, %l : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %q = arith.fptosi %c2 : f32 to i8
    linalg.yield %q : i8
  } -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

// A per-channel dequantize computed in f16 and extended to f32: the
// dequantize to f16 (an f16 product of exact f16 integers and f16 scales is
// the f32 product rounded once), then the extension.

// CHECK-LABEL: func.func @dequantize_f16_product_extended(
// CHECK-SAME: %[[Q:.*]]: tensor<4x8xi8>, %[[S:.*]]: tensor<4xf16>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%{{.*}} : tensor<4x1xf16>)
// CHECK-SAME: -> !quant_block.tensor<4x8, #quant_block.scheme<i8 : f16, block = [*], scale = f16>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]] : {{.*}} -> tensor<4x8xf16>
// CHECK: %[[E:.*]] = arith.extf %[[D]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: return %[[E]]
func.func @dequantize_f16_product_extended(%q: tensor<4x8xi8>, %s: tensor<4xf16>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<4x8xi8>, tensor<4xf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: i8, %b: f16, %o: f32):
    %0 = arith.sitofp %a : i8 to f16
    %1 = arith.mulf %0, %b : f16
    %2 = arith.extf %1 : f16 to f32
    linalg.yield %2 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// The same in bf16 with a zero point, on tensors.

// CHECK-LABEL: func.func @dequantize_bf16_product_extended(
// CHECK: quant_block.pack
// CHECK-SAME: -> !quant_block.tensor<4x8, #quant_block.scheme<i8 : bf16, block = [*], scale = bf16, zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize {{.*}} -> tensor<4x8xbf16>
// CHECK: %[[E:.*]] = arith.extf %[[D]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: return %[[E]]
func.func @dequantize_bf16_product_extended(%q: tensor<4x8xi8>, %s: tensor<4xbf16>, %zp: tensor<4xi8>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<4x8xi8>, tensor<4xbf16>, tensor<4xi8>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: i8, %b: bf16, %z: i8, %o: f32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %z : i8 to i32
    %2 = arith.sitofp %0 : i32 to bf16
    %3 = arith.sitofp %1 : i32 to bf16
    %4 = arith.subf %2, %3 : bf16
    %5 = arith.mulf %4, %b : bf16
    %6 = arith.extf %5 : bf16 to f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Computed in f32 and rounded to f16: exactly the contract's dequantize to
// f16 with f32 scales.

// CHECK-LABEL: func.func @dequantize_f32_product_truncated(
// CHECK-SAME: %[[Q:.*]]: tensor<4x8xi8>, %[[S:.*]]: tensor<4xf32>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%{{.*}} : tensor<4x1xf32>)
// CHECK-SAME: -> !quant_block.tensor<4x8, #quant_block.scheme<i8 : f16, block = [*]>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]] : {{.*}} -> tensor<4x8xf16>
// CHECK-NOT: arith.truncf
// CHECK: return %[[D]]
func.func @dequantize_f32_product_truncated(%q: tensor<4x8xi8>, %s: tensor<4xf32>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<4x8xi8>, tensor<4xf32>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%a: i8, %b: f32, %o: f16):
    %0 = arith.sitofp %a : i8 to f32
    %1 = arith.mulf %0, %b : f32
    %2 = arith.truncf %1 : f32 to f16
    linalg.yield %2 : f16
  } -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

// Not exact: i16 data does not fit f16's integers, and an f64 product
// rounded to f16 rounds once where the contract rounds twice.

// CHECK-LABEL: func.func @refuse_f16_product_of_i16(
// CHECK-NOT: quant_block
func.func @refuse_f16_product_of_i16(%q: tensor<4x8xi16>, %s: tensor<4xf16>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<4x8xi16>, tensor<4xf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: i16, %b: f16, %o: f32):
    %0 = arith.sitofp %a : i16 to f16
    %1 = arith.mulf %0, %b : f16
    %2 = arith.extf %1 : f16 to f32
    linalg.yield %2 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @refuse_f64_product_truncated(
// CHECK-NOT: quant_block
func.func @refuse_f64_product_truncated(%q: tensor<4x8xi8>, %s: tensor<4x1xf64>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<4x8xi8>, tensor<4x1xf64>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%a: i8, %b: f64, %o: f16):
    %0 = arith.sitofp %a : i8 to f64
    %1 = arith.mulf %0, %b : f64
    %2 = arith.truncf %1 : f64 to f16
    linalg.yield %2 : f16
  } -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

// IREE's grouped dequantization, `(f32(q) - zp) * s` with the zero points in
// f32: here they are converted from an integer tensor (uitofp), so they are
// exactly the integer zero points.

// CHECK-LABEL: func.func @iree_grouped_integer_zero_points(
// CHECK: quant_block.pack
// CHECK-SAME: -> !quant_block.tensor<8x4x32, #quant_block.scheme<ui4 : f32, block = [*], zero_point = ui4>>
// CHECK: %[[D:.*]] = quant_block.dequantize
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @iree_grouped_integer_zero_points(%q8: tensor<8x4x32xi8>, %s: tensor<8x4xf32>, %zp8: tensor<8x4xi8>) -> tensor<8x4x32xf32> {
  %q = arith.trunci %q8 : tensor<8x4x32xi8> to tensor<8x4x32xi4>
  %zpi = arith.trunci %zp8 : tensor<8x4xi8> to tensor<8x4xi4>
  %ez = tensor.empty() : tensor<8x4xf32>
  %zp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%zpi : tensor<8x4xi4>) outs(%ez : tensor<8x4xf32>) {
  ^bb0(%in: i4, %out: f32):
    %1 = arith.extui %in : i4 to i32
    %2 = arith.uitofp %1 : i32 to f32
    linalg.yield %2 : f32
  } -> tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x4x32xi4>, tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: i4, %in_0: f32, %in_1: f32, %out: f32):
    %1 = arith.extui %in : i4 to i32
    %2 = arith.uitofp %1 : i32 to f32
    %3 = arith.subf %2, %in_1 : f32
    %4 = arith.mulf %3, %in_0 : f32
    linalg.yield %4 : f32
  } -> tensor<8x4x32xf32>
  return %r : tensor<8x4x32xf32>
}

// -----

// The same with the f32 zero points as arguments: nothing says they are
// integers, and no scheme subtracts a float zero point before scaling.

// CHECK-LABEL: func.func @refuse_iree_grouped_float_zero_points(
// CHECK-NOT: quant_block
func.func @refuse_iree_grouped_float_zero_points(%q8: tensor<8x4x32xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xf32>) -> tensor<8x4x32xf32> {
  %q = arith.trunci %q8 : tensor<8x4x32xi8> to tensor<8x4x32xi4>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x4x32xi4>, tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: i4, %in_0: f32, %in_1: f32, %out: f32):
    %1 = arith.extui %in : i4 to i32
    %2 = arith.uitofp %1 : i32 to f32
    %3 = arith.subf %2, %in_1 : f32
    %4 = arith.mulf %3, %in_0 : f32
    linalg.yield %4 : f32
  } -> tensor<8x4x32xf32>
  return %r : tensor<8x4x32xf32>
}

// -----

// Value-preserving ops on the way: a linalg.copy of the scales, a cast and
// a reshape of the data to the type it already has, an identity generic.

// CHECK-LABEL: func.func @through_copies_and_identities(
// CHECK-SAME: %[[Q:.*]]: tensor<4x8xi8>, %[[S:.*]]: tensor<4xf32>)
// CHECK: %[[SE:.*]] = tensor.expand_shape %[[S]]
// CHECK: %[[P:.*]] = quant_block.pack %{{.*}} scales(%[[SE]] : tensor<4x1xf32>)
// CHECK-SAME: -> !quant_block.tensor<4x8, #quant_block.scheme<i8 : f32, block = [*]>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK: return %[[D]]
func.func @through_copies_and_identities(%q: tensor<4x8xi8>, %s: tensor<4xf32>) -> tensor<4x8xf32> {
  %ec = tensor.empty() : tensor<4xf32>
  %sc = linalg.copy ins(%s : tensor<4xf32>) outs(%ec : tensor<4xf32>) -> tensor<4xf32>
  %qc = tensor.cast %q : tensor<4x8xi8> to tensor<4x8xi8>
  %shape = arith.constant dense<[4, 8]> : tensor<2xi64>
  %qr = tensor.reshape %qc(%shape) : (tensor<4x8xi8>, tensor<2xi64>) -> tensor<4x8xi8>
  %ei = tensor.empty() : tensor<4x8xi8>
  %qi = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%qr : tensor<4x8xi8>) outs(%ei : tensor<4x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    linalg.yield %a : i8
  } -> tensor<4x8xi8>
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%qi, %sc : tensor<4x8xi8>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: i8, %b: f32, %o: f32):
    %0 = arith.sitofp %a : i8 to f32
    %1 = arith.mulf %0, %b : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
