// MXFP6 (E2M3 and E3M2 elements, E8M0 block scales) and 3- and 5-bit
// integers, whose elements straddle bytes, compiled for the CPU and executed:
// round-half-to-even ties, saturation (FP6 has no Inf or NaN), subnormals,
// -0.0, ragged rows and blocks, and the packed bytes themselves.
//
// The bytes are checked at the function boundary, where a quantized tensor
// is its lowered parts (docs/Packing.md, "Lowered tensors"): @main passes a
// quantized value to functions written in terms of those parts (and hand-
// packed bytes to a function taking a quantized tensor), as a C caller
// would: builtin.unrealized_conversion_cast states that a quantized value
// is its lowered parts (and the reverse), which --convert-quant-block-to-linalg
// resolves when it lowers the signatures.
// RUN: quant-opt %s --convert-quant-block-to-linalg --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

!e2 = !quant_block.tensor<2x32, #quant_block.scheme<mxfp6_e2m3>>
!e3 = !quant_block.tensor<2x32, #quant_block.scheme<mxfp6_e3m2>>
!e2b = !quant_block.tensor<1x32, #quant_block.scheme<mxfp6_e2m3>>
!e3b = !quant_block.tensor<1x32, #quant_block.scheme<mxfp6_e3m2>>
// Ragged rows: 10 x 3 bits is 3.75 bytes, 13 x 5 bits 8.125 bytes; the
// ui5 blocks of 8 end in a ragged block of 5.
!i3 = !quant_block.tensor<2x10, #quant_block.scheme<i3 : f32, block = [1, 5]>>
!i3s = !quant_block.tensor<1x5, #quant_block.scheme<i3 : f32, block = [1, 5]>>
!i3t = !quant_block.tensor<10x2, #quant_block.scheme<i3 : f32, block = [5, 1]>>
!i3g = !quant_block.tensor<1x16, #quant_block.scheme<i3 : f32, block = [16]>>
!u5 = !quant_block.tensor<2x13, #quant_block.scheme<ui5 : f32, block = [1, 8], zero_point = ui5>>

func.func @e2m3(%x: tensor<2x32xf32>, %s: tensor<2x1xf8E8M0FNU>) -> tensor<2x32xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<2x1xf8E8M0FNU>) : tensor<2x32xf32> -> !e2
  %y = quant_block.dequantize %q : !e2 -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
func.func @e3m2(%x: tensor<2x32xf32>, %s: tensor<2x1xf8E8M0FNU>) -> tensor<2x32xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<2x1xf8E8M0FNU>) : tensor<2x32xf32> -> !e3
  %y = quant_block.dequantize %q : !e3 -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
func.func @dynamic_e2m3(%x: tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>) {
  %q = quant_block.quantize_dynamic mx %x : tensor<2x32xf32> -> !e2
  %y = quant_block.dequantize %q : !e2 -> tensor<2x32xf32>
  %p:2 = quant_block.unpack %q : !e2 -> tensor<2x32xf6E2M3FN>, tensor<2x1xf8E8M0FNU>
  return %y, %p#1 : tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>
}

