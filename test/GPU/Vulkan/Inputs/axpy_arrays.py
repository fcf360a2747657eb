#!/usr/bin/env python3
"""Inputs and the numpy reference of quant-run-spirv.mlir.

usage: axpy_arrays.py gen DIR | check DIR

gen writes x.npy (f32) and q.npy (i8, negative values included); check
compares DIR/y.npy with x + q * 0.125 bit for bit (every value is exact in
f32) and prints "axpy: ok" or the first mismatches.
"""

import os
import sys

import numpy as np

N = 64


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("gen", "check"):
        sys.exit(__doc__)
    mode, directory = sys.argv[1:]
    if mode == "gen":
        x = (np.arange(N, dtype=np.float32) * np.float32(1.5) -
             np.float32(7)).astype(np.float32)
        q = (np.arange(N) * 37 % 256 - 128).astype(np.int8)
        np.save(os.path.join(directory, "x.npy"), x)
        np.save(os.path.join(directory, "q.npy"), q)
        return
    x = np.load(os.path.join(directory, "x.npy"))
    q = np.load(os.path.join(directory, "q.npy"))
    y = np.load(os.path.join(directory, "y.npy"))
    expected = x + q.astype(np.float32) * np.float32(0.125)
    if y.dtype != np.float32 or y.shape != (N,):
        sys.exit(f"axpy: y has dtype {y.dtype} and shape {y.shape}")
    wrong = np.flatnonzero(y.view(np.uint32) != expected.view(np.uint32))
    if wrong.size:
        sys.exit(f"axpy: {wrong.size} of {N} wrong, first at {wrong[:4]}: "
                 f"{y[wrong[:4]]} instead of {expected[wrong[:4]]}")
    print("axpy: ok")


if __name__ == "__main__":
    main()
