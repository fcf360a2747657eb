// RUN: quant-opt %s --split-input-file --quant-block-raise | FileCheck %s

// Dequantize, the issue's linalg form: flat scales and zero points viewed as
// [8, 4] (expand_shape), repeated along a new inner dimension of 32
// (linalg.broadcast) and merged back to the data's [8, 128]
// (collapse_shape).

// CHECK-LABEL: func.func @dequantize_expand_broadcast_collapse(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<32xf32>, %[[ZP:.*]]: tensor<32xi8>)
// CHECK-DAG: %[[S2:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32>
// CHECK-DAG: %[[ZP2:.*]] = tensor.expand_shape %[[ZP]] {{\[\[}}0, 1]] output_shape [8, 4] : tensor<32xi8> into tensor<8x4xi8>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S2]] : tensor<8x4xf32>) zero_points(%[[ZP2]] : tensor<8x4xi8>)
// CHECK-SAME: : tensor<8x128xi8> -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]] : {{.*}} -> tensor<8x128xf32>
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: arith.mulf
// CHECK: return %[[D]]
func.func @dequantize_expand_broadcast_collapse(%q: tensor<8x128xi8>, %s: tensor<32xf32>, %zp: tensor<32xi8>) -> tensor<8x128xf32> {
  %s2 = tensor.expand_shape %s [[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s2 : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %z2 = tensor.expand_shape %zp [[0, 1]] output_shape [8, 4] : tensor<32xi8> into tensor<8x4xi8>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%z2 : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zf : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Without zero point; the scale's unit dimension is added by expand_shape
// and removed by collapse_shape around the broadcast.

// CHECK-LABEL: func.func @dequantize_no_zero_point(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>) : tensor<8x128xi8>
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32]>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: arith.mulf
// CHECK: return %[[D]]
func.func @dequantize_no_zero_point(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %s3 = tensor.expand_shape %s [[0], [1, 2]] output_shape [8, 4, 1] : tensor<8x4xf32> into tensor<8x4x1xf32>
  %s2 = tensor.collapse_shape %s3 [[0], [1, 2]] : tensor<8x4x1xf32> into tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s2 : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %se, %qf : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Broadcasting linalg.generics (as torch-mlir emits them), the zero point
// converted inside the broadcast's body.

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#drop = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dequantize_generic_broadcast(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @dequantize_generic_broadcast(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.generic {indexing_maps = [#drop, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4x32xf32>
  %zb = linalg.generic {indexing_maps = [#drop, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%zp : tensor<8x4xi8>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: i8, %out: f32):
    %f = arith.sitofp %in : i8 to f32
    linalg.yield %f : f32
  } -> tensor<8x4x32xf32>
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %ze : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// One linalg.generic reading the parameters through floordiv maps, the
// form upstream's --lower-quant-ops gives sub-channel types.

#id = affine_map<(d0, d1) -> (d0, d1)>
#group = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// CHECK-LABEL: func.func @dequantize_generic_floordiv(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @dequantize_generic_floordiv(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #group, #group, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x128xi8>, tensor<8x4xf32>, tensor<8x4xi8>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: i8, %b: f32, %c: i8, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %cf = arith.sitofp %c : i8 to f32
    %d = arith.subf %af, %cf : f32
    %m = arith.mulf %d, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// TOSA: reshape + tile + reshape, tosa.cast / sub / mul (shift 0).

// CHECK-LABEL: func.func @dequantize_tosa(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: arith.mulf
// CHECK-NOT: tosa.mul
// CHECK: return %[[D]]
func.func @dequantize_tosa(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %shape3 = tosa.const_shape {values = dense<[8, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %mult = tosa.const_shape {values = dense<[1, 1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %shape2 = tosa.const_shape {values = dense<[8, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s3 = tosa.reshape %s, %shape3 : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<8x4x1xf32>
  %st = tosa.tile %s3, %mult : (tensor<8x4x1xf32>, !tosa.shape<3>) -> tensor<8x4x32xf32>
  %se = tosa.reshape %st, %shape2 : (tensor<8x4x32xf32>, !tosa.shape<2>) -> tensor<8x128xf32>
  %z3 = tosa.reshape %zp, %shape3 : (tensor<8x4xi8>, !tosa.shape<3>) -> tensor<8x4x1xi8>
  %zt = tosa.tile %z3, %mult : (tensor<8x4x1xi8>, !tosa.shape<3>) -> tensor<8x4x32xi8>
  %ze = tosa.reshape %zt, %shape2 : (tensor<8x4x32xi8>, !tosa.shape<2>) -> tensor<8x128xi8>
  %qf = tosa.cast %q : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %zf = tosa.cast %ze : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %d = tosa.sub %qf, %zf : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %r = tosa.mul %d, %se, %shift : (tensor<8x128xf32>, tensor<8x128xf32>, tensor<1xi8>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// TOSA with the data viewed as [8, 4, 32] and the parameters broadcast by
// tosa.sub / tosa.mul themselves (unit dimensions): raised in the 3-D view;
// the reshape back stays (--quant-block-propagate moves it).

// CHECK-LABEL: func.func @dequantize_tosa_implicit_broadcast(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4x1xf32>, %[[ZP:.*]]: tensor<8x4x1xi8>)
// CHECK: %[[Q3:.*]] = tosa.reshape %[[Q]]
// CHECK: %[[P:.*]] = quant_block.pack %[[Q3]] scales(%[[S]] : tensor<8x4x1xf32>) zero_points(%[[ZP]] : tensor<8x4x1xi8>) : tensor<8x4x32xi8>
// CHECK-SAME: -> !quant_block.tensor<8x4x32, #quant_block.scheme<i8 : f32, block = [*], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]] : {{.*}} -> tensor<8x4x32xf32>
// CHECK-NOT: tosa.mul
// CHECK: %[[R:.*]] = tosa.reshape %[[D]]
// CHECK: return %[[R]]
func.func @dequantize_tosa_implicit_broadcast(%q: tensor<8x128xi8>, %s: tensor<8x4x1xf32>, %zp: tensor<8x4x1xi8>) -> tensor<8x128xf32> {
  %shape3 = tosa.const_shape {values = dense<[8, 4, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %shape2 = tosa.const_shape {values = dense<[8, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %q3 = tosa.reshape %q, %shape3 : (tensor<8x128xi8>, !tosa.shape<3>) -> tensor<8x4x32xi8>
  %qf = tosa.cast %q3 : (tensor<8x4x32xi8>) -> tensor<8x4x32xf32>
  %zf = tosa.cast %zp : (tensor<8x4x1xi8>) -> tensor<8x4x1xf32>
  %d = tosa.sub %qf, %zf : (tensor<8x4x32xf32>, tensor<8x4x1xf32>) -> tensor<8x4x32xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.mul %d, %s, %shift : (tensor<8x4x32xf32>, tensor<8x4x1xf32>, tensor<1xi8>) -> tensor<8x4x32xf32>
  %r = tosa.reshape %m, %shape2 : (tensor<8x4x32xf32>, !tosa.shape<2>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Per tensor: a rank-0 scale read by the generic, a splat float zero point
// holding an integer.

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @dequantize_per_tensor(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<f32>)
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<3> : tensor<1x1xi8>
// CHECK-DAG: %[[S11:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S11]] : tensor<1x1xf32>) zero_points(%[[ZP]] : tensor<1x1xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @dequantize_per_tensor(%q: tensor<8x128xi8>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %zp = arith.constant dense<3.0> : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #scalar, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x128xi8>, tensor<f32>, tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: i8, %b: f32, %c: f32, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %d = arith.subf %af, %c : f32
    %m = arith.mulf %b, %d : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Per tensor: a splat scale constant of the data's shape, TOSA's [1, 1]
// broadcast zero point.

// CHECK-LABEL: func.func @dequantize_per_tensor_splat(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<-2> : tensor<1x1xi8>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<1x1xf32>) zero_points(%[[ZP]] : tensor<1x1xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK: return %[[D]]
func.func @dequantize_per_tensor_splat(%q: tensor<8x128xi8>) -> tensor<8x128xf32> {
  %s = arith.constant dense<0.5> : tensor<8x128xf32>
  %zp = "tosa.const"() {values = dense<-2.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %qf = tosa.cast %q : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %d = tosa.sub %qf, %zp : (tensor<8x128xf32>, tensor<1x1xf32>) -> tensor<8x128xf32>
  %r = arith.mulf %d, %s : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Per axis: one scale per row (block [1, *]) and one per column ([*, 1]).

// CHECK-LABEL: func.func @dequantize_per_row(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8xf32>)
// CHECK: %[[S2:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [8, 1]
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S2]] : tensor<8x1xf32>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [*]>>
// CHECK: quant_block.dequantize %[[P]]
func.func @dequantize_per_row(%q: tensor<8x128xi8>, %s: tensor<8xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %se = linalg.broadcast ins(%s : tensor<8xf32>) outs(%e : tensor<8x128xf32>) dimensions = [1]
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// CHECK-LABEL: func.func @dequantize_per_column(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<128xf32>)
// CHECK: %[[S2:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [1, 128]
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S2]] : tensor<1x128xf32>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [*, 1]>>
// CHECK: quant_block.dequantize %[[P]]
func.func @dequantize_per_column(%q: tensor<8x128xi8>, %s: tensor<128xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %se = linalg.broadcast ins(%s : tensor<128xf32>) outs(%e : tensor<8x128xf32>) dimensions = [0]
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// 2-D blocks of 64 x 32.

// CHECK-LABEL: func.func @dequantize_2d_blocks(
// CHECK-SAME: %[[Q:.*]]: tensor<128x128xi8>, %[[S:.*]]: tensor<2x4xf32>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<2x4xf32>)
// CHECK-SAME: -> !quant_block.tensor<128x128, #quant_block.scheme<i8 : f32, block = [64, 32]>>
// CHECK: quant_block.dequantize %[[P]]
func.func @dequantize_2d_blocks(%q: tensor<128x128xi8>, %s: tensor<2x4xf32>) -> tensor<128x128xf32> {
  %e = tensor.empty() : tensor<2x64x4x32xf32>
  %b = linalg.broadcast ins(%s : tensor<2x4xf32>) outs(%e : tensor<2x64x4x32xf32>) dimensions = [1, 3]
  %se = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<2x64x4x32xf32> into tensor<128x128xf32>
  %qf = arith.sitofp %q : tensor<128x128xi8> to tensor<128x128xf32>
  %r = arith.mulf %qf, %se : tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

// A scale constant the frontend expanded already: contracted to the
// smaller constant it repeats.

// CHECK-LABEL: func.func @dequantize_dense_constant(
// CHECK-SAME: %[[Q:.*]]: tensor<2x4xi8>)
// CHECK: %[[S:.*]] = arith.constant dense<{{\[\[}}5.000000e-01, 2.500000e-01], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<2x2xf32>)
// CHECK-SAME: -> !quant_block.tensor<2x4, #quant_block.scheme<i8 : f32, block = [2]>>
// CHECK: quant_block.dequantize %[[P]]
func.func @dequantize_dense_constant(%q: tensor<2x4xi8>) -> tensor<2x4xf32> {
  %s = arith.constant dense<[[0.5, 0.5, 0.25, 0.25], [2.0, 2.0, 4.0, 4.0]]> : tensor<2x4xf32>
  %qf = arith.sitofp %q : tensor<2x4xi8> to tensor<2x4xf32>
  %r = arith.mulf %qf, %s : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// A constant scale that repeats more than the zero point: refined to the
// zero point's blocks.

// CHECK-LABEL: func.func @dequantize_refined_constant(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[S:.*]] = arith.constant dense<1.250000e-01> : tensor<8x4xf32>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>)
// CHECK-SAME: block = [32]
// CHECK: quant_block.dequantize %[[P]]
func.func @dequantize_refined_constant(%q: tensor<8x128xi8>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %se = arith.constant dense<0.125> : tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zf : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Unsigned data and zero points (uitofp): ui8 storage, reinterpreted with
// tensor.bitcast.

// CHECK-LABEL: func.func @dequantize_unsigned(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK-DAG: %[[QU:.*]] = tensor.bitcast %[[Q]] : tensor<8x128xi8> to tensor<8x128xui8>
// CHECK-DAG: %[[ZPU:.*]] = tensor.bitcast %[[ZP]] : tensor<8x4xi8> to tensor<8x4xui8>
// CHECK: %[[P:.*]] = quant_block.pack %[[QU]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZPU]] : tensor<8x4xui8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<ui8 : f32, block = [32], zero_point = ui8>>
// CHECK: quant_block.dequantize %[[P]]
func.func @dequantize_unsigned(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %qf = arith.uitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %zf = arith.uitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zf : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// int4 data and zero points, f16 arithmetic throughout (exact: |q - zp| <=
// 15 fits f16's 11-bit significand, and f16 x f16 products are exact in
// f32).

// CHECK-LABEL: func.func @dequantize_int4_f16(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi4>, %[[S:.*]]: tensor<8x4xf16>, %[[ZP:.*]]: tensor<8x4xi4>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf16>) zero_points(%[[ZP]] : tensor<8x4xi4>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i4 : f16, block = [32], scale = f16, zero_point = i4>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]] : {{.*}} -> tensor<8x128xf16>
// CHECK-NOT: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @dequantize_int4_f16(%q: tensor<8x128xi4>, %s: tensor<8x4xf16>, %zp: tensor<8x4xi4>) -> tensor<8x128xf16> {
  %e = tensor.empty() : tensor<8x4x32xf16>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf16>) outs(%e : tensor<8x4x32xf16>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf16> into tensor<8x128xf16>
  %ei = tensor.empty() : tensor<8x4x32xi4>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi4>) outs(%ei : tensor<8x4x32xi4>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi4> into tensor<8x128xi4>
  %qf = arith.sitofp %q : tensor<8x128xi4> to tensor<8x128xf16>
  %zf = arith.sitofp %ze : tensor<8x128xi4> to tensor<8x128xf16>
  %d = arith.subf %qf, %zf : tensor<8x128xf16>
  %r = arith.mulf %d, %se : tensor<8x128xf16>
  return %r : tensor<8x128xf16>
}

// -----

// f16 scales widened to f32 inside the broadcast: the scheme keeps f16
// scales (the dequantize widens them exactly the same way).

#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @dequantize_f16_scale(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8xf16>)
// CHECK: %[[S2:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xf16> into tensor<8x1xf16>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S2]] : tensor<8x1xf16>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [*], scale = f16>>
// CHECK: quant_block.dequantize %[[P]] : {{.*}} -> tensor<8x128xf32>
// CHECK-NOT: arith.extf
func.func @dequantize_f16_scale(%q: tensor<8x128xi8>, %s: tensor<8xf16>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %se = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8xf16>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f16, %o: f32):
    %x = arith.extf %a : f16 to f32
    linalg.yield %x : f32
  } -> tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// The zero point subtracted in (extended) integers, then converted: the
// contract's own form.

// CHECK-LABEL: func.func @dequantize_integer_subtraction(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.subi
// CHECK: return %[[D]]
func.func @dequantize_integer_subtraction(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zw = arith.extsi %zp : tensor<8x4xi8> to tensor<8x4xi32>
  %ei = tensor.empty() : tensor<8x4x32xi32>
  %zb = linalg.broadcast ins(%zw : tensor<8x4xi32>) outs(%ei : tensor<8x4x32xi32>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi32> into tensor<8x128xi32>
  %qw = arith.extsi %q : tensor<8x128xi8> to tensor<8x128xi32>
  %d = arith.subi %qw, %ze : tensor<8x128xi32>
  %df = arith.sitofp %d : tensor<8x128xi32> to tensor<8x128xf32>
  %r = arith.mulf %df, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A float zero point added after the product (x = q * s + m) is not the
// contract's float domain (one FMA): only the product is raised.

// CHECK-LABEL: func.func @dequantize_then_add(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>, %[[M:.*]]: tensor<8x128xf32>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>)
// CHECK-SAME: #quant_block.scheme<i8 : f32, block = [32]>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK: %[[R:.*]] = arith.addf %[[D]], %[[M]]
// CHECK: return %[[R]]
func.func @dequantize_then_add(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %m: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %p = arith.mulf %qf, %se : tensor<8x128xf32>
  %r = arith.addf %p, %m : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Named linalg ops (linalg.elementwise, linalg.mul) and the zero point
// converted before it is expanded: expand(cast(zp)).

// CHECK-LABEL: func.func @dequantize_linalg_named(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: linalg.mul
// CHECK: return %[[D]]
func.func @dequantize_linalg_named(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zf = arith.sitofp %zp : tensor<8x4xi8> to tensor<8x4xf32>
  %zb = linalg.broadcast ins(%zf : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %e2 = tensor.empty() : tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %d = linalg.elementwise kind=#linalg.elementwise_kind<sub> ins(%qf, %ze : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %r = linalg.mul ins(%d, %se : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Quantize: clamp(roundeven(x / s) + zp, -128, 127), then fptosi.

// CHECK-LABEL: func.func @quantize(
// CHECK-SAME: %[[X:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>) : tensor<8x128xf32>
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[PARTS:.*]]:3 = quant_block.unpack %[[QT]]
// CHECK-NOT: arith.fptosi
// CHECK: return %[[PARTS]]#0 : tensor<8x128xi8>
func.func @quantize(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %a = arith.addf %r, %zf : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %a, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// Quantize with math.round (half away from zero) and a narrow symmetric
// int4 range, no zero point: the scheme records both.

// CHECK-LABEL: func.func @quantize_round_away_narrow(
// CHECK-SAME: %[[X:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<8x4xf32>)
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X]] scales(%[[S]] : tensor<8x4xf32>) : tensor<8x128xf32>
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i4 : f32, block = [32], range = [-7, 7], rounding = half_away_from_zero>>
// CHECK: %[[PARTS:.*]]:2 = quant_block.unpack %[[QT]]
// CHECK-NOT: arith.fptosi
// CHECK: return %[[PARTS]]#0 : tensor<8x128xi4>
func.func @quantize_round_away_narrow(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>) -> tensor<8x128xi4> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.round %d : tensor<8x128xf32>
  %lo = arith.constant dense<-7.0> : tensor<8x128xf32>
  %hi = arith.constant dense<7.0> : tensor<8x128xf32>
  %c1 = arith.minimumf %r, %hi : tensor<8x128xf32>
  %c2 = arith.maximumf %lo, %c1 : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi4>
  return %q : tensor<8x128xi4>
}

// -----

// Quantize with math.trunc (toward zero).

// CHECK-LABEL: func.func @quantize_toward_zero(
// CHECK-SAME: %[[X:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<8x4xf32>)
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X]] scales(%[[S]] : tensor<8x4xf32>) : tensor<8x128xf32>
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], rounding = toward_zero>>
// CHECK: %[[PARTS:.*]]:2 = quant_block.unpack %[[QT]]
// CHECK-NOT: arith.fptosi
// CHECK: return %[[PARTS]]#0 : tensor<8x128xi8>
func.func @quantize_toward_zero(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>) -> tensor<8x128xi8> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.trunc %d : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %r, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// Quantize of an f16 input with f16 scales, divided in f32 (as the contract
// does): expressed f16, scale f16.

// CHECK-LABEL: func.func @quantize_f16(
// CHECK-SAME: %[[X:.*]]: tensor<8x128xf16>, %[[S:.*]]: tensor<8x4xf16>)
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X]] scales(%[[S]] : tensor<8x4xf16>) : tensor<8x128xf16>
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f16, block = [32], scale = f16>>
// CHECK: %[[PARTS:.*]]:2 = quant_block.unpack %[[QT]]
// CHECK-NOT: arith.fptosi
// CHECK: return %[[PARTS]]#0 : tensor<8x128xi8>
func.func @quantize_f16(%x: tensor<8x128xf16>, %s: tensor<8x4xf16>) -> tensor<8x128xi8> {
  %e = tensor.empty() : tensor<8x4x32xf16>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf16>) outs(%e : tensor<8x4x32xf16>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf16> into tensor<8x128xf16>
  %xw = arith.extf %x : tensor<8x128xf16> to tensor<8x128xf32>
  %sw = arith.extf %se : tensor<8x128xf16> to tensor<8x128xf32>
  %d = arith.divf %xw, %sw : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %r, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// Quantize in one linalg.generic with floordiv maps and scalar bounds.

#id = affine_map<(d0, d1) -> (d0, d1)>
#group = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// CHECK-LABEL: func.func @quantize_generic(
// CHECK-SAME: %[[X:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>) : tensor<8x128xf32>
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[PARTS:.*]]:3 = quant_block.unpack %[[QT]]
// CHECK-NOT: arith.fptosi
// CHECK: return %[[PARTS]]#0 : tensor<8x128xi8>
func.func @quantize_generic(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %e = tensor.empty() : tensor<8x128xi8>
  %q = linalg.generic {indexing_maps = [#id, #group, #group, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %zp : tensor<8x128xf32>, tensor<8x4xf32>, tensor<8x4xi8>) outs(%e : tensor<8x128xi8>) {
  ^bb0(%a: f32, %b: f32, %c: i8, %o: i8):
    %d = arith.divf %a, %b : f32
    %r = math.roundeven %d : f32
    %cf = arith.sitofp %c : i8 to f32
    %v = arith.addf %cf, %r : f32
    %c1 = arith.maximumf %v, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// Quantize with TOSA's reshape + tile + reshape expansion, tosa.add and
// tosa.clamp (TOSA itself has no float division: the division is arith's).

// CHECK-LABEL: func.func @quantize_tosa_expansion(
// CHECK-SAME: %[[X:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<8x4xf32>, %[[ZP:.*]]: tensor<8x4xi8>)
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X]] scales(%[[S]] : tensor<8x4xf32>) zero_points(%[[ZP]] : tensor<8x4xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
// CHECK: %[[PARTS:.*]]:3 = quant_block.unpack %[[QT]]
// CHECK-NOT: tosa.clamp
// CHECK: return %[[PARTS]]#0
func.func @quantize_tosa_expansion(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  %shape3 = tosa.const_shape {values = dense<[8, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %mult = tosa.const_shape {values = dense<[1, 1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %shape2 = tosa.const_shape {values = dense<[8, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s3 = tosa.reshape %s, %shape3 : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<8x4x1xf32>
  %st = tosa.tile %s3, %mult : (tensor<8x4x1xf32>, !tosa.shape<3>) -> tensor<8x4x32xf32>
  %se = tosa.reshape %st, %shape2 : (tensor<8x4x32xf32>, !tosa.shape<2>) -> tensor<8x128xf32>
  %z3 = tosa.reshape %zp, %shape3 : (tensor<8x4xi8>, !tosa.shape<3>) -> tensor<8x4x1xi8>
  %zt = tosa.tile %z3, %mult : (tensor<8x4x1xi8>, !tosa.shape<3>) -> tensor<8x4x32xi8>
  %ze = tosa.reshape %zt, %shape2 : (tensor<8x4x32xi8>, !tosa.shape<2>) -> tensor<8x128xi8>
  %zf = tosa.cast %ze : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %a = tosa.add %r, %zf : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c = tosa.clamp %a {min_val = -128.0 : f32, max_val = 127.0 : f32} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %q = arith.fptosi %c : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// Quantize to uint8 with a TOSA clamp and a float zero point constant that
// holds an integer.

// CHECK-LABEL: func.func @quantize_unsigned_tosa_clamp(
// CHECK-SAME: %[[X:.*]]: tensor<8x128xf32>, %[[S:.*]]: tensor<8x4x1xf32>)
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<-128> : tensor<8x4x1xi8>
// CHECK-DAG: %[[X3:.*]] = tosa.reshape %[[X]]
// CHECK-DAG: %[[ZPU:.*]] = tensor.bitcast %[[ZP]] : tensor<8x4x1xi8> to tensor<8x4x1xui8>
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X3]] scales(%[[S]] : tensor<8x4x1xf32>) zero_points(%[[ZPU]] : tensor<8x4x1xui8>)
// CHECK-SAME: -> !quant_block.tensor<8x4x32, #quant_block.scheme<ui8 : f32, block = [*], zero_point = ui8>>
// CHECK: %[[PARTS:.*]]:3 = quant_block.unpack %[[QT]]
// CHECK: %[[R:.*]] = tensor.bitcast %[[PARTS]]#0 : tensor<8x4x32xui8> to tensor<8x4x32xi8>
// CHECK-NOT: tosa.clamp
// CHECK: return %[[R]]
func.func @quantize_unsigned_tosa_clamp(%x: tensor<8x128xf32>, %s: tensor<8x4x1xf32>) -> tensor<8x4x32xi8> {
  %shape3 = tosa.const_shape {values = dense<[8, 4, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %shape3 : (tensor<8x128xf32>, !tosa.shape<3>) -> tensor<8x4x32xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %se = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x4x1xf32>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4x32xf32>
  %d = arith.divf %x3, %se : tensor<8x4x32xf32>
  %r = math.roundeven %d : tensor<8x4x32xf32>
  %zp = "tosa.const"() {values = dense<128.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %a = tosa.add %r, %zp : (tensor<8x4x32xf32>, tensor<1x1x1xf32>) -> tensor<8x4x32xf32>
  %c = tosa.clamp %a {min_val = 0.0 : f32, max_val = 255.0 : f32} : (tensor<8x4x32xf32>) -> tensor<8x4x32xf32>
  %q = arith.fptoui %c : tensor<8x4x32xf32> to tensor<8x4x32xi8>
  return %q : tensor<8x4x32xi8>
}

// -----

// Dynamic shapes, unknown ops and plain arithmetic are left alone.

// CHECK-LABEL: func.func @untouched(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: math.tanh
func.func @untouched(%a: tensor<?x128xf32>, %b: tensor<?x128xf32>, %c: tensor<8x128xf32>, %d: tensor<8x128xf32>) -> (tensor<?x128xf32>, tensor<8x128xf32>) {
  %m = arith.mulf %a, %b : tensor<?x128xf32>
  %n = arith.mulf %c, %d : tensor<8x128xf32>
  %t = math.tanh %n : tensor<8x128xf32>
  return %m, %t : tensor<?x128xf32>, tensor<8x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Refusals: each is left exactly as it was.
//===----------------------------------------------------------------------===//

// A tile repeats the whole [8, 4] tensor 32 times along dimension 1
// (element j reads s[j mod 4]): periodic, not blockwise.

// CHECK-LABEL: func.func @refuse_tile(
// CHECK-NOT: quant_block
// CHECK: tosa.mul
func.func @refuse_tile(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %mult = tosa.const_shape {values = dense<[1, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %se = tosa.tile %s, %mult : (tensor<8x4xf32>, !tosa.shape<2>) -> tensor<8x128xf32>
  %qf = tosa.cast %q : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %r = tosa.mul %qf, %se, %shift : (tensor<8x128xf32>, tensor<8x128xf32>, tensor<1xi8>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// The new dimension is outside the scale's: collapsing [8, 32, 4] gives
// s[i, j mod 4] again, not a block of 32.

// CHECK-LABEL: func.func @refuse_interleaved_broadcast(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_interleaved_broadcast(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x32x4xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x32x4xf32>) dimensions = [1]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x32x4xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A transposed read of the scales: blockwise, but of the transpose of %s,
// which the pass does not build.

#id = affine_map<(d0, d1) -> (d0, d1)>
#transposed = affine_map<(d0, d1) -> (d1 floordiv 32, d0)>
// CHECK-LABEL: func.func @refuse_transposed(
// CHECK-NOT: quant_block
// CHECK: linalg.generic
func.func @refuse_transposed(%q: tensor<8x128xi8>, %s: tensor<4x8xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #transposed, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<8x128xi8>, tensor<4x8xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: i8, %b: f32, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %m = arith.mulf %af, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Scales in groups of 32, zero points in groups of 64: no single scheme.

#id = affine_map<(d0, d1) -> (d0, d1)>
#g32 = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#g64 = affine_map<(d0, d1) -> (d0, d1 floordiv 64)>
// CHECK-LABEL: func.func @refuse_mismatched_blocks(
// CHECK-NOT: quant_block
// CHECK: linalg.generic
func.func @refuse_mismatched_blocks(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x2xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #g32, #g64, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x128xi8>, tensor<8x4xf32>, tensor<8x2xi8>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: i8, %b: f32, %c: i8, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %cf = arith.sitofp %c : i8 to f32
    %d = arith.subf %af, %cf : f32
    %m = arith.mulf %d, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A scale of the data's own shape repeats nothing.

// CHECK-LABEL: func.func @refuse_elementwise_scale(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_elementwise_scale(%q: tensor<8x128xi8>, %s: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %s : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Ragged groups (100 = 3 x 32 + 4) are not read from floordiv maps.

#id = affine_map<(d0, d1) -> (d0, d1)>
#group = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// CHECK-LABEL: func.func @refuse_ragged(
// CHECK-NOT: quant_block
// CHECK: linalg.generic
func.func @refuse_ragged(%q: tensor<8x100xi8>, %s: tensor<8x4xf32>) -> tensor<8x100xf32> {
  %e = tensor.empty() : tensor<8x100xf32>
  %r = linalg.generic {indexing_maps = [#id, #group, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<8x100xi8>, tensor<8x4xf32>) outs(%e : tensor<8x100xf32>) {
  ^bb0(%a: i8, %b: f32, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %m = arith.mulf %af, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x100xf32>
  return %r : tensor<8x100xf32>
}

// -----

// The data itself is broadcast: not a quantized tensor of the result's
// shape.

// CHECK-LABEL: func.func @refuse_broadcast_data(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_broadcast_data(%q: tensor<128xi8>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x128xi8>
  %qb = linalg.broadcast ins(%q : tensor<128xi8>) outs(%ei : tensor<8x128xi8>) dimensions = [0]
  %qf = arith.sitofp %qb : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// i16 data converted to f16 (11-bit significand) is rounded: not the
// contract's exact q - zp.

// CHECK-LABEL: func.func @refuse_inexact_f16(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_inexact_f16(%q: tensor<8x128xi16>, %s: tensor<8x4xf16>) -> tensor<8x128xf16> {
  %e = tensor.empty() : tensor<8x4x32xf16>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf16>) outs(%e : tensor<8x4x32xf16>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf16> into tensor<8x128xf16>
  %qf = arith.sitofp %q : tensor<8x128xi16> to tensor<8x128xf16>
  %r = arith.mulf %qf, %se : tensor<8x128xf16>
  return %r : tensor<8x128xf16>
}

// -----

// A zero point of 0.5 is not an integer zero point.

// CHECK-LABEL: func.func @refuse_fractional_zero_point(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_fractional_zero_point(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zp = arith.constant dense<0.5> : tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zp : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A zero point of 200 does not fit the i8 data's type.

// CHECK-LABEL: func.func @refuse_zero_point_out_of_range(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_zero_point_out_of_range(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zp = arith.constant dense<200.0> : tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zp : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A float zero point known only at run time may not hold integers.

// CHECK-LABEL: func.func @refuse_float_zero_point_argument(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_float_zero_point_argument(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %ze : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// uitofp of a sign-extended value reads negative data as huge numbers.

// CHECK-LABEL: func.func @refuse_uitofp_of_extsi(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_uitofp_of_extsi(%q: tensor<8x128xi4>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qw = arith.extsi %q : tensor<8x128xi4> to tensor<8x128xi8>
  %qf = arith.uitofp %qw : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// An integer subtraction that can wrap (i8 - i8 in i8).

// CHECK-LABEL: func.func @refuse_wrapping_subtraction(
// CHECK-NOT: quant_block
// CHECK: arith.mulf
func.func @refuse_wrapping_subtraction(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi4>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zw = arith.extsi %zp : tensor<8x4xi4> to tensor<8x4xi8>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zw : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %d = arith.subi %q, %ze : tensor<8x128xi8>
  %df = arith.sitofp %d : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %df, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

// -----

// A NaN-ignoring clamp (maxnumf / minnumf) turns NaN into qmin or qmax;
// the contract turns it into the zero point.

// CHECK-LABEL: func.func @refuse_maxnumf_clamp(
// CHECK-NOT: quant_block
// CHECK: arith.fptosi
func.func @refuse_maxnumf_clamp(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>) -> tensor<8x128xi8> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maxnumf %r, %lo : tensor<8x128xf32>
  %c2 = arith.minnumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// Rounding after adding the zero point: roundeven(y + 1) differs from
// roundeven(y) + 1 at y = 0.5.

// CHECK-LABEL: func.func @refuse_round_after_zero_point(
// CHECK-NOT: quant_block
// CHECK: arith.fptosi
func.func @refuse_round_after_zero_point(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %a = arith.addf %d, %zf : tensor<8x128xf32>
  %r = math.roundeven %a : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %r, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// TOSA has no float division: x * reciprocal(s) rounds differently from
// the contract's true division.

// CHECK-LABEL: func.func @refuse_reciprocal_multiply(
// CHECK-NOT: quant_block
// CHECK: arith.fptosi
func.func @refuse_reciprocal_multiply(%x: tensor<8x128xf32>, %s: tensor<8x4x1xf32>) -> tensor<8x128xi8> {
  %shape3 = tosa.const_shape {values = dense<[8, 4, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %shape2 = tosa.const_shape {values = dense<[8, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %shape3 : (tensor<8x128xf32>, !tosa.shape<3>) -> tensor<8x4x32xf32>
  %rs = tosa.reciprocal %s : (tensor<8x4x1xf32>) -> tensor<8x4x1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %d = tosa.mul %x3, %rs, %shift : (tensor<8x4x32xf32>, tensor<8x4x1xf32>, tensor<1xi8>) -> tensor<8x4x32xf32>
  %r = math.roundeven %d : tensor<8x4x32xf32>
  %c = tosa.clamp %r {min_val = -128.0 : f32, max_val = 127.0 : f32} : (tensor<8x4x32xf32>) -> tensor<8x4x32xf32>
  %q = arith.fptosi %c : tensor<8x4x32xf32> to tensor<8x4x32xi8>
  %q2 = tosa.reshape %q, %shape2 : (tensor<8x4x32xi8>, !tosa.shape<2>) -> tensor<8x128xi8>
  return %q2 : tensor<8x128xi8>
}

// -----

// Dividing in f16 rounds the quotient to f16 before rounding to an
// integer; the contract divides in f32.

// CHECK-LABEL: func.func @refuse_f16_division(
// CHECK-NOT: quant_block
// CHECK: arith.fptosi
func.func @refuse_f16_division(%x: tensor<8x128xf16>, %s: tensor<8x4xf16>) -> tensor<8x128xi8> {
  %e = tensor.empty() : tensor<8x4x32xf16>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf16>) outs(%e : tensor<8x4x32xf16>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf16> into tensor<8x128xf16>
  %d = arith.divf %x, %se : tensor<8x128xf16>
  %r = math.roundeven %d : tensor<8x128xf16>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf16>
  %hi = arith.constant dense<127.0> : tensor<8x128xf16>
  %c1 = arith.maximumf %r, %lo : tensor<8x128xf16>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf16>
  %q = arith.fptosi %c2 : tensor<8x128xf16> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// Without a clamp the conversion of an out-of-range value has no defined
// result.

// CHECK-LABEL: func.func @refuse_no_clamp(
// CHECK-NOT: quant_block
// CHECK: arith.fptosi
func.func @refuse_no_clamp(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>) -> tensor<8x128xi8> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %q = arith.fptosi %r : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

// -----

// A clamp to [-128, 127] before a conversion to i4 overflows it.

// CHECK-LABEL: func.func @refuse_clamp_wider_than_storage(
// CHECK-NOT: quant_block
// CHECK: arith.fptosi
func.func @refuse_clamp_wider_than_storage(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>) -> tensor<8x128xi4> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %r, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi4>
  return %q : tensor<8x128xi4>
}
