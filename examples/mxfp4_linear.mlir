// An MXFP4 linear layer (OCP MX v1.0): FP4 E2M1 elements in blocks of 32
// along K sharing one E8M0 power-of-two scale, bf16 activations whose MXFP8
// quantization is computed on the fly. The weight arrives as its parts; an
// unpack of the pack folds away, showing that the parts are never rebuilt.
//
//   quant-opt examples/mxfp4_linear.mlir --canonicalize

!weight = !quant_block.tensor<1024x2048, #quant_block.scheme<mxfp4 : bf16>>

func.func @linear(%x: tensor<?x2048xbf16>, %data: tensor<1024x2048xf4E2M1FN>,
                  %scales: tensor<1024x64xf8E8M0FNU>) -> tensor<?x1024xbf16> {
  %w = quant_block.pack %data scales(%scales : tensor<1024x64xf8E8M0FNU>)
      : tensor<1024x2048xf4E2M1FN> -> !weight
  %parts:2 = quant_block.unpack %w : !weight
      -> tensor<1024x2048xf4E2M1FN>, tensor<1024x64xf8E8M0FNU>
  %w2 = quant_block.pack %parts#0 scales(%parts#1 : tensor<1024x64xf8E8M0FNU>)
      : tensor<1024x2048xf4E2M1FN> -> !weight
  %xq = quant_block.quantize_dynamic mx %x
      : tensor<?x2048xbf16> -> !quant_block.tensor<?x2048, #quant_block.scheme<mxfp8_e4m3 : bf16>>
  %xd = quant_block.dequantize %xq
      : !quant_block.tensor<?x2048, #quant_block.scheme<mxfp8_e4m3 : bf16>> -> tensor<?x2048xbf16>
  %y = quant_block.matmul %xd, %w2 transpose_rhs accumulate(f32) inhibit
      : tensor<?x2048xbf16>, !weight -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}
