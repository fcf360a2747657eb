"""Compile a module and call its functions on numpy arrays, through the C
runner API (the JIT quant-run uses).

    kernels = compile(module)                 # quant-block-cpu-pipeline
    y = kernels.linear(x, w_data, w_scales)   # numpy in, numpy out

Quantized arguments and results cross as their parts (packed data, scales,
zero points, ...), as with `quant-run --quantized-as-parts`; bf16 and 8-bit
float elements as their bit patterns (uint16 / uint8). Arrays are checked
against the signature before each call.

Arguments that stay the same arrays over many calls (a model's weights and
cache) are bound once, their descriptors made there:

    step = kernels.forward.bind(2, cache, *weights)
    logits = step(tokens, position)   # the free arguments, in order

A program that compiles and then only runs calls release_compiler_memory()
after compiling: the compiler's library pages and freed heap leave its
resident set (docs/Runner.md).

On a GPU, arguments marked `quant_block.device_resident` stay on the device
across calls (docs/GPU.md, "Device-resident arguments"):

    kernels = compile(module, "quant-block-spirv-pipeline",
                      libraries=[gpu_runtime_library("vulkan")])
    w = [kernels.upload(part) for part in (w_data, w_scales)]  # once
    y = kernels.linear(x, *w)         # only x and y cross to and from it
    kernels.copy_stats()              # the runtime's copies, by direction
    kernels.launch_stats()            # its kernel launches and host waits
"""

import ctypes
import os

import numpy as np

from . import _capi
from .ir import MLIRError, Module


def _dtype(element_type):
    kind = element_type.kind.decode()
    return np.dtype(bool) if kind == "b" else np.dtype(f"<{kind}{element_type.size}")


class DeviceArray:
    """A dense array uploaded to the device by Executable.upload, for a
    device-resident argument; freed with `free()` or when garbage-collected
    (the executable frees what is left when it goes)."""

    def __init__(self, executable, pointer, shape, dtype):
        self._executable = executable
        self.pointer = pointer
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def free(self):
        if self.pointer is not None and self._executable._handle is not None:
            self._executable._lib.mlirQuantBlockExecutableFreeDevice(
                self._executable._handle, self.pointer)
        self.pointer = None

    def __del__(self):
        self.free()

    def __repr__(self):
        return (f"<quant_block.DeviceArray {self.dtype} {self.shape} at "
                f"{self.pointer:#x}>" if self.pointer else
                "<quant_block.DeviceArray (freed)>")


