// RUN: quant-opt %s --convert-quant-block-to-linalg | FileCheck %s

// A quantized argument becomes its parts; each part keeps the argument's
// attributes, and the arguments after it keep theirs (the signature
// conversion alone would leave the attributes at their old positions).

!w = !quant_block.tensor<4x64, #quant_block.scheme<i4 : f32, block = [1, 32], zero_point = i4>>

// CHECK-LABEL: func.func @parts
// CHECK-SAME: (%{{.*}}: tensor<1x64xf32> {test.x},
// CHECK-SAME: %{{.*}}: tensor<4x32xi8> {quant_block.device_resident, quant_block.gguf_tensor = "w"},
// CHECK-SAME: %{{.*}}: tensor<4x2xf32> {quant_block.device_resident, quant_block.gguf_tensor = "w"},
// CHECK-SAME: %{{.*}}: tensor<4x2xi4> {quant_block.device_resident, quant_block.gguf_tensor = "w"},
// CHECK-SAME: %{{.*}}: tensor<4xf32> {test.bias})
// CHECK-SAME: -> (tensor<1x4xf32> {test.result})
func.func @parts(%x: tensor<1x64xf32> {test.x}, %w: !w {quant_block.device_resident, quant_block.gguf_tensor = "w"}, %b: tensor<4xf32> {test.bias}) -> (tensor<1x4xf32> {test.result}) {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit : tensor<1x64xf32>, !w -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
