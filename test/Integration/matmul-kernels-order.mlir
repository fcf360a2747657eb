// The register-tiled kernels of --quant-block-cpu-matmul-kernels (on by
// default in --quant-block-cpu-pipeline) sum a reassociated quantized
// product in one fixed order: 16-lane accumulators over the chunks of 32
// elements, then a halving tree (docs/Numerics.md, "The CPU kernels'
// order"). The compiled code is checked bit for bit against that order
// computed in numpy (Inputs/matmul_kernels_order.py; `contract` fuses with
// exactly rounded FMAs), for 4- and 8-bit, signed and unsigned storage, with
// and without zero points, f16 and f32 scales, blocks of 32 to 128, and tile
// shapes with M and N that the tile does not divide evenly into 8 and 4.
// The int4 case is large enough to run on threads: its bits are the same
// with 1 and 3 of them. accumulate(i32) products (int8 activation codes
// and scales as quantize_dynamic gives them) keep exact block sums and the
// strict order over the blocks; quant-run compiles them with AVX512-VNNI
// where the target has it (here, on such a host; the -Dtarget reruns for
// x86-64-v2/v3/v4 compile the generic vector code), with the same bits.
// MXFP4 (E2M1 codes decoded in the registers, E8M0 scales, one of them the
// f32 subnormal 2^-127) sums in the 4-bit order; so do NVFP4 (blocks of 16,
// E4M3 scales with a subnormal, a zero and a negative one, the f32 outer
// scale applied to each block scale), int4 with E4M3 and outer scales, and
// uint4 in blocks of 16. GGUF's parameters: Q4_K (8-bit scales and zero
// points under an f16 outer scale and outer min per 8 blocks, each weight
// fma(q, s_eff, m_eff)), also in the strict order, Q4_1 (float zero
// points) and Q6_K with its codes widened to i8 (i8 scales in blocks of 16
// under an f16 outer scale per 16 blocks). Products without reassoc keep the strict order of
// the contract (k increasing for each output, in its own lane), checked
// against that order: int4 with zero points, uint8 with contract (FMAs),
// int8 with 9 activation rows. bf16 and f16 activations (weights
// dequantized to that type, f32 sums, the result rounded once) too. 4-bit
// codes without zero points are decoded by
// vpermps table lookups where quant-run's target has AVX512F (here, on such
// a host) and by integer arithmetic in the x86-64-v2/v3 reruns: same bits.
// A dynamic M (the `_dyn` functions: the same products with the activation
// rows unknown to the compiler, so whole tiles of rows and the rows left
// over, or tiles of one row) gives the same bits.
// Every function must have been given a kernel. GGUF's Q4_K and Q4_1
// weights times int8 activations (the mins' second block term) too, with
// AMX tiles for 16 rows or more where the target has them, and Q6_K's codes
// widened to i8 in blocks of 16 times activations in blocks of 16.
// REQUIRES: libomp
// (Integer products with two-level scales or mins take the kernel with
// one weight row per lane, which needs AVX512-VNNI.)
// RUN: quant-opt %s --quant-block-cpu-matmul-kernels=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=COVERED
// COVERED-NOT: no register-tiled kernel
// COVERED-COUNT-3: no register-tiled kernel: integer products with two-level scales or mins need AVX512-VNNI
// COVERED-COUNT-2: no register-tiled kernel: integer products in blocks of 16 need AVX512-VNNI
// COVERED-NOT: no register-tiled kernel
// RUN: quant-opt %s --quant-block-cpu-matmul-kernels="report=true x86-avx512-vnni=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VNNI-COVERED --allow-empty
// VNNI-COVERED-NOT: no register-tiled kernel
// RUN: quant-opt %s --quant-block-cpu-pipeline --mlir-print-ir-after=quant-block-cpu-matmul-kernels --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL-NOT: quant_block.matmul
// KERNEL-LABEL: func.func @i4_zp(
// KERNEL: scf.forall
// KERNEL-LABEL: func.func @u4(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @i8(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @u8_zp(
// KERNEL-NOT: math.fma
// KERNEL-LABEL: func.func @i8_b512(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @i4_i8act(
// KERNEL-LABEL: func.func @i8zp_i8act(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @u4_i8act(
// KERNEL-LABEL: func.func @i4_i8act_m8(
// KERNEL-LABEL: func.func @i4_i8act_b128(
// KERNEL-LABEL: func.func @u4zp_i8act_m4(
// KERNEL-LABEL: func.func @i4zp_strict(
// KERNEL-NOT: math.fma
// KERNEL-LABEL: func.func @u8_strict(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @i8_strict(
// KERNEL-NOT: math.fma
// KERNEL-LABEL: func.func @bf16_fast(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @f16_strict(
// KERNEL-NOT: math.fma
// KERNEL-LABEL: func.func @i8_i8act_rows(
// KERNEL-LABEL: func.func @u8zp_i8act_rows(
// KERNEL-LABEL: func.func @mxfp4(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @nvfp4(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @i4_e4m3(
// KERNEL-NOT: math.fma
// KERNEL-LABEL: func.func @u4_b16(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @i8_b16(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @q4k(
// KERNEL: arith.uitofp {{.*}} : vector<8xi8> to vector<8xf32>
// KERNEL: math.fma
// KERNEL-LABEL: func.func @q4k_strict(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @q4_1(
// KERNEL: math.fma
// KERNEL-LABEL: func.func @q6k_i8(
// KERNEL: arith.sitofp {{.*}} : vector<16xi8> to vector<16xf32>
// KERNEL: math.fma

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/matmul_kernels_order.py gen %t
// RUN: env OMP_NUM_THREADS=1 quant-run %s -e i4_zp -i %t/i4_zp_x.npy -i %t/i4_zp_data.npy -i %t/i4_zp_scales.npy -i %t/i4_zp_zp.npy -o %t/i4_zp.npy
// RUN: env OMP_NUM_THREADS=3 quant-run %s -e i4_zp -i %t/i4_zp_x.npy -i %t/i4_zp_data.npy -i %t/i4_zp_scales.npy -i %t/i4_zp_zp.npy -o %t/i4_zp.t3.npy
// RUN: quant-run %s -e u4 --quantized-as-parts -i %t/u4_x.npy -i %t/u4_data.npy -i %t/u4_scales.npy -o %t/u4.npy
// RUN: quant-run %s -e i8 --quantized-as-parts -i %t/i8_x.npy -i %t/i8_data.npy -i %t/i8_scales.npy -o %t/i8.npy
// RUN: quant-run %s -e u8_zp --quantized-as-parts -i %t/u8_zp_x.npy -i %t/u8_zp_data.npy -i %t/u8_zp_scales.npy -i %t/u8_zp_zp.npy -o %t/u8_zp.npy
// RUN: quant-run %s -e i8_b512 --quantized-as-parts -i %t/i8_b512_x.npy -i %t/i8_b512_data.npy -i %t/i8_b512_scales.npy -o %t/i8_b512.npy
// RUN: quant-run %s -e i4_i8act --quantized-as-parts -i %t/i4_i8act_xq.npy -i %t/i4_i8act_xs.npy -i %t/i4_i8act_data.npy -i %t/i4_i8act_scales.npy -o %t/i4_i8act.npy
// RUN: quant-run %s -e i8zp_i8act --quantized-as-parts -i %t/i8zp_i8act_xq.npy -i %t/i8zp_i8act_xs.npy -i %t/i8zp_i8act_data.npy -i %t/i8zp_i8act_scales.npy -i %t/i8zp_i8act_zp.npy -o %t/i8zp_i8act.npy
// RUN: quant-run %s -e u4_i8act --quantized-as-parts -i %t/u4_i8act_xq.npy -i %t/u4_i8act_xs.npy -i %t/u4_i8act_data.npy -i %t/u4_i8act_scales.npy -o %t/u4_i8act.npy
// RUN: quant-run %s -e mxfp4 --quantized-as-parts -i %t/mxfp4_x.npy -i %t/mxfp4_data.npy -i %t/mxfp4_scales.npy -o %t/mxfp4.npy
// RUN: quant-run %s -e nvfp4 --quantized-as-parts -i %t/nvfp4_x.npy -i %t/nvfp4_data.npy -i %t/nvfp4_scales.npy -i %t/nvfp4_outer.npy -o %t/nvfp4.npy
// RUN: quant-run %s -e i4_e4m3 --quantized-as-parts -i %t/i4_e4m3_x.npy -i %t/i4_e4m3_data.npy -i %t/i4_e4m3_scales.npy -i %t/i4_e4m3_outer.npy -o %t/i4_e4m3.npy
// RUN: quant-run %s -e u4_b16 --quantized-as-parts -i %t/u4_b16_x.npy -i %t/u4_b16_data.npy -i %t/u4_b16_scales.npy -o %t/u4_b16.npy
// RUN: quant-run %s -e i8_b16 --quantized-as-parts -i %t/i8_b16_x.npy -i %t/i8_b16_data.npy -i %t/i8_b16_scales.npy -o %t/i8_b16.npy
// RUN: quant-run %s -e q4k --quantized-as-parts -i %t/q4k_x.npy -i %t/q4k_data.npy -i %t/q4k_scales.npy -i %t/q4k_zp.npy -i %t/q4k_outer.npy -i %t/q4k_outermin.npy -o %t/q4k.npy
// RUN: quant-run %s -e q4k_strict --quantized-as-parts -i %t/q4k_strict_x.npy -i %t/q4k_strict_data.npy -i %t/q4k_strict_scales.npy -i %t/q4k_strict_zp.npy -i %t/q4k_strict_outer.npy -i %t/q4k_strict_outermin.npy -o %t/q4k_strict.npy
// RUN: quant-run %s -e q6k_i8 --quantized-as-parts -i %t/q6k_i8_x.npy -i %t/q6k_i8_data.npy -i %t/q6k_i8_scales.npy -i %t/q6k_i8_outer.npy -o %t/q6k_i8.npy
// RUN: quant-run %s -e q4k_i8act --quantized-as-parts -i %t/q4k_i8act_xq.npy -i %t/q4k_i8act_xs.npy -i %t/q4k_i8act_data.npy -i %t/q4k_i8act_scales.npy -i %t/q4k_i8act_zp.npy -i %t/q4k_i8act_outer.npy -i %t/q4k_i8act_outermin.npy -o %t/q4k_i8act.npy
// RUN: quant-run %s -e q4k_i8act_m20 --quantized-as-parts -i %t/q4k_i8act_m20_xq.npy -i %t/q4k_i8act_m20_xs.npy -i %t/q4k_i8act_m20_data.npy -i %t/q4k_i8act_m20_scales.npy -i %t/q4k_i8act_m20_zp.npy -i %t/q4k_i8act_m20_outer.npy -i %t/q4k_i8act_m20_outermin.npy -o %t/q4k_i8act_m20.npy
// RUN: quant-run %s -e q4_1_i8act --quantized-as-parts -i %t/q4_1_i8act_xq.npy -i %t/q4_1_i8act_xs.npy -i %t/q4_1_i8act_data.npy -i %t/q4_1_i8act_scales.npy -i %t/q4_1_i8act_zp.npy -o %t/q4_1_i8act.npy
// RUN: quant-run %s -e q6k_i8_i8act --quantized-as-parts -i %t/q6k_i8_i8act_xq.npy -i %t/q6k_i8_i8act_xs.npy -i %t/q6k_i8_i8act_data.npy -i %t/q6k_i8_i8act_scales.npy -i %t/q6k_i8_i8act_outer.npy -o %t/q6k_i8_i8act.npy
// RUN: quant-run %s -e q6k_i8_i8act_m20 --quantized-as-parts -i %t/q6k_i8_i8act_m20_xq.npy -i %t/q6k_i8_i8act_m20_xs.npy -i %t/q6k_i8_i8act_m20_data.npy -i %t/q6k_i8_i8act_m20_scales.npy -i %t/q6k_i8_i8act_m20_outer.npy -o %t/q6k_i8_i8act_m20.npy
// RUN: quant-run %s -e q4_1 --quantized-as-parts -i %t/q4_1_x.npy -i %t/q4_1_data.npy -i %t/q4_1_scales.npy -i %t/q4_1_zp.npy -o %t/q4_1.npy
// RUN: quant-run %s -e i4_i8act_m8 --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_data.npy -i %t/i4_i8act_m8_scales.npy -o %t/i4_i8act_m8.npy
// RUN: quant-run %s -e u4zp_i8act_m4 -i %t/u4zp_i8act_m4_xq.npy -i %t/u4zp_i8act_m4_xs.npy -i %t/u4zp_i8act_m4_data.npy -i %t/u4zp_i8act_m4_scales.npy -i %t/u4zp_i8act_m4_zp.npy -o %t/u4zp_i8act_m4.npy
// RUN: quant-run %s -e i4_i8act_b128 --quantized-as-parts -i %t/i4_i8act_b128_xq.npy -i %t/i4_i8act_b128_xs.npy -i %t/i4_i8act_b128_data.npy -i %t/i4_i8act_b128_scales.npy -o %t/i4_i8act_b128.npy
// RUN: quant-run %s -e i8_i8act_rows --quantized-as-parts -i %t/i8_i8act_rows_xq.npy -i %t/i8_i8act_rows_xs.npy -i %t/i8_i8act_rows_data.npy -i %t/i8_i8act_rows_scales.npy -o %t/i8_i8act_rows.npy
// RUN: quant-run %s -e u8zp_i8act_rows --quantized-as-parts -i %t/u8zp_i8act_rows_xq.npy -i %t/u8zp_i8act_rows_xs.npy -i %t/u8zp_i8act_rows_data.npy -i %t/u8zp_i8act_rows_scales.npy -i %t/u8zp_i8act_rows_zp.npy -o %t/u8zp_i8act_rows.npy
// RUN: quant-run %s -e i4_i8act_m35 --quantized-as-parts -i %t/i4_i8act_m35_xq.npy -i %t/i4_i8act_m35_xs.npy -i %t/i4_i8act_m35_data.npy -i %t/i4_i8act_m35_scales.npy -o %t/i4_i8act_m35.npy
// RUN: quant-run %s -e u4zp_i8act_m20 -i %t/u4zp_i8act_m20_xq.npy -i %t/u4zp_i8act_m20_xs.npy -i %t/u4zp_i8act_m20_data.npy -i %t/u4zp_i8act_m20_scales.npy -i %t/u4zp_i8act_m20_zp.npy -o %t/u4zp_i8act_m20.npy
// RUN: quant-run %s -e i4zp_strict -i %t/i4zp_strict_x.npy -i %t/i4zp_strict_data.npy -i %t/i4zp_strict_scales.npy -i %t/i4zp_strict_zp.npy -o %t/i4zp_strict.npy
// RUN: quant-run %s -e u8_strict --quantized-as-parts -i %t/u8_strict_x.npy -i %t/u8_strict_data.npy -i %t/u8_strict_scales.npy -o %t/u8_strict.npy
// RUN: quant-run %s -e i8_strict --quantized-as-parts -i %t/i8_strict_x.npy -i %t/i8_strict_data.npy -i %t/i8_strict_scales.npy -o %t/i8_strict.npy
// RUN: quant-run %s -e bf16_fast --quantized-as-parts -i %t/bf16_fast_x.npy -i %t/bf16_fast_data.npy -i %t/bf16_fast_scales.npy -o %t/bf16_fast.npy
// The weights' bf16 rounding in integer arithmetic, where the host run
// above used vcvtneps2bf16 (quant-run sets x86-avx512-bf16 on AVX512-BF16
// hosts): the same bits, the extreme f16 scales included.
// RUN: quant-run %s -e bf16_fast --pipeline="quant-block-cpu-pipeline{x86-avx512-bf16=false}" --quantized-as-parts -i %t/bf16_fast_x.npy -i %t/bf16_fast_data.npy -i %t/bf16_fast_scales.npy -o %t/bf16_fast.expanded.npy
// RUN: %python %S/Inputs/matmul_kernels_order.py same %t bf16_fast bf16_fast.expanded | FileCheck %s --check-prefix=BF16-SAME
// BF16-SAME: bf16_fast bf16_fast.expanded: bit-exact
// RUN: quant-run %s -e f16_strict --quantized-as-parts -i %t/f16_strict_x.npy -i %t/f16_strict_data.npy -i %t/f16_strict_scales.npy -o %t/f16_strict.npy
// RUN: quant-run %s -e i4_zp_dyn -i %t/i4_zp_x.npy -i %t/i4_zp_data.npy -i %t/i4_zp_scales.npy -i %t/i4_zp_zp.npy -o %t/i4_zp.dyn.npy
// RUN: quant-run %s -e i8_strict_dyn --quantized-as-parts -i %t/i8_strict_x.npy -i %t/i8_strict_data.npy -i %t/i8_strict_scales.npy -o %t/i8_strict.dyn.npy
// RUN: quant-run %s -e i4_i8act_m8_dyn --quantized-as-parts -i %t/i4_i8act_m8_xq.npy -i %t/i4_i8act_m8_xs.npy -i %t/i4_i8act_m8_data.npy -i %t/i4_i8act_m8_scales.npy -o %t/i4_i8act_m8.dyn.npy
// RUN: quant-run %s -e u4zp_i8act_m4_dyn -i %t/u4zp_i8act_m4_xq.npy -i %t/u4zp_i8act_m4_xs.npy -i %t/u4zp_i8act_m4_data.npy -i %t/u4zp_i8act_m4_scales.npy -i %t/u4zp_i8act_m4_zp.npy -o %t/u4zp_i8act_m4.dyn.npy
// RUN: quant-run %s -e i8zp_i8act_dyn --quantized-as-parts -i %t/i8zp_i8act_xq.npy -i %t/i8zp_i8act_xs.npy -i %t/i8zp_i8act_data.npy -i %t/i8zp_i8act_scales.npy -i %t/i8zp_i8act_zp.npy -o %t/i8zp_i8act.dyn.npy
// RUN: %python %S/Inputs/matmul_kernels_order.py check %t i4_zp.dyn i8_strict.dyn i4_i8act_m8.dyn u4zp_i8act_m4.dyn i8zp_i8act.dyn | FileCheck %s --check-prefix=DYN
// DYN: i4_zp.dyn: bit-exact
// DYN-NEXT: i8_strict.dyn: bit-exact
// DYN-NEXT: i4_i8act_m8.dyn: bit-exact
// DYN-NEXT: u4zp_i8act_m4.dyn: bit-exact
// DYN-NEXT: i8zp_i8act.dyn: bit-exact
// RUN: %python %S/Inputs/matmul_kernels_order.py check %t i4_zp i4_zp.t3 u4 i8 u8_zp i8_b512 i4_i8act i8zp_i8act u4_i8act i4_i8act_m8 u4zp_i8act_m4 i4_i8act_b128 i8_i8act_rows u8zp_i8act_rows i4zp_strict u8_strict i8_strict bf16_fast f16_strict mxfp4 nvfp4 i4_e4m3 u4_b16 i8_b16 q4k q4k_strict q4_1 q6k_i8 q4k_i8act q4k_i8act_m20 q4_1_i8act q6k_i8_i8act q6k_i8_i8act_m20 i4_i8act_m35 u4zp_i8act_m20 | FileCheck %s
// CHECK: i4_zp: bit-exact
// CHECK-NEXT: i4_zp.t3: bit-exact
// CHECK-NEXT: u4: bit-exact
// CHECK-NEXT: i8: bit-exact
// CHECK-NEXT: u8_zp: bit-exact
// CHECK-NEXT: i8_b512: bit-exact
// CHECK-NEXT: i4_i8act: bit-exact
// CHECK-NEXT: i8zp_i8act: bit-exact
// CHECK-NEXT: u4_i8act: bit-exact
// CHECK-NEXT: i4_i8act_m8: bit-exact
// CHECK-NEXT: u4zp_i8act_m4: bit-exact
// CHECK-NEXT: i4_i8act_b128: bit-exact
// CHECK-NEXT: i8_i8act_rows: bit-exact
// CHECK-NEXT: u8zp_i8act_rows: bit-exact
// CHECK-NEXT: i4zp_strict: bit-exact
// CHECK-NEXT: u8_strict: bit-exact
// CHECK-NEXT: i8_strict: bit-exact
// CHECK-NEXT: bf16_fast: bit-exact
// CHECK-NEXT: f16_strict: bit-exact
// CHECK-NEXT: mxfp4: bit-exact
// CHECK-NEXT: nvfp4: bit-exact
// CHECK-NEXT: i4_e4m3: bit-exact
// CHECK-NEXT: u4_b16: bit-exact
// CHECK-NEXT: i8_b16: bit-exact
// CHECK-NEXT: q4k: bit-exact
// CHECK-NEXT: q4k_strict: bit-exact
// CHECK-NEXT: q4_1: bit-exact
// CHECK-NEXT: q6k_i8: bit-exact
// CHECK-NEXT: q4k_i8act: bit-exact
// CHECK-NEXT: q4k_i8act_m20: bit-exact
// CHECK-NEXT: q4_1_i8act: bit-exact
// CHECK-NEXT: q6k_i8_i8act: bit-exact
// CHECK-NEXT: q6k_i8_i8act_m20: bit-exact
// CHECK-NEXT: i4_i8act_m35: bit-exact
// CHECK-NEXT: u4zp_i8act_m20: bit-exact

