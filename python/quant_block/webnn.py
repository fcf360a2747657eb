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

`import_op` gives an op as a Module whose ops carry `loc("<name>")`, so that
the verifier's diagnostic for a case WebNN rejects names the operation;
`lower` writes the same IR as text, which may be IR the verifier rejects.
"""

from dataclasses import dataclass
from typing import List, Optional

from .builder import Builder, Value, quantized, scheme, tensor_type
from .ir import Module

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
          zero_point: Optional[Operand], located: bool = True) -> LoweredOp:
    """quant_block IR text for a WebNN dequantizeLinear/quantizeLinear as
    function @`name`, whose ops carry `loc("name")` unless `located` is
    False. Text, unlike import_op, can hold IR the verifier rejects, which
    is what test/Conformance/webnn_validation.py writes (without locations,
    so that --verify-diagnostics matches diagnostics to lines)."""
    rank = len(x.shape)
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
    scheme_text = scheme(storage, expressed, implied_block(x.shape, scale.shape),
                         scale_type, zp_type if zero_point is not None else None)
    arguments = [Value("%x", tensor_type(x.shape, x.mlir_type)),
                 Value("%scale", tensor_type(_pad(scale.shape, rank),
                                             scale.mlir_type))]
    if zero_point is not None:
        arguments.append(Value("%zp", tensor_type(_pad(zero_point.shape, rank),
                                                  zero_point.mlir_type)))
    q = quantized(x.shape, scheme_text, alias="#scheme", scales=arguments[1],
                  zero_points=arguments[2] if zero_point is not None else None)
    builder = Builder()
    builder.location = name if located else None
    if op == "dequantize":
        packed = builder.to_quantized("pack", arguments[0], q, result="%q")
        builder.emit(f"%y = quant_block.dequantize {packed.name} : {q.type} -> "
                     f"{tensor_type(x.shape, expressed)}")
    else:
        builder.to_quantized("quantize", arguments[0], q, result="%q")
    builder.emit("return")
    return LoweredOp(f"#scheme = {scheme_text}", builder.function(
        name, [f"{a.name}: {a.type}" for a in arguments], []))


def import_op(op: str, name: str, x: Operand, scale: Operand,
              zero_point: Optional[Operand], context=None) -> Module:
    """A WebNN dequantizeLinear/quantizeLinear as a Module (in `context`,
    else the default one) holding function @`name`. Raises MLIRError where
    WebNN must throw, its diagnostics at `loc("name")`."""
    lowered = lower(op, name, x, scale, zero_point)
    return Module.parse(lowered.scheme_alias + "\n" + lowered.function, context)
