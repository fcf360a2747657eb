//===- Passes.td - quant-block conversion passes -----------*- tablegen -*-===//
//
// The conversion passes out of the quant_block dialect, one section each.
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_CONVERSION_PASSES_TD
#define QUANT_BLOCK_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// QuantBlockToLinalg
//===----------------------------------------------------------------------===//

def ConvertQuantBlockToLinalg : Pass<"convert-quant-block-to-linalg"> {
  let summary = "Lower quant_block ops to linalg, tensor and arith on plain tensors";
  let description = [{
    Replaces every `!quant_block.tensor` by its lowered parts (data, scales,
    zero points, outer scales and mins; function signatures, calls and
    returns included) and every quant_block op by `linalg.generic`s on them.

    Sub-byte data (2- to 7-bit storage) is packed along the innermost
    dimension into `i8` as a little-endian bit stream (first element in the
    low bits, each innermost row starting on a byte boundary; docs/Packing.md).
    Elements of 3, 5, 6 and 7 bits straddle bytes: G of them fill B whole
    bytes (4 in 3 for FP6), and each byte of such a group is read as its own
    input through the same projected permutation. Scales stay contracted and
    are read through projected-permutation indexing maps in an expanded
    iteration space, so the upstream vectorizer accepts the generics:

    ```mlir
    // Input:
    %x = quant_block.dequantize %q : !quant_block.tensor<4x64,
        #quant_block.scheme<i4 : f32, block = [32]>> -> tensor<4x64xf32>
    // Output (data tensor<4x32xi8> holds two i4 per byte):
    %d = tensor.expand_shape %data [[0], [1, 2]] output_shape [4, 2, 16]
        : tensor<4x32xi8> into tensor<4x2x16xi8>
    %r = linalg.generic {indexing_maps = [
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>,   // packed byte
          affine_map<(d0, d1, d2, d3) -> (d0, d1)>,       // scale
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%d, %scales : ...) outs(%init : tensor<4x2x16x2xf32>) {...}
    %x = tensor.collapse_shape %r [[0], [1, 2, 3]] : ... into tensor<4x64xf32>
    ```

    Layouts the expanded space cannot express (ragged last blocks, blocked
    dynamic dimensions, one scale per packed element, innermost blocks that
    are not whole packing groups) take a general form that gathers
    parameters and packed bytes with tensor.extract. OCP narrow floats (FP8,
    FP6, FP4) and E8M0 / E4M3 scales are encoded and decoded by integer bit
    manipulation.

    Two-level block parameters (GGUF K-quant super-blocks: integer block
    scales, outer scales blocked over the scales, outer mins) are first
    folded into effective f32 block parameters by one generic over the scale
    tensor, `s_eff = scale * outer_scale[b / outer_block]` and
    `m_eff = zero_point * outer_min[b / outer_block]`; the element generics
    then read them like a single-level scheme's.

    A `tensor.bitcast` that only changes the signedness of integer elements
    (what --quant-block-raise emits for unsigned storage) becomes an
    elementwise generic, because MLIR 22 cannot bufferize tensor.bitcast.

    What this version does not lower is reported as an error at the op,
    never left behind: integer storage of 9 to 15 or 17 to 31 bits, dynamic
    packed (innermost) dimensions, MX (E8M0) scales under a blocked outer
    scale or an outer min, rank-0 tensors, quantize_dynamic with ragged or
    dynamic blocked dimensions or non-floor scale rounding, some
    i32-accumulating products (see the diagnostics) and broadcasts along new
    dynamic dimensions.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // QUANT_BLOCK_CONVERSION_PASSES_TD