!w4zp = !quant_block.tensor<96x256, #quant_block.scheme<i4 : f32, block = [1, 64], scale = f16, zero_point = i4>>
// quant-run cannot pass i4 zero points: they come as i8 and are narrowed.
func.func @i4_zp(%x: tensor<3x256xf32>, %data: tensor<96x128xi8>, %scales: tensor<96x4xf16>, %zp8: tensor<96x4xi8>) -> tensor<3x96xf32> {
  %zp = arith.trunci %zp8 : tensor<96x4xi8> to tensor<96x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<96x128xi8>, tensor<96x4xf16>, tensor<96x4xi4> to !w4zp
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<3x256xf32>, !w4zp -> tensor<3x96xf32>
  return %y : tensor<3x96xf32>
}

!wu4 = !quant_block.tensor<8x128, #quant_block.scheme<ui4 : f32, block = [1, 32]>>
func.func @u4(%x: tensor<2x128xf32>, %w: !wu4) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<2x128xf32>, !wu4 -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!w8 = !quant_block.tensor<6x192, #quant_block.scheme<i8 : f32, block = [1, 96], scale = f16>>
func.func @i8(%x: tensor<8x192xf32>, %w: !w8) -> tensor<8x6xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<8x192xf32>, !w8 -> tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}

!wu8zp = !quant_block.tensor<5x128, #quant_block.scheme<ui8 : f32, block = [1, 128], zero_point = ui8>>
func.func @u8_zp(%x: tensor<1x128xf32>, %w: !wu8zp) -> tensor<1x5xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc,nnan> : tensor<1x128xf32>, !wu8zp -> tensor<1x5xf32>
  return %y : tensor<1x5xf32>
}

