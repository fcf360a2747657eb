// Two results and a dynamic dimension: per-token int8 quantization of a
// [?, 64] activation, returning the codes and the scales (quant_block.unpack).
// The token count comes from the .npy shape; two runs with 5 and 2 tokens.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arrays.py gen-dynamic %t
// RUN: quant-run %s -e per_token -i %t/x5.npy -o %t/q5.npy -o %t/s5.npy
// RUN: quant-run %s -e per_token -i %t/x2.npy -o %t/q2.npy -o %t/s2.npy
// RUN: %python %S/Inputs/arrays.py check-dynamic %t | FileCheck %s
// CHECK: dynamic: ok

// Without -o, a summary of each result.
// RUN: quant-run %s -e per_token -i %t/x2.npy | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: result #0 of @per_token: tensor<?x64xi8> as |i1 (2, 64) = [{{[-0-9, ]+}}, ... (128 values)]
// SUMMARY-NEXT: result #1 of @per_token: tensor<?x1xf32> as <f4 (2, 1) = [{{.*}}, {{.*}}]

// The static dimension is still checked.
// RUN: not quant-run %s -e per_token -i %t/q5.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: quant-run: error: input #0 '{{.*}}q5.npy' has dtype |i1 but argument #0 of @per_token expects f32 (<f4)

!a = !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [1, *]>>

func.func @per_token(%x: tensor<?x64xf32>) -> (tensor<?x64xi8>, tensor<?x1xf32>) {
  %q = quant_block.quantize_dynamic absmax %x : tensor<?x64xf32> -> !a
  %d, %s = quant_block.unpack %q : !a -> tensor<?x64xi8>, tensor<?x1xf32>
  return %d, %s : tensor<?x64xi8>, tensor<?x1xf32>
}
