// .npy headers whose shapes overflow 64 bits: quant-run's reader multiplied
// the dimensions without checking (signed overflow, caught by UBSan in the
// sanitizer lane, docs/Fuzzing.md) and could have accepted a file with a
// wrapped size. Both are now an error that names the shape.
//
// (2^32, 2^32, 2) of f4 with 16 bytes of data:
// RUN: not quant-run %s -e f -i %S/Inputs/npy-shape-overflow.npy 2>&1 | FileCheck %s
// CHECK: npy-shape-overflow.npy' has shape (4294967296, 4294967296, 2) of <f4, whose dimensions multiply to more than 2^63 bytes
//
// Found by quant-block-fuzz-npy after the first fix: a zero dimension makes
// the array empty, but the dimensions before it still overflowed.
// RUN: not quant-run %s -e f -i %S/Inputs/npy-shape-overflow-zero-dim.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: has shape (340, 33330333, 3160, 433, 4333330333, 3160, 433333333, 0, 3131062) of <f4, whose dimensions multiply to more than 2^63 bytes

func.func @f(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  return %x : tensor<?x?x?xf32>
}
