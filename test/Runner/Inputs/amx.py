"""Inputs and the contract's numpy order for test/Runner/x86-amx.mlir.

usage: amx.py gen DIR | amx.py check DIR NAME...

`gen` writes f32 activations with 35, 37 and 17 rows (two and one whole
16-row AMX tiles and rows left over) and the parts of three weights: int4
codes with f16 scales (blocks of 32), unsigned 8-bit codes with f32 scales
(blocks of 32: the AMX kernel multiplies them unsigned) and int8 codes with
f32 scales in blocks of 64. `check` compares each result NAME.npy, bit for
bit, with accumulate(i32)'s order (docs/Numerics.md) computed here in
float32 one step at a time: the activations quantized per block (absmax,
i8), the exact integer block sums of their codes times the weight codes,
then acc += f32(isum) * (s_x * s_w) over the blocks in increasing order.
"""

import os
import sys

import numpy as np

K = 256
# name: (activation rows, weight rows, block, weight kind)
CASES = {
    "int4": (35, 32, 32, "int4"),
    "int4_dynamic": (35, 32, 32, "int4"),
    "uint8": (37, 32, 32, "uint8"),
    "int8_b64": (17, 16, 64, "int8"),
}


def path(directory, name):
    return os.path.join(directory, name)


def gen(directory):
    rng = np.random.default_rng(29)
    for m in (35, 37, 17):
        np.save(path(directory, f"x{m}.npy"),
                rng.standard_normal((m, K)).astype(np.float32))
    codes4 = rng.integers(-8, 8, (32, K)).astype(np.int8)
    nibbles = codes4.view(np.uint8) & 0xF
    packed4 = (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).view(np.int8)
    arrays = {
        "codes_int4": codes4, "data_int4": packed4,
        "scales_int4": rng.uniform(0.001, 0.05, (32, K // 32)).astype(
            np.float16),
        "data_uint8": rng.integers(0, 256, (32, K)).astype(np.uint8),
        "scales_uint8": rng.uniform(0.001, 0.05, (32, K // 32)).astype(
            np.float32),
        "data_int8": rng.integers(-128, 128, (16, K)).astype(np.int8),
        "scales_int8": rng.uniform(0.001, 0.05, (16, K // 64)).astype(
            np.float32),
    }
    for name, array in arrays.items():
        np.save(path(directory, name + ".npy"), array)


def contract(directory, m, block, kind):
    x = np.load(path(directory, f"x{m}.npy"))
    codes = np.load(path(directory, ("codes_" if kind == "int4" else "data_")
                         + kind + ".npy")).astype(np.int32)
    sw = np.load(path(directory, f"scales_{kind}.npy")).astype(np.float32)
    blocks = x.reshape(m, K // block, block)
    sx = (np.abs(blocks).max(axis=2) / np.float32(127)).astype(np.float32)
    sx[sx == 0] = 1
    qx = np.clip(np.rint(blocks / sx[:, :, None]), -128, 127).astype(np.int32)
    acc = np.zeros((m, codes.shape[0]), np.float32)
    for kb in range(K // block):
        isum = qx[:, kb, :] @ codes[:, kb * block:(kb + 1) * block].T
        scale = sx[:, kb][:, None] * sw[:, kb][None, :]
        acc = acc + isum.astype(np.float32) * scale
    return acc


def check(directory, names):
    for name in names:
        expected = contract(directory, *CASES[name][0:1], *CASES[name][2:])
        got = np.load(path(directory, name + ".npy"))
        if got.dtype != np.float32 or got.shape != expected.shape:
            sys.exit(f"{name}: got {got.dtype} {got.shape}, expected "
                     f"{expected.shape}")
        bad = np.argwhere(got.view(np.uint32) != expected.view(np.uint32))
        if bad.size:
            i = tuple(bad[0])
            sys.exit(f"{name}: {len(bad)} elements differ from the contract's "
                     f"order, first at {i}: got {got[i]!r}, expected "
                     f"{expected[i]!r}")
        print(f"{name}: {got.size} results, the contract's bits")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
