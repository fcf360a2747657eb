// tensor.bitcast between integer types that differ only in signedness (what
// --quant-block-raise emits for unsigned storage) becomes elementwise casts,
// which bufferize; other bitcasts are left alone.
// RUN: quant-opt %s --split-input-file --convert-quant-block-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @to_unsigned(
// CHECK-SAME: %[[T:.+]]: tensor<4x?xi8>)
// CHECK-NOT: tensor.bitcast
// CHECK: %[[D:.+]] = tensor.dim %[[T]], %{{.+}} : tensor<4x?xi8>
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<4x?xui8>
// CHECK: linalg.generic {{.+}} ins(%[[T]] : tensor<4x?xi8>) outs(%[[E]] : tensor<4x?xui8>)
// CHECK: builtin.unrealized_conversion_cast %{{.+}} : i8 to ui8
func.func @to_unsigned(%t: tensor<4x?xi8>) -> tensor<4x?xui8> {
  %b = tensor.bitcast %t : tensor<4x?xi8> to tensor<4x?xui8>
  return %b : tensor<4x?xui8>
}

// -----

// CHECK-LABEL: func.func @float_bits(
// CHECK: tensor.bitcast %{{.+}} : tensor<4xi32> to tensor<4xf32>
func.func @float_bits(%t: tensor<4xi32>) -> tensor<4xf32> {
  %b = tensor.bitcast %t : tensor<4xi32> to tensor<4xf32>
  return %b : tensor<4xf32>
}