!w8b512 = !quant_block.tensor<8x512, #quant_block.scheme<i8 : f32, block = [1, 512]>>
func.func @i8_b512(%x: tensor<2x512xf32>, %w: !w8b512) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x512xf32>, !w8b512 -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!a256 = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w4a = !quant_block.tensor<64x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @i4_i8act(%xq: tensor<1x256xi8>, %xs: tensor<1x8xf32>, %w: !w4a) -> tensor<1x64xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<1x256xi8>, tensor<1x8xf32> to !a256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a256, !w4a -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

!a192 = !quant_block.tensor<3x192, #quant_block.scheme<i8 : f32, block = [1, 64]>>
!w8zp = !quant_block.tensor<12x192, #quant_block.scheme<i8 : f32, block = [1, 64], zero_point = i8>>
func.func @i8zp_i8act(%xq: tensor<3x192xi8>, %xs: tensor<3x3xf32>, %w: !w8zp) -> tensor<3x12xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<3x192xi8>, tensor<3x3xf32> to !a192
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<fast> : !a192, !w8zp -> tensor<3x12xf32>
  return %y : tensor<3x12xf32>
}

!a2x256 = !quant_block.tensor<2x256, #quant_block.scheme<i8 : f32, block = [1, 128]>>
!wu4a = !quant_block.tensor<8x256, #quant_block.scheme<ui4 : f32, block = [1, 128], scale = f16>>
func.func @u4_i8act(%xq: tensor<2x256xi8>, %xs: tensor<2x2xf32>, %w: !wu4a) -> tensor<2x8xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<2x256xi8>, tensor<2x2xf32> to !a2x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<reassoc,contract> : !a2x256, !wu4a -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!a8x256 = !quant_block.tensor<8x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w4m8 = !quant_block.tensor<32x256, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
func.func @i4_i8act_m8(%xq: tensor<8x256xi8>, %xs: tensor<8x8xf32>, %w: !w4m8) -> tensor<8x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<8x256xi8>, tensor<8x8xf32> to !a8x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a8x256, !w4m8 -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

