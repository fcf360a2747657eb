// quant-run gives the CPU pipeline x86-amx=true when its target has AMX-TILE
// and AMX-INT8 (with AVX512-VNNI and AVX512BW) and Linux granted the process
// the tile data state (adaptPipelineToTarget, requestAmxTileData): the
// accumulate(i32) products take AMX tiles for their whole 16-row tiles of
// activations, vpdpbusd for the rows left over. Every result must be the
// contract's bits (numpy, Inputs/amx.py) and those of the code without AMX
// (x86-64-v3, or x86-amx=false): int4 codes with f16 scales, a dynamic M,
// unsigned 8-bit codes (multiplied unsigned: tdpbsud), int8 in blocks of 64
// (one tile instruction of K = 64 per block), uint4 with zero points and
// MXFP4 (twice the E2M1 values, each block sum halved).
// REQUIRES: x86-amx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/amx.py gen %t
// RUN: quant-run %s -e int4 --print-ir-after-pipeline --quantized-as-parts -i %t/x35.npy -i %t/data_int4.npy -i %t/scales_int4.npy -o %t/int4.npy | FileCheck %s --check-prefix=HOST
// RUN: quant-run %s -e int4_dynamic --quantized-as-parts -i %t/x35.npy -i %t/data_int4.npy -i %t/scales_int4.npy -o %t/int4_dynamic.npy
// RUN: quant-run %s -e uint8 --print-ir-after-pipeline --quantized-as-parts -i %t/x37.npy -i %t/data_uint8.npy -i %t/scales_uint8.npy -o %t/uint8.npy | FileCheck %s --check-prefix=UNSIGNED
// RUN: quant-run %s -e int8_b64 --quantized-as-parts -i %t/x17.npy -i %t/data_int8.npy -i %t/scales_int8.npy -o %t/int8_b64.npy
// RUN: %python %S/Inputs/amx.py check %t int4 int4_dynamic uint8 int8_b64 | FileCheck %s
// CHECK: int4: 1120 results, the contract's bits
// CHECK: int4_dynamic: 1120 results, the contract's bits
// CHECK: uint8: 1184 results, the contract's bits
// CHECK: int8_b64: 272 results, the contract's bits
// HOST: llvm.call_intrinsic "llvm.x86.tdpbssd.internal"
// HOST: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// UNSIGNED: llvm.call_intrinsic "llvm.x86.tdpbsud.internal"

// The same bits without AMX, for the weights quantized in the function too.
// RUN: quant-run %s -e int4 --target-cpu=x86-64-v3 --quantized-as-parts -i %t/x35.npy -i %t/data_int4.npy -i %t/scales_int4.npy -o %t/int4.v3.npy
// RUN: cmp %t/int4.npy %t/int4.v3.npy
// RUN: quant-run %s -e uint4_zero_points --print-ir-after-pipeline -i %t/x35.npy -i %t/x35.npy -o %t/zp.npy | FileCheck %s --check-prefix=HOST
// RUN: quant-run %s -e uint4_zero_points --pipeline='quant-block-cpu-pipeline{x86-amx=false}' -i %t/x35.npy -i %t/x35.npy -o %t/zp.off.npy --print-ir-after-pipeline | FileCheck %s --check-prefix=OFF
// RUN: cmp %t/zp.npy %t/zp.off.npy
// RUN: quant-run %s -e mxfp4 -i %t/x37.npy -i %t/x37.npy -o %t/mxfp4.npy
// RUN: quant-run %s -e mxfp4 --target-cpu=x86-64-v3 -i %t/x37.npy -i %t/x37.npy -o %t/mxfp4.v3.npy
// RUN: cmp %t/mxfp4.npy %t/mxfp4.v3.npy
// OFF-NOT: llvm.x86.tdp
// OFF: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"

!a35 = !quant_block.tensor<35x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!a37 = !quant_block.tensor<37x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w4 = !quant_block.tensor<32x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @int4(%x: tensor<35x256xf32>, %w: !w4) -> tensor<35x32xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<35x256xf32> -> !a35
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a35, !w4 -> tensor<35x32xf32>
  return %y : tensor<35x32xf32>
}

!ad = !quant_block.tensor<?x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @int4_dynamic(%x: tensor<?x256xf32>, %w: !w4) -> tensor<?x32xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<?x256xf32> -> !ad
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !ad, !w4 -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

!wu8 = !quant_block.tensor<32x256, #quant_block.scheme<ui8 : f32, block = [1, 32]>>
func.func @uint8(%x: tensor<37x256xf32>, %w: !wu8) -> tensor<37x32xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<37x256xf32> -> !a37
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a37, !wu8 -> tensor<37x32xf32>
  return %y : tensor<37x32xf32>
}

!a17 = !quant_block.tensor<17x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
!w8 = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
func.func @int8_b64(%x: tensor<17x256xf32>, %w: !w8) -> tensor<17x16xf32> {
  %xq = quant_block.quantize_dynamic absmax %x : tensor<17x256xf32> -> !a17
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a17, !w8 -> tensor<17x16xf32>
  return %y : tensor<17x16xf32>
}

// The weights of these two are the first 32 / 37 activation rows quantized.
!wzp = !quant_block.tensor<32x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = ui4>>
func.func @uint4_zero_points(%x: tensor<35x256xf32>, %wf: tensor<35x256xf32>) -> tensor<35x32xf32> {
  %rows = tensor.extract_slice %wf[0, 0] [32, 256] [1, 1] : tensor<35x256xf32> to tensor<32x256xf32>
  %w = quant_block.quantize_dynamic minmax %rows : tensor<32x256xf32> -> !wzp
  %xq = quant_block.quantize_dynamic absmax %x : tensor<35x256xf32> -> !a35
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a35, !wzp -> tensor<35x32xf32>
  return %y : tensor<35x32xf32>
}

!wmx = !quant_block.tensor<32x256, #quant_block.scheme<f4E2M1FN : f32, block = [1, 32], scale = f8E8M0FNU>>
func.func @mxfp4(%x: tensor<37x256xf32>, %wf: tensor<37x256xf32>) -> tensor<37x32xf32> {
  %rows = tensor.extract_slice %wf[0, 0] [32, 256] [1, 1] : tensor<37x256xf32> to tensor<32x256xf32>
  %w = quant_block.quantize_dynamic mx %rows : tensor<32x256xf32> -> !wmx
  %xq = quant_block.quantize_dynamic absmax %x : tensor<37x256xf32> -> !a37
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit : !a37, !wmx -> tensor<37x32xf32>
  return %y : tensor<37x32xf32>
}
