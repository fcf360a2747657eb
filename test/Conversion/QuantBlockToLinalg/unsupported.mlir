// What --convert-quant-block-to-linalg does not lower yet is an error at the
// op, never a half-converted module.
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg --verify-diagnostics

// Integer storage wider than a byte is lowered at 16 and 32 bits only.
func.func @twelve_bits(%q: !quant_block.tensor<2x32, #quant_block.scheme<i12 : f32, block = [16]>>) -> tensor<2x32xf32> {
  // expected-error @+1 {{cannot lower to linalg: storage of 12 bits is not lowered (only 2- to 8-, 16- and 32-bit storage is)}}
  %x = quant_block.dequantize %q : !quant_block.tensor<2x32, #quant_block.scheme<i12 : f32, block = [16]>> -> tensor<2x32xf32>
  return %x : tensor<2x32xf32>
}

// -----

func.func @mx_two_level(%q: !quant_block.tensor<2x256, #quant_block.scheme<mxfp4, outer = <f16, block = [4]>>>) -> tensor<2x256xf32> {
  // expected-error @+1 {{cannot lower to linalg: f8E8M0FNU (MX) scales under a blocked outer scale or an outer min are not lowered}}
  %x = quant_block.dequantize %q : !quant_block.tensor<2x256, #quant_block.scheme<mxfp4, outer = <f16, block = [4]>>> -> tensor<2x256xf32>
  return %x : tensor<2x256xf32>
}

// -----

func.func @rank0(%q: !quant_block.tensor<, #quant_block.scheme<i8 : f32>>) -> tensor<f32> {
  // expected-error @+1 {{cannot lower to linalg: rank-0 quantized tensors are not lowered yet}}
  %x = quant_block.dequantize %q : !quant_block.tensor<, #quant_block.scheme<i8 : f32>> -> tensor<f32>
  return %x : tensor<f32>
}

// -----

func.func @dynamic_packed(%q: !quant_block.tensor<2x?, #quant_block.scheme<i4 : f32, block = [1, *]>>) -> tensor<2x?xf32> {
  // expected-error @+1 {{cannot lower to linalg: the packed innermost dimension of sub-byte data must be static}}
  %x = quant_block.dequantize %q : !quant_block.tensor<2x?, #quant_block.scheme<i4 : f32, block = [1, *]>> -> tensor<2x?xf32>
  return %x : tensor<2x?xf32>
}

// -----

func.func @dynamic_packed_fp6(%q: !quant_block.tensor<2x?, #quant_block.scheme<f6E3M2FN : f32, block = [1, *]>>) -> tensor<2x?xf32> {
  // expected-error @+1 {{cannot lower to linalg: the packed innermost dimension of sub-byte data must be static}}
  %x = quant_block.dequantize %q : !quant_block.tensor<2x?, #quant_block.scheme<f6E3M2FN : f32, block = [1, *]>> -> tensor<2x?xf32>
  return %x : tensor<2x?xf32>
}

// -----

// 4-bit activations are unpacked before the integer sums; 3-bit ones in
// blocks shorter than their packing group (8 codes in 3 bytes) are not.
func.func @matmul_i32_sub_byte_lhs(%x: !quant_block.tensor<2x32, #quant_block.scheme<i3 : f32, block = [1, 4]>>, %w: !quant_block.tensor<32x8, #quant_block.scheme<i8 : f32, block = [4, 1]>>) -> tensor<2x8xf32> {
  // expected-error @+1 {{cannot lower to linalg: i32 accumulation with a sub-byte lhs: the innermost block 4 is not a multiple of the 8 elements of a packing group}}
  %y = quant_block.matmul %x, %w accumulate(i32) inhibit : !quant_block.tensor<2x32, #quant_block.scheme<i3 : f32, block = [1, 4]>>, !quant_block.tensor<32x8, #quant_block.scheme<i8 : f32, block = [4, 1]>> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// The activation scales are read per row: a block over two rows would need
// another indexing map (this used to build an invalid linalg.generic).
func.func @matmul_i32_lhs_blocks_over_rows(%x: !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [2, 32]>>, %w: !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>) -> tensor<4x8xf32> {
  // expected-error @+1 {{cannot lower to linalg: i32 accumulation with lhs blocks that span several rows is not lowered (quantize activations per row)}}
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [2, 32]>>, !quant_block.tensor<8x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @broadcast_dynamic(%q: !quant_block.tensor<32, #quant_block.scheme<i8 : f32, block = [32]>>) -> !quant_block.tensor<?x32, #quant_block.scheme<i8 : f32, block = [*, 32]>> {
  // expected-error @+1 {{cannot lower to linalg: broadcasting along a new dynamic dimension is not lowered yet}}
  %b = quant_block.broadcast %q dimensions = [0] : !quant_block.tensor<32, #quant_block.scheme<i8 : f32, block = [32]>> -> !quant_block.tensor<?x32, #quant_block.scheme<i8 : f32, block = [*, 32]>>
  return %b : !quant_block.tensor<?x32, #quant_block.scheme<i8 : f32, block = [*, 32]>>
}

// -----

func.func @dynamic_blocked(%x: tensor<2x?xf32>) -> !quant_block.tensor<2x?, #quant_block.scheme<i8 : f32, block = [1, 16]>> {
  // expected-error @+1 {{cannot lower to linalg: quantize_dynamic: dimension 1 is dynamic and blocked (or packed); only unblocked dimensions may be dynamic in this lowering}}
  %q = quant_block.quantize_dynamic absmax %x : tensor<2x?xf32> -> !quant_block.tensor<2x?, #quant_block.scheme<i8 : f32, block = [1, 16]>>
  return %q : !quant_block.tensor<2x?, #quant_block.scheme<i8 : f32, block = [1, 16]>>
}

// -----

func.func @dynamic_outer_minmax(%x: tensor<2x32xf32>) -> !quant_block.tensor<2x32, #quant_block.scheme<ui8 : f32, block = [16], zero_point = ui8, outer = <f32>>> {
  // expected-error @+1 {{cannot lower to linalg: quantize_dynamic with an outer scale is lowered for absmax only}}
  %q = quant_block.quantize_dynamic minmax %x : tensor<2x32xf32> -> !quant_block.tensor<2x32, #quant_block.scheme<ui8 : f32, block = [16], zero_point = ui8, outer = <f32>>>
  return %q : !quant_block.tensor<2x32, #quant_block.scheme<ui8 : f32, block = [16], zero_point = ui8, outer = <f32>>>
}
