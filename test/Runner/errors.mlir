// Every error quant-run reports: exit code 1 and one message that names the
// file, the input or argument and the rule.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arrays.py gen-errors %t

// Inputs.
// RUN: not quant-run %s -i %t/missing.npy -i %t/s.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: quant-run: error: input #0: cannot open '{{.*}}missing.npy': No such file or directory
// RUN: not quant-run %s -i %t/text.npy -i %t/s.npy 2>&1 | FileCheck %s --check-prefix=NOT-NPY
// NOT-NPY: quant-run: error: input #0: '{{.*}}text.npy' is not a .npy file (it does not start with the magic string \x93NUMPY)
// RUN: not quant-run %s -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=TOO-FEW
// TOO-FEW: quant-run: error: @main takes 2 arguments but 1 input was given (-i)
// RUN: not quant-run %s -i %t/x.npy -i %t/s.npy -i %t/s.npy 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// TOO-MANY: quant-run: error: @main takes 2 arguments but 3 inputs were given (-i)
// RUN: not quant-run %s -i %t/x.npy -i %t/s_f64.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: quant-run: error: input #1 '{{.*}}s_f64.npy' has dtype <f8 but argument #1 of @main expects f32 (<f4)
// RUN: not quant-run %s -i %t/x_u4.npy -i %t/s.npy 2>&1 | FileCheck %s --check-prefix=DTYPE-INT
// DTYPE-INT: quant-run: error: input #0 '{{.*}}x_u4.npy' has dtype <u4 but argument #0 of @main expects f32 (<f4)
// RUN: not quant-run %s -i %t/x.npy -i %t/s_3.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: quant-run: error: input #1 '{{.*}}s_3.npy' has shape (4, 3) but argument #1 of @main has type tensor<4x2xf32>: dimension 1 must be 2, not 3
// RUN: not quant-run %s -i %t/x.npy -i %t/s_rank1.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: quant-run: error: input #1 '{{.*}}s_rank1.npy' has rank 1 (shape (8,)) but argument #1 of @main has type tensor<4x2xf32> (rank 2)
// RUN: not quant-run %s -i %t/x_fortran.npy -i %t/s.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: quant-run: error: input #0: '{{.*}}x_fortran.npy' is in Fortran order (fortran_order: True); quant-run needs C order (numpy: np.ascontiguousarray(a))
// RUN: not quant-run %s -i %t/x_big.npy -i %t/s.npy 2>&1 | FileCheck %s --check-prefix=BIG-ENDIAN
// BIG-ENDIAN: quant-run: error: input #0: '{{.*}}x_big.npy' is big-endian (dtype >f4); quant-run reads little-endian .npy files only
// RUN: not quant-run %s -i %t/x_complex.npy -i %t/s.npy 2>&1 | FileCheck %s --check-prefix=COMPLEX
// COMPLEX: quant-run: error: input #0: '{{.*}}x_complex.npy' has dtype <c8, which quant-run does not support (an element type compiled code cannot take; supported: b1, i1, u1, i2, u2, i4, u4, i8, u8, f2, f4, f8)

// Targets: names LLVM does not know are errors (LLVM itself only warns).
// RUN: not quant-run %s -i %t/x.npy -i %t/s.npy --target-cpu=x86-64-v9 2>&1 | FileCheck %s --check-prefix=TARGET-CPU
// TARGET-CPU: quant-run: error: --target-cpu: 'x86-64-v9' is not a processor LLVM knows for {{.*}}
// RUN: not quant-run %s -i %t/x.npy -i %t/s.npy --target-features=+avx1024 2>&1 | FileCheck %s --check-prefix=TARGET-FEATURE
// TARGET-FEATURE: quant-run: error: --target-features: 'avx1024' is not a feature LLVM knows for {{.*}}

// Outputs: one -o per result, or none.
// RUN: not quant-run %s -i %t/x.npy -i %t/s.npy -o %t/a.npy -o %t/b.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: quant-run: error: @main returns 1 result but 2 output files were given (-o): give one -o per result, or none to print a summary of each result
// RUN: not quant-run %s -i %t/x.npy -i %t/s.npy -o %t/nodir/y.npy 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: quant-run: error: cannot write '{{.*}}nodir/y.npy': No such file or directory

