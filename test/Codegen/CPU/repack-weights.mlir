// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-cpu-select-matmul-kernels{x86-avx512-vnni=true},quant-block-cpu-repack-weights{min-rows=16}))" | FileCheck %s
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-cpu-select-matmul-kernels{x86-avx512-vnni=true},quant-block-cpu-repack-weights))" | FileCheck %s --check-prefix=DEFAULT
// RUN: not quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(quant-block-cpu-repack-weights{min-rows=0}))" 2>&1 | FileCheck %s --check-prefix=BAD

// A weight argument of a product of 16 rows whose kernel reads 16-row tiles
// (vnni_row_lanes: int8 activations with AVX512-VNNI): one repack to
// row_tile = 16 at the function's start, shared by both products of it. The
// default min-rows (128) leaves products of 16 rows alone.
// CHECK-LABEL: func.func @argument_weight
// CHECK-NEXT: %[[T:.*]] = quant_block.repack %arg1 : {{.*}} -> !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
// CHECK-NOT: quant_block.repack
// CHECK: quant_block.matmul %{{.*}}, %[[T]] transpose_rhs accumulate(i32) {{.*}}vnni_row_lanes
// CHECK: quant_block.matmul %{{.*}}, %[[T]] transpose_rhs accumulate(i32) {{.*}}vnni_row_lanes
// DEFAULT-LABEL: func.func @argument_weight
// DEFAULT-NOT: quant_block.repack
// DEFAULT: return
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!a = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @argument_weight(%x: !a, %w: !w, %x2: !a) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x32xf32>
  %y2 = quant_block.matmul %x2, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x32xf32>
  return %y, %y2 : tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// A weight computed in the function: repacked right after its definition.
// CHECK-LABEL: func.func @computed_weight
// CHECK: %[[W:.*]] = quant_block.quantize_dynamic
// CHECK-NEXT: %[[T:.*]] = quant_block.repack %[[W]]
// CHECK: quant_block.matmul %{{.*}}, %[[T]]
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32]>>
!a = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @computed_weight(%x: !a, %f: tensor<32x64xf32>) -> tensor<16x32xf32> {
  %w = quant_block.quantize_dynamic absmax %f : tensor<32x64xf32> -> !w
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// Left alone: fewer rows than min-rows (8 < 16), a dynamic row count, a pack
// of constants (--quant-block-cpu-tile-constant-weights' domain), a weight
// already tiled, and a product whose kernel reads row-major weights (f32
// activations: no vnni_row_lanes).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: quant_block.repack
// CHECK: return
!w = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>>
!t = !quant_block.tensor<32x64, #quant_block.scheme<i4 : f32, block = [1, 32], scale = f16, row_tile = 16>>
!a8 = !quant_block.tensor<8x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!ad = !quant_block.tensor<?x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
!a = !quant_block.tensor<16x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
func.func @left_alone(%x8: !a8, %xd: !ad, %x: !a, %w: !w, %t: !t, %f: tensor<16x64xf32>)
    -> (tensor<8x32xf32>, tensor<?x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) {
  %y8 = quant_block.matmul %x8, %w transpose_rhs accumulate(i32) inhibit : !a8, !w -> tensor<8x32xf32>
  %yd = quant_block.matmul %xd, %w transpose_rhs accumulate(i32) inhibit : !ad, !w -> tensor<?x32xf32>
  %d = arith.constant dense<3> : tensor<32x64xi4>
  %s = arith.constant dense<5.000000e-01> : tensor<32x2xf16>
  %c = quant_block.pack %d scales(%s : tensor<32x2xf16>) : tensor<32x64xi4> -> !w
  %yc = quant_block.matmul %x, %c transpose_rhs accumulate(i32) inhibit : !a, !w -> tensor<16x32xf32>
  %yt = quant_block.matmul %x, %t transpose_rhs accumulate(i32) inhibit : !a, !t -> tensor<16x32xf32>
  %yf = quant_block.matmul %f, %w transpose_rhs accumulate(f32) inhibit fastmath<fast> : tensor<16x64xf32>, !w -> tensor<16x32xf32>
  return %y8, %yd, %yc, %yt, %yf : tensor<8x32xf32>, tensor<?x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
}

// BAD: error: min-rows must be positive, not 0
