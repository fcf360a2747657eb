// --quant-block-select-zero-point: every decision and refusal, with its
// remark, under the default domain (auto) and under none, int and float.
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-select-zero-point --verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-select-zero-point=domain=none -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-select-zero-point=domain=int 2>/dev/null | FileCheck %s --check-prefix=INT
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-select-zero-point=domain=int -o /dev/null 2>&1 | FileCheck %s --check-prefix=INT-REMARK
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-select-zero-point=domain=float 2>/dev/null | FileCheck %s --check-prefix=FLOAT
// RUN: quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-select-zero-point=domain=float -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOAT-REMARK
// RUN: not quant-opt %s --split-input-file --allow-unregistered-dialect --quant-block-select-zero-point=domain=sometimes 2>&1 | FileCheck %s --check-prefix=BAD
//
// Executed before and after, bit for bit: the exact decisions (auto, none,
// int); domain=float changes results where m = -zp * s rounds, and is exact
// where it does not.
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/select-zero-point-semantics.mlir --pass='quant-block-select-zero-point' --expect-change | FileCheck %s --check-prefix=SEMANTICS
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/select-zero-point-semantics.mlir --pass='quant-block-select-zero-point{domain=none}' --expect-change | FileCheck %s --check-prefix=SEMANTICS
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/select-zero-point-semantics.mlir --pass='quant-block-select-zero-point{domain=int}' --expect-change | FileCheck %s --check-prefix=SEMANTICS
// RUN: not %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/select-zero-point-float-semantics.mlir --pass='quant-block-select-zero-point{domain=float}' --expect-change | FileCheck %s --check-prefix=CHANGED
// domain=float may turn a -0.0 result into +0.0 (q = zp under a negative
// scale: fma(q, s, -zp * s)); everything else is exact on these inputs.
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %S/Inputs/select-zero-point-semantics.mlir --pass='quant-block-select-zero-point{domain=float}' --ignore-zero-sign --expect-change | FileCheck %s --check-prefix=SEMANTICS

// The option parser rejects an unknown domain before the pass runs.
// BAD: for the --domain option: Cannot find option named 'sometimes'!
// SEMANTICS: PASS
// CHANGED: ok: @exact_m
// CHANGED: FAIL: @rounded_m: results differ
// CHANGED: FAIL

!a = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>>
!at = !quant_block.tensor<64x4, #quant_block.scheme<i4 : f32, block = [32, 1], zero_point = i4>>

// All-zero int zero points are dropped, and the users' types follow.
// CHECK-LABEL: func.func @drop_int_zeros
// CHECK: %[[S:.*]] = arith.constant dense<5.000000e-01>
// CHECK-NOT: arith.constant
// CHECK: %[[P:.*]] = quant_block.pack %{{.*}} scales(%[[S]] : tensor<4x2xf32>) : tensor<4x64xi4> -> !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32]>>
// CHECK: %[[T:.*]] = quant_block.transpose %[[P]] {{.*}} -> !quant_block.tensor<64x4, #quant_block.scheme<i4 : f32, block = [32, 1]>>
// CHECK: quant_block.dequantize %[[T]] : !quant_block.tensor<64x4, #quant_block.scheme<i4 : f32, block = [32, 1]>> -> tensor<64x4xf32>
// CHECK: quant_block.matmul %{{.*}}, %[[P]] transpose_rhs accumulate(f32) inhibit : tensor<2x64xf32>, !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32]>>
// NONE: remark: drops the i4 zero points: all are zero; saves 0.125 bits per element
// INT-REMARK: remark: keeps the i4 zero points: they are in the requested int domain; saves 0 bits per element
// FLOAT-LABEL: func.func @drop_int_zeros
// FLOAT: %[[M:.*]] = arith.constant dense<-0.000000e+00> : tensor<4x2xf32>
// FLOAT: quant_block.pack %{{.*}} zero_points(%[[M]] : tensor<4x2xf32>) : tensor<4x64xi4> -> !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [32], zero_point = f32>>
// FLOAT-REMARK: remark: turns the i4 zero points into f32 ones, m = -zp * s (domain=float): dequantize computes fma(q, s, m) instead of (q - zp) * s, which gives the same values since every m is exact (a zero result may lose its sign under a negative scale); costs 0.875 bits per element
func.func @drop_int_zeros(%d: tensor<4x64xi4>, %x: tensor<2x64xf32>) -> (tensor<64x4xf32>, tensor<2x4xf32>) {
  %s = arith.constant dense<0.5> : tensor<4x2xf32>
  %z = arith.constant dense<0> : tensor<4x2xi4>
  // expected-remark @below {{drops the i4 zero points: all are zero; saves 0.125 bits per element}}
  %q = quant_block.pack %d scales(%s : tensor<4x2xf32>) zero_points(%z : tensor<4x2xi4>) : tensor<4x64xi4> -> !a
  %t = quant_block.transpose %q permutation = [1, 0] : !a -> !at
  %y = quant_block.dequantize %t : !at -> tensor<64x4xf32>
  %m = quant_block.matmul %x, %q transpose_rhs accumulate(f32) inhibit : tensor<2x64xf32>, !a -> tensor<2x4xf32>
  return %y, %m : tensor<64x4xf32>, tensor<2x4xf32>
}

