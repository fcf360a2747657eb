// With x86-amx-bf16 (set by target-cpu for a CPU with AMX-BF16, never by
// quant-run's own host options: it changes the order of the sums), the
// reassociated products with bf16 activations take AMX-BF16 tiles
// (tdpbf16ps) for their whole 16-row tiles of activations, partial_sums for
// the rows left over. Every result must be within the reassociation bound
// of docs/Numerics.md plus the term for the subnormals the tile unit
// flushes, against the exact product in f64 (Inputs/amx_bf16.py): int4
// codes with f16 scales (Q4_0's kind, with subnormal activations; a dynamic
// M; 5 tiles of rows, 4 at once and one alone; 144 rows of K = 4096, two
// chunks of rows; 129 weight tiles of K = 4096, three groups of 43 tiles
// whose panels share one buffer; a sum that cancels exactly), uint4 with zero points in
// blocks of 64, Q4_1's f16 mins, int8 in blocks of 64 and MXFP4.
// REQUIRES: x86-amx-bf16
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/amx_bf16.py gen %t
// RUN: quant-run %s -e int4 --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --print-ir-after-pipeline --quantized-as-parts -i %t/int4_x.npy -i %t/int4_data.npy -i %t/int4_scales.npy -o %t/int4.npy | FileCheck %s --check-prefix=TILES
// RUN: quant-run %s -e int4_dynamic --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/int4_dynamic_x.npy -i %t/int4_dynamic_data.npy -i %t/int4_dynamic_scales.npy -o %t/int4_dynamic.npy
// RUN: quant-run %s -e int4_groups --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/int4_groups_x.npy -i %t/int4_groups_data.npy -i %t/int4_groups_scales.npy -o %t/int4_groups.npy
// RUN: env OMP_NUM_THREADS=1 quant-run %s -e int4_chunks --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/int4_chunks_x.npy -i %t/int4_chunks_data.npy -i %t/int4_chunks_scales.npy -o %t/int4_chunks.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e int4_chunks --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/int4_chunks_x.npy -i %t/int4_chunks_data.npy -i %t/int4_chunks_scales.npy -o %t/int4_chunks.t3.npy
// RUN: cmp %t/int4_chunks.npy %t/int4_chunks.t3.npy
// RUN: quant-run %s -e int4_wide --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/int4_wide_x.npy -i %t/int4_wide_data.npy -i %t/int4_wide_scales.npy -o %t/int4_wide.npy
// RUN: quant-run %s -e int4_cancel --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/int4_cancel_x.npy -i %t/int4_cancel_data.npy -i %t/int4_cancel_scales.npy -o %t/int4_cancel.npy
// RUN: quant-run %s -e uint4_zp --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' -i %t/uint4_zp_x.npy -i %t/uint4_zp_data.npy -i %t/uint4_zp_scales.npy -i %t/uint4_zp_zp.npy -o %t/uint4_zp.npy
// RUN: quant-run %s -e q4_1 --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/q4_1_x.npy -i %t/q4_1_data.npy -i %t/q4_1_scales.npy -i %t/q4_1_zp.npy -o %t/q4_1.npy
// RUN: quant-run %s -e int8 --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/int8_x.npy -i %t/int8_data.npy -i %t/int8_scales.npy -o %t/int8.npy
// RUN: quant-run %s -e mxfp4 --pipeline='quant-block-cpu-pipeline{x86-amx-bf16=true}' --quantized-as-parts -i %t/mxfp4_x.npy -i %t/mxfp4_data.npy -i %t/mxfp4_scales.npy -o %t/mxfp4.npy
// Without the option: partial_sums everywhere, within the same bound.
// RUN: quant-run %s -e int4 --print-ir-after-pipeline --quantized-as-parts -i %t/int4_x.npy -i %t/int4_data.npy -i %t/int4_scales.npy -o %t/int4.off.npy | FileCheck %s --check-prefix=OFF
// RUN: %python %S/Inputs/amx_bf16.py check %t int4 int4_dynamic int4_groups int4_chunks int4_wide int4_cancel uint4_zp q4_1 int8 mxfp4 int4.off | FileCheck %s
// CHECK: int4: 1120 results within the bound
// CHECK: int4_dynamic: 1120 results within the bound
// CHECK: int4_groups: 3840 results within the bound
// CHECK: int4_chunks: 2304 results within the bound
// CHECK: int4_wide: 66048 results within the bound
// CHECK: int4_cancel: 512 results within the bound
// CHECK: uint4_zp: 608 results within the bound
// CHECK: q4_1: 256 results within the bound
// CHECK: int8: 528 results within the bound
// CHECK: mxfp4: 1536 results within the bound
// CHECK: int4.off: 1120 results within the bound
// TILES: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// OFF-NOT: llvm.x86.tdp

