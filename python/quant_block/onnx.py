"""Imports ONNX models into func + quant_block + linalg / tensor / arith IR.

    module = quant_block.onnx.import_model("model.onnx")   # or a ModelProto
    kernels = quant_block.compile(module)
    y = kernels.main(x)

Mapped: DequantizeLinear / QuantizeLinear (per-tensor, per-axis and blocked
with `block_size`; int4/uint4/int8/uint8/int16/uint16 and float8 storage),
MatMul and Gemm (float), com.microsoft MatMulNBits (4-bit blocked weights,
optional zero points: ONNX Runtime's int4 LLM exports), and Reshape,
Transpose, Flatten, Add, Relu, Cast. Quantization parameters, weights and
shapes must be initializers (constants), and every graph input has a static
shape; anything else is an ImportError that names the node. Quantized
weights stay quantized: a DequantizeLinear feeding a MatMul and a
MatMulNBits become quant_block.matmul, whose lowering never materializes the
float weight. Every op carries the location `loc("<node name>")` (the
op_type for a node without a name), so that a diagnostic of the verifier or
of a pass names the node it is about, and each argument the location of its
graph input's name; `module.print(debug_info=True)` shows them.

Needs the `onnx` package (Debian: python3-onnx) only to read models.
"""

import numpy as np

from .builder import Builder, location, quantized, scheme, tensor_type
from .ir import Module

# ONNX TensorProto element types (onnx.proto), by number so that an older
# onnx package without the newer names (INT4, UINT4) still reads them.
_ELEMENT_TYPES = {
    1: ("f32", np.float32), 2: ("ui8", np.uint8), 3: ("i8", np.int8),
    4: ("ui16", np.uint16), 5: ("i16", np.int16), 6: ("i32", np.int32),
    7: ("i64", np.int64), 10: ("f16", np.float16), 16: ("bf16", None),
    17: ("f8E4M3FN", None), 19: ("f8E5M2", None), 21: ("ui4", None),
    22: ("i4", None),
}
_FLOATS = {"f32", "f16", "bf16"}


class OnnxImportError(Exception):
    """A model the importer cannot map; the message names the node."""


def _unpack_4bit(raw, count, signed):
    """4-bit elements from bytes, first element in the low nibble."""
    raw = np.asarray(raw, dtype=np.uint8).reshape(-1)
    codes = np.stack([raw & 0xF, raw >> 4], axis=-1).reshape(-1)[:count]
    codes = codes.astype(np.int64)
    return np.where(codes >= 8, codes - 16, codes) if signed else codes


class _Value:
    def __init__(self, name, shape, element, const=None):
        self.name = name          # SSA name, or None for an unmaterialized constant
        self.shape = tuple(shape)
        self.element = element
        self.const = const        # numpy array for initializers
        self.dequantized = None   # the quantized Value a DequantizeLinear packed

    @property
    def type(self):
        return tensor_type(self.shape, self.element)