// -----

!f = !quant_block.tensor<?x64, #quant_block.scheme<i8 : f16, block = [32], scale = f16, zero_point = f16>>

// Float zero points -0.0 are dropped whatever the (run-time) scales:
// fma(q, s, -0.0) is q * s. Per element, with a dynamic shape, is per block.
// CHECK-LABEL: func.func @drop_float_negative_zeros
// CHECK: quant_block.pack %{{.*}} scales(%{{.*}} : tensor<?x2xf16>) : tensor<?x64xi8> -> !quant_block.tensor<?x64, #quant_block.scheme<i8 : f16, block = [32], scale = f16>>
// NONE: remark: drops the f16 zero points: all are zero; saves 0.5 bits per element
// INT-REMARK: remark: cannot turn the f16 zero points into integer ones (domain=int): the scales are not constant, so -m / s is unknown; saves 0 bits per element
func.func @drop_float_negative_zeros(%d: tensor<?x64xi8>, %s: tensor<?x2xf16>, %n: index) -> tensor<?x64xf16> {
  %z = arith.constant dense<-0.0> : tensor<3x2xf16>
  // expected-remark @below {{drops the f16 zero points: all are zero; saves 0.5 bits per element}}
  %q = quant_block.pack %d scales(%s : tensor<?x2xf16>) zero_points(%z : tensor<3x2xf16>) : tensor<?x64xi8> -> !f
  %x = quant_block.dequantize %q : !f -> tensor<?x64xf16>
  return %x : tensor<?x64xf16>
}

// -----

!f = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f16, block = [32], scale = f16, zero_point = f16>>

// +0.0 is only exact under positive scales: fma(0, s, +0.0) is +0.0 where
// 0 * s is -0.0 for a negative s.
// CHECK-LABEL: func.func @float_positive_zeros
// CHECK: quant_block.pack %{{.*}} scales(%{{.*}} : tensor<2x2xf16>) : tensor<2x64xi8> -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f16, block = [32], scale = f16>>
// CHECK: quant_block.pack %{{.*}} zero_points(%{{.*}} : tensor<2x2xf16>)
// NONE: remark: drops the f16 zero points: all are zero; saves 0.5 bits per element
// NONE: remark: cannot drop the f16 zero points exactly: they are +0.0 and the scale of block 1 is not positive, so fma(q, s, +0.0) would be +0.0 where q * s is -0.0; saves 0 bits per element
// INT-LABEL: func.func @float_positive_zeros
// INT: %[[Z:.*]] = arith.constant dense<0> : tensor<2x2xi8>
// INT: quant_block.pack %{{.*}} zero_points(%[[Z]] : tensor<2x2xi8>) : tensor<2x64xi8> -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f16, block = [32], scale = f16, zero_point = i8>>
// INT-REMARK: remark: turns the f16 zero points into i8 ones: every -m / s is an integer in [-128, 127]; saves 0.25 bits per element
// INT-REMARK: remark: cannot turn the f16 zero points into integer ones (domain=int): the scale of block 1 is not positive and finite; saves 0 bits per element
func.func @float_positive_zeros(%d: tensor<2x64xi8>) -> (tensor<2x64xf16>, tensor<2x64xf16>) {
  %s = arith.constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf16>
  %z = arith.constant dense<0.0> : tensor<2x2xf16>
  // expected-remark @below {{drops the f16 zero points: all are zero; saves 0.5 bits per element}}
  %q = quant_block.pack %d scales(%s : tensor<2x2xf16>) zero_points(%z : tensor<2x2xf16>) : tensor<2x64xi8> -> !f
  %x = quant_block.dequantize %q : !f -> tensor<2x64xf16>
  %n = arith.constant dense<[[0.5, -0.25], [1.0, 2.0]]> : tensor<2x2xf16>
  // expected-remark @below {{keeps the f16 zero points: they are +0.0 and the scale of block 1 is not positive, so fma(q, s, +0.0) would be +0.0 where q * s is -0.0; saves 0 bits per element}}
  %r = quant_block.pack %d scales(%n : tensor<2x2xf16>) zero_points(%z : tensor<2x2xf16>) : tensor<2x64xi8> -> !f
  %y = quant_block.dequantize %r : !f -> tensor<2x64xf16>
  return %x, %y : tensor<2x64xf16>, tensor<2x64xf16>
}

