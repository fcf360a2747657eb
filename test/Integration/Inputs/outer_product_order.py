"""Inputs and expected bits for outer-product-order.mlir.

The register tiles of --quant-block-cpu-vectorize (sums of outer products:
a few rows times a few vectors of accumulators, the reduction loops
innermost) keep each output's order of additions: the terms in increasing
reduction index (lexicographic over several reduction loops), each added
to the running sum. Without `contract` each product and each sum round
separately; with it, each term is one fused multiply-add (math.fma, rounded
once, on every host). The expected bits follow that order exactly.

    outer_product_order.py gen DIR      writes the inputs
    outer_product_order.py check DIR [SUFFIX NAME...]
        compares the results quant-run wrote (NAME SUFFIX.npy; all cases
        without a suffix by default)
"""

import sys

import numpy as np

# name: (a shape, b shape); the functions of outer-product-order.mlir.
CASES = {
    "mm_strict": ((12, 64), (64, 48)),
    "mm_fast": ((12, 64), (64, 48)),
    # An attention's product of weights and values: positions in blocks
    # (two reduction loops, the first dynamic), heads on threads.
    "pv_fast": ((8, 4, 2, 64), (4, 2, 64, 128)),
}


def fused(a, b, c):
    """fma(a, b, c) in f32, rounded once, elementwise: a * b is exact in
    f64; the f64 sum s and its exact error e (TwoSum) give a * b + c = s + e
    exactly, and rounding s to f32 rounds the exact value the same way
    unless s is exactly halfway between two f32 (a double), where the sign
    of e decides."""
    product = a.astype(np.float64) * b.astype(np.float64)
    addend = c.astype(np.float64)
    total = product + addend
    back = total - product
    error = (product - (total - back)) + (addend - back)
    rounded = total.astype(np.float32)
    below = np.where(rounded.astype(np.float64) <= total, rounded,
                     np.nextafter(rounded, np.float32(-np.inf)))
    above = np.nextafter(below, np.float32(np.inf))
    halfway = (below.astype(np.float64) + above.astype(np.float64)) / 2
    tie = (total == halfway) & (error != 0)
    return np.where(tie, np.where(error > 0, above, below), rounded)


def rows_times_columns(a, b, contract):
    """a [M, K] times b [K, N] in the order of the tiles: for each output,
    k increasing."""
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), np.float32)
    for kk in range(k):
        column, row = a[:, kk:kk + 1], b[kk:kk + 1, :]
        if contract:
            out = fused(np.broadcast_to(column, (m, n)),
                        np.broadcast_to(row, (m, n)), out)
        else:
            out = out + column * row
    return out


def expected(name, a, b):
    if name == "mm_strict":
        return rows_times_columns(a, b, False)
    if name == "mm_fast":
        return rows_times_columns(a, b, True)
    # pv: out[t, h, i] = sum over (block, l) of a[t, h, block, l] *
    # b[h, block, l, i], positions in increasing order.
    t, h, blocks, width = a.shape
    out = np.zeros((t, h, b.shape[-1]), np.float32)
    for head in range(h):
        out[:, head, :] = rows_times_columns(
            a[:, head].reshape(t, blocks * width),
            b[head].reshape(blocks * width, -1), True)
    return out


def main():
    command, directory = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(7)
    if command == "gen":
        for name, (a_shape, b_shape) in CASES.items():
            # Values of many magnitudes, so that the order shows in the bits.
            for suffix, shape in (("a", a_shape), ("b", b_shape)):
                values = rng.standard_normal(shape) * np.exp2(
                    rng.integers(-6, 7, shape))
                np.save(f"{directory}/{name}_{suffix}.npy",
                        values.astype(np.float32))
        return
    suffix = sys.argv[3] if len(sys.argv) > 3 else ""
    failed = False
    for name in sys.argv[4:] or CASES:
        a = np.load(f"{directory}/{name}_a.npy")
        b = np.load(f"{directory}/{name}_b.npy")
        want = expected(name, a, b)
        got = np.load(f"{directory}/{name}{suffix}.npy")
        same = np.array_equal(got.view(np.uint32), want.view(np.uint32))
        # Another order of the sums differs in some bits: the check can fail.
        print(f"{name}{suffix}: {'same bits' if same else 'DIFFERENT'}")
        failed |= not same
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
