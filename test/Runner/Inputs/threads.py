"""Inputs and strict-order numpy expectations for test/Runner/threads.mlir.

usage: threads.py gen DIR | threads.py check DIR THREADS...

`gen` writes the parts of an int4 weight (f16 scales, blocks of 32 along K)
and of an int8 weight (f32 scales), and f32 activations. `check` reads the
results quant-run wrote with each OMP_NUM_THREADS value (gemv_T.npy,
i8_T.npy), checks that they are bit-identical across thread counts and equal
to the strict order of docs/Numerics.md computed here in float32 one step at
a time: for the int4 GEMV, sum += x_k * w_nk over k in increasing order from
+0.0 (product and sum rounded separately); for accumulate(i32), the integer
block sums of the absmax-quantized activations times the codes, then acc +=
f32(isum) * (s_x * s_w) over the blocks in increasing order.
"""

import os
import sys

import numpy as np

N, K, M, B = 512, 256, 4, 32


def path(directory, name):
    return os.path.join(directory, name)


def gen(directory):
    rng = np.random.default_rng(10)
    # Random f32 values: the sums round, so any change of order shows.
    x = rng.standard_normal((1, K)).astype(np.float32)
    codes4 = rng.integers(-8, 8, (N, K)).astype(np.int8)
    nibbles = codes4.view(np.uint8) & 0xF
    packed4 = (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).view(np.int8)
    scales4 = rng.uniform(0.001, 0.05, (N, K // B)).astype(np.float16)
    xm = rng.standard_normal((M, K)).astype(np.float32)
    codes8 = rng.integers(-127, 128, (N, K)).astype(np.int8)
    scales8 = rng.uniform(0.001, 0.05, (N, K // B)).astype(np.float32)
    for name, array in (("x", x), ("codes4", codes4), ("data4", packed4),
                        ("scales4", scales4), ("xm", xm), ("data8", codes8),
                        ("scales8", scales8)):
        np.save(path(directory, name + ".npy"), array)


def strict_gemv(directory):
    x = np.load(path(directory, "x.npy"))
    codes = np.load(path(directory, "codes4.npy"))
    scales = np.load(path(directory, "scales4.npy")).astype(np.float32)
    w = codes.astype(np.float32) * np.repeat(scales, B, axis=1)
    acc = np.zeros((1, N), np.float32)
    for k in range(K):
        acc = acc + x[:, k:k + 1] * w[:, k][None, :]
    return acc


def strict_i8(directory):
    x = np.load(path(directory, "xm.npy"))
    codes = np.load(path(directory, "data8.npy")).astype(np.int32)
    sw = np.load(path(directory, "scales8.npy"))
    blocks = x.reshape(M, K // B, B)
    sx = (np.abs(blocks).max(axis=2) / np.float32(127)).astype(np.float32)
    sx[sx == 0] = 1
    qx = np.clip(np.rint(blocks / sx[:, :, None]), -128, 127).astype(np.int32)
    acc = np.zeros((M, N), np.float32)
    for kb in range(K // B):
        isum = qx[:, kb, :] @ codes[:, kb * B:(kb + 1) * B].T
        scale = sx[:, kb][:, None] * sw[:, kb][None, :]
        acc = acc + isum.astype(np.float32) * scale
    return acc


def bits(array):
    return array.view(np.uint32)


def check(directory, threads):
    for name, expected in (("gemv", strict_gemv(directory)),
                           ("i8", strict_i8(directory))):
        first = None
        for t in threads:
            got = np.load(path(directory, f"{name}_{t}.npy"))
            if got.dtype != np.float32 or got.shape != expected.shape:
                sys.exit(f"{name}, {t} threads: got {got.dtype} {got.shape}")
            if first is not None and not np.array_equal(bits(got), first):
                sys.exit(f"{name}: {t} threads differ from {threads[0]}")
            first = bits(got)
            bad = np.argwhere(bits(got) != bits(expected))
            if bad.size:
                i = tuple(bad[0])
                sys.exit(f"{name}, {t} threads: {len(bad)} elements differ "
                         f"from the strict order, first at {i}: got "
                         f"{got[i]!r}, expected {expected[i]!r}")
        print(f"{name}: identical for {' '.join(threads)} threads, strict")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
