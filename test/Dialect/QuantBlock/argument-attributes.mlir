// RUN: quant-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// The dialect's function argument attributes: quant_block.device_resident
// (a unit attribute on a buffer argument) and quant_block.gguf_tensor (a
// string).

// CHECK-LABEL: func.func @valid
// CHECK-SAME: {quant_block.device_resident}
// CHECK-SAME: {quant_block.device_resident}
// CHECK-SAME: {quant_block.device_resident, quant_block.gguf_tensor = "blk.0.attn_q.weight"}
func.func @valid(%a: tensor<4x64xf32> {quant_block.device_resident},
                 %b: memref<4x64xf32> {quant_block.device_resident},
                 %c: !quant_block.tensor<4x64, #quant_block.scheme<i4 : f16, block = [1, 32]>> {quant_block.device_resident, quant_block.gguf_tensor = "blk.0.attn_q.weight"}) {
  return
}

// -----

// expected-error @below {{'func.func' op 'quant_block.device_resident' of argument #0 must be a unit attribute}}
func.func @not_unit(%a: tensor<4xf32> {quant_block.device_resident = true}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument #1 of type 'f32' cannot be device-resident ('quant_block.device_resident'): only ranked tensors, memrefs and quantized tensors are buffers}}
func.func @scalar(%a: tensor<4xf32>, %s: f32 {quant_block.device_resident}) {
  return
}

// -----

// expected-error @below {{'func.func' op 'quant_block.gguf_tensor' of argument #0 must be a string (the GGUF tensor's name)}}
func.func @gguf_not_string(%a: tensor<4xf32> {quant_block.gguf_tensor = 3 : i64}) {
  return
}

// -----

// expected-error @below {{'func.func' op unknown argument attribute 'quant_block.resident' of the quant_block dialect (known: 'quant_block.device_resident', 'quant_block.gguf_tensor')}}
func.func @unknown(%a: tensor<4xf32> {quant_block.resident}) {
  return
}