// -----

!b = !quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = f16, zero_point = bf16>>
!br = !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32], scale = f16, zero_point = bf16>>

// Float zero points m = -zp * s with integers zp in [0, 15] become ui4 ones
// (int4 instead of bf16 at group 32: (16 - 4) / 32 bits per element). The
// reshape and the unpack (its zero points unused) are retyped in place.
// CHECK-LABEL: func.func @float_to_int
// CHECK: %[[Z:.*]] = arith.constant dense<{{\[\[}}8, 8], [0, 15], [8, 1], [1, 1]]> : tensor<4x2xui4>
// CHECK: %[[P:.*]] = quant_block.pack %{{.*}} zero_points(%[[Z]] : tensor<4x2xui4>) : tensor<4x64xui4> -> !quant_block.tensor<4x64, #quant_block.scheme<ui4 : f32, block = [32], scale = f16, zero_point = ui4>>
// CHECK: %[[R:.*]] = quant_block.reshape %[[P]] {{.*}} -> !quant_block.tensor<8x32, #quant_block.scheme<ui4 : f32, block = [32], scale = f16, zero_point = ui4>>
// CHECK: quant_block.unpack %[[P]] {{.*}} -> tensor<4x64xui4>, tensor<4x2xf16>, tensor<4x2xui4>
// NONE: remark: cannot drop the bf16 zero points (domain=none): zero point -4 of block 0 is not zero, and dropping it would shift its block by zp * s; saves 0 bits per element
// INT: quant_block.pack %{{.*}} zero_points(%{{.*}} : tensor<4x2xui4>)
// FLOAT-REMARK: remark: keeps the bf16 zero points: they are in the requested float domain; saves 0 bits per element
func.func @float_to_int(%d: tensor<4x64xui4>) -> (tensor<8x32xf32>, tensor<4x2xf16>) {
  %s = arith.constant dense<[[0.5, 0.25], [1.0, 2.0], [0.125, 0.75], [3.0, 0.5]]> : tensor<4x2xf16>
  %z = arith.constant dense<[[-4.0, -2.0], [0.0, -30.0], [-1.0, -0.75], [-3.0, -0.5]]> : tensor<4x2xbf16>
  // expected-remark @below {{turns the bf16 zero points into ui4 ones: every -m / s is an integer in [0, 15]; saves 0.375 bits per element}}
  %q = quant_block.pack %d scales(%s : tensor<4x2xf16>) zero_points(%z : tensor<4x2xbf16>) : tensor<4x64xui4> -> !b
  %r = quant_block.reshape %q : !b -> !br
  %x = quant_block.dequantize %r : !br -> tensor<8x32xf32>
  %p:3 = quant_block.unpack %q : !b -> tensor<4x64xui4>, tensor<4x2xf16>, tensor<4x2xbf16>
  return %x, %p#1 : tensor<8x32xf32>, tensor<4x2xf16>
}

// -----

!b = !quant_block.tensor<2x64, #quant_block.scheme<ui4 : f32, block = [32], zero_point = f32>>