!a3x512 = !quant_block.tensor<3x512, #quant_block.scheme<i8 : f32, block = [1, 128]>>
!w4b128 = !quant_block.tensor<16x512, #quant_block.scheme<i4 : f32, block = [1, 128], scale = f16>>
func.func @i4_i8act_b128(%xq: tensor<3x512xi8>, %xs: tensor<3x4xf32>, %w: !w4b128) -> tensor<3x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<3x512xi8>, tensor<3x4xf32> to !a3x512
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3x512, !w4b128 -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

// uint4 zero points come as i8 and are narrowed, as for @i4_zp.
!a4x256 = !quant_block.tensor<4x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
!wu4zp = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 64], zero_point = ui4>>
!a35x256 = !quant_block.tensor<35x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i4_i8act_m35(%xq: tensor<35x256xi8>, %xs: tensor<35x8xf32>, %w: !w4m8) -> tensor<35x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<35x256xi8>, tensor<35x8xf32> to !a35x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a35x256, !w4m8 -> tensor<35x32xf32>
  return %y : tensor<35x32xf32>
}
!a20x256 = !quant_block.tensor<20x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
func.func @u4zp_i8act_m20(%xq: tensor<20x256xi8>, %xs: tensor<20x4xf32>, %data: tensor<16x128xi8>, %scales: tensor<16x4xf32>, %zp8: tensor<16x4xi8>) -> tensor<20x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<20x256xi8>, tensor<20x4xf32> to !a20x256
  %zp = arith.trunci %zp8 : tensor<16x4xi8> to tensor<16x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<16x128xi8>, tensor<16x4xf32>, tensor<16x4xi4> to !wu4zp
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a20x256, !wu4zp -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
func.func @u4zp_i8act_m4(%xq: tensor<4x256xi8>, %xs: tensor<4x4xf32>, %data: tensor<16x128xi8>, %scales: tensor<16x4xf32>, %zp8: tensor<16x4xi8>) -> tensor<4x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<4x256xi8>, tensor<4x4xf32> to !a4x256
  %zp = arith.trunci %zp8 : tensor<16x4xi8> to tensor<16x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<16x128xi8>, tensor<16x4xf32>, tensor<16x4xi4> to !wu4zp
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<reassoc,contract> : !a4x256, !wu4zp -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

