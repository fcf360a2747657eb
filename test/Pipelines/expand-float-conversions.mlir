// RUN: quant-opt %s --split-input-file --quant-block-expand-float-conversions | FileCheck %s
// RUN: quant-opt %s --split-input-file --quant-block-expand-float-conversions=native-bf16-truncation=true | FileCheck %s --check-prefix=NATIVE
// RUN: quant-opt %s --split-input-file --quant-block-expand-float-conversions=native-kernel-f16-truncation=true | FileCheck %s --check-prefix=KERNEL

// f32 -> bf16: integer rounding on the bit pattern, no truncf left for LLVM
// to lower to a host instruction.
// CHECK-LABEL: func.func @f32_to_bf16
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: %[[HALF_ULP:.*]] = arith.constant dense<32767> : vector<8xi32>
// CHECK: arith.addi %[[HALF_ULP]]
// CHECK: arith.cmpf uno
// CHECK: arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
func.func @f32_to_bf16(%x: vector<8xf32>) -> vector<8xbf16> {
  %r = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  return %r : vector<8xbf16>
}

// -----

// f64 -> f16 rounds to odd in f32 first (the only truncf left is f64 -> f32,
// which every host rounds the same), then to f16 by integer arithmetic.
// CHECK-LABEL: func.func @f64_to_f16
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-NOT: arith.truncf
// CHECK: arith.cmpf one
// CHECK: arith.ori
// CHECK: arith.bitcast %{{.*}} : i16 to f16
func.func @f64_to_f16(%x: f64) -> f16 {
  %r = arith.truncf %x : f64 to f16
  return %r : f16
}

// -----

// Extensions: bf16 by a shift, f16 by rebiasing; bf16 -> f64 goes through f32.
// CHECK-LABEL: func.func @extensions
// CHECK-NOT: arith.extf %{{.*}} : bf16
// CHECK-NOT: arith.extf %{{.*}} : f16
// CHECK: arith.shli
// CHECK: arith.extf %{{.*}} : f32 to f64
func.func @extensions(%a: bf16, %b: f16) -> (f64, f32) {
  %x = arith.extf %a : bf16 to f64
  %y = arith.extf %b : f16 to f32
  return %x, %y : f64, f32
}

// -----

// Other rounding modes and other types are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK: arith.truncf %{{.*}} to_nearest_away : f32 to bf16
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.extf %{{.*}} : f32 to f64
func.func @left_alone(%x: f32, %y: f64) -> (bf16, f32, f64) {
  %a = arith.truncf %x to_nearest_away : f32 to bf16
  %b = arith.truncf %y : f64 to f32
  %c = arith.extf %x : f32 to f64
  return %a, %b, %c : bf16, f32, f64
}

// -----

// native-bf16-truncation (AVX512-BF16 targets): an f32 -> bf16 truncation
// marked never_subnormal_operand is left to LLVM (vcvtneps2bf16; the mark
// is dropped, the LLVM dialect has no place for it); without
// the mark, or without the option, it is expanded (the mark is only valid
// on f32 -> bf16 truncations: test/Dialect/QuantBlock/invalid.mlir).
// CHECK-LABEL: func.func @marked_truncations
// CHECK-NOT: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// NATIVE-LABEL: func.func @marked_truncations
// NATIVE: %[[KEPT:.*]] = arith.truncf %arg0 : vector<16xf32> to vector<16xbf16>
// NATIVE-NOT: arith.truncf {{.*}} to vector<16x{{bf16|f16}}>
// NATIVE: return %[[KEPT]]
func.func @marked_truncations(%w: vector<16xf32>, %d: vector<16xf64>)
    -> (vector<16xbf16>, vector<16xbf16>, vector<16xbf16>) {
  %kept = arith.truncf %w {quant_block.never_subnormal_operand} : vector<16xf32> to vector<16xbf16>
  %unmarked = arith.truncf %w : vector<16xf32> to vector<16xbf16>
  %f64 = arith.truncf %d : vector<16xf64> to vector<16xbf16>
  return %kept, %unmarked, %f64 : vector<16xbf16>, vector<16xbf16>, vector<16xbf16>
}

// -----

// native-kernel-f16-truncation (the NVVM pipeline): f32 -> f16 inside a
// gpu.launch is left to the target (cvt.rn.f16.f32); on the host, and
// from f64 anywhere, it is expanded. Without the option all three are.
// KERNEL-LABEL: func.func @kernel_f16_truncation
// KERNEL: arith.bitcast %{{.*}} : i16 to f16
// KERNEL: gpu.launch
// KERNEL: arith.truncf %{{.*}} : f32 to f16
// KERNEL: arith.truncf %{{.*}} : f64 to f32
// KERNEL-NOT: arith.truncf
// KERNEL: gpu.terminator
// CHECK-LABEL: func.func @kernel_f16_truncation
// CHECK-NOT: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.terminator
func.func @kernel_f16_truncation(%x: f32, %d: f64, %out: memref<3xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %host = arith.truncf %x : f32 to f16
  memref.store %host, %out[%c0] : memref<3xf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k = arith.truncf %x : f32 to f16
    memref.store %k, %out[%c1] : memref<3xf16>
    %w = arith.truncf %d : f64 to f16
    memref.store %w, %out[%c2] : memref<3xf16>
    gpu.terminator
  }
  return
}
