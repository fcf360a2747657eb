// The kernels' rounding of dequantized weights to bf16 is left to LLVM on
// AVX512-BF16 targets (x86-avx512-bf16, from target-cpu: vcvtneps2bf16)
// where the weight can never be an f32 subnormal (integer codes times one
// f16 scale), and expanded to integer arithmetic everywhere else: on other
// targets, with the option off, and for bf16 scales (a bf16 scale can be
// as small as 2^-133).
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="target-cpu=znver4" | FileCheck %s --check-prefix=ZEN4
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="target-cpu=icelake-server" | FileCheck %s --check-prefix=EXPANDED
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline="target-cpu=znver4 x86-avx512-bf16=false" | FileCheck %s --check-prefix=EXPANDED
// RUN: quant-opt %s --split-input-file --quant-block-cpu-pipeline | FileCheck %s --check-prefix=EXPANDED

// ZEN4-LABEL: llvm.func @f16_scales
// ZEN4: llvm.fptrunc %{{.*}} : vector<16xf32> to vector<16xbf16>
// EXPANDED-LABEL: llvm.func @f16_scales
// EXPANDED-NOT: llvm.fptrunc %{{.*}} to vector<16xbf16>
// EXPANDED: llvm.return
!w16 = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = f16>>
func.func @f16_scales(%x: tensor<2x128xbf16>, %w: !w16) -> tensor<2x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<2x128xbf16>, !w16 -> tensor<2x32xbf16>
  return %y : tensor<2x32xbf16>
}

// -----

// ZEN4-LABEL: llvm.func @bf16_scales
// ZEN4-NOT: llvm.fptrunc %{{.*}} to vector<16xbf16>
// ZEN4: llvm.return
// EXPANDED-LABEL: llvm.func @bf16_scales
// EXPANDED-NOT: llvm.fptrunc %{{.*}} to vector<16xbf16>
// EXPANDED: llvm.return
!wbf = !quant_block.tensor<32x128, #quant_block.scheme<i4 : bf16, block = [1, 32], scale = bf16>>
func.func @bf16_scales(%x: tensor<2x128xbf16>, %w: !wbf) -> tensor<2x32xbf16> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<fast>
         : tensor<2x128xbf16>, !wbf -> tensor<2x32xbf16>
  return %y : tensor<2x32xbf16>
}