!w4zps = !quant_block.tensor<32x256, #quant_block.scheme<i4 : f32, block = [1, 64], scale = f16, zero_point = i4>>
func.func @i4zp_strict(%x: tensor<3x256xf32>, %data: tensor<32x128xi8>, %scales: tensor<32x4xf16>, %zp8: tensor<32x4xi8>) -> tensor<3x32xf32> {
  %zp = arith.trunci %zp8 : tensor<32x4xi8> to tensor<32x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<32x128xi8>, tensor<32x4xf16>, tensor<32x4xi4> to !w4zps
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<3x256xf32>, !w4zps -> tensor<3x32xf32>
  return %y : tensor<3x32xf32>
}

!wu8s = !quant_block.tensor<16x128, #quant_block.scheme<ui8 : f32, block = [1, 128], scale = f16>>
func.func @u8_strict(%x: tensor<1x128xf32>, %w: !wu8s) -> tensor<1x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<contract> : tensor<1x128xf32>, !wu8s -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

!w8s = !quant_block.tensor<16x96, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i8_strict(%x: tensor<9x96xf32>, %w: !w8s) -> tensor<9x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<nnan> : tensor<9x96xf32>, !w8s -> tensor<9x16xf32>
  return %y : tensor<9x16xf32>
}

!wbf = !quant_block.tensor<16x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @bf16_fast(%x: tensor<2x128xbf16>, %w: !wbf) -> tensor<2x16xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x128xbf16>, !wbf -> tensor<2x16xbf16>
  return %y : tensor<2x16xbf16>
}

