"""Compile a module and call its functions on numpy arrays, through the C
runner API (the JIT quant-run uses).

    kernels = compile(module)                 # quant-block-cpu-pipeline
    y = kernels.linear(x, w_data, w_scales)   # numpy in, numpy out

Quantized arguments and results cross as their parts (packed data, scales,
zero points, ...), as with `quant-run --quantized-as-parts`; bf16 and 8-bit
float elements as their bit patterns (uint16 / uint8). Arrays are checked
against the signature before each call.
"""

import ctypes

import numpy as np

from . import _capi
from .ir import MLIRError, Module


def _dtype(element_type):
    kind = element_type.kind.decode()
    return np.dtype(bool) if kind == "b" else np.dtype(f"<{kind}{element_type.size}")


class Function:
    """A compiled function: call it with numpy arrays (or scalars)."""

    def __init__(self, executable, handle, name):
        self._executable = executable  # Keeps the compiled code alive.
        self._handle = handle
        self.name = name
        lib = executable._lib
        self.num_arguments = lib.mlirQuantBlockFunctionGetNumArguments(handle)
        self.num_results = lib.mlirQuantBlockFunctionGetNumResults(handle)

    def argument_dtypes(self):
        lib = self._executable._lib
        return [_dtype(lib.mlirQuantBlockFunctionGetArgumentElementType(
            self._handle, i)) for i in range(self.num_arguments)]

    def __call__(self, *arguments):
        lib = self._executable._lib
        if len(arguments) != self.num_arguments:
            raise TypeError(f"@{self.name} takes {self.num_arguments} "
                            f"arguments, {len(arguments)} given")
        buffers = (_capi.Buffer * max(len(arguments), 1))()
        keep_alive = []
        for index, argument in enumerate(arguments):
            array = np.asarray(argument)
            if array.dtype.byteorder == ">":
                array = array.astype(array.dtype.newbyteorder("<"))
            if any(s < 0 or s % array.itemsize for s in array.strides):
                array = np.ascontiguousarray(array)
            shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
            strides = (ctypes.c_int64 * max(array.ndim, 1))(
                *[s // array.itemsize for s in array.strides])
            keep_alive += [array, shape, strides]
            kind = "b" if array.dtype == bool else array.dtype.kind
            buffers[index] = _capi.Buffer(
                array.ctypes.data, array.ndim, shape, strides,
                _capi.ElementType(kind.encode(), array.itemsize))
        errors = _capi.TextCollector()
        results = lib.mlirQuantBlockFunctionCall(
            self._handle, len(arguments), buffers, errors.callback, None)
        if not results.ptr:
            raise MLIRError(errors.text.strip())
        try:
            arrays = []
            for index in range(lib.mlirQuantBlockResultsGetNum(results)):
                buffer = lib.mlirQuantBlockResultsGet(results, index)
                dtype = _dtype(buffer.element_type)
                shape = tuple(buffer.shape[d] for d in range(buffer.rank))
                count = int(np.prod(shape, dtype=np.int64))
                raw = ctypes.string_at(buffer.data, count * dtype.itemsize)
                arrays.append(np.frombuffer(raw, dtype=dtype).reshape(shape).copy())
        finally:
            lib.mlirQuantBlockResultsDestroy(results)
        if len(arrays) == 1:
            return arrays[0]
        return tuple(arrays)

    def __repr__(self):
        return (f"<quant_block.Function @{self.name}: {self.num_arguments} "
                f"arguments, {self.num_results} results>")


class Executable:
    """A JIT-compiled module; its functions are attributes or items."""

    def __init__(self, module, pipeline, quantized_as_parts):
        self._lib = lib = module.context._lib
        errors = _capi.TextCollector()
        module.context.take_diagnostics()
        self._handle = lib.mlirQuantBlockExecutableCreate(
            module._module, _capi.StringRef.of(pipeline), quantized_as_parts,
            errors.callback, None)
        if not self._handle.ptr:
            raise MLIRError(f"cannot compile the module with '{pipeline}'",
                            module.context.take_diagnostics()
                            or _parse_diagnostics(errors.text))
        self._functions = {}

    def function(self, name):
        if name not in self._functions:
            errors = _capi.TextCollector()
            handle = self._lib.mlirQuantBlockExecutableLookup(
                self._handle, _capi.StringRef.of(name), errors.callback, None)
            if not handle.ptr:
                raise KeyError(errors.text.strip())
            self._functions[name] = Function(self, handle, name)
        return self._functions[name]

    __getitem__ = function

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.function(name)
        except KeyError as error:
            raise AttributeError(str(error)) from None

    def __del__(self):
        if getattr(self, "_handle", None) is not None and self._handle.ptr:
            self._lib.mlirQuantBlockExecutableDestroy(self._handle)
            self._handle = None


def _parse_diagnostics(text):
    """The runner's error text as Diagnostic objects (one per line that
    has a location)."""
    from .ir import Diagnostic
    diagnostics = []
    for line in text.splitlines():
        for severity in ("error", "warning", "remark", "note"):
            marker = f": {severity}: "
            if marker in line:
                location, message = line.split(marker, 1)
                diagnostics.append(Diagnostic(severity, location, message))
                break
        else:
            if line.startswith("error: "):
                diagnostics.append(Diagnostic("error", "", line[7:]))
    return diagnostics


def compile(module, pipeline="quant-block-cpu-pipeline",
            quantized_as_parts=True):
    """Compiles `module` (a Module or its text; left unchanged) with the
    textual pass pipeline `pipeline` and returns an Executable whose
    functions take and return numpy arrays. Raises MLIRError with the
    diagnostics when the pipeline or the compilation fails."""
    if isinstance(module, str):
        module = Module.parse(module)
    return Executable(module, pipeline, quantized_as_parts)
