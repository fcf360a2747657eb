"""Inputs and checks for polynomial-exp.mlir.

    polynomial_exp.py gen DIR      writes x.npy: a sweep over the f32 range
                                   where exp is finite, and special values
    polynomial_exp.py check DIR    compares e.npy (quant-run's exp of x) with
                                   exp in float64 rounded to f32
"""

import sys

import numpy as np

SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5,
                     88.72283, 88.72284, -87.33654, -104.0, -150.0, 1e-30],
                    np.float32)
# Measured for upstream's approximation over the sweep: 5 ulp at most (near
# the overflow threshold), 0.1 ulp on average; libm's expf is within 1.
MAX_ULP = 5
TINY = np.finfo(np.float32).tiny


def main():
    command, directory = sys.argv[1], sys.argv[2]
    if command == "gen":
        sweep = np.linspace(-110, 95, 65536 - SPECIALS.size)
        np.save(f"{directory}/x.npy",
                np.concatenate([sweep.astype(np.float32), SPECIALS]))
        return
    x = np.load(f"{directory}/x.npy")
    got = np.load(f"{directory}/e.npy")
    with np.errstate(over="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)
    normal = np.isfinite(want) & (want >= TINY)
    ulp = np.abs(got[normal].view(np.int32).astype(np.int64)
                 - want[normal].view(np.int32).astype(np.int64))
    print(f"normal results: max {ulp.max()} ulp "
          f"({'within' if ulp.max() <= MAX_ULP else 'ABOVE'} {MAX_ULP})")
    # Results below the smallest normal f32 are flushed to zero or nearly.
    small = np.isfinite(want) & (want < TINY)
    print("subnormal results: within the smallest normal of zero: "
          f"{bool(np.all(np.abs(got[small]) < TINY))}")
    for value in SPECIALS:
        index = np.flatnonzero(np.isnan(x) if np.isnan(value) else
                               x == value)[-1]
        print(f"exp({value!r}) = {got[index]!r}")


if __name__ == "__main__":
    main()
