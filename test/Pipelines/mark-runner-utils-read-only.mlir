// The runner utilities that only read their arguments are marked so, which
// lets a main print a tensor and use it again (test/Integration does).
// RUN: quant-opt %s --quant-block-mark-runner-utils-read-only | FileCheck %s

// CHECK-LABEL: func.func private @printMemrefF32(tensor<*xf32> {bufferization.access = "read"})
func.func private @printMemrefF32(tensor<*xf32>)
// CHECK-LABEL: func.func private @verifyMemRefF32(tensor<*xf32> {bufferization.access = "read"}, tensor<*xf32> {bufferization.access = "read"}) -> i64
func.func private @verifyMemRefF32(tensor<*xf32>, tensor<*xf32>) -> i64
// An explicit attribute is kept; other functions are not touched.
// CHECK-LABEL: func.func private @printMemrefI32(tensor<*xi32> {bufferization.access = "read-write"})
func.func private @printMemrefI32(tensor<*xi32> {bufferization.access = "read-write"})
// CHECK-LABEL: func.func private @fill(tensor<*xf32>)
func.func private @fill(tensor<*xf32>)
// A definition is analysed by bufferization itself.
// CHECK-LABEL: func.func @printMemrefOwn(%{{.+}}: tensor<4xf32>)
func.func @printMemrefOwn(%t: tensor<4xf32>) {
  return
}
