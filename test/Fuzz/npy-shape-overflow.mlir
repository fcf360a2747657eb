// A .npy header whose shape's byte size overflows 64 bits, (2^32, 2^32, 2)
// of f4 with 16 bytes of data: quant-run's reader multiplied the dimensions
// without checking (signed overflow, caught by UBSan in the sanitizer lane,
// docs/Fuzzing.md) and could have accepted the file with a wrapped size. It
// is now an error that names the shape.

// RUN: not quant-run %s -e f -i %S/Inputs/npy-shape-overflow.npy 2>&1 | FileCheck %s
// CHECK: npy-shape-overflow.npy' has shape (4294967296, 4294967296, 2) of <f4, which is more than 2^63 bytes

func.func @f(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  return %x : tensor<?x?x?xf32>
}
