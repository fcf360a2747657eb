//===- QuantBlockTypes.td - quant_block types --------------*- tablegen -*-===//
//
// The quantized tensor type: a shape plus a scheme. Its data, scales and zero
// points are its parts (see quant_block.pack / quant_block.unpack).
//
//===----------------------------------------------------------------------===//

#ifndef QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKTYPES_TD
#define QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKTYPES_TD

include "quant-block/Dialect/QuantBlock/IR/QuantBlockAttrs.td"
include "mlir/IR/AttrTypeBase.td"

class QuantBlock_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<QuantBlock_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def QuantBlock_QuantizedTensorType
    : QuantBlock_Type<"QuantizedTensor", "tensor"> {
  let summary = "a block-quantized tensor: shape and scheme";
  let description = [{
    A tensor of quantized values. The type carries the logical shape and the
    scheme; the values live in three (up to five) parts whose types follow
    from it:

    | part | type |
    |------|------|
    | data | `tensor<shape x storage>` |
    | scales | `tensor<ceil(shape / block) x scale>` |
    | zero points (if any) | `tensor<ceil(shape / block) x zero_point>` |
    | outer scales (if any) | `tensor<ceil(scales / outer block) x outer scale>` |
    | outer mins (if any) | `tensor<ceil(scales / outer block) x outer min>` |

    ```
    quantized-tensor ::= `!quant_block.tensor` `<` dimension-list `,` scheme `>`
    ```

    Dimensions may be dynamic (`?`). The scheme's block shape is
    right-aligned to the shape and must not have more entries than the
    tensor has dimensions.

    ```mlir
    // A [4096, 11008] int4 weight in groups of 128 along K with f16 scales.
    !quant_block.tensor<4096x11008, #quant_block.scheme<i4 : f16, block = [128], scale = f16>>
    // An MXFP4 activation with a dynamic batch dimension.
    !quant_block.tensor<?x4096, #quant_block.scheme<mxfp4 : bf16>>
    ```

    Incorrect / correct:

    ```mlir
    // error: the block shape has 3 entries but the tensor only 2 dimensions
    !quant_block.tensor<64x64, #quant_block.scheme<i8 : f32, block = [1, 1, 32]>>
    !quant_block.tensor<64x64, #quant_block.scheme<i8 : f32, block = [1, 32]>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::quant_block::SchemeAttr":$scheme
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    bool hasStaticShape() const;
    ::llvm::SmallVector<int64_t> getEffectiveBlockShape() const {
      return getScheme().getEffectiveBlockShape(getShape());
    }
    /// `tensor<shape x storage>`: the data part.
    ::mlir::RankedTensorType getDataType() const;
    /// `tensor<shape x expressed>`: what dequantize returns.
    ::mlir::RankedTensorType getExpressedTensorType() const;
    /// `tensor<ceil(shape / block) x scale>`: the scales part.
    ::mlir::RankedTensorType getScalesType() const;
    /// The zero points part, or null if the scheme has none.
    ::mlir::RankedTensorType getZeroPointsType() const;
    /// The outer scales part, or null if the scheme has no outer scale.
    ::mlir::RankedTensorType getOuterScalesType() const;
    /// The outer mins part, or null if the outer scale has no min.
    ::mlir::RankedTensorType getOuterMinsType() const;
    /// All parts in order: data, scales, [zero points], [outer scales],
    /// [outer mins].
    ::llvm::SmallVector<::mlir::Type> getPartTypes() const;
    /// Returns a copy with another shape and scheme.
    QuantizedTensorType clone(::llvm::ArrayRef<int64_t> shape,
                              SchemeAttr scheme) const;
  }];
}

#endif // QUANT_BLOCK_DIALECT_QUANTBLOCK_IR_QUANTBLOCKTYPES_TD
