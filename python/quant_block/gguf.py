"""GGUF files (llama.cpp's weight format) through the C API: open and
validate a file, read its metadata and tensors, import it as a module,
and load each tensor's quant_block parts for compiled functions.

    f = quant_block.gguf.open("model.gguf")
    f.metadata["general.architecture"]          # 'llama'
    t = f.tensor("blk.0.attn_q.weight")
    t.type, t.shape, t.scheme                    # 'Q4_K', (4096, 4096), ...
    module = f.import_module(["blk.0.attn_q.weight"])
    w = quant_block.compile(module)["blk.0.attn_q.weight"](*f.parts(t.name))

or, the same in one call, `f.dequantize("blk.0.attn_q.weight")`. From the
shell:

    python3 -m quant_block.gguf list FILE
    python3 -m quant_block.gguf dequantize FILE TENSOR -o OUT.npy

Shapes are row-major (numpy's): ggml's `ne = {K, N}` is the `[N, K]`
matrix. The file is memory-mapped; `parts` repacks ggml's blocks into the
parts a compiled function takes (docs/GGUF.md), and `raw` views the bytes
in the mapping. A hostile or unsupported file raises GGUFError naming the
field or the tensor.
"""

import argparse
import ctypes
import sys

import numpy as np

from . import _capi
from .ir import MLIRError, Module, default_context

#: gguf.h's value types.
VALUE_TYPES = {0: "UINT8", 1: "INT8", 2: "UINT16", 3: "INT16", 4: "UINT32",
               5: "INT32", 6: "FLOAT32", 7: "BOOL", 8: "STRING", 9: "ARRAY",
               10: "UINT64", 11: "INT64", 12: "FLOAT64"}
_ARRAY_DTYPES = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4",
                 6: "<f4", 7: "?", 10: "<u8", 11: "<i8", 12: "<f8"}


def _buffers(arrays):
    """The runner ABI's buffers for dense numpy arrays (they must outlive
    the call: the shapes are kept on the returned array)."""
    buffers = (_capi.Buffer * max(len(arrays), 1))()
    shapes = []
    for i, array in enumerate(arrays):
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        shapes.append(shape)
        buffers[i] = _capi.Buffer(
            array.ctypes.data, array.ndim, shape, None,
            _capi.ElementType(array.dtype.kind.encode(), array.itemsize))
    buffers._keep_alive = shapes
    return buffers


class GGUFError(Exception):
    """A file that cannot be read or a tensor that cannot be imported; the
    message names the file and the field or tensor."""


class Part:
    """One part of a tensor as a compiled function takes it."""

    def __init__(self, role, dtype, shape):
        self.role = role      # 'data', 'scales', 'zero_points', 'outer_scales', 'outer_mins'
        self.dtype = dtype
        self.shape = shape

    def __repr__(self):
        return f"Part({self.role}, {self.dtype}, {self.shape})"


class Tensor:
    """A tensor info: its ggml type, shape and quant_block form."""

    def __init__(self, file, index):
        lib = file._lib
        handle = file._handle
        self.index = index
        self.name = str(lib.mlirQuantBlockGGUFTensorGetName(handle, index))
        self.type_id = lib.mlirQuantBlockGGUFTensorGetType(handle, index)
        self.type = str(lib.mlirQuantBlockGGUFTensorGetTypeName(handle, index))
        self.ne = tuple(lib.mlirQuantBlockGGUFTensorGetNe(handle, index, d)
                        for d in range(lib.mlirQuantBlockGGUFTensorGetNumDims(
                            handle, index)))
        self.shape = self.ne[::-1]
        self.offset = lib.mlirQuantBlockGGUFTensorGetFileOffset(handle, index)
        self.nbytes = lib.mlirQuantBlockGGUFTensorGetByteSize(handle, index)
        errors = _capi.TextCollector()
        self.supported = bool(lib.mlirQuantBlockGGUFTensorIsSupported(
            handle, index, errors.callback, None))
        self.unsupported_reason = None if self.supported else errors.text
        self.mlir_type = self.scheme = None
        self.widened = False
        self.parts = []
        if self.supported:
            self.mlir_type = str(lib.mlirQuantBlockGGUFTensorGetMLIRType(
                handle, index))
            self.scheme = str(lib.mlirQuantBlockGGUFTensorGetScheme(
                handle, index)) or None
            self.widened = bool(lib.mlirQuantBlockGGUFTensorIsWidened(
                handle, index))
            for p in range(lib.mlirQuantBlockGGUFTensorGetNumParts(handle, index)):
                element = lib.mlirQuantBlockGGUFTensorGetPartElementType(
                    handle, index, p)
                shape = tuple(
                    lib.mlirQuantBlockGGUFTensorGetPartDim(handle, index, p, d)
                    for d in range(lib.mlirQuantBlockGGUFTensorGetPartRank(
                        handle, index, p)))
                self.parts.append(Part(
                    str(lib.mlirQuantBlockGGUFTensorGetPartRole(handle, index, p)),
                    np.dtype(f"<{element.kind.decode()}{element.size}"), shape))

    def __repr__(self):
        return (f"<gguf.Tensor {self.name}: {self.type} {list(self.shape)}"
                f"{' ' + self.mlir_type if self.mlir_type else ''}>")