// Not every -m / s is an integer of the storage range: kept, with the block.
// CHECK-LABEL: func.func @float_not_integer
// CHECK-COUNT-3: zero_points(%{{.*}} : tensor<2x2xf32>)
// INT-REMARK: remark: cannot turn the f32 zero points into integer ones (domain=int): block 1 has m = -0.3, which is not -zp * s for an integer zp in [0, 15] (s = 0.5); saves 0 bits per element
// INT-REMARK: remark: cannot turn the f32 zero points into integer ones (domain=int): block 2 has m = -10, which is not -zp * s for an integer zp in [0, 15] (s = 0.5); saves 0 bits per element
// INT-REMARK: remark: cannot turn the f32 zero points into integer ones (domain=int): the scales are not constant, so -m / s is unknown; saves 0 bits per element
func.func @float_not_integer(%d: tensor<2x64xui4>, %rs: tensor<2x2xf32>) -> (!b, !b, !b) {
  %s = arith.constant dense<0.5> : tensor<2x2xf32>
  %z = arith.constant dense<[[-1.0, -0.3], [-2.0, -2.0]]> : tensor<2x2xf32>
  // expected-remark @below {{keeps the f32 zero points: block 1 has m = -0.3, which is not -zp * s for an integer zp in [0, 15] (s = 0.5); saves 0 bits per element}}
  %q = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xf32>) : tensor<2x64xui4> -> !b
  %big = arith.constant dense<[[-1.0, -2.0], [-10.0, -2.0]]> : tensor<2x2xf32>
  // expected-remark @below {{keeps the f32 zero points: block 2 has m = -10, which is not -zp * s for an integer zp in [0, 15] (s = 0.5); saves 0 bits per element}}
  %r = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%big : tensor<2x2xf32>) : tensor<2x64xui4> -> !b
  // expected-remark @below {{keeps the f32 zero points: the scales are not constant, so -m / s is unknown; saves 0 bits per element}}
  %t = quant_block.pack %d scales(%rs : tensor<2x2xf32>) zero_points(%z : tensor<2x2xf32>) : tensor<2x64xui4> -> !b
  return %q, %r, %t : !b, !b, !b
}

// -----

!w = !quant_block.tensor<2x64, #quant_block.scheme<i16 : f32, block = [32], zero_point = f16>>

// i16 zero points would not be smaller than f16 ones: auto keeps them,
// domain=int converts as asked.
// CHECK-LABEL: func.func @float_to_int_not_smaller
// CHECK: zero_points(%{{.*}} : tensor<2x2xf16>)
// INT-LABEL: func.func @float_to_int_not_smaller
// INT: zero_points(%{{.*}} : tensor<2x2xi16>)
// INT-REMARK: remark: turns the f16 zero points into i16 ones: every -m / s is an integer in [-32768, 32767]; saves 0 bits per element
func.func @float_to_int_not_smaller(%d: tensor<2x64xi16>) -> tensor<2x64xf32> {
  %s = arith.constant dense<0.25> : tensor<2x2xf32>
  %z = arith.constant dense<-100.0> : tensor<2x2xf16>
  // expected-remark @below {{keeps the f16 zero points: i16 zero points would not be smaller; saves 0 bits per element}}
  %q = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xf16>) : tensor<2x64xi16> -> !w
  %x = quant_block.dequantize %q : !w -> tensor<2x64xf32>
  return %x : tensor<2x64xf32>
}

// -----

!q = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
!f = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = f32>>

// quantize: all-zero zero points are dropped (the codes do not change),
// float ones are never made integer (they round differently there).
// CHECK-LABEL: func.func @quantize
// CHECK: quant_block.quantize %{{.*}} scales(%{{.*}} : tensor<2x2xf32>) : tensor<2x64xf32> -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32]>>
// CHECK: quant_block.quantize %{{.*}} zero_points(%{{.*}} : tensor<2x2xf32>)
// INT-REMARK: remark: cannot turn the f32 zero points into integer ones (domain=int): quant_block.quantize rounds (x - m) / s with float zero points but x / s + zp with integer ones, so its codes could change (fold it to a pack first); saves 0 bits per element
// FLOAT-REMARK: remark: turns the i8 zero points into f32 ones, m = -zp * s (domain=float): dequantize computes fma(q, s, m) instead of (q - zp) * s, which gives the same values since every m is exact (a zero result may lose its sign under a negative scale); quantize rounds (x - m) / s instead of x / s + zp; costs 0.75 bits per element
func.func @quantize(%x: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>) {
  %s = arith.constant dense<0.5> : tensor<2x2xf32>
  %z = arith.constant dense<0> : tensor<2x2xi8>
  // expected-remark @below {{drops the i8 zero points: all are zero; saves 0.25 bits per element}}
  %q = quant_block.quantize %x scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi8>) : tensor<2x64xf32> -> !q
  %a = quant_block.dequantize %q : !q -> tensor<2x64xf32>
  %m = arith.constant dense<-1.5> : tensor<2x2xf32>
  // expected-remark @below {{keeps the f32 zero points: quant_block.quantize rounds (x - m) / s with float zero points but x / s + zp with integer ones, so its codes could change (fold it to a pack first); saves 0 bits per element}}
  %f = quant_block.quantize %x scales(%s : tensor<2x2xf32>) zero_points(%m : tensor<2x2xf32>) : tensor<2x64xf32> -> !f
  %b = quant_block.dequantize %f : !f -> tensor<2x64xf32>
  return %a, %b : tensor<2x64xf32>, tensor<2x64xf32>
}

