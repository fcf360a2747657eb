// Adjacent loops the GPU middle fuses into one kernel
// (--quant-block-gpu-fuse-parallel-loops after
// convert-linalg-to-parallel-loops) and loops it must keep apart: an RMS
// norm (its reduction's zero fill, the reduction and the scaling of each
// row's elements in sequence: one kernel), an elementwise chain over the
// same elements (one kernel), an elementwise loop whose rows are then
// reduced (one kernel, each row's elements in sequence), a weighted sum
// of rows whose reduction comes before its last parallel dimension (its
// zero fill and the sum one kernel, a thread per output element after
// --quant-block-gpu-reductions-innermost), and a read of another element
// than the one written (two kernels: one thread would read what another
// has not written yet).
// Compiled for the CPU here and for the GPUs (test/GPU/SPIRV,
// test/GPU/NVVM); every value is exact, so each target prints these lines.

// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

#row = affine_map<(t, i) -> (t, i)>
#sum = affine_map<(t, i) -> (t)>
#col = affine_map<(t, i) -> (i)>
#id = affine_map<(i) -> (i)>
#rev = affine_map<(i) -> (7 - i)>

func.func @rms_norm(%x: tensor<3x4xf32>, %w: tensor<4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %squares = linalg.generic {indexing_maps = [#row, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  %o = tensor.empty() : tensor<3x4xf32>
  %y = linalg.generic {indexing_maps = [#row, #sum, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %squares, %w : tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>) outs(%o : tensor<3x4xf32>) {
  ^bb0(%a: f32, %m: f32, %g: f32, %out: f32):
    %n = arith.constant 4.0 : f32
    %mean = arith.divf %m, %n : f32
    %root = math.sqrt %mean : f32
    %v = arith.divf %a, %root : f32
    %p = arith.mulf %v, %g : f32
    linalg.yield %p : f32
  } -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// (2 x) * x.
func.func @same_elements(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %z = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%y, %x : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %z : tensor<8xf32>
}

// z[i] = y[7 - i]^2 with y = 2 x.
func.func @reversed_read(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %z = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %z : tensor<8xf32>
}

// The max of each row of 2 x.
func.func @doubled_row_max(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %y = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<3x4xf32>
  %low = arith.constant 0xFF800000 : f32
  %m = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%low : f32) outs(%m : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.generic {indexing_maps = [#row, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<3x4xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  return %max : tensor<3xf32>
}

// out[h, d] = sum over c of p[h, c] * v[c, d], the loops (h, c, d).
#hc = affine_map<(h, c, d) -> (h, c)>
#cd = affine_map<(h, c, d) -> (c, d)>
#hd = affine_map<(h, c, d) -> (h, d)>
func.func @weighted_rows(%p: tensor<2x3xf32>, %v: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %out = linalg.generic {indexing_maps = [#hc, #cd, #hd], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p, %v : tensor<2x3xf32>, tensor<3x4xf32>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %out : tensor<2x4xf32>
}

func.func @main() {
  // Rows with mean squares 1, 9 and 4 (roots 1, 3 and 2).
  %x = arith.constant dense<[[1.0, -1.0, 1.0, 1.0], [3.0, 3.0, -3.0, 3.0], [2.0, -2.0, 2.0, 2.0]]> : tensor<3x4xf32>
  %w = arith.constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  // CHECK: [0.5,   -1,   2,   4]
  // CHECK-NEXT: [0.5,   1,   -2,   4]
  // CHECK-NEXT: [0.5,   -1,   2,   4]
  %y = func.call @rms_norm(%x, %w) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %yu = tensor.cast %y : tensor<3x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%yu) : (tensor<*xf32>) -> ()

  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  // CHECK: [2,  8,  18,  32,  50,  72,  98,  128]
  %s = func.call @same_elements(%v) : (tensor<8xf32>) -> tensor<8xf32>
  %su = tensor.cast %s : tensor<8xf32> to tensor<*xf32>
  func.call @printMemrefF32(%su) : (tensor<*xf32>) -> ()
  // CHECK: [256,  196,  144,  100,  64,  36,  16,  4]
  %r = func.call @reversed_read(%v) : (tensor<8xf32>) -> tensor<8xf32>
  %ru = tensor.cast %r : tensor<8xf32> to tensor<*xf32>
  func.call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  // CHECK: [2,  6,  4]
  %m = func.call @doubled_row_max(%x) : (tensor<3x4xf32>) -> tensor<3xf32>
  %mu = tensor.cast %m : tensor<3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%mu) : (tensor<*xf32>) -> ()
  %p = arith.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]> : tensor<2x3xf32>
  %vals = arith.constant dense<[[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 4.0, 2.0], [3.0, 1.0, 0.0, 1.0]]> : tensor<3x4xf32>
  // CHECK: [10,   5,   10,   6]
  // CHECK-NEXT: [5,   2.5,   0,   4]
  %wr = func.call @weighted_rows(%p, %vals) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %wu = tensor.cast %wr : tensor<2x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%wu) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
