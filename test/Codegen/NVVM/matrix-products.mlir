// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(quant-block-nvvm-matrix-products))" | FileCheck %s
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(quant-block-nvvm-matrix-products,convert-nvgpu-to-nvvm))" | FileCheck %s --check-prefix=LOWERED

// A bf16 product of the bf16 tensor-core kernel: A's four registers and
// B's two, each two bf16 of consecutive k, passed as the i32 they occupy
// (A's row by row), C's [i, j] in row-major order; the four f32 results
// back in C's shape.
// CHECK-LABEL: gpu.func @bf16_product
// CHECK-SAME: (%[[A:.*]]: vector<4x2xbf16>, %[[B:.*]]: vector<2x2xbf16>, %[[C:.*]]: vector<2x2xf32>)
// CHECK: %[[A0:.*]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: %[[A0W:.*]] = vector.bitcast %[[A0]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[A0I:.*]] = vector.extract %[[A0W]][0] : i32 from vector<1xi32>
// CHECK: %[[A3:.*]] = vector.extract %[[A]][3] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: %[[B1:.*]] = vector.extract %[[B]][1] : vector<2xbf16> from vector<2x2xbf16>
// CHECK: %[[C00:.*]] = vector.extract %[[C]][0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[C11:.*]] = vector.extract %[[C]][1, 1] : f32 from vector<2x2xf32>
// CHECK: %[[D:.*]] = nvvm.mma.sync A[%[[A0I]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%[[C00]], %{{.*}}, %{{.*}}, %[[C11]]]
// CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME: (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[D0:.*]] = llvm.extractvalue %[[D]][0]
// CHECK: %[[D3:.*]] = llvm.extractvalue %[[D]][3]
// CHECK: %[[R:.*]] = vector.from_elements %[[D0]], %{{.*}}, %{{.*}}, %[[D3]] : vector<2x2xf32>
// CHECK: gpu.return %[[R]]
// CHECK-NOT: nvgpu.mma.sync
// LOWERED-LABEL: gpu.func @bf16_product
// LOWERED: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// LOWERED-NOT: nvgpu.mma.sync
gpu.module @kernels {
  gpu.func @bf16_product(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.return %d : vector<2x2xf32>
  }
}

// -----

// f16 and int8 products are left to convert-nvgpu-to-nvvm.
// CHECK-LABEL: gpu.func @f16_and_int8_products
// CHECK: nvgpu.mma.sync
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvvm.mma.sync
// LOWERED-LABEL: gpu.func @f16_and_int8_products
// LOWERED: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// LOWERED: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<s8>
gpu.module @kernels {
  gpu.func @f16_and_int8_products(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %ai: vector<4x4xi8>, %bi: vector<2x4xi8>, %ci: vector<2x2xi32>) -> (vector<2x2xf32>, vector<2x2xi32>) {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %di = nvgpu.mma.sync (%ai, %bi, %ci) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
    gpu.return %d, %di : vector<2x2xf32>, vector<2x2xi32>
  }
}