class GGUFFile:
    """An open, validated GGUF file (memory-mapped by the C++ reader)."""

    def __init__(self, path=None, data=None):
        self._lib = lib = _capi.library()
        errors = _capi.TextCollector()
        if data is not None:
            data = bytes(data)
            self._handle = lib.mlirQuantBlockGGUFFileOpenBuffer(
                data, len(data), errors.callback, None)
        else:
            self._handle = lib.mlirQuantBlockGGUFFileOpen(
                _capi.StringRef.of(str(path)), errors.callback, None)
        if not self._handle.ptr:
            raise GGUFError(errors.text)
        self.path = path
        self.version = lib.mlirQuantBlockGGUFFileGetVersion(self._handle)
        self.alignment = lib.mlirQuantBlockGGUFFileGetAlignment(self._handle)
        self.data_offset = lib.mlirQuantBlockGGUFFileGetDataOffset(self._handle)
        self.tensors = [Tensor(self, i) for i in range(
            lib.mlirQuantBlockGGUFFileGetNumTensors(self._handle))]
        self._by_name = {t.name: t for t in self.tensors}
        self._metadata = None
        self.metadata_types = {}

    # Metadata ---------------------------------------------------------------

    def _value(self, index):
        lib, handle = self._lib, self._handle
        kind = lib.mlirQuantBlockGGUFFileGetMetadataType(handle, index)
        if kind == 8:
            return str(lib.mlirQuantBlockGGUFFileGetMetadataString(handle, index))
        if kind in (6, 12):
            return lib.mlirQuantBlockGGUFFileGetMetadataFloat(handle, index)
        if kind == 7:
            return bool(lib.mlirQuantBlockGGUFFileGetMetadataAsUnsigned(
                handle, index))
        if kind == 9:
            element = lib.mlirQuantBlockGGUFFileGetMetadataArrayType(handle, index)
            size = lib.mlirQuantBlockGGUFFileGetMetadataArraySize(handle, index)
            if element == 8:
                return [str(lib.mlirQuantBlockGGUFFileGetMetadataArrayString(
                    handle, index, i)) for i in range(size)]
            dtype = np.dtype(_ARRAY_DTYPES[element])
            data = lib.mlirQuantBlockGGUFFileGetMetadataArrayData(handle, index)
            raw = ctypes.string_at(data, size * dtype.itemsize) if size else b""
            return np.frombuffer(raw, dtype).copy()
        value = ctypes.c_int64()
        if lib.mlirQuantBlockGGUFFileGetMetadataInteger(handle, index,
                                                        ctypes.byref(value)):
            return value.value
        return lib.mlirQuantBlockGGUFFileGetMetadataAsUnsigned(handle, index)

    @property
    def metadata(self):
        """Every key's value: int, float, bool, str, a numpy array (numeric
        arrays) or a list of str."""
        if self._metadata is None:
            lib, handle = self._lib, self._handle
            self._metadata = {}
            for i in range(lib.mlirQuantBlockGGUFFileGetNumMetadata(handle)):
                key = str(lib.mlirQuantBlockGGUFFileGetMetadataKey(handle, i))
                self.metadata_types[key] = VALUE_TYPES[
                    lib.mlirQuantBlockGGUFFileGetMetadataType(handle, i)]
                self._metadata[key] = self._value(i)
        return self._metadata

    # Tensors ----------------------------------------------------------------

    def tensor(self, name):
        """The tensor `name`; GGUFError if the file has none."""
        if name not in self._by_name:
            raise GGUFError(f"{self.path}: no tensor named '{name}'")
        return self._by_name[name]

    def _supported(self, name):
        tensor = self.tensor(name)
        if not tensor.supported:
            raise GGUFError(tensor.unsupported_reason)
        return tensor

    def raw(self, name):
        """The tensor's bytes (ggml's blocks) as a read-only uint8 view of
        the mapping, valid while the file is open."""
        tensor = self.tensor(name)
        if not tensor.nbytes:
            return np.zeros(0, np.uint8)
        address = self._lib.mlirQuantBlockGGUFTensorGetData(self._handle,
                                                             tensor.index)
        array = np.ctypeslib.as_array(
            (ctypes.c_uint8 * tensor.nbytes).from_address(address))
        array.flags.writeable = False
        return array

    def parts(self, name, threads=1, release=False):
        """The tensor's parts, repacked from ggml's blocks, in the order a
        compiled function takes them (numpy arrays the caller owns). With
        `release`, the tensor's pages of the mapped file then leave the
        process's resident set (a loader of every weight then peaks at the
        parts' size, not the parts' plus the file's)."""
        tensor = self._supported(name)
        arrays = [np.empty(p.shape, p.dtype) for p in tensor.parts]
        errors = _capi.TextCollector()
        if not self._lib.mlirQuantBlockGGUFTensorRepack(
                self._handle, tensor.index, len(arrays), _buffers(arrays),
                threads, errors.callback, None):
            raise GGUFError(errors.text)
        if release:
            self._lib.mlirQuantBlockGGUFTensorReleaseData(self._handle,
                                                          tensor.index)
        return arrays

    def rows(self, name):
        """The tensor's rows: the product of its shape but the last
        dimension (a row is one run of the last dimension's elements); 0
        for a tensor without elements."""
        shape = self.tensor(name).shape
        if 0 in shape:  # no elements, no rows
            return 0
        return int(np.prod(shape[:-1], dtype=np.int64))

    def parts_of_rows(self, name, begin, end, out=None, threads=1,
                      release=False):
        """Rows [begin, end) of the tensor's parts (see `rows`), each part
        as [end - begin, its last dimension], written into `out` (dense
        arrays of those shapes) or new arrays. With `release`, the whole
        pages of those rows of the mapped file then leave the resident set:
        a loader that converts a large tensor chunk by chunk holds one
        chunk of the file at a time, not the whole tensor twice."""
        tensor = self._supported(name)
        count = end - begin
        if out is None:
            out = [np.empty((count, p.shape[-1]), p.dtype)
                   for p in tensor.parts]
        errors = _capi.TextCollector()
        for array in out:
            if not array.flags.c_contiguous:
                raise GGUFError(f"tensor '{name}': the rows' buffers must "
                                "be dense")
        if not self._lib.mlirQuantBlockGGUFTensorRepackRows(
                self._handle, tensor.index, begin, end, len(out),
                _buffers(out), threads, errors.callback, None):
            raise GGUFError(errors.text)
        if release:
            self._lib.mlirQuantBlockGGUFTensorReleaseRows(
                self._handle, tensor.index, begin, end)
        return out

    def release(self, name):
        """The tensor's pages of the mapped file leave the resident set."""
        self._lib.mlirQuantBlockGGUFTensorReleaseData(
            self._handle, self.tensor(name).index)

    def load_parts(self, names=None, threads=1):
        """{name: parts} of the tensors in `names` (default: every supported
        tensor), each repacked and then released from the mapping."""
        names = names or [t.name for t in self.tensors if t.supported]
        return {name: self.parts(name, threads, release=True)
                for name in names}

    def import_module(self, names=None, context=None, skip_unsupported=False):
        """A Module with one function per tensor (those in `names`, or
        all): it takes the weight (its parts, compiled with quantized values
        as parts) and returns it as f32. Raises GGUFError with the
        diagnostics, located at the tensors."""
        context = context or default_context()
        names = list(names or [])
        refs = (_capi.StringRef * max(len(names), 1))(
            *[_capi.StringRef.of(n) for n in names])
        context.take_diagnostics()
        handle = self._lib.mlirQuantBlockGGUFImport(
            context._context, self._handle, len(names), refs, skip_unsupported)
        diagnostics = context.take_diagnostics()
        if not handle.ptr:
            raise GGUFError("\n".join(str(d) for d in diagnostics)
                            or "the import failed")
        module = Module(handle, context)
        module.import_diagnostics = diagnostics
        return module

    def dequantize(self, name, pipeline="quant-block-cpu-pipeline"):
        """The tensor as f32 (numpy, row-major shape), computed by the
        compiled quant_block.dequantize of its imported function."""
        from .runner import compile
        tensor = self._supported(name)
        executable = compile(self.import_module([name]), pipeline)
        try:
            return executable[name](*self.parts(name))
        except MLIRError as error:
            raise GGUFError(f"tensor '{tensor.name}': {error}") from None

    def close(self):
        if getattr(self, "_handle", None) is not None and self._handle.ptr:
            self._lib.mlirQuantBlockGGUFFileClose(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def open(path):  # noqa: A001 (as builtins.open: a file by path)
    """Opens and validates the GGUF file at `path`."""
    return GGUFFile(path)


def _list(args):
    with GGUFFile(args.file) as f:
        print(f"{args.file}: GGUF v{f.version}, alignment {f.alignment}, "
              f"{len(f.metadata)} metadata keys, {len(f.tensors)} tensors")
        for key, value in f.metadata.items():
            if isinstance(value, (list, np.ndarray)) and len(value) > 8:
                value = f"[{len(value)} x {f.metadata_types[key]}]"
            print(f"  {key} = {value}")
        for t in f.tensors:
            form = t.mlir_type if t.supported else f"unsupported: {t.unsupported_reason}"
            print(f"  {t.name}: {t.type} {list(t.shape)} -> {form}")
    return 0


def _dequantize(args):
    with GGUFFile(args.file) as f:
        values = f.dequantize(args.tensor)
        np.save(args.output, values)
        print(f"{args.tensor}: {f.tensor(args.tensor).type} "
              f"{list(values.shape)} -> {args.output} (f32)")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m quant_block.gguf",
        description="Read GGUF files with quant-block.")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="metadata and tensors")
    listing.add_argument("file")
    listing.set_defaults(run=_list)
    dequantize = commands.add_parser(
        "dequantize", help="one tensor to f32 .npy through compiled code")
    dequantize.add_argument("file")
    dequantize.add_argument("tensor")
    dequantize.add_argument("-o", "--output", required=True)
    dequantize.set_defaults(run=_dequantize)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (GGUFError, MLIRError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
