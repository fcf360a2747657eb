"""quant-block: block-wise and OCP Microscaling quantization for MLIR.

The Python side of the project:

* `Context`, `Module` (parse / print / verify / run_passes) and `MLIRError`:
  MLIR through quant-block's C API (ctypes over libQuantBlockCAPI.so);
* `compile(module)`: JIT-compiled functions that take and return numpy
  arrays (quantized values as their parts); `cpu_target()`: what the CPU
  pipeline's kernels may use on the host (or a named CPU);
* `Scheme`, `quantize(array, scheme)`, `dequantize(parts, scheme)`: the
  compiled kernels on numpy arrays;
* `reference`: the numpy reference of the numerics contract, independent of
  the C++ (it never loads the library);
* `webnn`: a WebNN operation importer (quant_block.webnn.import_op);
* `onnx`: an ONNX model importer (quant_block.onnx.import_model; needs the
  onnx package, imported on use); both return a Module whose ops are
  located at the node or operation they come from;
* `builder`: the IR text the importers share (types, constants, schemes,
  the operands of quantized values, locations);
* `gguf`: GGUF files (llama.cpp's weights): open and validate, metadata and
  tensors, import as a module, each tensor's parts for compiled functions,
  `python3 -m quant_block.gguf dequantize FILE TENSOR -o OUT.npy`;
* `gguf_writer`: a GGUF writer / reader in pure Python with numpy
  quantizers, and random-weight LLaMA files of llama.cpp's type mixes;
* `llama`: a LLaMA GGUF compiled and run (prefill, decode, generate;
  `python3 -m quant_block.llama FILE --tokens ... | --bench pp512,tg128`),
  and `llama_reference`, its float64 numpy reference.

The library is loaded on first use (see `_capi.candidate_paths`).
"""

from .ir import Context, Diagnostic, MLIRError, Module
from .quantization import QuantizedParts, dequantize, quantize
from .runner import (BoundFunction, DeviceArray, Executable, Function, compile,
                     cpu_target, gpu_runtime_library, release_compiler_memory)
from .scheme import Scheme

__all__ = [
    "BoundFunction", "Context", "DeviceArray", "Diagnostic", "Executable",
    "Function", "MLIRError", "Module", "cpu_target", "gpu_runtime_library",
    "QuantizedParts", "Scheme", "compile", "dequantize", "quantize",
    "release_compiler_memory",
    "builder", "gguf", "gguf_writer", "llama", "llama_reference", "onnx",
    "reference", "webnn",
]
