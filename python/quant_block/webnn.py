"""Maps WebNN quantizeLinear / dequantizeLinear operands to quant_block IR.

WebNN has no block-size argument: the block shape is implied by the shapes.
Scale and zero point are right-aligned to the input (a lower rank is padded
with leading 1s, as older WebNN revisions allowed) and
``block[i] = input.shape[i] // scale.shape[i]``. When a scale dimension does
not divide the input dimension, the floor division gives a block for which
``ceil(input / block) != scale``, so the quant_block verifier rejects the IR
exactly when WebNN must throw.

The WebNN dtype rules are expressed through the scheme, as an importer would:
dequantize expresses the scale's dtype and stores the input's dtype with a
zero point of the input's dtype; quantize expresses the input's dtype, uses
scales of that dtype and stores the zero point's dtype.
"""

from dataclasses import dataclass
from typing import List, Optional

# WebNN / ONNX dtype names -> MLIR element types.
MLIR_TYPES = {
    "float32": "f32",
    "float16": "f16",
    "int32": "i32",
    "uint32": "ui32",
    "int16": "i16",
    "uint16": "ui16",
    "int8": "i8",
    "uint8": "ui8",
    "int4": "i4",
    "uint4": "ui4",
    "int2": "i2",
    "uint2": "ui2",
    "float8e4m3fn": "f8E4M3FN",
    "float8e5m2": "f8E5M2",
    "float4e2m1": "f4E2M1FN",
}


@dataclass
class Operand:
    shape: List[int]
    dtype: str

    @property
    def mlir_type(self) -> str:
        return MLIR_TYPES.get(self.dtype, self.dtype)


def _tensor(shape: List[int], element: str) -> str:
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims}x{element}>" if shape else f"tensor<{element}>"


def _pad(shape: List[int], rank: int) -> List[int]:
    return [1] * (rank - len(shape)) + list(shape)


def implied_block(input_shape: List[int], scale_shape: List[int]) -> List[int]:
    """WebNN's implied block shape (0 where the scale is larger)."""
    padded = _pad(scale_shape, len(input_shape))
    return [i // s if s else 0 for i, s in zip(input_shape, padded)]


@dataclass
class LoweredOp:
    """quant_block IR for one WebNN op: a scheme alias and a function."""

    scheme_alias: str
    function: str


def lower(op: str, name: str, x: Operand, scale: Operand,
          zero_point: Optional[Operand]) -> LoweredOp:
    """Returns quant_block IR for a WebNN dequantizeLinear/quantizeLinear."""
    rank = len(x.shape)
    block = implied_block(x.shape, scale.shape)
    block_text = ", ".join(str(b) for b in block)
    scale_shape = _pad(scale.shape, rank)
    if op == "dequantize":
        storage, expressed = x.mlir_type, scale.mlir_type
        scale_type = scale.mlir_type
        zp_type = x.mlir_type
    elif op == "quantize":
        storage = zero_point.mlir_type if zero_point else "ui8"
        expressed = x.mlir_type
        scale_type = x.mlir_type
        zp_type = storage
    else:
        raise ValueError(f"unknown WebNN op {op!r}")
    fields = [f"{storage} : {expressed}", f"block = [{block_text}]"]
    if scale_type != "f32":
        fields.append(f"scale = {scale_type}")
    if zero_point is not None:
        fields.append(f"zero_point = {zp_type}")
    alias = f"#scheme = #quant_block.scheme<{', '.join(fields)}>"

    qtype = f"!quant_block.tensor<{'x'.join(str(d) for d in x.shape)}, #scheme>"
    args = [f"%x: {_tensor(x.shape, x.mlir_type)}",
            f"%scale: {_tensor(scale_shape, scale.mlir_type)}"]
    zp_clause = ""
    if zero_point is not None:
        zp_shape = _pad(zero_point.shape, rank)
        zp_tensor = _tensor(zp_shape, zero_point.mlir_type)
        args.append(f"%zp: {zp_tensor}")
        zp_clause = f" zero_points(%zp : {zp_tensor})"
    scale_clause = f"scales(%scale : {_tensor(scale_shape, scale.mlir_type)})"
    if op == "dequantize":
        body = (f"  %q = quant_block.pack %x {scale_clause}{zp_clause} : "
                f"{_tensor(x.shape, x.mlir_type)} -> {qtype}\n"
                f"  %y = quant_block.dequantize %q : {qtype} -> "
                f"{_tensor(x.shape, expressed)}\n")
    else:
        body = (f"  %q = quant_block.quantize %x {scale_clause}{zp_clause} : "
                f"{_tensor(x.shape, x.mlir_type)} -> {qtype}\n")
    function = (f"func.func @{name}({', '.join(args)}) {{\n{body}"
                f"  return\n}}\n")
    return LoweredOp(alias, function)
