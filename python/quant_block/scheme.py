"""A quantization scheme (#quant_block.scheme) read through the C API.

    s = Scheme("#quant_block.scheme<i4 : f32, block = [32], scale = f16>")
    s.storage, s.block, s.scale        # 'i4', (32,), 'f16'
    Scheme(str(s)) == s                # the text round-trips
    Scheme.named("mxfp4")              # the OCP MX / NVFP4 schemes

The text MLIR prints is the canonical form: two schemes are equal when
their canonical texts are.
"""

import ctypes

from . import _capi, builder
from .ir import MLIRError, default_context

ROUNDING = {0: "half_to_even", 1: "half_away_from_zero", 2: "toward_zero"}
SCALE_ROUNDING = {0: "floor", 1: "ceil", 2: "half_to_even"}
WHOLE = "*"


class Scheme:
    """Every field of a scheme, and its canonical text."""

    def __init__(self, text, context=None):
        context = context or default_context()
        lib = context._lib
        text = text.strip()
        if not text.startswith("#"):
            text = f"#quant_block.scheme<{text}>"
        context.take_diagnostics()
        attribute = lib.mlirAttributeParseGet(context._context,
                                              _capi.StringRef.of(text))
        if not attribute.ptr or not lib.mlirAttributeIsAQuantBlockScheme(
                attribute):
            raise MLIRError(f"not a #quant_block.scheme: {text}",
                            context.take_diagnostics())
        self.context = context
        self.text = _capi.printed(lib.mlirAttributePrint, attribute)

        def type_text(handle):
            return _capi.printed(lib.mlirTypePrint, handle) if handle.ptr else None

        def block(rank, size):
            return tuple(WHOLE if size(i) == _capi.WHOLE_DIMENSION else size(i)
                         for i in range(rank))

        self.storage = type_text(lib.mlirQuantBlockSchemeAttrGetStorageType(attribute))
        self.expressed = type_text(
            lib.mlirQuantBlockSchemeAttrGetExpressedType(attribute))
        self.block = block(
            lib.mlirQuantBlockSchemeAttrGetBlockRank(attribute),
            lambda i: lib.mlirQuantBlockSchemeAttrGetBlockSize(attribute, i))
        self.scale = type_text(lib.mlirQuantBlockSchemeAttrGetScaleType(attribute))
        self.zero_point = type_text(
            lib.mlirQuantBlockSchemeAttrGetZeroPointType(attribute))
        self.qmin = lib.mlirQuantBlockSchemeAttrGetQmin(attribute)
        self.qmax = lib.mlirQuantBlockSchemeAttrGetQmax(attribute)
        self.rounding = ROUNDING[lib.mlirQuantBlockSchemeAttrGetRounding(attribute)]
        self.saturate = bool(lib.mlirQuantBlockSchemeAttrGetSaturate(attribute))
        self.scale_rounding = SCALE_ROUNDING[
            lib.mlirQuantBlockSchemeAttrGetScaleRounding(attribute)]
        # The row tile of the row-tiled layout (docs/Packing.md); 0 for
        # row-major.
        self.row_tile = lib.mlirQuantBlockSchemeAttrGetRowTile(attribute)
        self.outer = None
        if lib.mlirQuantBlockSchemeAttrHasOuter(attribute):
            self.outer = {
                "scale": type_text(
                    lib.mlirQuantBlockSchemeAttrGetOuterScaleType(attribute)),
                "block": block(
                    lib.mlirQuantBlockSchemeAttrGetOuterBlockRank(attribute),
                    lambda i: lib.mlirQuantBlockSchemeAttrGetOuterBlockSize(
                        attribute, i)),
                "min": type_text(
                    lib.mlirQuantBlockSchemeAttrGetOuterMinType(attribute)),
            }
        name = _capi.StringRef()
        self.standard_name = (
            str(name) if lib.mlirQuantBlockSchemeAttrGetStandardName(
                attribute, ctypes.byref(name)) else None)

    @staticmethod
    def named(name, expressed="f32", context=None):
        """The named scheme `name` ("mxfp4", "nvfp4", ...)."""
        return Scheme(builder.scheme(name, expressed), context)

    @property
    def has_mx_scale(self):
        return self.scale == "f8E8M0FNU"

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"Scheme({self.text!r})"

    def __eq__(self, other):
        return isinstance(other, Scheme) and self.text == other.text

    def __hash__(self):
        return hash(self.text)
