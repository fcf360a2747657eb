// Max and min reductions long enough for the GPU middle's workgroup trees
// (--quant-block-gpu-map-reductions: max and min are associative and
// commutative exactly, so the tree's order gives the bits of any order):
// rows of 1024, of which rows 1 and 2 hold a NaN: their max with maximumf
// is NaN (a NaN wins), their min with minnumf is not (it returns the other
// operand); and the signed max and unsigned min of integers. Compiled for
// the CPU here and for the GPUs (test/GPU/SPIRV, test/GPU/NVVM); every
// value is exact, so each target prints these lines.

// RUN: quant-opt %s --quant-block-cpu-pipeline | mlir-runner -e main --entry-point-result=void --shared-libs=%llvm_lib_dir/libmlir_runner_utils.so,%llvm_lib_dir/libmlir_c_runner_utils.so | FileCheck %s

#x = affine_map<(r, k) -> (r, k)>
#r = affine_map<(r, k) -> (r)>

// x[r, k] = ((37 k + 11 r) mod 100) - 50 (as f32 and i32), then x[1, 57]
// and x[2, 3] are NaN in the floats.
func.func @values() -> (tensor<3x1024xf32>, tensor<3x1024xi32>) {
  %e = tensor.empty() : tensor<3x1024xi32>
  %i = linalg.generic {indexing_maps = [#x], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<3x1024xi32>) {
  ^bb0(%o: i32):
    %r = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c37 = arith.constant 37 : index
    %c11 = arith.constant 11 : index
    %c100 = arith.constant 100 : index
    %c50 = arith.constant 50 : index
    %a = arith.muli %k, %c37 : index
    %b = arith.muli %r, %c11 : index
    %s = arith.addi %a, %b : index
    %m = arith.remui %s, %c100 : index
    %v = arith.subi %m, %c50 : index
    %w = arith.index_cast %v : index to i32
    linalg.yield %w : i32
  } -> tensor<3x1024xi32>
  %fe = tensor.empty() : tensor<3x1024xf32>
  %f = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]}
      ins(%i : tensor<3x1024xi32>) outs(%fe : tensor<3x1024xf32>) {
  ^bb0(%a: i32, %o: f32):
    %r = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c57 = arith.constant 57 : index
    %r1 = arith.cmpi eq, %r, %c1 : index
    %k57 = arith.cmpi eq, %k, %c57 : index
    %r2 = arith.cmpi eq, %r, %c2 : index
    %k3 = arith.cmpi eq, %k, %c3 : index
    %n1 = arith.andi %r1, %k57 : i1
    %n2 = arith.andi %r2, %k3 : i1
    %n = arith.ori %n1, %n2 : i1
    %v = arith.sitofp %a : i32 to f32
    %nan = arith.constant 0x7FC00000 : f32
    %s = arith.select %n, %nan, %v : f32
    linalg.yield %s : f32
  } -> tensor<3x1024xf32>
  return %f, %i : tensor<3x1024xf32>, tensor<3x1024xi32>
}

func.func @reductions(%f: tensor<3x1024xf32>, %i: tensor<3x1024xi32>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>) {
  %low = arith.constant 0xFF800000 : f32
  %high = arith.constant 0x7F800000 : f32
  %smin = arith.constant -2147483648 : i32
  %umax = arith.constant -1 : i32
  %fe = tensor.empty() : tensor<3xf32>
  %ie = tensor.empty() : tensor<3xi32>
  %maxInit = linalg.fill ins(%low : f32) outs(%fe : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%f : tensor<3x1024xf32>) outs(%maxInit : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  %minInit = linalg.fill ins(%high : f32) outs(%fe : tensor<3xf32>) -> tensor<3xf32>
  %min = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%f : tensor<3x1024xf32>) outs(%minInit : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.minnumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  %smaxInit = linalg.fill ins(%smin : i32) outs(%ie : tensor<3xi32>) -> tensor<3xi32>
  %smax = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%i : tensor<3x1024xi32>) outs(%smaxInit : tensor<3xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %acc, %a : i32
    linalg.yield %m : i32
  } -> tensor<3xi32>
  %uminInit = linalg.fill ins(%umax : i32) outs(%ie : tensor<3xi32>) -> tensor<3xi32>
  %umin = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%i : tensor<3x1024xi32>) outs(%uminInit : tensor<3xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.minui %acc, %a : i32
    linalg.yield %m : i32
  } -> tensor<3xi32>
  return %max, %min, %smax, %umin : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>
}

func.func @main() {
  %f, %i = func.call @values() : () -> (tensor<3x1024xf32>, tensor<3x1024xi32>)
  %max, %min, %smax, %umin = func.call @reductions(%f, %i)
      : (tensor<3x1024xf32>, tensor<3x1024xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>)
  // CHECK: [49,  nan,  nan]
  %a = tensor.cast %max : tensor<3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%a) : (tensor<*xf32>) -> ()
  // CHECK: [-50,  -50,  -50]
  %b = tensor.cast %min : tensor<3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%b) : (tensor<*xf32>) -> ()
  // CHECK: [49,  49,  49]
  %c = tensor.cast %smax : tensor<3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c) : (tensor<*xi32>) -> ()
  // The smallest unsigned value: 0 (a negative i32 is a large unsigned).
  // CHECK: [0,  0,  0]
  %d = tensor.cast %umin : tensor<3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%d) : (tensor<*xi32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)
