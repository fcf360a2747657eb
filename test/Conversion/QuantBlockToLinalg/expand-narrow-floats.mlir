// --quant-block-expand-narrow-floats: scalar and vector extensions from the
// narrow float types become the exact integer decoding dequantize uses; anything
// else on them is an error at the op.
// RUN: quant-opt %s --split-input-file --quant-block-expand-narrow-floats --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @e4m3_to_f64(
// CHECK-NOT: arith.extf %{{.+}} : f8E4M3FN
// CHECK: arith.bitcast %{{.+}} : f8E4M3FN to i8
// CHECK: arith.extui %{{.+}} : i8 to i32
// CHECK: arith.bitcast %{{.+}} : i32 to f32
// CHECK: arith.extf %{{.+}} : f32 to f64
func.func @e4m3_to_f64(%x: f8E4M3FN) -> f64 {
  %y = arith.extf %x : f8E4M3FN to f64
  return %y : f64
}

// E8M0 decodes by bit placement: 2^(c - 127).
// CHECK-LABEL: func.func @e8m0_to_f32(
// CHECK: %[[C:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: arith.shli %[[C]], %{{.+}} : i32
// CHECK-NOT: arith.extf
func.func @e8m0_to_f32(%x: f8E8M0FNU) -> f32 {
  %y = arith.extf %x : f8E8M0FNU to f32
  return %y : f32
}

// Vectors decode lane by lane with vector ops (the CPU matmul kernels'
// E4M3 and E8M0 scales).
// CHECK-LABEL: func.func @e4m3_vector_to_f32(
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.+}} : vector<16xf8E4M3FN> to vector<16xi8>
// CHECK: arith.extui %{{.+}} : vector<16xi8> to vector<16xi32>
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT: arith.extf
func.func @e4m3_vector_to_f32(%x: vector<16xf8E4M3FN>) -> vector<16xf32> {
  %y = arith.extf %x : vector<16xf8E4M3FN> to vector<16xf32>
  return %y : vector<16xf32>
}

// CHECK-LABEL: func.func @e8m0_vector_to_f64(
// CHECK: arith.shli %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK: arith.extf %{{.+}} : vector<4xf32> to vector<4xf64>
func.func @e8m0_vector_to_f64(%x: vector<4xf8E8M0FNU>) -> vector<4xf64> {
  %y = arith.extf %x : vector<4xf8E8M0FNU> to vector<4xf64>
  return %y : vector<4xf64>
}

// -----

func.func @arithmetic(%x: f6E2M3FN, %y: f6E2M3FN) -> f6E2M3FN {
  // expected-error @+1 {{'arith.addf' op on 'f6E2M3FN' is not lowered: only extensions from it are (exactly); convert to it with quant_block.quantize, whose scheme defines the rounding and the saturation}}
  %z = arith.addf %x, %y : f6E2M3FN
  return %z : f6E2M3FN
}

// -----

func.func @tensor_extension(%x: tensor<8xf4E2M1FN>) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.extf' op on 'tensor<8xf4E2M1FN>' is expanded on scalars and vectors only; run --convert-elementwise-to-linalg first}}
  %y = arith.extf %x : tensor<8xf4E2M1FN> to tensor<8xf32>
  return %y : tensor<8xf32>
}
