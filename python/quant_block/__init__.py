"""quant-block: block-wise and OCP Microscaling quantization for MLIR.

Python side of the project: importers that map frontend quantization
operators onto quant_block IR (webnn), and, as the project grows, the numpy
reference of the numerics contract and the runner bindings.
"""

__all__ = ["webnn"]