// -----

!a = !quant_block.tensor<2x64, #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>>

// Int zero points that are not all zero stay (auto) or cannot be dropped
// (none); domain=float turns them into f32 ones, rounding m where
// -zp * s is not exact.
// CHECK-LABEL: func.func @keep_int
// CHECK: zero_points(%{{.*}} : tensor<2x2xi4>)
// NONE: remark: cannot drop the i4 zero points (domain=none): zero point 3 of block 1 is not zero, and dropping it would shift its block by zp * s; saves 0 bits per element
// FLOAT-LABEL: func.func @keep_int
// FLOAT: arith.constant dense<{{\[\[}}-0.000000e+00, -3.000000e-01], [0.699999988, -0.699999988]]> : tensor<2x2xf32>
// FLOAT-REMARK: remark: turns the i4 zero points into f32 ones, m = -zp * s (domain=float): dequantize computes fma(q, s, m) instead of (q - zp) * s, and m is rounded in 3 of 4 blocks, so results there may differ by that rounding; costs 0.875 bits per element
func.func @keep_int(%d: tensor<2x64xi4>) -> tensor<2x64xf32> {
  %s = arith.constant dense<0.1> : tensor<2x2xf32>
  %z = arith.constant dense<[[0, 3], [-7, 7]]> : tensor<2x2xi4>
  // expected-remark @below {{keeps the i4 zero points: zero point 3 of block 1 is not zero; saves 0 bits per element}}
  %q = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi4>) : tensor<2x64xi4> -> !a
  %x = quant_block.dequantize %q : !a -> tensor<2x64xf32>
  return %x : tensor<2x64xf32>
}

// -----

!a = !quant_block.tensor<2x64, #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>>

// Users that cannot take another type: a return, a call, an unpack whose
// zero points are used (or would disappear). The IR stays as it is.
// CHECK-LABEL: func.func @users_refuse
// CHECK-COUNT-4: zero_points(%{{.*}} : tensor<2x2xi4>)
// NONE-COUNT-4: remark: cannot drop the i4 zero points (which would save 0.125 bits per element): the quantized type would change, but
// FLOAT-REMARK: remark: cannot turn the i4 zero points into f32 ones, m = -zp * s (domain=float) (which would cost 0.875 bits per element): the quantized type would change, but it is returned by func.return, and the function's result type would have to change; saves 0 bits per element
// FLOAT-REMARK: remark: cannot turn the i4 zero points into f32 ones, m = -zp * s (domain=float) (which would cost 0.875 bits per element): the quantized type would change, but it is used by 'func.call', which cannot take another quantized type; saves 0 bits per element
// FLOAT-REMARK: remark: cannot turn the i4 zero points into f32 ones, m = -zp * s (domain=float) (which would cost 0.875 bits per element): the quantized type would change, but the zero points that quant_block.unpack returns are used; saves 0 bits per element
// FLOAT-REMARK: remark: turns the i4 zero points into f32 ones
func.func private @consume(!a)
func.func @users_refuse(%d: tensor<2x64xi4>) -> (!a, tensor<2x2xi4>, tensor<2x64xi4>) {
  %s = arith.constant dense<0.5> : tensor<2x2xf32>
  %z = arith.constant dense<0> : tensor<2x2xi4>
  // expected-remark @below {{cannot drop the i4 zero points (which would save 0.125 bits per element): the quantized type would change, but it is returned by func.return, and the function's result type would have to change; saves 0 bits per element}}
  %a = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi4>) : tensor<2x64xi4> -> !a
  // expected-remark @below {{cannot drop the i4 zero points (which would save 0.125 bits per element): the quantized type would change, but it is used by 'func.call', which cannot take another quantized type; saves 0 bits per element}}
  %b = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi4>) : tensor<2x64xi4> -> !a
  func.call @consume(%b) : (!a) -> ()
  // expected-remark @below {{cannot drop the i4 zero points (which would save 0.125 bits per element): the quantized type would change, but quant_block.unpack returns the zero points as a part, which cannot be removed in place; saves 0 bits per element}}
  %c = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi4>) : tensor<2x64xi4> -> !a
  %cp:3 = quant_block.unpack %c : !a -> tensor<2x64xi4>, tensor<2x2xf32>, tensor<2x2xi4>
  // expected-remark @below {{cannot drop the i4 zero points (which would save 0.125 bits per element): the quantized type would change, but quant_block.unpack returns the zero points as a part, which cannot be removed in place; saves 0 bits per element}}
  %e = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi4>) : tensor<2x64xi4> -> !a
  %ep:3 = quant_block.unpack %e : !a -> tensor<2x64xi4>, tensor<2x2xf32>, tensor<2x2xi4>
  return %a, %cp#2, %ep#0 : !a, tensor<2x2xi4>, tensor<2x64xi4>
}