!wf16 = !quant_block.tensor<16x128, #quant_block.scheme<ui8 : f16, block = [1, 64], scale = f32>>
func.func @f16_strict(%x: tensor<3x128xf16>, %w: !wf16) -> tensor<3x16xf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<3x128xf16>, !wf16 -> tensor<3x16xf16>
  return %y : tensor<3x16xf16>
}

!a2x128 = !quant_block.tensor<2x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!w8rows = !quant_block.tensor<16x128, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i8_i8act_rows(%xq: tensor<2x128xi8>, %xs: tensor<2x4xf32>, %w: !w8rows) -> tensor<2x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<2x128xi8>, tensor<2x4xf32> to !a2x128
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<fast> : !a2x128, !w8rows -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

!a1x256 = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
!wu8rows = !quant_block.tensor<32x256, #quant_block.scheme<ui8 : f32, block = [1, 64], scale = f16, zero_point = ui8>>
func.func @u8zp_i8act_rows(%xq: tensor<1x256xi8>, %xs: tensor<1x4xf32>, %w: !wu8rows) -> tensor<1x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<1x256xi8>, tensor<1x4xf32> to !a1x256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !a1x256, !wu8rows -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

!wmx = !quant_block.tensor<8x128, #quant_block.scheme<mxfp4>>
func.func @mxfp4(%x: tensor<2x128xf32>, %w: !wmx) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x128xf32>, !wmx -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!wnv = !quant_block.tensor<12x256, #quant_block.scheme<nvfp4>>
func.func @nvfp4(%x: tensor<3x256xf32>, %w: !wnv) -> tensor<3x12xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<3x256xf32>, !wnv -> tensor<3x12xf32>
  return %y : tensor<3x12xf32>
}

