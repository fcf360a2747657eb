"""Imports quant_block from an installed prefix (argv[1]) and compiles and
runs a function through it: the package must find the installed
libQuantBlockCAPI.so on its own (run by ctest's python/installed-package)."""

import os
import sys

import numpy as np

import quant_block

prefix = os.path.realpath(sys.argv[1])
package = os.path.realpath(os.path.dirname(quant_block.__file__))
assert package == os.path.join(prefix, "python", "quant_block"), package

kernels = quant_block.compile("""
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
""")
result = kernels.twice(np.arange(4, dtype=np.float32))
assert result.tolist() == [0.0, 2.0, 4.0, 6.0], result
print("installed package works:", package)