class _Importer:
    def __init__(self, model):
        self.graph = model.graph
        self.builder = Builder()
        self.values = {}

    def error(self, node, message):
        return OnnxImportError(f"node '{node.name or node.op_type}' "
                               f"({node.op_type}): {message}")

    # Values -----------------------------------------------------------------

    def initializer(self, tensor):
        from onnx import numpy_helper
        element = _ELEMENT_TYPES.get(tensor.data_type, (None,))[0]
        if element in ("i4", "ui4"):
            count = int(np.prod(tensor.dims, dtype=np.int64))
            raw = np.frombuffer(tensor.raw_data, np.uint8) if tensor.raw_data \
                else np.asarray(tensor.int32_data, np.uint8)
            array = _unpack_4bit(raw, count, element == "i4").reshape(tensor.dims)
        elif element is None:
            raise OnnxImportError(f"initializer '{tensor.name}': element type "
                                  f"{tensor.data_type} is not supported")
        else:
            array = numpy_helper.to_array(tensor)
        return _Value(None, array.shape, element, const=array)

    def materialize(self, value):
        if value.name is None:
            value.name = self.builder.constant(value.const, value.element).name
        return value.name

    def get(self, node, index):
        if index >= len(node.input) or not node.input[index]:
            return None
        name = node.input[index]
        if name not in self.values:
            raise self.error(node, f"input '{name}' is not defined")
        return self.values[name]

    def const(self, node, index, what):
        value = self.get(node, index)
        if value is None or value.const is None:
            raise self.error(node, f"the {what} must be an initializer")
        return value.const

    # Quantization -----------------------------------------------------------

    def quantization(self, node, shape, storage, scale, zero_point, axis,
                     block_size):
        """The quantized value of a QuantizeLinear / DequantizeLinear with
        these initializers, its scales and zero points materialized."""
        rank = len(shape)
        axis = axis % rank if rank else 0
        if scale.size == 1 and not block_size:
            block, params_shape = None, (1,) * rank
        elif block_size:
            block = [1] * rank
            block[axis] = block_size
            params_shape = scale.shape
            if len(params_shape) != rank:
                raise self.error(node, "a blocked scale must have the input's rank")
        else:
            if scale.ndim != 1 or scale.shape[0] != shape[axis]:
                raise self.error(node, f"a per-axis scale must have "
                                       f"{shape[axis]} elements")
            block = ["*"] * rank
            block[axis] = 1
            params_shape = tuple(shape[axis] if d == axis else 1
                                 for d in range(rank))
        scale_element = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}.get(
            scale.dtype)
        if scale_element is None:
            raise self.error(node, f"scales of type {scale.dtype} are not supported")
        has_zero_point = zero_point is not None and np.any(zero_point != 0)
        if has_zero_point and storage.startswith("f8"):
            raise self.error(node, "float8 zero points must be 0")
        scales = self.builder.constant(scale.reshape(params_shape), scale_element)
        zero_points = (self.builder.constant(zero_point.reshape(params_shape), storage)
                       if has_zero_point else None)
        return quantized(shape, scheme(storage, "f32", block, scale_element,
                                       storage if has_zero_point else None),
                         scales=scales, zero_points=zero_points)

    def dequantize_linear(self, node, attrs):
        x = self.get(node, 0)
        scale = self.const(node, 1, "scale")
        zero_point = self.get(node, 2)
        zero_point = zero_point.const if zero_point is not None else None
        storage = x.element
        if storage in _FLOATS or storage in ("i32", "i64"):
            raise self.error(node, f"input of type {storage} is not quantized storage")
        self.materialize(x)
        q = self.quantization(node, x.shape, storage, scale, zero_point,
                              attrs.get("axis", 1), attrs.get("block_size", 0))
        packed = self.builder.to_quantized("pack", x, q)
        out = _Value(self.builder.fresh(), x.shape, "f32")
        self.builder.emit(f"{out.name} = quant_block.dequantize {packed.name} : "
                          f"{packed.type} -> {out.type}")
        out.dequantized = packed
        return out

    def quantize_linear(self, node, attrs):
        x = self.get(node, 0)
        scale = self.const(node, 1, "scale")
        zero_point = self.get(node, 2)
        if zero_point is not None:
            storage, zero_point = zero_point.element, zero_point.const
        else:
            storage = {2: "ui8", 3: "i8", 22: "i4", 21: "ui4", 4: "ui16",
                       5: "i16"}.get(attrs.get("output_dtype", 2))
        self.materialize(x)
        q = self.quantization(node, x.shape, storage, scale, zero_point,
                              attrs.get("axis", 1), attrs.get("block_size", 0))
        quantized_x = self.builder.to_quantized("quantize", x, q)
        out = _Value(None, x.shape, storage)
        parts = self.builder.fresh()
        self.builder.emit(f"{parts}:{1 + len(q.part_types)} = quant_block.unpack "
                          f"{quantized_x.name} : {q.type} -> "
                          + ", ".join((out.type,) + q.part_types))
        out.name = f"{parts}#0"
        return out

    # Compute ----------------------------------------------------------------

    def matmul_float(self, node, a, b_name, b_shape, transpose_b):
        m, k = a.shape
        n = b_shape[0] if transpose_b else b_shape[1]
        out = _Value(self.builder.fresh(), (m, n), "f32")
        zero = self.builder.fresh()
        init = self.builder.fresh()
        self.builder.emit(f"{zero} = arith.constant 0.0 : f32")
        empty = self.builder.fresh()
        self.builder.emit(f"{empty} = tensor.empty() : {out.type}")
        self.builder.emit(f"{init} = linalg.fill ins({zero} : f32) "
                          f"outs({empty} : {out.type}) -> {out.type}")
        bmap = "(n, k)" if transpose_b else "(k, n)"
        self.builder.emit(f"{out.name} = linalg.matmul indexing_maps = "
                          f"[affine_map<(m, n, k) -> (m, k)>, "
                          f"affine_map<(m, n, k) -> {bmap}>, affine_map<(m, n, k) -> (m, n)>] "
                          f"ins({a.name}, {b_name} : {a.type}, {tensor_type(b_shape, 'f32')}) "
                          f"outs({init} : {out.type}) -> {out.type}")
        return out

    def matmul(self, node, a, b, transpose_b=False):
        if a.element != "f32" or len(a.shape) != 2 or len(b.shape) != 2:
            raise self.error(node, "only rank-2 f32 matrix products are imported")
        self.materialize(a)
        if b.dequantized is not None:
            q = b.dequantized
            m = a.shape[0]
            n = b.shape[0] if transpose_b else b.shape[1]
            out = _Value(self.builder.fresh(), (m, n), "f32")
            # quant_block.matmul takes the weight as [K, N], or as [N, K]
            # with transpose_rhs: both are the weight's own layout.
            self.builder.emit(f"{out.name} = quant_block.matmul {a.name}, {q.name}"
                              + (" transpose_rhs" if transpose_b else "")
                              + f" accumulate(f32) inhibit : {a.type}, {q.type} -> {out.type}")
            return out
        return self.matmul_float(node, a, self.materialize(b), b.shape, transpose_b)

    def add(self, node, a, b):
        shape = np.broadcast_shapes(a.shape, b.shape)
        names = []
        for v in (a, b):
            name = self.materialize(v)
            if v.shape != shape:
                rank, vr = len(shape), len(v.shape)
                if any(d != 1 and d != shape[rank - vr + i] for i, d in enumerate(v.shape)) \
                        or (vr and v.shape != shape[rank - vr:]):
                    raise self.error(node, "only broadcasting along new leading "
                                           "dimensions is imported")
                empty = self.builder.fresh()
                out_type = tensor_type(shape, v.element)
                self.builder.emit(f"{empty} = tensor.empty() : {out_type}")
                bc = self.builder.fresh()
                dims = ", ".join(str(d) for d in range(rank - vr))
                self.builder.emit(f"{bc} = linalg.broadcast ins({name} : {v.type}) "
                                  f"outs({empty} : {out_type}) dimensions = [{dims}]")
                name = bc
            names.append(name)
        out = _Value(self.builder.fresh(), shape, a.element)
        op = "arith.addf" if a.element in _FLOATS else "arith.addi"
        self.builder.emit(f"{out.name} = {op} {names[0]}, {names[1]} : {out.type}")
        return out

    def reshape_to(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if x.const is not None:
            return _Value(None, shape, x.element, x.const.reshape(shape))
        name = self.materialize(x)
        target = self.materialize(_Value(None, (len(shape),), "i64",
                                         np.asarray(shape, np.int64)))
        out = _Value(self.builder.fresh(), shape, x.element)
        self.builder.emit(f"{out.name} = tensor.reshape {name}({target}) : ({x.type}, "
                          f"{tensor_type((len(shape),), 'i64')}) -> {out.type}")
        return out

    def node(self, node):
        from onnx import helper
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        op = node.op_type
        if op == "DequantizeLinear":
            return self.dequantize_linear(node, attrs)
        if op == "QuantizeLinear":
            return self.quantize_linear(node, attrs)
        if op == "MatMul":
            return self.matmul(node, self.get(node, 0), self.get(node, 1))
        if op == "Gemm":
            if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 \
                    or attrs.get("transA", 0):
                raise self.error(node, "only alpha = beta = 1 and transA = 0 are imported")
            out = self.matmul(node, self.get(node, 0), self.get(node, 1),
                              bool(attrs.get("transB", 0)))
            bias = self.get(node, 2)
            return self.add(node, out, bias) if bias is not None else out
        if op == "MatMulNBits" and node.domain == "com.microsoft":
            return self.matmul_nbits(node, attrs)
        if op == "Relu":
            x = self.get(node, 0)
            zero = self.materialize(_Value(None, x.shape, x.element,
                                           np.zeros(x.shape, np.float32)))
            out = _Value(self.builder.fresh(), x.shape, x.element)
            self.builder.emit(f"{out.name} = arith.maximumf {self.materialize(x)}, {zero} "
                              f": {out.type}")
            return out
        if op == "Add":
            return self.add(node, self.get(node, 0), self.get(node, 1))
        if op == "Reshape":
            x = self.get(node, 0)
            shape = list(self.const(node, 1, "shape"))
            shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
            if -1 in shape:
                known = int(np.prod([d for d in shape if d != -1]))
                shape[shape.index(-1)] = int(np.prod(x.shape)) // known
            return self.reshape_to(x, shape)
        if op == "Flatten":
            x = self.get(node, 0)
            axis = attrs.get("axis", 1) % (len(x.shape) + 1)
            return self.reshape_to(x, (int(np.prod(x.shape[:axis])),
                                       int(np.prod(x.shape[axis:]))))
        if op == "Transpose":
            x = self.get(node, 0)
            perm = list(attrs.get("perm", reversed(range(len(x.shape)))))
            shape = tuple(x.shape[p] for p in perm)
            if x.const is not None:
                return _Value(None, shape, x.element, np.transpose(x.const, perm))
            empty = self.builder.fresh()
            out = _Value(self.builder.fresh(), shape, x.element)
            self.builder.emit(f"{empty} = tensor.empty() : {out.type}")
            self.builder.emit(f"{out.name} = linalg.transpose "
                              f"ins({self.materialize(x)} : {x.type}) outs({empty} : {out.type}) "
                              f"permutation = [{', '.join(map(str, perm))}]")
            return out
        if op == "Cast":
            x = self.get(node, 0)
            to = _ELEMENT_TYPES.get(attrs["to"], (None,))[0]
            if x.element == to:
                return x
            if to not in _FLOATS or x.element not in _FLOATS | {"i8", "ui8", "i16", "i32"}:
                raise self.error(node, f"cast from {x.element} to {to} is not imported")
            if x.element.startswith("u"):
                raise self.error(node, "casts of unsigned tensors are not imported")
            if x.element in _FLOATS:
                width = {"f32": 32, "f16": 16, "bf16": 16}
                cast = "arith.extf" if width[to] > width[x.element] else "arith.truncf"
            else:
                cast = "arith.sitofp"
            out = _Value(self.builder.fresh(), x.shape, to)
            self.builder.emit(f"{out.name} = {cast} {self.materialize(x)} : {x.type} "
                              f"to {out.type}")
            return out
        raise self.error(node, "this operator is not imported")

    def matmul_nbits(self, node, attrs):
        a = self.get(node, 0)
        k, n = attrs["K"], attrs["N"]
        bits, block = attrs.get("bits", 4), attrs["block_size"]
        if bits != 4:
            raise self.error(node, f"{bits}-bit MatMulNBits is not imported (4-bit is)")
        packed = self.const(node, 1, "quantized weight")
        scales = self.const(node, 2, "scales")
        blocks = (k + block - 1) // block
        codes = _unpack_4bit(packed.reshape(n, -1), n * packed.reshape(n, -1).shape[1] * 2,
                             signed=False).reshape(n, -1)[:, :k]
        scales = scales.reshape(n, blocks)
        zp_value = self.get(node, 3)
        if zp_value is None:
            zero_points = np.full((n, blocks), 8, np.int64)
        elif zp_value.element == "ui8":
            zp = zp_value.const.reshape(n, -1)
            zero_points = _unpack_4bit(zp, n * zp.shape[1] * 2, signed=False).reshape(n, -1)[:, :blocks]
        else:
            raise self.error(node, "float zero points are not imported")
        scale_element = "f16" if scales.dtype == np.float16 else "f32"
        weight = _Value(None, (n, k), "ui4", codes)
        self.materialize(weight)
        q = quantized((n, k), scheme("ui4", "f32", [1, block], scale_element, "ui4"),
                      scales=self.builder.constant(scales, scale_element),
                      zero_points=self.builder.constant(zero_points, "ui4"))
        packed = self.builder.to_quantized("pack", weight, q)
        if a.element != "f32" or len(a.shape) != 2:
            raise self.error(node, "only rank-2 f32 activations are imported")
        out = _Value(self.builder.fresh(), (a.shape[0], n), "f32")
        self.builder.emit(f"{out.name} = quant_block.matmul {self.materialize(a)}, "
                          f"{packed.name} transpose_rhs accumulate(f32) inhibit : "
                          f"{a.type}, {packed.type} -> {out.type}")
        return out

    def run(self, function_name):
        for tensor in self.graph.initializer:
            self.values[tensor.name] = self.initializer(tensor)
        arguments = []
        for index, graph_input in enumerate(self.graph.input):
            if graph_input.name in self.values:
                continue
            onnx_type = graph_input.type.tensor_type
            element = _ELEMENT_TYPES.get(onnx_type.elem_type, (None,))[0]
            shape = [d.dim_value if d.HasField("dim_value") else None
                     for d in onnx_type.shape.dim]
            if element is None or None in shape:
                raise OnnxImportError(f"graph input '{graph_input.name}' must have a "
                                      "static shape and a supported element type")
            value = _Value(f"%arg{index}", shape, element)
            self.values[graph_input.name] = value
            arguments.append(f"{value.name}: {value.type} {location(graph_input.name)}")
        for node in self.graph.node:
            self.builder.location = node.name or node.op_type
            result = self.node(node)
            self.values[node.output[0]] = result
        # The function and its return stand for the graph.
        self.builder.location = self.graph.name or function_name
        results = [self.values[o.name] for o in self.graph.output]
        names = [self.materialize(r) for r in results]
        types = [r.type for r in results]
        self.builder.emit(f"return {', '.join(names)} : {', '.join(types)}")
        return self.builder.function(function_name, arguments, types)


def import_model(model, function_name="main", context=None):
    """`model` (a ModelProto, serialized bytes or a path) as a Module (in
    `context`, else the default one) holding one func.func `function_name`
    that takes the graph inputs and returns the graph outputs. Raises
    OnnxImportError for what the importer cannot map, and MLIRError when
    the imported IR does not verify, its diagnostics at the nodes' names."""
    import onnx
    if isinstance(model, bytes):
        model = onnx.load_from_string(model)
    elif isinstance(model, str):
        model = onnx.load(model)
    return Module.parse(_Importer(model).run(function_name), context)
