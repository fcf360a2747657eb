// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %s \
// RUN:   --pass='quant-block-raise' --expect-change | FileCheck %s

// Every raised form of raise.mlir that takes plain tensors, compiled and run
// before and after --quant-block-raise on the same random inputs: the
// results must be bit-for-bit equal (the numerics contract, docs/Numerics.md,
// is what the decompositions compute when the pass raises them). int4 data
// arrives one value per byte (arith.trunci). Unsigned forms are in
// raise-semantics-unsigned.mlir.

// CHECK-NOT: FAIL
// CHECK: PASS

func.func @dequantize_expand_broadcast_collapse(%q: tensor<8x128xi8>, %s: tensor<32xf32>, %zp: tensor<32xi8>) -> tensor<8x128xf32> {
  %s2 = tensor.expand_shape %s [[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s2 : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %z2 = tensor.expand_shape %zp [[0, 1]] output_shape [8, 4] : tensor<32xi8> into tensor<8x4xi8>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%z2 : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zf : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_no_zero_point(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>) -> tensor<8x128xf32> {
  %s3 = tensor.expand_shape %s [[0], [1, 2]] output_shape [8, 4, 1] : tensor<8x4xf32> into tensor<8x4x1xf32>
  %s2 = tensor.collapse_shape %s3 [[0], [1, 2]] : tensor<8x4x1xf32> into tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s2 : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %se, %qf : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_generic_broadcast(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4x32xf32>
  %zb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%zp : tensor<8x4xi8>) outs(%e : tensor<8x4x32xf32>) {
  ^bb0(%in: i8, %out: f32):
    %f = arith.sitofp %in : i8 to f32
    linalg.yield %f : f32
  } -> tensor<8x4x32xf32>
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %ze : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_generic_floordiv(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x128xi8>, tensor<8x4xf32>, tensor<8x4xi8>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: i8, %b: f32, %c: i8, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %cf = arith.sitofp %c : i8 to f32
    %d = arith.subf %af, %cf : f32
    %m = arith.mulf %d, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_tosa(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %shape3 = tosa.const_shape {values = dense<[8, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %mult = tosa.const_shape {values = dense<[1, 1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %shape2 = tosa.const_shape {values = dense<[8, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s3 = tosa.reshape %s, %shape3 : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<8x4x1xf32>
  %st = tosa.tile %s3, %mult : (tensor<8x4x1xf32>, !tosa.shape<3>) -> tensor<8x4x32xf32>
  %se = tosa.reshape %st, %shape2 : (tensor<8x4x32xf32>, !tosa.shape<2>) -> tensor<8x128xf32>
  %z3 = tosa.reshape %zp, %shape3 : (tensor<8x4xi8>, !tosa.shape<3>) -> tensor<8x4x1xi8>
  %zt = tosa.tile %z3, %mult : (tensor<8x4x1xi8>, !tosa.shape<3>) -> tensor<8x4x32xi8>
  %ze = tosa.reshape %zt, %shape2 : (tensor<8x4x32xi8>, !tosa.shape<2>) -> tensor<8x128xi8>
  %qf = tosa.cast %q : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %zf = tosa.cast %ze : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %d = tosa.sub %qf, %zf : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %r = tosa.mul %d, %se, %shift : (tensor<8x128xf32>, tensor<8x128xf32>, tensor<1xi8>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_tosa_implicit_broadcast(%q: tensor<8x128xi8>, %s: tensor<8x4x1xf32>, %zp: tensor<8x4x1xi8>) -> tensor<8x128xf32> {
  %shape3 = tosa.const_shape {values = dense<[8, 4, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %shape2 = tosa.const_shape {values = dense<[8, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %q3 = tosa.reshape %q, %shape3 : (tensor<8x128xi8>, !tosa.shape<3>) -> tensor<8x4x32xi8>
  %qf = tosa.cast %q3 : (tensor<8x4x32xi8>) -> tensor<8x4x32xf32>
  %zf = tosa.cast %zp : (tensor<8x4x1xi8>) -> tensor<8x4x1xf32>
  %d = tosa.sub %qf, %zf : (tensor<8x4x32xf32>, tensor<8x4x1xf32>) -> tensor<8x4x32xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.mul %d, %s, %shift : (tensor<8x4x32xf32>, tensor<8x4x1xf32>, tensor<1xi8>) -> tensor<8x4x32xf32>
  %r = tosa.reshape %m, %shape2 : (tensor<8x4x32xf32>, !tosa.shape<2>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_per_tensor(%q: tensor<8x128xi8>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %zp = arith.constant dense<3.0> : tensor<8x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x128xi8>, tensor<f32>, tensor<8x128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: i8, %b: f32, %c: f32, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %d = arith.subf %af, %c : f32
    %m = arith.mulf %b, %d : f32
    linalg.yield %m : f32
  } -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_per_tensor_splat(%q: tensor<8x128xi8>) -> tensor<8x128xf32> {
  %s = arith.constant dense<0.5> : tensor<8x128xf32>
  %zp = "tosa.const"() {values = dense<-2.0> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %qf = tosa.cast %q : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %d = tosa.sub %qf, %zp : (tensor<8x128xf32>, tensor<1x1xf32>) -> tensor<8x128xf32>
  %r = arith.mulf %d, %s : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_per_row(%q: tensor<8x128xi8>, %s: tensor<8xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %se = linalg.broadcast ins(%s : tensor<8xf32>) outs(%e : tensor<8x128xf32>) dimensions = [1]
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_per_column(%q: tensor<8x128xi8>, %s: tensor<128xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %se = linalg.broadcast ins(%s : tensor<128xf32>) outs(%e : tensor<8x128xf32>) dimensions = [0]
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_2d_blocks(%q: tensor<128x128xi8>, %s: tensor<2x4xf32>) -> tensor<128x128xf32> {
  %e = tensor.empty() : tensor<2x64x4x32xf32>
  %b = linalg.broadcast ins(%s : tensor<2x4xf32>) outs(%e : tensor<2x64x4x32xf32>) dimensions = [1, 3]
  %se = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<2x64x4x32xf32> into tensor<128x128xf32>
  %qf = arith.sitofp %q : tensor<128x128xi8> to tensor<128x128xf32>
  %r = arith.mulf %qf, %se : tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

func.func @dequantize_dense_constant(%q: tensor<2x4xi8>) -> tensor<2x4xf32> {
  %s = arith.constant dense<[[0.5, 0.5, 0.25, 0.25], [2.0, 2.0, 4.0, 4.0]]> : tensor<2x4xf32>
  %qf = arith.sitofp %q : tensor<2x4xi8> to tensor<2x4xf32>
  %r = arith.mulf %qf, %s : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

func.func @dequantize_refined_constant(%q: tensor<8x128xi8>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %se = arith.constant dense<0.125> : tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.subf %qf, %zf : tensor<8x128xf32>
  %r = arith.mulf %d, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_f16_scale(%q: tensor<8x128xi8>, %s: tensor<8xf16>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  %se = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8xf16>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%a: f16, %o: f32):
    %x = arith.extf %a : f16 to f32
    linalg.yield %x : f32
  } -> tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %r = arith.mulf %qf, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_integer_subtraction(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zw = arith.extsi %zp : tensor<8x4xi8> to tensor<8x4xi32>
  %ei = tensor.empty() : tensor<8x4x32xi32>
  %zb = linalg.broadcast ins(%zw : tensor<8x4xi32>) outs(%ei : tensor<8x4x32xi32>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi32> into tensor<8x128xi32>
  %qw = arith.extsi %q : tensor<8x128xi8> to tensor<8x128xi32>
  %d = arith.subi %qw, %ze : tensor<8x128xi32>
  %df = arith.sitofp %d : tensor<8x128xi32> to tensor<8x128xf32>
  %r = arith.mulf %df, %se : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @dequantize_then_add(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %m: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %p = arith.mulf %qf, %se : tensor<8x128xf32>
  %r = arith.addf %p, %m : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @quantize(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4xf32>
  %sa = math.absf %s : tensor<8x4xf32>
  %sp = arith.addf %sa, %half : tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%sp : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %ei = tensor.empty() : tensor<8x4x32xi8>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi8>) outs(%ei : tensor<8x4x32xi8>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi8> into tensor<8x128xi8>
  %zf = arith.sitofp %ze : tensor<8x128xi8> to tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %a = arith.addf %r, %zf : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %a, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

func.func @quantize_toward_zero(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>) -> tensor<8x128xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4xf32>
  %sa = math.absf %s : tensor<8x4xf32>
  %sp = arith.addf %sa, %half : tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%sp : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.trunc %d : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %r, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

func.func @quantize_f16(%x: tensor<8x128xf16>, %s: tensor<8x4xf16>) -> tensor<8x128xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4xf16>
  %sa = math.absf %s : tensor<8x4xf16>
  %sp = arith.addf %sa, %half : tensor<8x4xf16>
  %e = tensor.empty() : tensor<8x4x32xf16>
  %sb = linalg.broadcast ins(%sp : tensor<8x4xf16>) outs(%e : tensor<8x4x32xf16>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf16> into tensor<8x128xf16>
  %xw = arith.extf %x : tensor<8x128xf16> to tensor<8x128xf32>
  %sw = arith.extf %se : tensor<8x128xf16> to tensor<8x128xf32>
  %d = arith.divf %xw, %sw : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %lo = arith.constant dense<-128.0> : tensor<8x128xf32>
  %hi = arith.constant dense<127.0> : tensor<8x128xf32>
  %c1 = arith.maximumf %r, %lo : tensor<8x128xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

func.func @quantize_generic(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4xf32>
  %sa = math.absf %s : tensor<8x4xf32>
  %sp = arith.addf %sa, %half : tensor<8x4xf32>
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %e = tensor.empty() : tensor<8x128xi8>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sp, %zp : tensor<8x128xf32>, tensor<8x4xf32>, tensor<8x4xi8>) outs(%e : tensor<8x128xi8>) {
  ^bb0(%a: f32, %b: f32, %c: i8, %o: i8):
    %d = arith.divf %a, %b : f32
    %r = math.roundeven %d : f32
    %cf = arith.sitofp %c : i8 to f32
    %v = arith.addf %cf, %r : f32
    %c1 = arith.maximumf %v, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

func.func @dequantize_int4_f16(%q8: tensor<8x128xi8>, %s: tensor<8x4xf16>, %zp8: tensor<8x4xi8>) -> tensor<8x128xf16> {
  %q = arith.trunci %q8 : tensor<8x128xi8> to tensor<8x128xi4>
  %zp = arith.trunci %zp8 : tensor<8x4xi8> to tensor<8x4xi4>
  %e = tensor.empty() : tensor<8x4x32xf16>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf16>) outs(%e : tensor<8x4x32xf16>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf16> into tensor<8x128xf16>
  %ei = tensor.empty() : tensor<8x4x32xi4>
  %zb = linalg.broadcast ins(%zp : tensor<8x4xi4>) outs(%ei : tensor<8x4x32xi4>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xi4> into tensor<8x128xi4>
  %qf = arith.sitofp %q : tensor<8x128xi4> to tensor<8x128xf16>
  %zf = arith.sitofp %ze : tensor<8x128xi4> to tensor<8x128xf16>
  %d = arith.subf %qf, %zf : tensor<8x128xf16>
  %r = arith.mulf %d, %se : tensor<8x128xf16>
  return %r : tensor<8x128xf16>
}

func.func @dequantize_bf16(%q: tensor<8x128xi8>, %s: tensor<8x4xbf16>, %zp: tensor<8x4xi8>) -> tensor<8x128xbf16> {
  %e = tensor.empty() : tensor<8x128xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s, %zp : tensor<8x128xi8>, tensor<8x4xbf16>, tensor<8x4xi8>) outs(%e : tensor<8x128xbf16>) {
  ^bb0(%a: i8, %b: bf16, %c: i8, %o: bf16):
    %af = arith.sitofp %a : i8 to bf16
    %cf = arith.sitofp %c : i8 to bf16
    %d = arith.subf %af, %cf : bf16
    %m = arith.mulf %d, %b : bf16
    linalg.yield %m : bf16
  } -> tensor<8x128xbf16>
  return %r : tensor<8x128xbf16>
}

func.func @quantize_round_away_narrow(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>) -> tensor<8x128xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4xf32>
  %sa = math.absf %s : tensor<8x4xf32>
  %sp = arith.addf %sa, %half : tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%sp : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.round %d : tensor<8x128xf32>
  %lo = arith.constant dense<-7.0> : tensor<8x128xf32>
  %hi = arith.constant dense<7.0> : tensor<8x128xf32>
  %c1 = arith.minimumf %r, %hi : tensor<8x128xf32>
  %c2 = arith.maximumf %lo, %c1 : tensor<8x128xf32>
  %q = arith.fptosi %c2 : tensor<8x128xf32> to tensor<8x128xi4>
  %w = arith.extsi %q : tensor<8x128xi4> to tensor<8x128xi8>
  return %w : tensor<8x128xi8>
}

func.func @quantize_bf16(%x: tensor<8x128xbf16>, %s: tensor<8x4xbf16>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4xbf16>
  %sa = math.absf %s : tensor<8x4xbf16>
  %sp = arith.addf %sa, %half : tensor<8x4xbf16>
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %e = tensor.empty() : tensor<8x128xi8>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sp, %zp : tensor<8x128xbf16>, tensor<8x4xbf16>, tensor<8x4xi8>) outs(%e : tensor<8x128xi8>) {
  ^bb0(%a: bf16, %b: bf16, %c: i8, %o: i8):
    %aw = arith.extf %a : bf16 to f32
    %bw = arith.extf %b : bf16 to f32
    %d = arith.divf %aw, %bw : f32
    %r = math.roundeven %d : f32
    %cf = arith.sitofp %c : i8 to f32
    %v = arith.addf %r, %cf : f32
    %c1 = arith.minimumf %v, %hi : f32
    %c2 = arith.maximumf %c1, %lo : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}

func.func @dequantize_linalg_named(%q: tensor<8x128xi8>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x4x32xf32>
  %sb = linalg.broadcast ins(%s : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %se = tensor.collapse_shape %sb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %zf = arith.sitofp %zp : tensor<8x4xi8> to tensor<8x4xf32>
  %zb = linalg.broadcast ins(%zf : tensor<8x4xf32>) outs(%e : tensor<8x4x32xf32>) dimensions = [2]
  %ze = tensor.collapse_shape %zb [[0], [1, 2]] : tensor<8x4x32xf32> into tensor<8x128xf32>
  %e2 = tensor.empty() : tensor<8x128xf32>
  %qf = arith.sitofp %q : tensor<8x128xi8> to tensor<8x128xf32>
  %d = linalg.elementwise kind=#linalg.elementwise_kind<sub> ins(%qf, %ze : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  %r = linalg.mul ins(%d, %se : tensor<8x128xf32>, tensor<8x128xf32>) outs(%e2 : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %r : tensor<8x128xf32>
}

func.func @quantize_tosa_expansion(%x: tensor<8x128xf32>, %s: tensor<8x4xf32>, %zp: tensor<8x4xi8>) -> tensor<8x128xi8> {
  // Scales away from 0: the emulation converts NaN (0 / 0) to an
  // undefined integer, the contract to the zero point.
  %half = arith.constant dense<0.5> : tensor<8x4xf32>
  %sa = math.absf %s : tensor<8x4xf32>
  %sp = arith.addf %sa, %half : tensor<8x4xf32>
  %shape3 = tosa.const_shape {values = dense<[8, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %mult = tosa.const_shape {values = dense<[1, 1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %shape2 = tosa.const_shape {values = dense<[8, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s3 = tosa.reshape %sp, %shape3 : (tensor<8x4xf32>, !tosa.shape<3>) -> tensor<8x4x1xf32>
  %st = tosa.tile %s3, %mult : (tensor<8x4x1xf32>, !tosa.shape<3>) -> tensor<8x4x32xf32>
  %se = tosa.reshape %st, %shape2 : (tensor<8x4x32xf32>, !tosa.shape<2>) -> tensor<8x128xf32>
  %z3 = tosa.reshape %zp, %shape3 : (tensor<8x4xi8>, !tosa.shape<3>) -> tensor<8x4x1xi8>
  %zt = tosa.tile %z3, %mult : (tensor<8x4x1xi8>, !tosa.shape<3>) -> tensor<8x4x32xi8>
  %ze = tosa.reshape %zt, %shape2 : (tensor<8x4x32xi8>, !tosa.shape<2>) -> tensor<8x128xi8>
  %zf = tosa.cast %ze : (tensor<8x128xi8>) -> tensor<8x128xf32>
  %d = arith.divf %x, %se : tensor<8x128xf32>
  %r = math.roundeven %d : tensor<8x128xf32>
  %a = tosa.add %r, %zf : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c = tosa.clamp %a {min_val = -128.0 : f32, max_val = 127.0 : f32} : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %q = arith.fptosi %c : tensor<8x128xf32> to tensor<8x128xi8>
  return %q : tensor<8x128xi8>
}