def _buffer_of(array, keep_alive):
    """A C API Buffer over a numpy array (made dense and little-endian)."""
    array = np.asarray(array)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    if any(s < 0 or s % array.itemsize for s in array.strides):
        array = np.ascontiguousarray(array)
    shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    strides = (ctypes.c_int64 * max(array.ndim, 1))(
        *[s // array.itemsize for s in array.strides])
    keep_alive += [array, shape, strides]
    kind = "b" if array.dtype == bool else array.dtype.kind
    return _capi.Buffer(array.ctypes.data, array.ndim, shape, strides,
                        _capi.ElementType(kind.encode(), array.itemsize))


class Function:
    """A compiled function: call it with numpy arrays (or scalars)."""

    def __init__(self, executable, handle, name):
        self._executable = executable  # Keeps the compiled code alive.
        self._handle = handle
        self.name = name
        lib = executable._lib
        self.num_arguments = lib.mlirQuantBlockFunctionGetNumArguments(handle)
        self.num_results = lib.mlirQuantBlockFunctionGetNumResults(handle)

    def device_resident_arguments(self):
        """The positions of the arguments marked
        `quant_block.device_resident` (pass DeviceArrays there)."""
        lib = self._executable._lib
        return [i for i in range(self.num_arguments)
                if lib.mlirQuantBlockFunctionIsArgumentDeviceResident(
                    self._handle, i)]

    def argument_dtypes(self):
        lib = self._executable._lib
        return [_dtype(lib.mlirQuantBlockFunctionGetArgumentElementType(
            self._handle, i)) for i in range(self.num_arguments)]

    def _argument_buffer(self, index, argument, keep_alive):
        if isinstance(argument, DeviceArray):
            if argument.pointer is None:
                raise ValueError(f"argument #{index} of @{self.name}: "
                                 "the device array was freed")
            shape = (ctypes.c_int64 * max(argument.ndim, 1))(*argument.shape)
            keep_alive.append(shape)
            kind = "b" if argument.dtype == bool else argument.dtype.kind
            return _capi.Buffer(
                argument.pointer, argument.ndim, shape, None,
                _capi.ElementType(kind.encode(), argument.dtype.itemsize))
        return _buffer_of(argument, keep_alive)

    def __call__(self, *arguments):
        if len(arguments) != self.num_arguments:
            raise TypeError(f"@{self.name} takes {self.num_arguments} "
                            f"arguments, {len(arguments)} given")
        buffers = (_capi.Buffer * max(len(arguments), 1))()
        keep_alive = []
        for index, argument in enumerate(arguments):
            buffers[index] = self._argument_buffer(index, argument, keep_alive)
        return self._call(buffers)

    def bind(self, first, *arrays):
        """This function with the arguments from position `first` on fixed
        to `arrays` (a BoundFunction, called with the others): their
        descriptors are made once, here, instead of on every call. For
        arguments that stay the same objects over many calls (a model's
        weights and cache, updated in place, are seen as they are at each
        call); the arrays are kept alive, and must keep their memory and
        shape (a numpy resize would leave the descriptor stale). A 19-layer
        LLaMA decode step passes 316 arrays: about 1.3 ms of Python per
        call before."""
        if first < 0 or first + len(arrays) > self.num_arguments:
            raise TypeError(f"@{self.name} takes {self.num_arguments} "
                            f"arguments; cannot bind {len(arrays)} from "
                            f"#{first}")
        return BoundFunction(self, first, arrays)

    def _call(self, buffers):
        lib = self._executable._lib
        errors = _capi.TextCollector()
        results = lib.mlirQuantBlockFunctionCall(
            self._handle, self.num_arguments, buffers, errors.callback, None)
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


class BoundFunction:
    """A Function with some arguments fixed (Function.bind): called with the
    others, in order; the signature checks run on every call, as for the
    Function."""

    def __init__(self, function, first, arrays):
        self.function = function
        self._first, self._count = first, len(arrays)
        self._keep_alive = list(arrays)
        self._buffers = (_capi.Buffer * max(function.num_arguments, 1))()
        for offset, array in enumerate(arrays):
            self._buffers[first + offset] = function._argument_buffer(
                first + offset, array, self._keep_alive)

    def __call__(self, *arguments):
        function = self.function
        free = function.num_arguments - self._count
        if len(arguments) != free:
            raise TypeError(f"@{function.name} with {self._count} arguments "
                            f"bound takes {free}, {len(arguments)} given")
        # A copy of the bound descriptors, the free ones filled in: a call
        # from another thread does not see this one's arguments.
        buffers = type(self._buffers).from_buffer_copy(self._buffers)
        keep_alive = []
        for offset, argument in enumerate(arguments):
            index = offset if offset < self._first else offset + self._count
            buffers[index] = function._argument_buffer(index, argument,
                                                       keep_alive)
        return function._call(buffers)

    def __repr__(self):
        return (f"<quant_block.BoundFunction @{self.function.name}: arguments "
                f"#{self._first}..#{self._first + self._count - 1} bound>")


class Executable:
    """A JIT-compiled module; its functions are attributes or items."""

    def __init__(self, module, pipeline, quantized_as_parts, libraries=(),
                 reuse_buffers=False):
        self._lib = lib = module.context._lib
        errors = _capi.TextCollector()
        module.context.take_diagnostics()
        paths = [_capi.StringRef.of(os.fspath(path)) for path in libraries]
        refs = (_capi.StringRef * max(len(paths), 1))(*paths)
        options = _capi.CompileOptions(quantized_as_parts, len(paths), refs,
                                       reuse_buffers)
        self._handle = lib.mlirQuantBlockExecutableCreateWithOptions(
            module._module, _capi.StringRef.of(pipeline),
            ctypes.byref(options), errors.callback, None)
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

    def upload(self, array):
        """Copies `array` to a new device buffer of the executable's GPU
        runtime (a library given to compile()) and returns it as a
        DeviceArray, for device-resident arguments of any number of calls."""
        array = np.asarray(array)
        keep_alive = []
        buffer = _buffer_of(np.ascontiguousarray(array), keep_alive)
        errors = _capi.TextCollector()
        pointer = self._lib.mlirQuantBlockExecutableUpload(
            self._handle, ctypes.byref(buffer), errors.callback, None)
        if not pointer:
            raise MLIRError(errors.text.strip())
        return DeviceArray(self, pointer, array.shape, array.dtype)

    def copy_stats(self):
        """The copies the GPU runtime made so far, by direction:
        {"host_to_device": (copies, bytes), "device_to_host": ...,
        "device_to_device": ...}; None without a GPU runtime."""
        stats = (ctypes.c_uint64 * 6)()
        if not self._lib.mlirQuantBlockExecutableGetCopyStats(self._handle,
                                                              stats):
            return None
        return {"host_to_device": (stats[0], stats[1]),
                "device_to_host": (stats[2], stats[3]),
                "device_to_device": (stats[4], stats[5])}

    def launch_stats(self):
        """The kernel launches and host waits (stream and event
        synchronizations) the GPU runtime made so far:
        {"kernels": n, "synchronizations": n}; None without a GPU runtime.
        A decode step's count of both is what bounds it when its kernels
        are small (docs/GPU.md)."""
        stats = (ctypes.c_uint64 * 2)()
        if not self._lib.mlirQuantBlockExecutableGetLaunchStats(self._handle,
                                                                stats):
            return None
        return {"kernels": stats[0], "synchronizations": stats[1]}

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
            quantized_as_parts=True, libraries=(), reuse_buffers=False):
    """Compiles `module` (a Module or its text; left unchanged) with the
    textual pass pipeline `pipeline` and returns an Executable whose
    functions take and return numpy arrays. `libraries` are shared
    libraries the compiled code calls: for a GPU pipeline, its runtime
    (gpu_runtime_library). `reuse_buffers`: the compiled code's temporaries
    freed during a call are handed again, pages already mapped, to the
    same call's later requests of the same size, and released when it
    returns (C: MlirQuantBlockCompileOptions.reuseBuffers). Raises
    MLIRError with the diagnostics when the pipeline or the compilation
    fails."""
    if isinstance(module, str):
        module = Module.parse(module)
    return Executable(module, pipeline, quantized_as_parts, libraries,
                      reuse_buffers)


_GPU_RUNTIMES = {"vulkan": "libQuantBlockVulkanRuntime.so",
                 "cuda": "libQuantBlockCudaRuntime.so"}


def cpu_target(cpu="host", features=""):
    """What the CPU pipeline's kernels may use on `cpu` ("host": the CPU
    that compile() compiles for; or an LLVM processor name) with `features`
    ("+avx512vnni,-avx512f"): a CPUTarget with avx512f, avx512_vnni,
    amx_int8, amx_bf16, f16c and vector_bits. Raises MLIRError for unknown names."""
    lib = _capi.library()
    target = _capi.CPUTarget()
    errors = _capi.TextCollector()
    if not lib.mlirQuantBlockResolveCPUTarget(
            _capi.StringRef.of(cpu), _capi.StringRef.of(features),
            ctypes.byref(target), errors.callback, None):
        raise MLIRError(errors.text.strip())
    return target


def release_compiler_memory():
    """After compiling, in a process that goes on to run what it compiled:
    returns malloc's free heap to the system and asks the kernel to page
    out the pages of libMLIR and libLLVM that compiling touched (compiled
    functions call neither; the next compile() reads them back from the
    page cache). Returns the bytes of library mappings the kernel took the
    advice for: 0 without MADV_PAGEOUT (Linux before 5.4) or with the
    compiler linked statically (C: mlirQuantBlockReleaseCompilerMemory)."""
    return int(_capi.library().mlirQuantBlockReleaseCompilerMemory())


def gpu_runtime_library(kind):
    """The path of the project's GPU runtime library for `kind` ("vulkan"
    for the SPIR-V pipeline, "cuda" for the NVVM one), beside
    libQuantBlockCAPI.so; FileNotFoundError if it was not built."""
    if kind not in _GPU_RUNTIMES:
        raise ValueError(f"unknown GPU runtime {kind!r} (known: "
                         f"{', '.join(_GPU_RUNTIMES)})")
    path = os.path.join(os.path.dirname(_capi.library().path),
                        _GPU_RUNTIMES[kind])
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} was not built")
    return path
