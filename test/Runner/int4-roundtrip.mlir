// End to end: numpy writes the inputs, quant-run compiles and runs an int4
// quantize -> dequantize round trip built from plain tensors, and numpy
// checks every bit of the result against its own computation of the
// numerics (Inputs/arrays.py). The module is also read from stdin.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arrays.py gen-roundtrip %t
// RUN: quant-run %s -e roundtrip -i %t/x.npy -i %t/scales.npy -i %t/zero_points.npy -o %t/y.npy
// RUN: %python %S/Inputs/arrays.py check-roundtrip %t | FileCheck %s
// RUN: rm %t/y.npy
// RUN: cat %s | quant-run - -e roundtrip -i %t/x.npy -i %t/scales.npy -i %t/zero_points.npy -o %t/y.npy
// RUN: %python %S/Inputs/arrays.py check-roundtrip %t | FileCheck %s
// CHECK: roundtrip: ok

!g = !quant_block.tensor<8x96, #quant_block.scheme<i4 : f32, block = [1, 32], zero_point = i8>>

func.func @roundtrip(%x: tensor<8x96xf32>, %s: tensor<8x3xf32>, %zp: tensor<8x3xi8>) -> tensor<8x96xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<8x3xf32>) zero_points(%zp : tensor<8x3xi8>)
         : tensor<8x96xf32> -> !g
  %y = quant_block.dequantize %q : !g -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}