!wi4e4m3 = !quant_block.tensor<16x256, #quant_block.scheme<i4 : f32, block = [1, 64], scale = f8E4M3FN, outer = <f32>>>
func.func @i4_e4m3(%x: tensor<1x256xf32>, %w: !wi4e4m3) -> tensor<1x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x256xf32>, !wi4e4m3 -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

!wu4b16 = !quant_block.tensor<8x128, #quant_block.scheme<ui4 : f32, block = [1, 16], scale = f16>>
func.func @u4_b16(%x: tensor<2x128xf32>, %w: !wu4b16) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<2x128xf32>, !wu4b16 -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!wi8b16 = !quant_block.tensor<8x128, #quant_block.scheme<i8 : f32, block = [1, 16]>>
func.func @i8_b16(%x: tensor<2x128xf32>, %w: !wi8b16) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc,contract> : tensor<2x128xf32>, !wi8b16 -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!wq4k = !quant_block.tensor<8x512, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
func.func @q4k(%x: tensor<2x512xf32>, %w: !wq4k) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x512xf32>, !wq4k -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!wq4ks = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
func.func @q4k_strict(%x: tensor<3x256xf32>, %w: !wq4ks) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<3x256xf32>, !wq4ks -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

!wq41 = !quant_block.tensor<8x128, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = f16>>
func.func @q4_1(%x: tensor<1x128xf32>, %w: !wq41) -> tensor<1x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<1x128xf32>, !wq41 -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

