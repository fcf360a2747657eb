// RUN: quant-opt %s --split-input-file --quant-block-raise | FileCheck %s
// RUN: quant-opt %s --split-input-file --lower-quant-ops --quant-block-raise \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// Upstream quant.dcast / qcast / scast on !quant.uniform types (first RUN),
// and the arith / linalg form upstream's own --lower-quant-ops gives them
// (second RUN), raise to the same quant_block ops. Scales become constants of
// the expressed type (as upstream materializes them), zero points constants
// of the storage type, none when all are 0.

// Per tensor: storage reinterpreted by quant.scast, then dequantized.

// CHECK-LABEL: func.func @dcast_per_tensor(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<-3> : tensor<1x1xi8>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<1x1xf32>) zero_points(%[[ZP]] : tensor<1x1xi8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]]
// CHECK-NOT: quant.dcast
// CHECK: return %[[D]]

// LOWERED-LABEL: func.func @dcast_per_tensor(
// LOWERED: quant_block.pack {{.*}} -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, zero_point = i8>>
// LOWERED-NOT: arith.mulf
func.func @dcast_per_tensor(%q: tensor<8x128xi8>) -> tensor<8x128xf32> {
  %0 = quant.scast %q : tensor<8x128xi8> to tensor<8x128x!quant.uniform<i8:f32, 0.5:-3>>
  %1 = quant.dcast %0 : tensor<8x128x!quant.uniform<i8:f32, 0.5:-3>> to tensor<8x128xf32>
  return %1 : tensor<8x128xf32>
}

// -----

// A zero point of 0 is no zero point.

// CHECK-LABEL: func.func @dcast_per_tensor_symmetric(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>)
// CHECK: %[[S:.*]] = arith.constant dense<2.500000e-01> : tensor<1x1xf32>
// CHECK: quant_block.pack %[[Q]] scales(%[[S]] : tensor<1x1xf32>) : tensor<8x128xi8>
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32>>

// LOWERED-LABEL: func.func @dcast_per_tensor_symmetric(
// LOWERED: quant_block.pack {{.*}} -> !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32>>
func.func @dcast_per_tensor_symmetric(%q: tensor<8x128xi8>) -> tensor<8x128xf32> {
  %0 = quant.scast %q : tensor<8x128xi8> to tensor<8x128x!quant.uniform<i8:f32, 0.25>>
  %1 = quant.dcast %0 : tensor<8x128x!quant.uniform<i8:f32, 0.25>> to tensor<8x128xf32>
  return %1 : tensor<8x128xf32>
}

// -----

// Per axis 0: one scale and zero point per row.

// CHECK-LABEL: func.func @dcast_per_axis(
// CHECK-SAME: %[[Q:.*]]: tensor<4x8xi8>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00]]> : tensor<4x1xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<{{\[\[}}1], [2], [3], [4]]> : tensor<4x1xi8>
// CHECK: quant_block.pack %[[Q]] scales(%[[S]] : tensor<4x1xf32>) zero_points(%[[ZP]] : tensor<4x1xi8>)
// CHECK-SAME: -> !quant_block.tensor<4x8, #quant_block.scheme<i8 : f32, block = [*], zero_point = i8>>