// -----

!a = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
!x = !quant_block.tensor<4x64, #quant_block.scheme<i8 : f32, block = [32]>>

// An i32-accumulating matmul cannot apply float zero points (domain=float
// refuses); dropping zeros is fine for it.
// CHECK-LABEL: func.func @integer_matmul
// CHECK: quant_block.matmul {{.*}} !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32]>> -> tensor<4x2xf32>
// FLOAT-REMARK: remark: cannot turn the i8 zero points into f32 ones, m = -zp * s (domain=float) (which would cost 0.75 bits per element): the quantized type would change, but it feeds a quant_block.matmul with i32 accumulation, which cannot apply float zero points; saves 0 bits per element
func.func @integer_matmul(%x: !x, %d: tensor<2x64xi8>) -> tensor<4x2xf32> {
  %s = arith.constant dense<0.5> : tensor<2x2xf32>
  %z = arith.constant dense<0> : tensor<2x2xi8>
  // expected-remark @below {{drops the i8 zero points: all are zero; saves 0.25 bits per element}}
  %w = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi8>) : tensor<2x64xi8> -> !a
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !x, !a -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Out of scope, without a remark: run-time zero points, no zero points, and
// K-quant zero points under an outer min (a remark says why).
!a = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32], zero_point = i8>>
!n = !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32]>>
!k = !quant_block.tensor<1x256, #quant_block.scheme<ui4 : f32, block = [32], scale = ui6, zero_point = ui6, outer = <f16, block = [8], min = f16>>>

// CHECK-LABEL: func.func @out_of_scope
// CHECK: quant_block.pack %{{.*}} zero_points(%{{.*}} : tensor<2x2xi8>)
// CHECK: quant_block.pack %{{.*}} scales(%{{.*}} : tensor<2x2xf32>) : tensor<2x64xi8> -> !quant_block.tensor<2x64, #quant_block.scheme<i8 : f32, block = [32]>>
// CHECK: quant_block.pack %{{.*}} zero_points(%{{.*}} : tensor<1x8xui6>)
func.func @out_of_scope(%d: tensor<2x64xi8>, %z: tensor<2x2xi8>, %kd: tensor<1x256xui4>) -> (tensor<2x64xf32>, tensor<2x64xf32>, tensor<1x256xf32>) {
  %s = arith.constant dense<0.5> : tensor<2x2xf32>
  %a = quant_block.pack %d scales(%s : tensor<2x2xf32>) zero_points(%z : tensor<2x2xi8>) : tensor<2x64xi8> -> !a
  %n = quant_block.pack %d scales(%s : tensor<2x2xf32>) : tensor<2x64xi8> -> !n
  %ks = arith.constant dense<3> : tensor<1x8xui6>
  %kz = arith.constant dense<0> : tensor<1x8xui6>
  %ko = arith.constant dense<0.5> : tensor<1x1xf16>
  %km = arith.constant dense<0.25> : tensor<1x1xf16>
  // expected-remark @below {{keeps the ui6 zero points: an outer min scales them (K-quant super-blocks), which this pass does not analyse; saves 0 bits per element}}
  %k = quant_block.pack %kd scales(%ks : tensor<1x8xui6>) zero_points(%kz : tensor<1x8xui6>) outer_scales(%ko : tensor<1x1xf16>) outer_mins(%km : tensor<1x1xf16>) : tensor<1x256xui4> -> !k
  %ax = quant_block.dequantize %a : !a -> tensor<2x64xf32>
  %nx = quant_block.dequantize %n : !n -> tensor<2x64xf32>
  %kx = quant_block.dequantize %k : !k -> tensor<1x256xf32>
  return %ax, %nx, %kx : tensor<2x64xf32>, tensor<2x64xf32>, tensor<1x256xf32>
}
