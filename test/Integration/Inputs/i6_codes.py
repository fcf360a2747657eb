"""Inputs of matmul-i6-codes.mlir: GGUF Q6_K-like weights (6-bit two's
complement codes, i8 scales in blocks of 16 under f16 outer scales per 16
blocks) packed as 6-bit codes (4 per 24 bits, the lowest first) and, the
same codes, as bytes; int8 activations in blocks of 16 (or 32) with f32
scales. Row-tiled copies (row_tile = 16) of one case.

    python3 i6_codes.py DIR
"""

import sys

import numpy as np

# name: (activation rows, weight rows N, K, block)
CASES = {"q6k": (3, 16, 512, 16), "q6k_m20": (20, 16, 256, 16),
         "q6k_dyn": (5, 16, 256, 16), "q6k_tiled": (3, 32, 512, 16),
         "i6_b32": (2, 32, 256, 32)}
ROW_TILE = 16


def pack6(codes):
    """[N, K] codes in [-32, 32) as 6-bit two's complement, 4 per 3 bytes,
    the first code in the lowest bits."""
    u = (codes & 63).astype(np.uint32).reshape(codes.shape[0], -1, 4)
    bits = u[..., 0] | (u[..., 1] << 6) | (u[..., 2] << 12) | (u[..., 3] << 18)
    out = np.stack([(bits >> (8 * j)) & 255 for j in range(3)], axis=-1)
    return out.astype(np.uint8).reshape(codes.shape[0], -1).view(np.int8)


def tile_rows(part, words):
    """A row-major part [N, X] in the row-tiled layout: data as [N / R, W,
    R, 4] (word d of the tile's rows in row order), the others [N / R, X,
    R]."""
    n = part.shape[0]
    if words:
        tiled = part.reshape(n // ROW_TILE, ROW_TILE, -1, 4)
        return np.ascontiguousarray(tiled.transpose(0, 2, 1, 3))
    tiled = part.reshape(n // ROW_TILE, ROW_TILE, -1)
    return np.ascontiguousarray(tiled.transpose(0, 2, 1))


def main(directory):
    rng = np.random.default_rng(6)
    for name, (m, n, k, block) in CASES.items():
        codes = rng.integers(-32, 32, (n, k))
        # Every code value and both extremes appear.
        codes[0, :64] = np.arange(-32, 32)
        parts = {"data6": pack6(codes), "data8": codes.astype(np.int8),
                 "xq": rng.integers(-127, 128, (m, k)).astype(np.int8),
                 "xs": rng.uniform(0.001, 0.05, (m, k // block))
                 .astype(np.float32)}
        if block == 16:
            parts["scales"] = rng.integers(-128, 128, (n, k // 16)).astype(
                np.int8)
            parts["outer"] = rng.uniform(1e-4, 1e-3, (n, k // 256)).astype(
                np.float16)
        else:
            parts["scales"] = rng.uniform(0.01, 0.2, (n, k // block)).astype(
                np.float32)
        if name.endswith("_tiled"):
            parts["data6_tiled"] = tile_rows(parts["data6"], True)
            for part in ("scales", "outer"):
                parts[f"{part}_tiled"] = tile_rows(parts[part], False)
        for part, array in parts.items():
            np.save(f"{directory}/{name}_{part}.npy", array)


if __name__ == "__main__":
    main(sys.argv[1])
