"""Inputs and the error bound for test/Runner/x86-amx-bf16.mlir.

usage: amx_bf16.py gen DIR | amx_bf16.py check DIR NAME...

`gen` writes bf16 activations (their bit patterns as uint16, as quant-run
exchanges bf16) and the parts of each case's weight. `check` compares each
result NAME.npy (bf16 bits) with the exact product of the activations and
the weights as quant_block.dequantize gives them for bf16 activations
(f32, rounded once to bf16), computed in f64, within the reassociation
bound of docs/Numerics.md plus the term for the subnormals AMX-BF16
flushes:

    |y - y_exact| <= 1.01 K u S + u_e |y_exact| + 2^-126 sum_k (|x_k| + |w_k| + 1)

with u = 2^-24 (f32 sums), u_e = 2^-8 (the result rounded to bf16) and
S = sum_k |x_k w_k|. It prints how many results it checked and the largest
error relative to the bound.
"""

import os
import sys

import numpy as np

# name: (activation rows, weight rows, K, block, weight kind)
CASES = {
    "int4": (35, 32, 256, 32, "int4"),
    "int4_dynamic": (35, 32, 256, 32, "int4"),
    "int4_groups": (80, 48, 512, 32, "int4"),
    "int4_chunks": (144, 16, 4096, 32, "int4"),
    "int4_wide": (32, 2064, 4096, 32, "int4"),
    "int4_cancel": (32, 16, 256, 32, "int4_cancel"),
    "uint4_zp": (19, 32, 256, 64, "uint4_zp"),
    "q4_1": (16, 16, 256, 32, "q4_1"),
    "int8": (33, 16, 256, 64, "int8"),
    "mxfp4": (48, 32, 256, 32, "mxfp4"),
}
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
        -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def path(directory, name):
    return os.path.join(directory, name)