// The entry function and its signature.
// RUN: not quant-run %s -e nope 2>&1 | FileCheck %s --check-prefix=NO-ENTRY
// NO-ENTRY: quant-run: error: entry function @nope not found (the module defines @main, @quantized_result, @i4_argument, @unranked_argument)
// RUN: not quant-run %s -e declaration 2>&1 | FileCheck %s --check-prefix=DECLARATION
// DECLARATION: quant-run: error: entry function @declaration is only a declaration (it has no body)
// RUN: not quant-run %s -e quantized_result -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=QUANTIZED
// QUANTIZED: quant-run: error: result #0 of @quantized_result has type !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32]>>: the entry function must take and return plain tensors. {{.*}} return quant_block.dequantize or quant_block.unpack results
// RUN: not quant-run %s -e i4_argument 2>&1 | FileCheck %s --check-prefix=I4
// I4: quant-run: error: argument #0 of @i4_argument has element type i4, which quant-run cannot pass (supported: i1, i8, i16, i32, i64 of any signedness, index, f16, bf16, f32, f64 and 8-bit floats; sub-byte data crosses the boundary packed, as part of a !quant_block.tensor, see docs/Runner.md)
// RUN: not quant-run %s -e unranked_argument 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: quant-run: error: argument #0 of @unranked_argument has type tensor<*xf32>, which quant-run cannot pass: it needs a ranked tensor or memref

// The module, the pipeline and the lowering.
// RUN: not quant-run %t/x.npy 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: quant-run: error: cannot parse '{{.*}}x.npy'
// RUN: not quant-run %s -i %t/x.npy -i %t/s.npy --pipeline='no-such-pass' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: quant-run: error: cannot parse the pass pipeline 'no-such-pass': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not quant-run %s -i %t/x.npy -i %t/s.npy --pipeline='canonicalize' 2>&1 | FileCheck %s --check-prefix=NOT-LLVM
// NOT-LLVM: quant-run: error: after the pass pipeline 'canonicalize' the module has no llvm.func @main with a body: the pipeline must lower the module to the LLVM dialect
// RUN: %python -c "import numpy as np; np.save('%t/x2.npy', np.zeros((2, 32), np.float32)); np.save('%t/s2.npy', np.ones((2, 2), np.float32))"
// RUN: not quant-run %S/Inputs/pass-failure.mlir -i %t/x2.npy -i %t/s2.npy 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: pass-failure.mlir:{{[0-9]+}}:{{[0-9]+}}: error: cannot lower to linalg: storage of 12 bits is not lowered (only 2- to 8-, 16- and 32-bit storage is)
// PASS: quant-run: error: the pass pipeline 'quant-block-cpu-pipeline' failed (see the diagnostics above)

// RUN: %python -c "import numpy as np; np.save('%t/x4.npy', np.zeros(4, np.float32))"
// RUN: not quant-run %S/Inputs/calls-runtime.mlir -i %t/x4.npy 2>&1 | FileCheck %s --check-prefix=LINK
// LINK: quant-run: error: cannot link @main: {{.*}} (functions the module only declares must come from a library given with --shared-libs)

// The anchored pipeline form works too.
// RUN: quant-run %s -i %t/x.npy -i %t/s.npy --pipeline='builtin.module(quant-block-cpu-pipeline)' | FileCheck %s --check-prefix=ANCHORED
// ANCHORED: result #0 of @main: tensor<4x64xf32> as <f4 (4, 64) = [0, 0,

!q = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32]>>

func.func @main(%x: tensor<4x64xf32>, %s: tensor<4x2xf32>) -> tensor<4x64xf32> {
  %q = quant_block.quantize %x scales(%s : tensor<4x2xf32>) : tensor<4x64xf32> -> !q
  %y = quant_block.dequantize %q : !q -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

func.func @quantized_result(%x: tensor<4x64xf32>) -> !q {
  %q = quant_block.quantize_dynamic absmax %x : tensor<4x64xf32> -> !q
  return %q : !q
}

func.func @i4_argument(%x: tensor<4x64xi4>) -> tensor<4x64xi8> {
  %y = arith.extsi %x : tensor<4x64xi4> to tensor<4x64xi8>
  return %y : tensor<4x64xi8>
}

func.func @unranked_argument(%x: tensor<*xf32>) {
  return
}

func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
