// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %s \
// RUN:   --pass='quant-block-raise' --expect-change | FileCheck %s

// Unsigned data and zero points (uitofp / fptoui) raise to ui8 storage; the
// pass reinterprets the frontend's signless tensors with tensor.bitcast
// (i8 <-> ui8), which --convert-quant-block-to-linalg turns into elementwise
// casts that bufferize.

// CHECK-NOT: FAIL
// CHECK: PASS

func.func @dequantize_unsigned(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %qf = arith.uitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %zf = arith.uitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zf : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @quantize_unsigned_tosa_clamp(%x: tensor<8x128xf32>, %s: tensor<8x4x1xf32>) -> tensor<8x4x32xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4x1xf32>
  %sa = math.absf %s : tensor<8x4x1xf32>
  %sp = arith.addf %sa, %half : tensor<8x4x1xf32>
  %shape3 = tosa.const_shape {values = dense<[8, 4, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %shape3 : (tensor<8x128xf32>, !tosa.shape<3>) -> tensor<8x4x32xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %se = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sp : tensor<8x4x1xf32>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4x32xf32>
  %d = arith.divf %x3, %se : tensor<8x4x32xf32>
  %r = math.roundeven %d : tensor<8x4x32xf32>
  %zp = "tosa.const"() {values = dense<128.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %a = tosa.add %r, %zp : (tensor<8x4x32xf32>, tensor<1x1x1xf32>) -> tensor<8x4x32xf32>
  %c = tosa.clamp %a {min_val = 0.0 : f32, max_val = 255.0 : f32} : (tensor<8x4x32xf32>) -> tensor<8x4x32xf32>
  %q = arith.fptoui %c : tensor<8x4x32xf32> to tensor<8x4x32xi8>
  return %q : tensor<8x4x32xi8>
}
