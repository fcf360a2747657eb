"""quantize / dequantize arrays by compiling and running quant_block
kernels (quantize_dynamic and dequantize through --quant-block-cpu-pipeline),
so that Python gets exactly the bits compiled code produces.

    parts = quantize(w, "#quant_block.scheme<mxfp4>")   # (data, scales)
    w2 = dequantize(parts, parts.scheme)

A weight in bf16 travels as its uint16 bit patterns. The kernels are cached
per (scheme, shape, dtype).
"""

import numpy as np

from .builder import quantized_type, tensor_type
from .runner import compile
from .scheme import Scheme

_kernels = {}

_ELEMENT_TYPES = {"float32": "f32", "float16": "f16", "uint16": "bf16"}


class QuantizedParts(tuple):
    """The parts of a quantized tensor, in the order of docs/Packing.md
    (packed data, scales, then zero points, outer scales and outer mins
    where the scheme has them), with the logical `shape` and `scheme`."""

    def __new__(cls, parts, shape, scheme):
        self = super().__new__(cls, parts)
        self.shape = tuple(shape)
        self.scheme = scheme
        return self

    @property
    def data(self):
        return self[0]

    @property
    def scales(self):
        return self[1]


def _as_scheme(scheme):
    return scheme if isinstance(scheme, Scheme) else Scheme(scheme)


def _method(scheme):
    if scheme.has_mx_scale:
        return "mx"
    if scheme.zero_point is not None:
        return "minmax"
    return "absmax"


def _kernel(kind, scheme, shape):
    key = (kind, scheme.text, tuple(shape))
    if key not in _kernels:
        element = scheme.expressed
        q = quantized_type(shape, scheme.text)
        x = tensor_type(shape, element)
        if kind == "quantize":
            body = (f"func.func @quantize(%x: {x}) -> {q} {{\n"
                    f"  %q = quant_block.quantize_dynamic {_method(scheme)} %x"
                    f" : {x} -> {q}\n"
                    f"  return %q : {q}\n}}\n")
        else:
            body = (f"func.func @dequantize(%q: {q}) -> {x} {{\n"
                    f"  %x = quant_block.dequantize %q : {q} -> {x}\n"
                    f"  return %x : {x}\n}}\n")
        _kernels[key] = compile(body).function(kind)
    return _kernels[key]


def quantize(array, scheme):
    """Quantizes `array` (float32, float16, or bf16 as uint16 bit patterns,
    matching the scheme's expressed type) with the parameters
    `quantize_dynamic` computes: MX shared exponents for MX schemes, min/max
    with zero points where the scheme has them, abs-max otherwise. Returns
    QuantizedParts."""
    scheme = _as_scheme(scheme)
    array = np.asarray(array)
    expected = _ELEMENT_TYPES.get(array.dtype.name)
    if expected != scheme.expressed:
        raise TypeError(f"a {array.dtype} array cannot be quantized with "
                        f"{scheme} (expressed type {scheme.expressed}; "
                        "bf16 travels as uint16)")
    parts = _kernel("quantize", scheme, array.shape)(array)
    if not isinstance(parts, tuple):
        parts = (parts,)
    return QuantizedParts(parts, array.shape, scheme)


def dequantize(parts, scheme=None, shape=None):
    """Dequantizes `parts` (QuantizedParts, or a sequence of the part arrays
    with `scheme` and, for packed sub-byte data, the logical `shape`) to the
    scheme's expressed type."""
    scheme = _as_scheme(scheme if scheme is not None else parts.scheme)
    if shape is None:
        shape = getattr(parts, "shape", None)
    if shape is None:
        shape = np.asarray(parts[0]).shape
    return _kernel("dequantize", scheme, shape)(*parts)
