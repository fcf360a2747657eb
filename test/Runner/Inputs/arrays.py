"""Inputs and independent numpy expectations for the quant-run tests.

usage: arrays.py COMMAND DIR

`gen-X DIR` writes the inputs of test X into DIR; `check-X DIR` compares what
quant-run wrote there with an expectation computed here, in numpy, from the
numerics the docs define (docs/Numerics.md, docs/Packing.md), bit for bit,
and prints "X: ok" or exits with the first difference.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
from quant_block.reference import tile_rows  # noqa: E402


def save(directory, name, array):
    np.save(os.path.join(directory, name), array)


def load(directory, name):
    return np.load(os.path.join(directory, name))


def expect_equal(name, got, expected):
    if got.dtype != expected.dtype or got.shape != expected.shape:
        sys.exit(f"{name}: got {got.dtype} {got.shape}, expected "
                 f"{expected.dtype} {expected.shape}")
    # Compare bits so that -0.0 / 0.0 and NaNs count.
    if got.dtype.kind == "f":
        view = np.dtype(f"u{got.dtype.itemsize}")
        got, expected = got.view(view), expected.view(view)
    bad = np.argwhere(got != expected)
    if bad.size:
        index = tuple(bad[0])
        sys.exit(f"{name}: {len(bad)} elements differ, first at {index}: "
                 f"got {got[index]}, expected {expected[index]}")


def f32(values):
    return np.asarray(values, dtype=np.float32)


# int4 quantize -> dequantize round trip, blocks of 32 along the rows, int8
# zero points: x = (clamp(rint(x / s) + zp, -8, 7) - zp) * s.

def gen_roundtrip(directory):
    rng = np.random.default_rng(1)
    x = f32(rng.uniform(-6, 6, (8, 96)))
    # Exact ties (x / s = k + 0.5) exercise round-half-to-even.
    x[0, :8] = f32([0.25, 0.75, -0.25, -0.75, 1.25, 2.5, 100.0, -100.0])
    scales = f32(rng.choice([0.125, 0.25, 0.5, 0.375], (8, 3)))
    scales[0, 0] = 0.5
    zero_points = rng.integers(-3, 4, (8, 3)).astype(np.int8)
    save(directory, "x.npy", x)
    save(directory, "scales.npy", scales)
    save(directory, "zero_points.npy", zero_points)


def check_roundtrip(directory):
    x, s, zp = (load(directory, n) for n in
                ("x.npy", "scales.npy", "zero_points.npy"))
    s_full = np.repeat(s, 32, axis=1)
    zp_full = np.repeat(zp, 32, axis=1).astype(np.float32)
    q = np.clip(np.rint(x / s_full) + zp_full, -8, 7)
    expected = ((q - zp_full) * s_full).astype(np.float32)
    expect_equal("roundtrip", load(directory, "y.npy"), expected)
    print("roundtrip: ok")


# A uint4 linear layer from packed weights (--quantized-as-parts): the data
# part is the codes packed two per byte, first element in the low nibble.
# Integer activations and power-of-two scales keep every product and sum
# exact, so the summation order cannot matter.

def gen_linear(directory):
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 16, (16, 64)).astype(np.uint8)
    packed = codes[:, 0::2] | (codes[:, 1::2] << 4)
    scales = f32(2.0 ** rng.integers(-3, 2, (16, 2)))
    zero_points = f32(rng.integers(-4, 4, (16, 2)))
    x = f32(rng.integers(-4, 5, (3, 64)))
    save(directory, "codes.npy", codes)
    save(directory, "x.npy", x)
    save(directory, "data.npy", packed.astype(np.uint8))
    save(directory, "scales.npy", scales)
    save(directory, "zero_points.npy", zero_points)
    # The same weight in the row-tiled layout (row_tile = 16).
    save(directory, "tdata.npy", tile_rows(packed.astype(np.uint8), 16,
                                           data=True))
    save(directory, "tscales.npy", tile_rows(scales, 16, data=False))
    save(directory, "tzero_points.npy", tile_rows(zero_points, 16,
                                                  data=False))


def check_linear(directory):
    codes, x, s, m = (load(directory, n) for n in
                      ("codes.npy", "x.npy", "scales.npy", "zero_points.npy"))
    # Float zero point: w = q * s + m.
    w = codes.astype(np.float64) * np.repeat(s, 32, axis=1) + \
        np.repeat(m, 32, axis=1)
    expected = (x.astype(np.float64) @ w.T).astype(np.float32)
    expect_equal("linear", load(directory, "y.npy"), expected)
    print("linear: ok")


# Dynamic per-token int8 quantization with a dynamic token count: two
# results, codes and scales. s = max|x| / 127 (1 for an all-zero row),
# q = clamp(rint(x / s), -128, 127).

def gen_dynamic(directory):
    rng = np.random.default_rng(3)
    for rows in (5, 2):
        x = f32(rng.standard_normal((rows, 64)) * 3)
        if rows == 5:
            x[3] = 0.0
        save(directory, f"x{rows}.npy", x)


def check_dynamic(directory):
    for rows in (5, 2):
        x = load(directory, f"x{rows}.npy")
        s = (np.abs(x).max(axis=1, keepdims=True) / np.float32(127)).astype(
            np.float32)
        s[s == 0] = 1
        q = np.clip(np.rint(x / s), -128, 127).astype(np.int8)
        expect_equal(f"codes ({rows} rows)", load(directory, f"q{rows}.npy"), q)
        expect_equal(f"scales ({rows} rows)", load(directory, f"s{rows}.npy"),
                     s)
    print("dynamic: ok")


# bf16 through uint16 bit patterns: int8 data with bf16 scales, dequantized
# to bf16. q * s is exact in f32 (8 + 8 significant bits), so the result is
# that product rounded once to bf16 (half to even).

def to_bf16_bits(values):
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def gen_bf16(directory):
    rng = np.random.default_rng(4)
    data = rng.integers(-128, 128, (4, 64)).astype(np.int8)
    scales = to_bf16_bits(rng.uniform(0.001, 3.0, (4, 2)))
    save(directory, "data.npy", data)
    save(directory, "scales.npy", scales)


def check_bf16(directory):
    data, scales = load(directory, "data.npy"), load(directory, "scales.npy")
    product = data.astype(np.float32) * np.repeat(from_bf16_bits(scales), 32,
                                                  axis=1)
    expect_equal("bf16", load(directory, "y.npy"), to_bf16_bits(product))
    print("bf16: ok")


# Scalars and the smaller dtypes, checked through the printed summary.

def gen_mixed(directory):
    save(directory, "h.npy", np.array([1, 2, 3, 4], np.float16))
    save(directory, "a.npy", np.float32(1.5))
    save(directory, "b.npy", np.array([True, False, True, False]))
    save(directory, "c.npy", np.array([-2, 0, 7, 30000], np.int16))
    save(directory, "n.npy", np.int64(5))


# Files that break one rule each.

def gen_errors(directory):
    save(directory, "x.npy", np.zeros((4, 64), np.float32))
    save(directory, "s.npy", np.ones((4, 2), np.float32))
    save(directory, "s_f64.npy", np.ones((4, 2), np.float64))
    save(directory, "s_3.npy", np.ones((4, 3), np.float32))
    save(directory, "s_rank1.npy", np.ones(8, np.float32))
    save(directory, "x_fortran.npy", np.asfortranarray(np.zeros((4, 64),
                                                                np.float32)))
    save(directory, "x_big.npy", np.zeros((4, 64), ">f4"))
    save(directory, "x_complex.npy", np.zeros((4, 64), np.complex64))
    save(directory, "x_u4.npy", np.zeros((4, 64), np.uint32))
    with open(os.path.join(directory, "text.npy"), "w") as f:
        f.write("not an array\n")


COMMANDS = {
    "gen-roundtrip": gen_roundtrip,
    "check-roundtrip": check_roundtrip,
    "gen-linear": gen_linear,
    "check-linear": check_linear,
    "gen-dynamic": gen_dynamic,
    "check-dynamic": check_dynamic,
    "gen-bf16": gen_bf16,
    "check-bf16": check_bf16,
    "gen-mixed": gen_mixed,
    "gen-errors": gen_errors,
}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    os.makedirs(sys.argv[2], exist_ok=True)
    COMMANDS[sys.argv[1]](sys.argv[2])
