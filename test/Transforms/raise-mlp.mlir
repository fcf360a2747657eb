// RUN: quant-opt %s --quant-block-raise | FileCheck %s
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %s \
// RUN:   --pass='quant-block-raise' --expect-change \
// RUN:   | FileCheck %s --check-prefix=SEMANTICS
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %s \
// RUN:   --pass='quant-block-raise,quant-block-propagate,quant-block-fuse' \
// RUN:   --expect-change | FileCheck %s --check-prefix=SEMANTICS
// RUN: %python %S/pass_semantics.py quant-opt mlir-runner %llvm_lib_dir %s \
// RUN:   --pass='quant-block-raise,quant-block-propagate,quant-block-fuse,canonicalize' \
// RUN:   --expect-change | FileCheck %s --check-prefix=SEMANTICS
// RUN: quant-opt %s --quant-block-raise --quant-block-propagate --quant-block-fuse --canonicalize | FileCheck %s --check-prefix=FUSED

// A TOSA MLP block as a WebNN importer emits it: two int4 weights [N, K]
// quantized in groups of 32 along K with int4 zero points, each dequantized
// by the decomposition (cast(w) - expand(zp)) * expand(s) with TOSA reshape +
// tile + reshape, transposed and fed to tosa.matmul. The raise turns each
// decomposition into quant_block.pack + quant_block.dequantize with
// `block = [32]`; --quant-block-propagate and --quant-block-fuse then carry
// the quantized weights into the matmuls, and --canonicalize folds each
// weight's transpose and unit batch reshape into transpose_rhs.

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x16x64xf32>,
// CHECK-SAME: %[[W1B:[^:]*]]: tensor<128x64xi8>, %[[S1:[^:]*]]: tensor<128x2xf32>, %[[ZP1B:[^:]*]]: tensor<128x2xi8>,
// CHECK-SAME: %[[W2B:[^:]*]]: tensor<64x128xi8>, %[[S2:[^:]*]]: tensor<64x4xf32>, %[[ZP2B:[^:]*]]: tensor<64x4xi8>)
// CHECK-DAG: %[[W1:.*]] = arith.trunci %[[W1B]] : tensor<128x64xi8> to tensor<128x64xi4>
// CHECK-DAG: %[[W2:.*]] = arith.trunci %[[W2B]] : tensor<64x128xi8> to tensor<64x128xi4>
// CHECK-DAG: %[[ZP1:.*]] = arith.trunci %[[ZP1B]] : tensor<128x2xi8> to tensor<128x2xi4>
// CHECK: %[[P1:.*]] = quant_block.pack %[[W1]] scales(%[[S1]] : tensor<128x2xf32>) zero_points(%[[ZP1]] : tensor<128x2xi4>)
// CHECK-SAME: -> !quant_block.tensor<128x64, #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>>
// CHECK: %[[D1:.*]] = quant_block.dequantize %[[P1]] : {{.*}} -> tensor<128x64xf32>
// CHECK: %[[T1:.*]] = tosa.transpose %[[D1]]
// CHECK: %[[R1:.*]] = tosa.reshape %[[T1]]
// CHECK: %[[H:.*]] = tosa.matmul %[[X]], %[[R1]]
// CHECK: %[[ZP2:.*]] = arith.trunci %[[ZP2B]] : tensor<64x4xi8> to tensor<64x4xi4>
// CHECK: %[[P2:.*]] = quant_block.pack %[[W2]] scales(%[[S2]] : tensor<64x4xf32>) zero_points(%[[ZP2]] : tensor<64x4xi4>)
// CHECK-SAME: -> !quant_block.tensor<64x128, #quant_block.scheme<i4 : f32, block = [32], zero_point = i4>>
// CHECK: %[[D2:.*]] = quant_block.dequantize %[[P2]] : {{.*}} -> tensor<64x128xf32>
// CHECK: %[[T2:.*]] = tosa.transpose %[[D2]]
// CHECK: %[[R2:.*]] = tosa.reshape %[[T2]]
// CHECK: %[[O:.*]] = tosa.matmul %{{.*}}, %[[R2]]
// CHECK: %[[Y:.*]] = tosa.add %[[X]], %[[O]]
// CHECK-NOT: tosa.tile
// CHECK-NOT: tosa.sub
// CHECK: return %[[Y]]

// SEMANTICS: ok: @mlp
// SEMANTICS: PASS

// Fused: each weight's transpose and unit batch reshape fold into one
// transpose_rhs matmul on the packed [N, K] weight (tosa.matmul keeps the
// strict order: no fast-math flags).
// FUSED-LABEL: func.func @mlp(
// FUSED: %[[P1:.*]] = quant_block.pack
// FUSED-NOT: quant_block.transpose
// FUSED-NOT: quant_block.reshape
// FUSED: %[[H:.*]] = quant_block.matmul %{{.*}}, %[[P1]] transpose_rhs accumulate(f32) inhibit : tensor<1x16x64xf32>, !quant_block.tensor<128x64, {{.*}}> -> tensor<1x16x128xf32>
// FUSED: %[[P2:.*]] = quant_block.pack
// FUSED-NOT: quant_block.transpose
// FUSED-NOT: quant_block.reshape
// FUSED: quant_block.matmul %{{.*}}, %[[P2]] transpose_rhs accumulate(f32) inhibit : tensor<1x16x128xf32>, !quant_block.tensor<64x128, {{.*}}> -> tensor<1x16x64xf32>
// FUSED-NOT: quant_block.dequantize

