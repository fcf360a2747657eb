// --quantized-as-parts: a uint4 linear layer whose weight arrives as its
// lowered parts, packed nibbles (uint8, first element in the low nibble,
// docs/Packing.md), f32 scales and f32 zero points, checked exactly against
// numpy. Without the flag, the quantized argument is an error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arrays.py gen-linear %t
// RUN: quant-run %s -e linear --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy -i %t/zero_points.npy -o %t/y.npy
// RUN: %python %S/Inputs/arrays.py check-linear %t | FileCheck %s
// CHECK: linear: ok

// RUN: not quant-run %s -e linear -i %t/x.npy -i %t/data.npy -i %t/scales.npy -i %t/zero_points.npy 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN: quant-run: error: argument #1 of @linear has type !quant_block.tensor<16x64, {{.*}}>: the entry function must take and return plain tensors. Pass the parts (data, scales, zero points) as tensors and build the quantized value inside with quant_block.pack; return quant_block.dequantize or quant_block.unpack results. Or run with --quantized-as-parts

// A part of the wrong shape (unpacked codes) names the part.
// RUN: not quant-run %s -e linear --quantized-as-parts -i %t/x.npy -i %t/codes.npy -i %t/scales.npy -i %t/zero_points.npy 2>&1 | FileCheck %s --check-prefix=PARTSHAPE
// PARTSHAPE: quant-run: error: input #1 '{{.*}}codes.npy' has shape (16, 64) but argument #1 of @linear (the data of !quant_block.tensor<16x64, {{.*}}>) has type tensor<16x32xi8>: dimension 1 must be 32, not 64

// The same weight in the row-tiled layout (row_tile = 16, docs/Packing.md):
// its parts arrive tiled (data [1, 8, 16, 4], scales and zero points [1, 2,
// 16]); the row-major parts are refused with the part's tiled type.
// RUN: rm %t/y.npy
// RUN: quant-run %s -e linear_tiled --quantized-as-parts -i %t/x.npy -i %t/tdata.npy -i %t/tscales.npy -i %t/tzero_points.npy -o %t/y.npy
// RUN: %python %S/Inputs/arrays.py check-linear %t | FileCheck %s
// RUN: not quant-run %s -e linear_tiled --quantized-as-parts -i %t/x.npy -i %t/data.npy -i %t/scales.npy -i %t/zero_points.npy 2>&1 | FileCheck %s --check-prefix=TILEDSHAPE
// TILEDSHAPE: quant-run: error: input #1 '{{.*}}data.npy' has rank 2 (shape (16, 32)) but argument #1 of @linear_tiled (the data of !quant_block.tensor<16x64, {{.*}}row_tile = 16>>) has type tensor<1x8x16x4xi8> (rank 4)

!w = !quant_block.tensor<16x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = f32>>

func.func @linear(%x: tensor<3x64xf32>, %w: !w) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<3x64xf32>, !w -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

!t = !quant_block.tensor<16x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = f32, row_tile = 16>>

func.func @linear_tiled(%x: tensor<3x64xf32>, %w: !t) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
         : tensor<3x64xf32>, !t -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}
