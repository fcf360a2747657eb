"""quant-block: block-wise and OCP Microscaling quantization for MLIR.

The Python side of the project:

* `Context`, `Module` (parse / print / verify / run_passes) and `MLIRError`:
  MLIR through quant-block's C API (ctypes over libQuantBlockCAPI.so);
* `compile(module)`: JIT-compiled functions that take and return numpy
  arrays (quantized values as their parts);
* `Scheme`, `quantize(array, scheme)`, `dequantize(parts, scheme)`: the
  compiled kernels on numpy arrays;
* `reference`: the numpy reference of the numerics contract, independent of
  the C++ (it never loads the library);
* `webnn`: a WebNN graph importer that writes quant_block IR;
* `onnx`: an ONNX model importer (quant_block.onnx.import_model; needs the
  onnx package, imported on use);
* `gguf`: GGUF files (llama.cpp's weights): open and validate, metadata and
  tensors, import as a module, each tensor's parts for compiled functions,
  `python3 -m quant_block.gguf dequantize FILE TENSOR -o OUT.npy`.

The library is loaded on first use (see `_capi.candidate_paths`).
"""

from .ir import Context, Diagnostic, MLIRError, Module
from .quantization import QuantizedParts, dequantize, quantize
from .runner import Executable, Function, compile
from .scheme import Scheme

__all__ = [
    "Context", "Diagnostic", "Executable", "Function", "MLIRError", "Module",
    "QuantizedParts", "Scheme", "compile", "dequantize", "quantize",
    "gguf", "onnx", "reference", "webnn",
]
