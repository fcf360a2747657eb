"""Writes quant_block IR as text: the one place the importers
(quant_block.onnx, quant_block.webnn) and the kernels of
quant_block.quantization spell types, constants, schemes and the parameter
operands of quantized values.

The importers write a function line by line and parse it into a Module at
the end. Each op they emit carries the location of what it comes from (an
ONNX node, a WebNN operation), so that a diagnostic of the verifier or of a
pass names the node instead of a line of generated text.

    b = Builder()
    b.location = "layer1"                       # ops from here on: loc("layer1")
    w = b.constant(codes, "ui4")
    s = b.constant(scales, "f16")
    q = quantized(codes.shape, scheme("ui4", block=[1, 32], scale="f16"),
                  scales=s)
    packed = b.to_quantized("pack", w, q)       # %v3 = quant_block.pack ...
    b.emit(f"return {packed.name} : {packed.type}")
    text = b.function("main", [], [packed.type])
"""

from collections import namedtuple

import numpy as np

# Element types whose dense constants are written as floats.
_FLOATS = {"f32", "f16", "bf16"}


class Value(namedtuple("Value", "name type")):
    """An SSA value (`%v1`, `%arg0`, `%v4#0`) and its type text."""


class Quantized(namedtuple("Quantized", "scheme type operands part_types")):
    """A quantized value as IR text: its scheme, its !quant_block.tensor type
    (naming the scheme or its alias), the parameter operands that follow
    the input of quant_block.pack / quantize (`scales(%s : T) ...`) and the
    types of those parameters in the order docs/Packing.md gives the parts."""


def tensor_type(shape, element):
    """`tensor<2x3xf32>`; `tensor<f32>` for a scalar."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def dense(array, element):
    """A dense elements attribute holding `array` as `element` (nested
    lists, as the MLIR syntax wants them; floats as the shortest decimals
    that round-trip, so parsing them is exact)."""
    array = np.asarray(array)
    values = array.astype(np.float64 if element in _FLOATS else np.int64).tolist()
    return f"dense<{values}> : {tensor_type(array.shape, element)}"


def location(name):
    """The name location `loc("name")`, its string escaped as MLIR prints
    strings (a backslash doubled, a quote and every byte outside printable
    ASCII as `\\XX`), so that any node name parses back to itself."""
    escaped = []
    for byte in name.encode():
        if byte == ord("\\"):
            escaped.append("\\\\")
        elif 0x20 <= byte < 0x7F and byte != ord('"'):
            escaped.append(chr(byte))
        else:
            escaped.append(f"\\{byte:02X}")
    return f'loc("{"".join(escaped)}")'


def scheme(storage, expressed="f32", block=None, scale="f32",
           zero_point=None):
    """The #quant_block.scheme text of these fields: `block` None for one
    block over the whole tensor (else sizes, `"*"` for a whole dimension),
    `scale` left out when it is f32, `zero_point` (its type) when there is
    one. `storage` may also be a named scheme ("mxfp4")."""
    fields = [f"{storage} : {expressed}"]
    if block is not None:
        fields.append("block = [" + ", ".join(str(b) for b in block) + "]")
    if scale != "f32":
        fields.append(f"scale = {scale}")
    if zero_point is not None:
        fields.append(f"zero_point = {zero_point}")
    return "#quant_block.scheme<" + ", ".join(fields) + ">"


def quantized_type(shape, scheme_text):
    """`!quant_block.tensor<6x4, scheme>` (the scheme's text or alias)."""
    return ("!quant_block.tensor<" + "x".join(str(d) for d in shape) + ", "
            + scheme_text + ">")


def quantized(shape, scheme_text, alias=None, scales=None, zero_points=None,
              outer_scales=None, outer_mins=None):
    """A quantized value of logical `shape` from its parts: the parameters
    are Values (or anything with `name` and `type`), those that are None
    are left out. The type names the scheme by `alias` (e.g. `#scheme`,
    defined by the caller) when given. The operand clauses are the ones
    quant_block.pack and quant_block.quantize share."""
    clauses, part_types = [], []
    for keyword, part in (("scales", scales), ("zero_points", zero_points),
                          ("outer_scales", outer_scales),
                          ("outer_mins", outer_mins)):
        if part is not None:
            clauses.append(f"{keyword}({part.name} : {part.type})")
            part_types.append(part.type)
    return Quantized(scheme_text,
                     quantized_type(shape, alias or scheme_text),
                     " ".join(clauses), tuple(part_types))


class Builder:
    """The body of one function being written: fresh SSA names, and lines
    that carry `location` (a name, or None for no location) when it is
    set."""

    def __init__(self):
        self.lines = []
        self.counter = 0
        self.location = None

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def _located(self, text):
        if self.location is None:
            return text
        return f"{text} {location(self.location)}"

    def emit(self, text):
        """Appends the op `text`, with the current location."""
        self.lines.append("  " + self._located(text))

    def open_region(self, text):
        """Starts an op with a region: `text` ends with its `{`; the ops
        emitted next are its body until close_region."""
        self.lines.append("  " + text)

    def close_region(self):
        """Ends the region open_region started (the op takes the current
        location)."""
        self.lines.append("  " + self._located("}"))

    def constant(self, array, element):
        """An arith.constant holding `array` as `element`."""
        value = Value(self.fresh(), tensor_type(np.shape(array), element))
        self.emit(f"{value.name} = arith.constant {dense(array, element)}")
        return value

    def to_quantized(self, op, value, q, result=None):
        """quant_block.pack (codes to `q`) or quant_block.quantize (floats
        to `q`), whose syntax is the same, of `value`; defines `result`, or
        a fresh name."""
        out = Value(result or self.fresh(), q.type)
        self.emit(f"{out.name} = quant_block.{op} {value.name} {q.operands} "
                  f": {value.type} -> {q.type}")
        return out

    def function(self, name, arguments, results, private=False):
        """The func.func @`name` holding the lines emitted so far:
        `arguments` as `%x: type` texts, `results` the result types (no
        result list when empty); `private` for a function only the module
        calls. It carries the current location."""
        visibility = "private " if private else ""
        header = f"func.func {visibility}@{name}({', '.join(arguments)})"
        if results:
            header += f" -> ({', '.join(results)})"
        return "\n".join([header + " {"] + self.lines
                         + [self._located("}")]) + "\n"