// LOWERED-LABEL: func.func @dcast_per_axis(
// LOWERED: quant_block.pack {{.*}} -> !quant_block.tensor<4x8, #quant_block.scheme<i8 : f32, block = [*], zero_point = i8>>
// LOWERED-NOT: linalg.generic
func.func @dcast_per_axis(%q: tensor<4x8xi8>) -> tensor<4x8xf32> {
  %0 = quant.scast %q : tensor<4x8xi8> to tensor<4x8x!quant.uniform<i8:f32:0, {1.0:1, 2.0:2, 3.0:3, 4.0:4}>>
  %1 = quant.dcast %0 : tensor<4x8x!quant.uniform<i8:f32:0, {1.0:1, 2.0:2, 3.0:3, 4.0:4}>> to tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Sub-channel: groups of 32 along axis 1 (axis 0 unspecified: whole).

// CHECK-LABEL: func.func @dcast_sub_channel(
// CHECK-SAME: %[[Q:.*]]: tensor<2x64xi8>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}5.000000e-01, 2.500000e-01]]> : tensor<1x2xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<{{\[\[}}1, 2]]> : tensor<1x2xi8>
// CHECK: quant_block.pack %[[Q]] scales(%[[S]] : tensor<1x2xf32>) zero_points(%[[ZP]] : tensor<1x2xi8>)
// CHECK-SAME: -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [*, 32], zero_point = i8>>

// LOWERED-LABEL: func.func @dcast_sub_channel(
// LOWERED: quant_block.pack {{.*}} -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [*, 32], zero_point = i8>>
// LOWERED-NOT: linalg.generic
func.func @dcast_sub_channel(%q: tensor<2x64xi8>) -> tensor<2x64xf32> {
  %0 = quant.scast %q : tensor<2x64xi8> to tensor<2x64x!quant.uniform<i8:f32:{1:32}, {{0.5:1, 0.25:2}}>>
  %1 = quant.dcast %0 : tensor<2x64x!quant.uniform<i8:f32:{1:32}, {{0.5:1, 0.25:2}}>> to tensor<2x64xf32>
  return %1 : tensor<2x64xf32>
}

// -----

// Sub-channel 2-D blocks of 1 x 32 over a [2, 64] tensor.

// CHECK-LABEL: func.func @dcast_sub_channel_2d(
// CHECK-SAME: %[[Q:.*]]: tensor<2x64xi8>)
// CHECK: %[[S:.*]] = arith.constant dense<{{\[\[}}5.000000e-01, 2.500000e-01], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: quant_block.pack %[[Q]] scales(%[[S]] : tensor<2x2xf32>) : tensor<2x64xi8>
// CHECK-SAME: -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32]>>

// Upstream's lowering materializes the zero zero points; they stay (see
// --quant-block-select-zero-point).
// LOWERED-LABEL: func.func @dcast_sub_channel_2d(
// LOWERED: %[[ZP:.*]] = arith.constant dense<0> : tensor<2x2xi8>
// LOWERED: quant_block.pack {{.*}} zero_points(%[[ZP]] : tensor<2x2xi8>) {{.*}} -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
func.func @dcast_sub_channel_2d(%q: tensor<2x64xi8>) -> tensor<2x64xf32> {
  %0 = quant.scast %q : tensor<2x64xi8> to tensor<2x64x!quant.uniform<i8:f32:{0:1, 1:32}, {{0.5, 0.25}, {2.0, 4.0}}>>
  %1 = quant.dcast %0 : tensor<2x64x!quant.uniform<i8:f32:{0:1, 1:32}, {{0.5, 0.25}, {2.0, 4.0}}>> to tensor<2x64xf32>
  return %1 : tensor<2x64xf32>
}

// -----

// Unsigned storage with a narrow range and f16 expressed values.

// CHECK-LABEL: func.func @dcast_unsigned_narrow_f16(
// CHECK-SAME: %[[Q:.*]]: tensor<8x128xi8>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1xf16>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<-128> : tensor<1x1xi8>
// CHECK-DAG: %[[ZPU:.*]] = tensor.bitcast %[[ZP]] : tensor<1x1xi8> to tensor<1x1xui8>
// CHECK-DAG: %[[QU:.*]] = tensor.bitcast %[[Q]] : tensor<8x128xi8> to tensor<8x128xui8>
// CHECK: %[[P:.*]] = quant_block.pack %[[QU]] scales(%[[S]] : tensor<1x1xf16>) zero_points(%[[ZPU]] : tensor<1x1xui8>)
// CHECK-SAME: -> !quant_block.tensor<8x128, #quant_block.scheme<ui8 : f16, scale = f16, zero_point = ui8, range = [1, 255]>>
// CHECK: quant_block.dequantize %[[P]] : {{.*}} -> tensor<8x128xf16>

// The decomposition does not carry the narrow range (dequantize ignores it).
// LOWERED-LABEL: func.func @dcast_unsigned_narrow_f16(
// LOWERED: quant_block.pack {{.*}} -> !quant_block.tensor<8x128, #quant_block.scheme<ui8 : f16, scale = f16, zero_point = ui8>>
func.func @dcast_unsigned_narrow_f16(%q: tensor<8x128xi8>) -> tensor<8x128xf16> {
  %0 = quant.scast %q : tensor<8x128xi8> to tensor<8x128x!quant.uniform<u8<1:255>:f16, 0.5:128>>
  %1 = quant.dcast %0 : tensor<8x128x!quant.uniform<u8<1:255>:f16, 0.5:128>> to tensor<8x128xf16>
  return %1 : tensor<8x128xf16>
}

// -----

// qcast then dcast (fake quantization) and qcast then scast to storage. The
// raised quantize follows the numerics contract (round half to even,
// saturate), not upstream --lower-quant-ops (truncation, no clamp).

!qt = tensor<2x64x!quant.uniform<i8<-127:127>:f32:{0:1, 1:32}, {{0.5:1, 0.25:2}, {0.125:3, 1.0:4}}>>
// CHECK-LABEL: func.func @qcast(
// CHECK-SAME: %[[X:.*]]: tensor<2x64xf32>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}5.000000e-01, 2.500000e-01], [1.250000e-01, 1.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi8>
// CHECK: %[[QT:.*]] = quant_block.quantize %[[X]] scales(%[[S]] : tensor<2x2xf32>) zero_points(%[[ZP]] : tensor<2x2xi8>)
// CHECK-SAME: -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8, range = [-127, 127]>>
// CHECK-DAG: %[[D:.*]] = quant_block.dequantize %[[QT]]
// CHECK-DAG: %[[PARTS:.*]]:3 = quant_block.unpack %[[QT]]
// CHECK-NOT: quant.
// CHECK: return %[[D]], %[[PARTS]]#0

// Upstream's lowering of qcast truncates (no rounding) and clamps after the
// conversion: not the contract's quantize, not raised.
// LOWERED-LABEL: func.func @qcast(
// LOWERED-NOT: quant_block.quantize
// LOWERED: arith.fptosi
func.func @qcast(%x: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xi8>) {
  %0 = quant.qcast %x : tensor<2x64xf32> to !qt
  %1 = quant.dcast %0 : !qt to tensor<2x64xf32>
  %2 = quant.scast %0 : !qt to tensor<2x64xi8>
  return %1, %2 : tensor<2x64xf32>, tensor<2x64xi8>
}

// -----

// Dynamic dimensions: one block spans each of them, so they have one scale
// whatever their size (per tensor, or the dimensions other than the axis).
// The --lower-quant-ops form (tensor.splat to the dynamic shape) stays as it
// is: the decompositions are only raised on static shapes.

// CHECK-LABEL: func.func @dcast_dynamic_per_tensor(
// CHECK-SAME: %[[Q:.*]]: tensor<?x8xi8>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<3> : tensor<1x1xi8>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<1x1xf32>) zero_points(%[[ZP]] : tensor<1x1xi8>)
// CHECK-SAME: : tensor<?x8xi8> -> !quant_block.tensor<?x8, #quant_block.scheme<i8 : f32, zero_point = i8>>
// CHECK: %[[D:.*]] = quant_block.dequantize %[[P]] : {{.*}} -> tensor<?x8xf32>
// CHECK: return %[[D]]

// LOWERED-LABEL: func.func @dcast_dynamic_per_tensor(
// LOWERED: arith.mulf
func.func @dcast_dynamic_per_tensor(%q: tensor<?x8xi8>) -> tensor<?x8xf32> {
  %0 = quant.scast %q : tensor<?x8xi8> to tensor<?x8x!quant.uniform<i8:f32, 0.5:3>>
  %1 = quant.dcast %0 : tensor<?x8x!quant.uniform<i8:f32, 0.5:3>> to tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @dcast_dynamic_per_axis(
// CHECK-SAME: %[[Q:.*]]: tensor<?x4xi8>)
// CHECK: %[[S:.*]] = arith.constant dense<{{\[}}[5.000000e-01, 2.500000e-01, 2.000000e+00, 1.000000e+00]]> : tensor<1x4xf32>
// CHECK: %[[P:.*]] = quant_block.pack %[[Q]] scales(%[[S]] : tensor<1x4xf32>)
// CHECK-SAME: : tensor<?x4xi8> -> !quant_block.tensor<?x4, #quant_block.scheme<i8 : f32, block = [*, 1]>>
// CHECK: quant_block.dequantize %[[P]]
func.func @dcast_dynamic_per_axis(%q: tensor<?x4xi8>) -> tensor<?x4xf32> {
  %0 = quant.scast %q : tensor<?x4xi8> to tensor<?x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 2.0, 1.0}>>
  %1 = quant.dcast %0 : tensor<?x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 2.0, 1.0}>> to tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// The quantized axis itself is dynamic: as many scales as the type lists,
// for a size only known at run time. Left alone.

// CHECK-LABEL: func.func @refuse_dcast_dynamic_axis(
// CHECK-NOT: quant_block
// CHECK: quant.dcast
func.func @refuse_dcast_dynamic_axis(%q: tensor<?x4xi8>) -> tensor<?x4xf32> {
  %0 = quant.scast %q : tensor<?x4xi8> to tensor<?x4x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %1 = quant.dcast %0 : tensor<?x4x!quant.uniform<i8:f32:0, {0.5, 0.25}>> to tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// A quantized function argument has no storage tensor to pack: untouched,
// as are scalars and unranked tensors.

// CHECK-LABEL: func.func @refuse_dcast_of_argument(
// CHECK-NOT: quant_block
// CHECK: quant.dcast
func.func @refuse_dcast_of_argument(%q: tensor<8x128x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<8x128xf32> {
  %1 = quant.dcast %q : tensor<8x128x!quant.uniform<i8:f32, 0.5:-3>> to tensor<8x128xf32>
  return %1 : tensor<8x128xf32>
}

// CHECK-LABEL: func.func @refuse_scalar(
// CHECK-NOT: quant_block
// CHECK: quant.dcast

// LOWERED-LABEL: func.func @refuse_scalar(
// LOWERED-NOT: quant_block
// LOWERED: arith.mulf
func.func @refuse_scalar(%q: i8) -> f32 {
  %0 = quant.scast %q : i8 to !quant.uniform<i8:f32, 0.5:-3>
  %1 = quant.dcast %0 : !quant.uniform<i8:f32, 0.5:-3> to f32
  return %1 : f32
}

// CHECK-LABEL: func.func @refuse_unranked(
// CHECK-NOT: quant_block
// CHECK: quant.dcast

// LOWERED-LABEL: func.func @refuse_unranked(
// LOWERED-NOT: quant_block
// LOWERED: arith.mulf
func.func @refuse_unranked(%q: tensor<*xi8>) -> tensor<*xf32> {
  %0 = quant.scast %q : tensor<*xi8> to tensor<*x!quant.uniform<i8:f32, 0.5:-3>>
  %1 = quant.dcast %0 : tensor<*x!quant.uniform<i8:f32, 0.5:-3>> to tensor<*xf32>
  return %1 : tensor<*xf32>
}