def round_bf16(values):
    """f32 values rounded to bf16 (nearest, ties to even), as f32."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def bf16_bits(values):
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(
        np.uint16)


def from_bf16_bits(bits):
    return (np.asarray(bits, np.uint32) << 16).view(np.float32)


def pack_nibbles(codes):
    nibbles = np.asarray(codes).astype(np.int64) & 0xF
    return (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).astype(np.uint8)


def gen(directory):
    rng = np.random.default_rng(2911)
    for name, (m, n, k, block, kind) in CASES.items():
        x = round_bf16(rng.standard_normal((m, k)).astype(np.float32))
        if name == "int4":
            # A few subnormal activations: the tile unit takes them as 0.
            x[0, :4] = np.float32(3e-39)
        blocks = k // block
        if kind == "int4_cancel":
            # The second half of K negates the first: y_exact = 0.
            x[:, k // 2:] = -x[:, :k // 2]
            codes = rng.integers(-8, 8, (n, k // 2))
            codes = np.concatenate([codes, codes], axis=1)
            scales = rng.uniform(0.01, 0.1, (n, blocks // 2))
            scales = np.concatenate([scales, scales], axis=1)
            parts = {"data": pack_nibbles(codes),
                     "scales": scales.astype(np.float16)}
        elif kind == "int4":
            parts = {"data": pack_nibbles(rng.integers(-8, 8, (n, k))),
                     "scales": rng.uniform(0.01, 0.1, (n, blocks)).astype(
                         np.float16)}
        elif kind == "uint4_zp":
            parts = {"data": pack_nibbles(rng.integers(0, 16, (n, k))),
                     "scales": rng.uniform(0.01, 0.1, (n, blocks)).astype(
                         np.float16),
                     "zp": rng.integers(0, 16, (n, blocks)).astype(np.uint8)}
        elif kind == "q4_1":
            parts = {"data": pack_nibbles(rng.integers(0, 16, (n, k))),
                     "scales": rng.uniform(0.01, 0.1, (n, blocks)).astype(
                         np.float16),
                     "zp": rng.uniform(-0.5, 0.0, (n, blocks)).astype(
                         np.float16)}
        elif kind == "int8":
            parts = {"data": rng.integers(-128, 128, (n, k)).astype(np.int8),
                     "scales": rng.uniform(0.001, 0.01, (n, blocks)).astype(
                         np.float32)}
        elif kind == "mxfp4":
            parts = {"data": pack_nibbles(rng.integers(0, 16, (n, k))),
                     "scales": rng.integers(120, 131, (n, blocks)).astype(
                         np.uint8)}
        np.save(path(directory, f"{name}_x.npy"), bf16_bits(x))
        for part, array in parts.items():
            np.save(path(directory, f"{name}_{part}.npy"), array)


def unpack_nibbles(data):
    data = np.asarray(data, np.uint8).astype(np.int64)
    codes = np.empty((data.shape[0], data.shape[1] * 2), np.int64)
    codes[:, 0::2] = data & 0xF
    codes[:, 1::2] = data >> 4
    return codes


def weights(directory, name, n, k, block, kind):
    """The weights as dequantize gives them for bf16 activations, f64."""
    load = lambda part: np.load(path(directory, f"{name}_{part}.npy"))
    expand = lambda params: np.repeat(np.asarray(params, np.float64), block,
                                      axis=1)
    if kind in ("int4", "int4_cancel"):
        codes = unpack_nibbles(load("data"))
        codes = np.where(codes >= 8, codes - 16, codes)
        w = codes * expand(load("scales").astype(np.float32))
    elif kind == "uint4_zp":
        codes = unpack_nibbles(load("data"))
        zp = np.repeat(load("zp").astype(np.int64), block, axis=1)
        w = (codes - zp) * expand(load("scales").astype(np.float32))
    elif kind == "q4_1":
        # fma(q, s, m) in f32: exact in f64 for f16 parameters, then
        # rounded once.
        codes = unpack_nibbles(load("data"))
        w = codes * expand(load("scales").astype(np.float32)) + expand(
            load("zp").astype(np.float32))
    elif kind == "int8":
        w = load("data").astype(np.int64) * expand(load("scales"))
    elif kind == "mxfp4":
        codes = unpack_nibbles(load("data"))
        values = np.asarray(E2M1, np.float64)[codes]
        w = values * expand(2.0 ** (load("scales").astype(np.float64) - 127))
    return round_bf16(w.astype(np.float32)).astype(np.float64)


def check(directory, names):
    for name in names:
        case = name.split(".")[0]
        m, n, k, block, kind = CASES[case]
        x = from_bf16_bits(np.load(path(directory, f"{case}_x.npy"))).astype(
            np.float64)
        w = weights(directory, case, n, k, block, kind)
        exact = x @ w.T
        magnitude = np.abs(x) @ np.abs(w).T
        flushed = 2.0 ** -126 * (np.abs(x).sum(axis=1)[:, None] +
                                 np.abs(w).sum(axis=1)[None, :] + k)
        bound = (1.01 * k * 2.0 ** -24 * magnitude +
                 2.0 ** -8 * np.abs(exact) + flushed)
        got_bits = np.load(path(directory, f"{name}.npy"))
        if got_bits.dtype != np.uint16 or got_bits.shape != (m, n):
            sys.exit(f"{name}: got {got_bits.dtype} {got_bits.shape}, "
                     f"expected uint16 {(m, n)}")
        got = from_bf16_bits(got_bits).astype(np.float64)
        error = np.abs(got - exact)
        bad = np.argwhere(~(error <= bound))
        if len(bad):
            i = tuple(bad[0])
            sys.exit(f"{name}: output {i}: got {got[i]!r}, exact "
                     f"{exact[i]!r}, error {error[i]:.3g} > bound "
                     f"{bound[i]:.3g} ({len(bad)} outside)")
        print(f"{name}: {m * n} results within the bound")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