// Called with a quantized tensor: receive its lowered data and print it.
func.func @print_e2m3_bytes(%d: tensor<1x24xi8>, %s: tensor<1x1xf8E8M0FNU>) {
  %w = arith.extui %d : tensor<1x24xi8> to tensor<1x24xi32>
  %u = tensor.cast %w : tensor<1x24xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
func.func @print_i3_bytes(%d: tensor<2x4xi8>, %s: tensor<2x2xf32>) {
  %w = arith.extui %d : tensor<2x4xi8> to tensor<2x4xi32>
  %u = tensor.cast %w : tensor<2x4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
func.func @print_i3_group_bytes(%d: tensor<1x6xi8>, %s: tensor<1x1xf32>) {
  %w = arith.extui %d : tensor<1x6xi8> to tensor<1x6xi32>
  %u = tensor.cast %w : tensor<1x6xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
func.func @print_u5_bytes(%d: tensor<2x9xi8>, %s: tensor<2x2xf32>, %z: tensor<2x2xi5>) {
  %w = arith.extui %d : tensor<2x9xi8> to tensor<2x9xi32>
  %u = tensor.cast %w : tensor<2x9xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
// Called with hand-packed bytes and scales.
func.func @dequantize_e3m2(%q: !e3b) -> tensor<1x32xf32> {
  %y = quant_block.dequantize %q : !e3b -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

func.func @main() {
  //===--------------------------------------------------------------------===//
  // MXFP6 E2M3 (grid 0, 0.125 .. 0.875 subnormal, 1 .. 7.5): row 0 with
  // scale 1, row 1 the same values times 2^-4 with scale 2^-4.
  //===--------------------------------------------------------------------===//
  %x2 = arith.constant dense<[[0.0, 0.0625, 0.1875, 0.3, 0.5625, 0.875, 1.0625, 1.1875, 2.125, 3.875, 6.75, 7.25, 7.5, 7.75, 100.0, -100.0, 0x7F800000, 0xFF800000, 0x7FC00000, -0.0, -0.0625, -1.5, 5.0, 0.125, -0.875, 1.0, 2.0, 4.0, -7.5, 0.0001, 3.0, -2.25],
    [0.0, 0.00390625, 0.01171875, 0.01875, 0.03515625, 0.0546875, 0.06640625, 0.07421875, 0.1328125, 0.2421875, 0.421875, 0.453125, 0.46875, 0.484375, 6.25, -6.25, 0x7F800000, 0xFF800000, 0x7FC00000, -0.0, -0.00390625, -0.09375, 0.3125, 0.0078125, -0.0546875, 0.0625, 0.125, 0.25, -0.46875, 6.25e-06, 0.1875, -0.140625]]> : tensor<2x32xf32>
  %s2 = arith.constant dense<[[1.0], [0.0625]]> : tensor<2x1xf8E8M0FNU>
  %y2 = func.call @e2m3(%x2, %s2) : (tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>) -> tensor<2x32xf32>
  %u2b = arith.bitcast %y2 : tensor<2x32xf32> to tensor<2x32xi32>
  %u2 = tensor.cast %u2b : tensor<2x32xi32> to tensor<*xi32>
  // Ties go to the even code: 0.0625 -> 0, 0.1875 -> 0.25, 0.5625 -> 0.5,
  // 1.0625 -> 1, 1.1875 -> 1.25, 2.125 -> 2, 3.875 -> 4, 6.75 -> 7,
  // 7.25 -> 7. 7.75, 100 and +-Inf saturate to +-7.5; NaN becomes +0; -0.0
  // and -0.0625 keep the sign of zero; 0.875 is the largest subnormal.
  // [0, 0, 0.25, 0.25, 0.5, 0.875, 1, 1.25, 2, 4, 7, 7, 7.5, 7.5, 7.5, -7.5, 7.5, -7.5, 0, -0, -0, -1.5, 5, 0.125, -0.875, 1, 2, 4, -7.5, 0, 3, -2.25]
  // CHECK: [0, 0, 1048576000, 1048576000, 1056964608, 1063256064, 1065353216, 1067450368, 1073741824, 1082130432, 1088421888, 1088421888, 1089470464, 1089470464, 1089470464, -1058013184, 1089470464, -1058013184, 0, -2147483648, -2147483648, -1077936128, 1084227584, 1040187392, -1084227584, 1065353216, 1073741824, 1082130432, -1058013184, 0, 1077936128, -1072693248]
  // [0, 0, 0.015625, 0.015625, 0.03125, 0.0546875, 0.0625, 0.078125, 0.125, 0.25, 0.4375, 0.4375, 0.46875, 0.46875, 0.46875, -0.46875, 0.46875, -0.46875, 0, -0, -0, -0.09375, 0.3125, 0.0078125, -0.0546875, 0.0625, 0.125, 0.25, -0.46875, 0, 0.1875, -0.140625]
  // CHECK: [0, 0, 1015021568, 1015021568, 1023410176, 1029701632, 1031798784, 1033895936, 1040187392, 1048576000, 1054867456, 1054867456, 1055916032, 1055916032, 1055916032, -1091567616, 1055916032, -1091567616, 0, -2147483648, -2147483648, -1111490560, 1050673152, 1006632960, -1117782016, 1031798784, 1040187392, 1048576000, -1091567616, 0, 1044381696, -1106247680]
  func.call @printMemrefI32(%u2) : (tensor<*xi32>) -> ()

  //===--------------------------------------------------------------------===//
  // MXFP6 E3M2 (grid 0, 0.0625 .. 0.1875 subnormal, 0.25 .. 28): row 0 with
  // scale 1, row 1 the same values times 8 with scale 8.
  //===--------------------------------------------------------------------===//
  %x3 = arith.constant dense<[[0.0, 0.03125, 0.09375, 0.21875, 4.5, 5.5, 26.0, 30.0, 1.0e9, -1.0e9, 0x7F800000, 0xFF800000, 0x7FC00000, -0.0, -0.03125, 0.0625, -0.1875, 13.0, 18.0, 22.0, 28.0, -28.0, 0.25, 0.3125, 1.125, 1.375, 0.1, -3.0, 7.0, 9.0, 0.171875, 11.0],
    [0.0, 0.25, 0.75, 1.75, 36.0, 44.0, 208.0, 240.0, 8.0e9, -8.0e9, 0x7F800000, 0xFF800000, 0x7FC00000, -0.0, -0.25, 0.5, -1.5, 104.0, 144.0, 176.0, 224.0, -224.0, 2.0, 2.5, 9.0, 11.0, 0.8, -24.0, 56.0, 72.0, 1.375, 88.0]]> : tensor<2x32xf32>
  %s3 = arith.constant dense<[[1.0], [8.0]]> : tensor<2x1xf8E8M0FNU>
  %y3 = func.call @e3m2(%x3, %s3) : (tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>) -> tensor<2x32xf32>
  %u3b = arith.bitcast %y3 : tensor<2x32xf32> to tensor<2x32xi32>
  %u3 = tensor.cast %u3b : tensor<2x32xi32> to tensor<*xi32>
  // Ties to even: 0.03125 -> 0, 0.09375 -> 0.125, 0.21875 -> 0.25 (the
  // smallest normal), 4.5 -> 4, 5.5 -> 6, 26 -> 24, 13 -> 12, 18 -> 16,
  // 22 -> 24, 1.125 -> 1, 1.375 -> 1.5, 9 -> 8, 11 -> 12. 30, 1e9 and Inf
  // saturate to 28; NaN becomes +0.
  // [0, 0, 0.125, 0.25, 4, 6, 24, 28, 28, -28, 28, -28, 0, -0, -0, 0.0625, -0.1875, 12, 16, 24, 28, -28, 0.25, 0.3125, 1, 1.5, 0.125, -3, 7, 8, 0.1875, 12]
  // CHECK: [0, 0, 1040187392, 1048576000, 1082130432, 1086324736, 1103101952, 1105199104, 1105199104, -1042284544, 1105199104, -1042284544, 0, -2147483648, -2147483648, 1031798784, -1103101952, 1094713344, 1098907648, 1103101952, 1105199104, -1042284544, 1048576000, 1050673152, 1065353216, 1069547520, 1040187392, -1069547520, 1088421888, 1090519040, 1044381696, 1094713344]
  // [0, 0, 1, 2, 32, 48, 192, 224, 224, -224, 224, -224, 0, -0, -0, 0.5, -1.5, 96, 128, 192, 224, -224, 2, 2.5, 8, 12, 1, -24, 56, 64, 1.5, 96]
  // CHECK: [0, 0, 1065353216, 1073741824, 1107296256, 1111490560, 1128267776, 1130364928, 1130364928, -1017118720, 1130364928, -1017118720, 0, -2147483648, -2147483648, 1056964608, -1077936128, 1119879168, 1124073472, 1128267776, 1130364928, -1017118720, 1073741824, 1075838976, 1090519040, 1094713344, 1065353216, -1044381696, 1113587712, 1115684864, 1069547520, 1119879168]
  func.call @printMemrefI32(%u3) : (tensor<*xi32>) -> ()

  //===--------------------------------------------------------------------===//
  // MXFP6 E2M3 with the OCP shared exponent floor(log2(max|x|)) - 2.
  //===--------------------------------------------------------------------===//
  %xm = arith.constant dense<[[100.0, 1.0, 3.0, -50.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1000.0, -1.0, 64.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x32xf32>
  %ym:2 = func.call @dynamic_e2m3(%xm) : (tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2x1xf8E8M0FNU>)
  %uymb = arith.bitcast %ym#0 : tensor<2x32xf32> to tensor<2x32xi32>
  %uym = tensor.cast %uymb : tensor<2x32xi32> to tensor<*xi32>
  // Row 0: scale 2^(6 - 2) = 16; 100 / 16 = 6.25 ties to 6, 3 / 16 to 0.25,
  // -50 / 16 = -3.125 to -3, 1 / 16 to 0. Row 1: scale 2^(9 - 2) = 128;
  // 1000 / 128 = 7.8 saturates to 7.5 (the floor rule may overflow), -1 / 128
  // rounds to -0.
  // [96, 0, 4, -48, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: [1119879168, 0, 1082130432, -1035993088, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  // [960, -0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: [1148190720, -2147483648, 1115684864, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  func.call @printMemrefI32(%uym) : (tensor<*xi32>) -> ()
  %smb = arith.bitcast %ym#1 : tensor<2x1xf8E8M0FNU> to tensor<2x1xi8>
  %smw = arith.extui %smb : tensor<2x1xi8> to tensor<2x1xi32>
  %usm = tensor.cast %smw : tensor<2x1xi32> to tensor<*xi32>
  // E8M0 codes 127 + 4 and 127 + 7.
  // CHECK: [131]
  // CHECK: [134]
  func.call @printMemrefI32(%usm) : (tensor<*xi32>) -> ()

  //===--------------------------------------------------------------------===//
  // MXFP6 bytes: four codes e0..e3 in three bytes,
  //   byte 0 = e1[1:0] << 6 | e0, byte 1 = e2[3:0] << 4 | e1[5:2],
  //   byte 2 = e3 << 2 | e2[5:4].
  //===--------------------------------------------------------------------===//
  // E2M3 codes: 1.0 = 0x08, 7.5 = 0x1F, -0.125 = 0x21, 0.875 = 0x07, then
  // -7.5 = 0x3F, -0.0 = 0x20, 0.0 = 0x00, 6.0 = 0x1C. Bytes:
  //   0x08 | 0x3 << 6 = 200, 0x1F >> 2 | 0x1 << 4 = 23, 0x21 >> 4 | 0x07 << 2 = 30,
  //   0x3F | 0x0 << 6 = 63,  0x20 >> 2 | 0x0 << 4 = 8,  0x00 >> 4 | 0x1C << 2 = 112.
  %xb = arith.constant dense<[[1.0, 7.5, -0.125, 0.875, -7.5, -0.0, 0.0, 6.0, 1.0, 7.5, -0.125, 0.875, -7.5, -0.0, 0.0, 6.0, 1.0, 7.5, -0.125, 0.875, -7.5, -0.0, 0.0, 6.0, 1.0, 7.5, -0.125, 0.875, -7.5, -0.0, 0.0, 6.0]]> : tensor<1x32xf32>
  %sb = arith.constant dense<[[1.0]]> : tensor<1x1xf8E8M0FNU>
  %qb = quant_block.quantize %xb scales(%sb : tensor<1x1xf8E8M0FNU>) : tensor<1x32xf32> -> !e2b
  // CHECK: [200,   23,   30,   63,   8,   112,   200,   23,   30,   63,   8,   112,   200,   23,   30,   63,   8,   112,   200,   23,   30,   63,   8,   112]
  %qbp:2 = builtin.unrealized_conversion_cast %qb : !e2b to tensor<1x24xi8>, tensor<1x1xf8E8M0FNU>
  func.call @print_e2m3_bytes(%qbp#0, %qbp#1) : (tensor<1x24xi8>, tensor<1x1xf8E8M0FNU>) -> ()

  // E3M2 from hand-packed bytes: codes 0x1F (28), 0x21 (-0.0625), 0x0C (1),
  // 0x33 (-3.5), 0x04 (0.25), 0x03 (0.1875), 0x3A (-12), 0x15 (5):
  //   0x1F | 0x1 << 6 = 95,  0x21 >> 2 | 0xC << 4 = 200, 0x0C >> 4 | 0x33 << 2 = 204,
  //   0x04 | 0x3 << 6 = 196, 0x03 >> 2 | 0xA << 4 = 160, 0x3A >> 4 | 0x15 << 2 = 87;
  // scale 2 doubles them.
  %db = arith.constant dense<[[95, 200, 204, 196, 160, 87, 95, 200, 204, 196, 160, 87, 95, 200, 204, 196, 160, 87, 95, 200, 204, 196, 160, 87]]> : tensor<1x24xi8>
  %ds = arith.constant dense<[[2.0]]> : tensor<1x1xf8E8M0FNU>
  %dq = builtin.unrealized_conversion_cast %db, %ds : tensor<1x24xi8>, tensor<1x1xf8E8M0FNU> to !e3b
  %yd = func.call @dequantize_e3m2(%dq) : (!e3b) -> tensor<1x32xf32>
  %udb = arith.bitcast %yd : tensor<1x32xf32> to tensor<1x32xi32>
  %ud = tensor.cast %udb : tensor<1x32xi32> to tensor<*xi32>
  // [56, -0.125, 2, -7, 0.5, 0.375, -24, 10, 56, -0.125, 2, -7, 0.5, 0.375, -24, 10, 56, -0.125, 2, -7, 0.5, 0.375, -24, 10, 56, -0.125, 2, -7, 0.5, 0.375, -24, 10]
  // CHECK: [1113587712, -1107296256, 1073741824, -1059061760, 1056964608, 1052770304, -1044381696, 1092616192, 1113587712, -1107296256, 1073741824, -1059061760, 1056964608, 1052770304, -1044381696, 1092616192, 1113587712, -1107296256, 1073741824, -1059061760, 1056964608, 1052770304, -1044381696, 1092616192, 1113587712, -1107296256, 1073741824, -1059061760, 1056964608, 1052770304, -1044381696, 1092616192]
  func.call @printMemrefI32(%ud) : (tensor<*xi32>) -> ()

  //===--------------------------------------------------------------------===//
  // i3, 2x10 in blocks of 5 (row 0 scales 1, 0.5; row 1 0.25, 2).
  //===--------------------------------------------------------------------===//
  %xi = arith.constant dense<[[0.5, 1.5, -1.0, 3.0, -4.0, 0.5, -0.5, 1.5, 2.0, -2.5],
    [0.3, -0.3, 0.125, -0.125, 0.375, 0x7FC00000, 0x7F800000, 0xFF800000, 5.0, 3.0]]> : tensor<2x10xf32>
  %si = arith.constant dense<[[1.0, 0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %qi = quant_block.quantize %xi scales(%si : tensor<2x2xf32>) : tensor<2x10xf32> -> !i3
  %pi:2 = quant_block.unpack %qi : !i3 -> tensor<2x10xi3>, tensor<2x2xf32>
  %ci = arith.extsi %pi#0 : tensor<2x10xi3> to tensor<2x10xi32>
  %uci = tensor.cast %ci : tensor<2x10xi32> to tensor<*xi32>
  // Codes: 0.5 and -0.125 / 0.25 tie to 0, 1.5 -> 2, 2.5 -> 2; 4 and Inf
  // clamp to 3, -5 and -Inf to -4; NaN gives the zero point 0.
  // CHECK: [0,   2,   -1,   3,   -4,   1,   -1,   3,   3,   -4]
  // CHECK: [1,   -1,   0,   0,   2,   0,   3,   -4,   2,   2]
  func.call @printMemrefI32(%uci) : (tensor<*xi32>) -> ()
  // Element i is bits [3i, 3i + 3) of its row; the two high bits of each
  // row's last byte are zero. Row 0, codes 0 2 7 3 4 1 7 3 3 4:
  //   byte 0 = 0 | 2 << 3 | (7 & 3) << 6 = 208
  //   byte 1 = 7 >> 2 | 3 << 1 | 4 << 4 | (1 & 1) << 7 = 199
  //   byte 2 = 1 >> 1 | 7 << 2 | 3 << 5 = 124,  byte 3 = 3 | 4 << 3 = 35.
  // Row 1, codes 1 7 0 0 2 0 3 4 2 2: 57, 32, 140, 18.
  // CHECK: [208,   199,   124,   35]
  // CHECK: [57,   32,   140,   18]
  %qip:2 = builtin.unrealized_conversion_cast %qi : !i3 to tensor<2x4xi8>, tensor<2x2xf32>
  func.call @print_i3_bytes(%qip#0, %qip#1) : (tensor<2x4xi8>, tensor<2x2xf32>) -> ()
  %yi = quant_block.dequantize %qi : !i3 -> tensor<2x10xf32>
  %uyib = arith.bitcast %yi : tensor<2x10xf32> to tensor<2x10xi32>
  %uyi = tensor.cast %uyib : tensor<2x10xi32> to tensor<*xi32>
  // [0, 2, -1, 3, -4, 0.5, -0.5, 1.5, 1.5, -2]
  // CHECK: [0, 1073741824, -1082130432, 1077936128, -1065353216, 1056964608, -1090519040, 1069547520, 1069547520, -1073741824]
  // [0.25, -0.25, 0, 0, 0.5, 0, 6, -8, 4, 4]
  // CHECK: [1048576000, -1098907648, 0, 0, 1056964608, 0, 1086324736, -1056964608, 1082130432, 1082130432]
  func.call @printMemrefI32(%uyi) : (tensor<*xi32>) -> ()
  // The layout ops unpack, move and repack the codes.
  %qs = quant_block.extract_slice %qi offsets = [1, 5] sizes = [1, 5] : !i3 -> !i3s
  %ys = quant_block.dequantize %qs : !i3s -> tensor<1x5xf32>
  %uysb = arith.bitcast %ys : tensor<1x5xf32> to tensor<1x5xi32>
  %uys = tensor.cast %uysb : tensor<1x5xi32> to tensor<*xi32>
  // [0, 6, -8, 4, 4]
  // CHECK: {{\[}}[0, 1086324736, -1056964608, 1082130432, 1082130432]]
  func.call @printMemrefI32(%uys) : (tensor<*xi32>) -> ()
  %qt = quant_block.transpose %qi permutation = [1, 0] : !i3 -> !i3t
  %yt = quant_block.dequantize %qt : !i3t -> tensor<10x2xf32>
  %yt1 = tensor.extract_slice %yt[5, 0] [5, 2] [1, 1] : tensor<10x2xf32> to tensor<5x2xf32>
  %uytb = arith.bitcast %yt1 : tensor<5x2xf32> to tensor<5x2xi32>
  %uyt = tensor.cast %uytb : tensor<5x2xi32> to tensor<*xi32>
  // [0.5, 0]
  // CHECK: [1056964608, 0]
  // [-0.5, 6]
  // CHECK: [-1090519040, 1086324736]
  // [1.5, -8]
  // CHECK: [1069547520, -1056964608]
  // [1.5, 4]
  // CHECK: [1069547520, 1082130432]
  // [-2, 4]
  // CHECK: [-1073741824, 1082130432]
  func.call @printMemrefI32(%uyt) : (tensor<*xi32>) -> ()

  // i3 in whole groups (16 elements, 48 bits): eight codes are one 24-bit
  // little-endian word, the octal digits of 0o76543210 = 0xFAC688 for codes
  // 0..7 and of 0o01234567 = 0x053977 for codes 7..0.
  %xg = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, -4.0, -3.0, -2.0, -1.0, -1.0, -2.0, -3.0, -4.0, 3.0, 2.0, 1.0, 0.0]]> : tensor<1x16xf32>
  %sg = arith.constant dense<[[1.0]]> : tensor<1x1xf32>
  %qg = quant_block.quantize %xg scales(%sg : tensor<1x1xf32>) : tensor<1x16xf32> -> !i3g
  // CHECK: {{\[}}[136,   198,   250,   119,   57,   5]]
  %qgp:2 = builtin.unrealized_conversion_cast %qg : !i3g to tensor<1x6xi8>, tensor<1x1xf32>
  func.call @print_i3_group_bytes(%qgp#0, %qgp#1) : (tensor<1x6xi8>, tensor<1x1xf32>) -> ()

  //===--------------------------------------------------------------------===//
  // ui5 with ui5 zero points, 2x13 in blocks of 8 and a ragged 5.
  //===--------------------------------------------------------------------===//
  %xu = arith.constant dense<[[0.0, 0.5, -0.5, 7.5, -8.0, 100.0, -100.0, 0.25, 3.0, 2.5, 31.0, 40.0, -1.0],
    [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, -4.0, -124.0, 0.0, 0x7FC00000, -200.0]]> : tensor<2x13xf32>
  %su = arith.constant dense<[[0.5, 1.0], [0.25, 4.0]]> : tensor<2x2xf32>
  %zu = arith.constant dense<[[16, 0], [0, 31]]> : tensor<2x2xui5>
  %qu = quant_block.quantize %xu scales(%su : tensor<2x2xf32>) zero_points(%zu : tensor<2x2xui5>) : tensor<2x13xf32> -> !u5
  // Codes 16 17 15 31 0 31 0 16 3 2 31 31 0 and 1 2 3 4 5 6 7 8 30 0 31 31 0,
  // element i in bits [5i, 5i + 5), the last byte holding one bit:
  //   byte 0 = 16 | (17 & 7) << 5 = 48,  byte 1 = 17 >> 3 | 15 << 2 | (31 & 1) << 7 = 190,
  //   byte 2 = 31 >> 1 | (0 & 15) << 4 = 15, byte 3 = 0 >> 4 | 31 << 1 | (0 & 3) << 6 = 62,
  //   byte 4 = 0 >> 2 | 16 << 3 = 128,  byte 5 = 3 | (2 & 7) << 5 = 67,
  //   byte 6 = 2 >> 3 | 31 << 2 | (31 & 1) << 7 = 252, byte 7 = 31 >> 1 | 0 = 15,
  //   byte 8 = 0 >> 4 = 0.
  // CHECK: [48,   190,   15,   62,   128,   67,   252,   15,   0]
  // CHECK: [65,   12,   82,   204,   65,   30,   252,   15,   0]
  %qup:3 = builtin.unrealized_conversion_cast %qu : !u5 to tensor<2x9xi8>, tensor<2x2xf32>, tensor<2x2xi5>
  func.call @print_u5_bytes(%qup#0, %qup#1, %qup#2) : (tensor<2x9xi8>, tensor<2x2xf32>, tensor<2x2xi5>) -> ()
  %yu = quant_block.dequantize %qu : !u5 -> tensor<2x13xf32>
  %uyub = arith.bitcast %yu : tensor<2x13xf32> to tensor<2x13xi32>
  %uyu = tensor.cast %uyub : tensor<2x13xi32> to tensor<*xi32>
  // (q - zp) * s: 0.25 / 0.5 ties to 0; 100 / 0.5 + 16 clamps to 31 and
  // -184 to 0; 2.5 ties to 2; NaN gives the zero point 31.
  // [0, 0.5, -0.5, 7.5, -8, 7.5, -8, 0, 3, 2, 31, 31, 0]
  // CHECK: [0, 1056964608, -1090519040, 1089470464, -1056964608, 1089470464, -1056964608, 0, 1077936128, 1073741824, 1106771968, 1106771968, 0]
  // [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, -4, -124, 0, 0, -124]
  // CHECK: [1048576000, 1056964608, 1061158912, 1065353216, 1067450368, 1069547520, 1071644672, 1073741824, -1065353216, -1023934464, 0, 0, -1023934464]
  func.call @printMemrefI32(%uyu) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefI32(tensor<*xi32>)