func.func @mlp(%x: tensor<1x16x64xf32>,
               %w1_bytes: tensor<128x64xi8>, %s1: tensor<128x2xf32>, %zp1_bytes: tensor<128x2xi8>,
               %w2_bytes: tensor<64x128xi8>, %s2: tensor<64x4xf32>, %zp2_bytes: tensor<64x4xi8>) -> tensor<1x16x64xf32> {
  // The int4 weights and zero points arrive one per byte.
  %w1 = arith.trunci %w1_bytes : tensor<128x64xi8> to tensor<128x64xi4>
  %zp1 = arith.trunci %zp1_bytes : tensor<128x2xi8> to tensor<128x2xi4>
  %w2 = arith.trunci %w2_bytes : tensor<64x128xi8> to tensor<64x128xi4>
  %zp2 = arith.trunci %zp2_bytes : tensor<64x4xi8> to tensor<64x4xi4>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %fzp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>

  // W1 = (w1 - expand(zp1)) * expand(s1), groups of 32 along K = 64.
  %g1 = tosa.const_shape {values = dense<[128, 2, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t1 = tosa.const_shape {values = dense<[1, 1, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %f1 = tosa.const_shape {values = dense<[128, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s1r = tosa.reshape %s1, %g1 : (tensor<128x2xf32>, !tosa.shape<3>) -> tensor<128x2x1xf32>
  %s1t = tosa.tile %s1r, %t1 : (tensor<128x2x1xf32>, !tosa.shape<3>) -> tensor<128x2x32xf32>
  %s1e = tosa.reshape %s1t, %f1 : (tensor<128x2x32xf32>, !tosa.shape<2>) -> tensor<128x64xf32>
  %z1r = tosa.reshape %zp1, %g1 : (tensor<128x2xi4>, !tosa.shape<3>) -> tensor<128x2x1xi4>
  %z1t = tosa.tile %z1r, %t1 : (tensor<128x2x1xi4>, !tosa.shape<3>) -> tensor<128x2x32xi4>
  %z1e = tosa.reshape %z1t, %f1 : (tensor<128x2x32xi4>, !tosa.shape<2>) -> tensor<128x64xi4>
  %w1f = tosa.cast %w1 : (tensor<128x64xi4>) -> tensor<128x64xf32>
  %z1f = tosa.cast %z1e : (tensor<128x64xi4>) -> tensor<128x64xf32>
  %w1c = tosa.sub %w1f, %z1f : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
  %w1d = tosa.mul %w1c, %s1e, %shift : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<1xi8>) -> tensor<128x64xf32>

  // h = silu(x @ W1^T)
  %w1t = tosa.transpose %w1d {perms = array<i32: 1, 0>} : (tensor<128x64xf32>) -> tensor<64x128xf32>
  %b1 = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w1b = tosa.reshape %w1t, %b1 : (tensor<64x128xf32>, !tosa.shape<3>) -> tensor<1x64x128xf32>
  %h = tosa.matmul %x, %w1b, %fzp, %fzp : (tensor<1x16x64xf32>, tensor<1x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %sig = tosa.sigmoid %h : (tensor<1x16x128xf32>) -> tensor<1x16x128xf32>
  %act = tosa.mul %h, %sig, %shift : (tensor<1x16x128xf32>, tensor<1x16x128xf32>, tensor<1xi8>) -> tensor<1x16x128xf32>

  // W2 = (w2 - expand(zp2)) * expand(s2), groups of 32 along K = 128.
  %g2 = tosa.const_shape {values = dense<[64, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %f2 = tosa.const_shape {values = dense<[64, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s2r = tosa.reshape %s2, %g2 : (tensor<64x4xf32>, !tosa.shape<3>) -> tensor<64x4x1xf32>
  %s2t = tosa.tile %s2r, %t1 : (tensor<64x4x1xf32>, !tosa.shape<3>) -> tensor<64x4x32xf32>
  %s2e = tosa.reshape %s2t, %f2 : (tensor<64x4x32xf32>, !tosa.shape<2>) -> tensor<64x128xf32>
  %z2r = tosa.reshape %zp2, %g2 : (tensor<64x4xi4>, !tosa.shape<3>) -> tensor<64x4x1xi4>
  %z2t = tosa.tile %z2r, %t1 : (tensor<64x4x1xi4>, !tosa.shape<3>) -> tensor<64x4x32xi4>
  %z2e = tosa.reshape %z2t, %f2 : (tensor<64x4x32xi4>, !tosa.shape<2>) -> tensor<64x128xi4>
  %w2f = tosa.cast %w2 : (tensor<64x128xi4>) -> tensor<64x128xf32>
  %z2f = tosa.cast %z2e : (tensor<64x128xi4>) -> tensor<64x128xf32>
  %w2c = tosa.sub %w2f, %z2f : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %w2d = tosa.mul %w2c, %s2e, %shift : (tensor<64x128xf32>, tensor<64x128xf32>, tensor<1xi8>) -> tensor<64x128xf32>

  // y = x + act @ W2^T
  %w2t = tosa.transpose %w2d {perms = array<i32: 1, 0>} : (tensor<64x128xf32>) -> tensor<128x64xf32>
  %b2 = tosa.const_shape {values = dense<[1, 128, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w2b = tosa.reshape %w2t, %b2 : (tensor<128x64xf32>, !tosa.shape<3>) -> tensor<1x128x64xf32>
  %o = tosa.matmul %act, %w2b, %fzp, %fzp : (tensor<1x16x128xf32>, tensor<1x128x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %y = tosa.add %x, %o : (tensor<1x16x64xf32>, tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  return %y : tensor<1x16x64xf32>
}