!wq6k = !quant_block.tensor<8x512, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
func.func @q6k_i8(%x: tensor<2x512xf32>, %w: !wq6k) -> tensor<2x8xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<2x512xf32>, !wq6k -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

!a512 = !quant_block.tensor<2x512, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wq4k16 = !quant_block.tensor<16x512, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
func.func @q4k_i8act(%x: !a512, %w: !wq4k16) -> tensor<2x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a512, !wq4k16 -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

!a20 = !quant_block.tensor<20x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wq4k256 = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = ui8, zero_point = ui8, outer = <f16, block = [8], min = f16>>>
func.func @q4k_i8act_m20(%x: !a20, %w: !wq4k256) -> tensor<20x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a20, !wq4k256 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}

!a1 = !quant_block.tensor<1x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!wq41i = !quant_block.tensor<16x256, #quant_block.scheme<ui4 : f32, block = [1, 32], scale = f16, zero_point = f16>>
func.func @q4_1_i8act(%x: !a1, %w: !wq41i) -> tensor<1x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a1, !wq41i -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

!a3b16 = !quant_block.tensor<3x512, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!wq6k16 = !quant_block.tensor<16x512, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
func.func @q6k_i8_i8act(%x: !a3b16, %w: !wq6k16) -> tensor<3x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit fastmath<contract> : !a3b16, !wq6k16 -> tensor<3x16xf32>
  return %y : tensor<3x16xf32>
}

// The products above with a dynamic M.
func.func @i4_zp_dyn(%x: tensor<?x256xf32>, %data: tensor<96x128xi8>, %scales: tensor<96x4xf16>, %zp8: tensor<96x4xi8>) -> tensor<?x96xf32> {
  %zp = arith.trunci %zp8 : tensor<96x4xi8> to tensor<96x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<96x128xi8>, tensor<96x4xf16>, tensor<96x4xi4> to !w4zp
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc> : tensor<?x256xf32>, !w4zp -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

func.func @i8_strict_dyn(%x: tensor<?x96xf32>, %w: !w8s) -> tensor<?x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<nnan> : tensor<?x96xf32>, !w8s -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

!ad256 = !quant_block.tensor<?x256, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @i4_i8act_m8_dyn(%xq: tensor<?x256xi8>, %xs: tensor<?x8xf32>, %w: !w4m8) -> tensor<?x32xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<?x256xi8>, tensor<?x8xf32> to !ad256
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit : !ad256, !w4m8 -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

!ad256b64 = !quant_block.tensor<?x256, #quant_block.scheme<i8 : f32, block = [1, 64]>>
func.func @u4zp_i8act_m4_dyn(%xq: tensor<?x256xi8>, %xs: tensor<?x4xf32>, %data: tensor<16x128xi8>, %scales: tensor<16x4xf32>, %zp8: tensor<16x4xi8>) -> tensor<?x16xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<?x256xi8>, tensor<?x4xf32> to !ad256b64
  %zp = arith.trunci %zp8 : tensor<16x4xi8> to tensor<16x4xi4>
  %w = builtin.unrealized_conversion_cast %data, %scales, %zp : tensor<16x128xi8>, tensor<16x4xf32>, tensor<16x4xi4> to !wu4zp
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<reassoc,contract> : !ad256b64, !wu4zp -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

!ad192 = !quant_block.tensor<?x192, #quant_block.scheme<i8 : f32, block = [1, 64]>>
func.func @i8zp_i8act_dyn(%xq: tensor<?x192xi8>, %xs: tensor<?x3xf32>, %w: !w8zp) -> tensor<?x12xf32> {
  %a = builtin.unrealized_conversion_cast %xq, %xs : tensor<?x192xi8>, tensor<?x3xf32> to !ad192
  %y = quant_block.matmul %a, %w transpose_rhs accumulate(i32) inhibit fastmath<fast> : !ad192, !w8zp -> tensor<?x12xf32>
  return %y : tensor<?x12xf32>
}

!a20b16 = !quant_block.tensor<20x256, #quant_block.scheme<i8 : f32, block = [1, 16]>>
!wq6k20 = !quant_block.tensor<16x256, #quant_block.scheme<i8 : f32, block = [1, 16], scale = i8, outer = <f16, block = [16]>>>
func.func @q6k_i8_i8act_m20(%x: !a20b16, %w: !wq6k20) -> tensor<20x16xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a20b16, !wq6k20 -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
