// quant-run takes the arguments that name a GGUF tensor from --gguf (the
// tensor repacked into its parts) and the others from -i. The Q4_0 weight
// of valid.gguf has d = 1 and byte j = j in both blocks of both rows, so
// elements 0..15 are -8..7 and elements 16..31 are -8 (ggml's split nibble
// halves): each row sums to 2 * (-8 - 128) = -272.
// RUN: rm -rf %t && %python %S/Inputs/make-gguf.py %t
// RUN: %python -c "import numpy; numpy.save('%t/x.npy', numpy.ones((1, 64), numpy.float32))"
// RUN: quant-run %s -e linear --quantized-as-parts --gguf %t/valid.gguf -i %t/x.npy | FileCheck %s
// CHECK: -272, -272

// The module quant-import-gguf writes runs as it is: its function returns
// the tensor dequantized.
// RUN: quant-import-gguf %t/valid.gguf --tensor blk.0.attn_q.weight > %t/imported.mlir
// RUN: quant-run %t/imported.mlir -e blk.0.attn_q.weight --quantized-as-parts --gguf %t/valid.gguf -o %t/w.npy
// RUN: %python -c "import numpy; w = numpy.load('%t/w.npy'); print(w.shape, w[1, 30:36].tolist())" | FileCheck %s --check-prefix=IMPORTED
// IMPORTED: (2, 64) [-8.0, -8.0, -8.0, -7.0, -6.0, -5.0]

// RUN: not quant-run %s -e linear --quantized-as-parts -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: @linear has arguments loaded from a GGUF file (quant_block.gguf_tensor): give the file with --gguf
// RUN: not quant-run %s -e missing --quantized-as-parts --gguf %t/valid.gguf 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: argument #0 of @missing (GGUF tensor 'blk.9.nope'): {{.*}}valid.gguf has no such tensor
// RUN: not quant-run %s -e mismatch --quantized-as-parts --gguf %t/valid.gguf 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: argument #0 of @mismatch (GGUF tensor 'output.weight'): the argument crosses as 2 values but the tensor (!quant_block.tensor<2x256, #quant_block.scheme<i6 : f32, block = [16], scale = i8, outer = <f16, block = [16]>>>) has 3 parts

!w = !quant_block.tensor<2x64, #quant_block.scheme<i4 : f32, block = [32], scale = f16>>
func.func @linear(%x: tensor<1x64xf32>,
                  %w: !w {quant_block.gguf_tensor = "blk.0.attn_q.weight"})
    -> tensor<1x2xf32> {
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit
      : tensor<1x64xf32>, !w -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

func.func @missing(%w: !w {quant_block.gguf_tensor = "blk.9.nope"})
    -> tensor<2x64xf32> {
  %0 = quant_block.dequantize %w : !w -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

!q6 = !quant_block.tensor<2x256, #quant_block.scheme<i4 : f32, block = [32], scale = f16>>
func.func @mismatch(%w: !q6 {quant_block.gguf_tensor = "output.weight"})
    -> tensor<2x256xf32> {
  %0 = quant_block.dequantize %w : !q6 -> tensor<2x256xf32>
  return %0 : tensor<2x256xf32>
}
