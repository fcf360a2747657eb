// Rounding to bf16 calls compiler-rt builtins on CPUs without AVX512-BF16
// (__truncsfbf2, __truncdfbf2), which GCC 12's libgcc lacks; quant-run
// defines them. f64 -> bf16 rounds once: 1 + 2^-8 + 2^-30 rounds up, where
// going through f32 (which drops the 2^-30) would tie to even and round down.
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.array([1.0, 1 + 2.0**-8, 1 + 2.0**-8 + 2.0**-30, 3.0e38, 3.4e38, -0.0, np.nan, 2.0**-133, 2.0**-134, 1.5 * 2.0**-134, -65504.0], np.float64))"
// RUN: quant-run %s -e to_bf16 -i %t.npy | FileCheck %s
// 0x3F80 0x3F80 0x3F81 0x7F62 0x7F80 0x8000 0x7FC0 0x0001 0x0000 0x0001 0xC780
// CHECK: result #0 of @to_bf16: tensor<11xbf16> as <u2 (11,) = [16256, 16256, 16257, 32610, 32640, 32768, 32704, 1, 0, 1, 51072]
// CHECK: result #1 of @to_bf16: tensor<11xbf16> as <u2 (11,) = [16256, 16256, 16256, 32610, 32640, 32768, 32704, 1, 0, 1, 51072]

func.func @to_bf16(%x: tensor<11xf64>) -> (tensor<11xbf16>, tensor<11xbf16>) {
  %direct = arith.truncf %x : tensor<11xf64> to tensor<11xbf16>
  %f32 = arith.truncf %x : tensor<11xf64> to tensor<11xf32>
  %twice = arith.truncf %f32 : tensor<11xf32> to tensor<11xbf16>
  return %direct, %twice : tensor<11xbf16>, tensor<11xbf16>
}