!w4 = !quant_block.tensor<32x256, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @int4(%x: tensor<35x256xbf16>, %w: !w4) -> tensor<35x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<35x256xbf16>, !w4 -> tensor<35x32xbf16>
  return %y : tensor<35x32xbf16>
}

func.func @int4_dynamic(%x: tensor<?x256xbf16>, %w: !w4) -> tensor<?x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<?x256xbf16>, !w4 -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}

!w4g = !quant_block.tensor<48x512, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @int4_groups(%x: tensor<80x512xbf16>, %w: !w4g) -> tensor<80x48xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<80x512xbf16>, !w4g -> tensor<80x48xbf16>
  return %y : tensor<80x48xbf16>
}

!w4c = !quant_block.tensor<16x4096, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @int4_chunks(%x: tensor<144x4096xbf16>, %w: !w4c) -> tensor<144x16xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<144x4096xbf16>, !w4c -> tensor<144x16xbf16>
  return %y : tensor<144x16xbf16>
}

!w4w = !quant_block.tensor<2064x4096, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @int4_wide(%x: tensor<32x4096xbf16>, %w: !w4w) -> tensor<32x2064xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<32x4096xbf16>, !w4w -> tensor<32x2064xbf16>
  return %y : tensor<32x2064xbf16>
}

!w4x = !quant_block.tensor<16x256, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @int4_cancel(%x: tensor<32x256xbf16>, %w: !w4x) -> tensor<32x16xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<32x256xbf16>, !w4x -> tensor<32x16xbf16>
  return %y : tensor<32x16xbf16>
}

!wzp = !quant_block.tensor<32x256, #quant_block.scheme<ui4 : bf16, block = [1, 64], scale = f16, zero_point = ui4>>
// quant-run cannot pass ui4 zero points: they come as ui8 and are narrowed.
func.func @uint4_zp(%x: tensor<19x256xbf16>, %data: tensor<32x128xi8>, %scales: tensor<32x4xf16>, %zp8: tensor<32x4xi8>) -> tensor<19x32xbf16> {
  %zp = arith.trunci %zp8 : tensor<32x4xi8> to tensor<32x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<32x128xi8>, tensor<32x4xf16>, tensor<32x4xi4> to !wzp
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<19x256xbf16>, !wzp -> tensor<19x32xbf16>
  return %y : tensor<19x32xbf16>
}

!wq41 = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : bf16, block = [1, 32], scale = f16, zero_point = f16>>
func.func @q4_1(%x: tensor<16x256xbf16>, %w: !wq41) -> tensor<16x16xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<16x256xbf16>, !wq41 -> tensor<16x16xbf16>
  return %y : tensor<16x16xbf16>
}

!w8 = !quant_block.tensor<16x256, #quant_block.scheme<i8 : bf16, block = [1, 64]>>
func.func @int8(%x: tensor<33x256xbf16>, %w: !w8) -> tensor<33x16xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<33x256xbf16>, !w8 -> tensor<33x16xbf16>
  return %y : tensor<33x16xbf16>
}

!wmx = !quant_block.tensor<32x256, #quant_block.scheme<f4E2M1FN : bf16, block = [1, 32], scale = f8E8M0FNU>>
func.func @mxfp4(%x: tensor<48x256xbf16>, %w: !wmx) -> tensor<48x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<48x256xbf16>, !wmx -> tensor<48x32xbf16>
  return %y : tensor<48x32xbf16>
}
