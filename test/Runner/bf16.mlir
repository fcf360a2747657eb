// bf16 has no numpy dtype: its bit patterns travel as uint16 ('<u2') both
// ways. int8 data with bf16 scales, dequantized to bf16, checked bit for bit.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arrays.py gen-bf16 %t
// RUN: quant-run %s -e dequant_bf16 -i %t/data.npy -i %t/scales.npy -o %t/y.npy
// RUN: %python %S/Inputs/arrays.py check-bf16 %t | FileCheck %s
// CHECK: bf16: ok

// A float16 array is not accepted for bf16.
// RUN: %python -c "import numpy as np; np.save('%t/f16.npy', np.ones((4, 2), np.float16))"
// RUN: not quant-run %s -e dequant_bf16 -i %t/data.npy -i %t/f16.npy 2>&1 | FileCheck %s --check-prefix=F16
// F16: quant-run: error: input #1 '{{.*}}f16.npy' has dtype <f2 but argument #1 of @dequant_bf16 expects bf16 (<u2 holding the bf16 bit patterns)

!q = !quant_block.tensor<4x64, #quant_block.scheme<i8 : bf16, block = [32], scale = bf16>>

func.func @dequant_bf16(%d: tensor<4x64xi8>, %s: tensor<4x2xbf16>) -> tensor<4x64xbf16> {
  %q = quant_block.pack %d scales(%s : tensor<4x2xbf16>) : tensor<4x64xi8> -> !q
  %y = quant_block.dequantize %q : !q -> tensor<4x64xbf16>
  return %y : tensor<4x64xbf16>
}
