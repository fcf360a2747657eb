"""Inputs and expected bits of test/Integration/matmul-kernels-order.mlir.

The register-tiled kernels of --quant-block-cpu-matmul-kernels sum in one
fixed order (docs/Numerics.md, "The CPU kernels' order"): lane l of a
16-lane accumulator takes, for each chunk of 32 elements in increasing
order, first the product of element 2l (4-bit storage: the low nibble of
byte l) or l (8-bit storage), then that of element 2l + 1 or l + 16; the 16
lanes are then added in a halving tree (lanes i and i + 8, then i and i + 4,
...). The weight is dequantized as quant_block.dequantize does:
f32(q - zp) * f32(scale). This script computes that order exactly, with
fused multiply-adds rounded once for `contract` (exact rationals rounded to
f32, ties to even), and compares the bits quant-run wrote.

usage: matmul_kernels_order.py gen DIR | check DIR NAME... | same DIR A B
"""

import os
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
from quant_block.reference import tile_rows  # noqa: E402

# Cases whose weights test/Integration/matmul-row-tiled.mlir also passes in
# the row-tiled layout (row_tile = 16): <name>_tdata / _tscales / _tzp.
ROW_TILED_CASES = ["i4_i8act", "i4_i8act_m8", "u4zp_i8act_m4",
                   "i4_i8act_b128", "i8_i8act_rows", "u8zp_i8act_rows",
                   "i4zp_strict", "u8_strict", "i8_strict"]
# K-quant and Q4_1 cases (two levels of scales, mins) passed tiled too:
# every part whose rows are the weight's (data, scales, mins, outer scales
# and outer mins) as <name>_t<part>.
ROW_TILED_MIN_CASES = ["q4k_strict", "q4k_i8act", "q4k_i8act_m20",
                       "q4_1_i8act", "q6k_i8_i8act", "q6k_i8_i8act_m20"]

# accumulate(i32) products: int8 activation codes and f32 scales per block
# (as quantize_dynamic gives them) times the weight; exact i32 block sums,
# then acc += f32(isum) * (f32(sx) * f32(sw)) over the blocks in order (one
# FMA with contract), the order the kernels keep for every flag.
INT_CASES = {
    # name: (M, N, K, block, storage bits, signed, zero points, scale,
    #        contract)
    "i4_i8act": (1, 64, 256, 32, 4, True, False, np.float16, False),
    "i8zp_i8act": (3, 12, 192, 64, 8, True, True, np.float32, True),
    "u4_i8act": (2, 8, 256, 128, 4, False, False, np.float16, True),
    # Four or more activation rows: one weight row per lane (rowLanes).
    "i4_i8act_m8": (8, 32, 256, 32, 4, True, False, np.float16, False),
    "u4zp_i8act_m4": (4, 16, 256, 64, 4, False, True, np.float32, True),
    # Blocks of more than 2 chunks: the chunks in a loop.
    "i4_i8act_b128": (3, 16, 512, 128, 4, True, False, np.float16, True),
    # 8-bit weights, one row per lane: signed, and unsigned with zero
    # points.
    "i8_i8act_rows": (2, 16, 128, 32, 8, True, False, np.float32, True),
    "u8zp_i8act_rows": (1, 32, 256, 64, 8, False, True, np.float16, False),
    # 16 rows or more: AMX tiles where quant-run's target has them (the
    # x86-64-v4-amx level), the rows left over with the others.
    "i4_i8act_m35": (35, 32, 256, 32, 4, True, False, np.float16, True),
    "u4zp_i8act_m20": (20, 16, 256, 64, 4, False, True, np.float32, False),
    # More activation rows than one chunk that stays in L2 (512 KiB of
    # codes: 128 rows of K = 4096): the chunks in turn
    # (matmul-row-chunks.mlir).
    "i4_i8act_rowchunks": (136, 16, 4096, 32, 4, True, False, np.float16,
                           False),
}

CASES = {
    # name: (M, N, K, block, storage bits, signed, zero points, scale, contract)
    "i4_zp": (3, 96, 256, 64, 4, True, True, np.float16, False),
    "u4": (2, 8, 128, 32, 4, False, False, np.float32, True),
    "i8": (8, 6, 192, 96, 8, True, False, np.float16, True),
    "u8_zp": (1, 5, 128, 128, 8, False, True, np.float32, False),
    # More than 8 chunks per block: the chunks in a loop, 8 at a time.
    "i8_b512": (2, 8, 512, 512, 8, True, False, np.float32, True),
    # More rows than one chunk of f32 activations in L2 (32 rows of K =
    # 4096): the chunks in turn (matmul-row-chunks.mlir).
    "i4_rowchunks": (40, 16, 4096, 32, 4, True, False, np.float16, False),
}


# Products without reassoc (strict order: for each output, k in increasing
# order, acc + x * w with the product rounded, or one FMA with contract),
# which the kernels compute with one weight row per lane.
STRICT_CASES = {
    # name: (M, N, K, block, storage bits, signed, zero points, scale,
    #        contract)
    "i4zp_strict": (3, 32, 256, 64, 4, True, True, np.float16, False),
    "u8_strict": (1, 16, 128, 128, 8, False, False, np.float16, True),
    "i8_strict": (9, 16, 96, 32, 8, True, False, np.float32, False),
    "i4_strict_rowchunks": (40, 16, 4096, 32, 4, True, False, np.float32,
                            False),
}

# f16 / bf16 activations and expressed type: each dequantized weight is
# rounded to that type (to nearest even), products and sums are f32 in the
# kernel's order (reassoc) or the strict one, the result rounded once.
NARROW_CASES = {
    # name: (M, N, K, block, storage bits, signed, scale, contract,
    #        expressed, reassoc)
    "bf16_fast": (2, 16, 128, 32, 4, True, np.float16, True, "bf16", True),
    "f16_strict": (3, 16, 128, 64, 8, False, np.float32, False, "f16",
                   False),
}


def round_bf16(values):
    """f32 values rounded to bf16 (nearest, ties to even), as f32."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def round_expressed(values, expressed):
    if expressed == "bf16":
        return round_bf16(values)
    return np.asarray(values, np.float32).astype(np.float16).astype(
        np.float32)


def to_storage(values, expressed):
    """The .npy form quant-run exchanges: bf16 bit patterns as uint16."""
    if expressed == "bf16":
        return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(
            np.uint16)
    return np.asarray(values, np.float32).astype(np.float16)


def generate_narrow(directory):
    rng = np.random.default_rng(20261128)
    for name, (m, n, k, block, bits, signed, scale_type, _, expressed,
               _) in NARROW_CASES.items():
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed \
            else (0, (1 << bits) - 1)
        codes = rng.integers(lo, hi + 1, (n, k))
        np.save(f"{directory}/{name}_data.npy", pack(codes, bits))
        np.save(f"{directory}/{name}_codes.npy", codes)
        scales = rng.uniform(0.01, 0.2, (n, k // block)).astype(scale_type)
        # The extremes of an f16 scale: its smallest subnormal (weights
        # q * 2^-24, never f32 subnormals: what lets AVX512-BF16's
        # vcvtneps2bf16 round them, x86-avx512-bf16), its smallest normal,
        # negative ones and a large one.
        scales[:4, :2] = [[2.0 ** -24, -2.0 ** -24], [2.0 ** -14, -0.5],
                          [-3.0e4, 2.0 ** -20], [0.0, -0.0]]
        np.save(f"{directory}/{name}_scales.npy", scales)
        x = round_expressed(rng.standard_normal((m, k)), expressed)
        np.save(f"{directory}/{name}_x.npy", to_storage(x, expressed))


def expected_narrow(directory, name):
    m, n, k, block, bits, signed, _, contract, expressed, reassoc = \
        NARROW_CASES[name]
    x = np.load(f"{directory}/{name}_x.npy")
    x = (x.astype(np.uint32) << 16).view(np.float32) if expressed == "bf16" \
        else x.astype(np.float32)
    codes, scales = load_weight(directory, name, block, bits, signed, False)
    w = round_expressed(
        codes.astype(np.float32) * np.repeat(scales, block, axis=1),
        expressed)
    y = ordered_sum(x, w, bits, contract) if reassoc else \
        strict_sum(x, w, contract)
    return to_storage(round_expressed(y, expressed), expressed)


# MXFP4 products (E2M1 codes, E8M0 scales per 32), f32 activations.
MX_CASES = {
    # name: (M, N, K, contract)
    "mxfp4": (2, 8, 128, True),
}
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]

# 4-bit weights with f8E4M3FN block scales and a per-tensor f32 outer scale
# (NVFP4: E2M1 in blocks of 16; s_eff = f32(scale) * outer rounded to f32,
# then q * s_eff), or blocks of 16 with f16 scales; f32 activations.
SCALED_CASES = {
    # name: (M, N, K, block, storage, scale, outer, contract)
    "nvfp4": (3, 12, 256, 16, "e2m1", "e4m3", True, True),
    "i4_e4m3": (1, 16, 256, 64, "i4", "e4m3", True, False),
    "u4_b16": (2, 8, 128, 16, "u4", np.float16, False, True),
    # 8-bit codes in blocks of 16 (GGUF Q6_K widened to i8, f32 scales).
    "i8_b16": (2, 8, 128, 16, "i8", np.float32, False, True),
}


# Block parameters as GGUF stores them: Q4_K (4-bit codes, 8-bit scales and
# zero points in blocks of 32 under an f16 outer scale and outer min per 8
# blocks: s_eff = f32(sc) * f32(d), m_eff = f32(zp) * f32(outer min), each
# rounded once, then w = fma(f32(q), s_eff, m_eff) rounded once), Q4_1
# (f16 scales and float zero points, mins: w = fma(f32(q), f32(s), f32(m)))
# and Q6_K with its codes widened to i8 (blocks of 16, i8 scales under an
# f16 outer scale per 16 blocks: w = q * (f32(sc) * f32(d))).
MIN_CASES = {
    # name: (M, N, K, kind, reassoc, contract)
    "q4k": (2, 8, 512, "q4k", True, True),
    "q4k_strict": (3, 16, 256, "q4k", False, False),
    "q4_1": (1, 8, 128, "q4_1", True, False),
    "q6k_i8": (2, 8, 512, "q6k", True, True),
}

# The same weights times int8 activations (accumulate(i32)): the weight
# codes summed as they are (isum = sum xq * q, exact), and each block adds
# a second term for the mins after the first: acc += f32(isum) * (f32(xs) *
# s_eff), then acc += f32(asum) * (f32(xs) * m_eff), asum = sum xq (exact);
# one FMA each with contract. 16 rows or more take AMX tiles where
# quant-run's target has them.
INT_MIN_CASES = {
    # name: (M, N, K, kind, contract)
    "q4k_i8act": (2, 16, 512, "q4k", True),
    "q4k_i8act_m20": (20, 16, 256, "q4k", False),
    "q4_1_i8act": (1, 16, 256, "q4_1", True),
    # Q6_K widened (i8 codes in blocks of 16, two levels of scales, no
    # mins) times activations quantized in blocks of 16.
    "q6k_i8_i8act": (3, 16, 512, "q6k", True),
    # 20 rows: 16 on AMX tiles of K = 16 where the host has them.
    "q6k_i8_i8act_m20": (20, 16, 256, "q6k", False),
}


def generate_mins(directory):
    rng = np.random.default_rng(20261129)
    cases = [(name, m, n, k, kind) for name, (m, n, k, kind, _, _)
             in MIN_CASES.items()]
    cases += [(name, m, n, k, kind) for name, (m, n, k, kind, _)
              in INT_MIN_CASES.items()]
    for name, m, n, k, kind in cases:
        if name in INT_MIN_CASES:
            np.save(f"{directory}/{name}_xq.npy",
                    rng.integers(-127, 128, (m, k)).astype(np.int8))
            block = 16 if kind == "q6k" else 32
            np.save(f"{directory}/{name}_xs.npy",
                    rng.uniform(0.001, 0.05, (m, k // block))
                    .astype(np.float32))
        else:
            np.save(f"{directory}/{name}_x.npy",
                    rng.standard_normal((m, k)).astype(np.float32))
        if kind == "q6k":
            codes = rng.integers(-32, 32, (n, k))
            np.save(f"{directory}/{name}_data.npy", pack(codes, 8))
            np.save(f"{directory}/{name}_codes.npy", codes)
            np.save(f"{directory}/{name}_scales.npy",
                    rng.integers(-128, 128, (n, k // 16)).astype(np.int8))
            np.save(f"{directory}/{name}_outer.npy",
                    rng.uniform(1e-4, 1e-3, (n, k // 256)).astype(np.float16))
            continue
        codes = rng.integers(0, 16, (n, k))
        np.save(f"{directory}/{name}_data.npy", pack(codes, 4))
        np.save(f"{directory}/{name}_codes.npy", codes)
        blocks = k // 32
        if kind == "q4k":
            np.save(f"{directory}/{name}_scales.npy",
                    rng.integers(0, 64, (n, blocks)).astype(np.uint8))
            np.save(f"{directory}/{name}_zp.npy",
                    rng.integers(0, 64, (n, blocks)).astype(np.uint8))
            np.save(f"{directory}/{name}_outer.npy",
                    rng.uniform(1e-3, 4e-3, (n, blocks // 8))
                    .astype(np.float16))
            np.save(f"{directory}/{name}_outermin.npy",
                    -rng.uniform(1e-3, 4e-3, (n, blocks // 8))
                    .astype(np.float16))
        else:
            np.save(f"{directory}/{name}_scales.npy",
                    rng.uniform(0.01, 0.2, (n, blocks)).astype(np.float16))
            np.save(f"{directory}/{name}_zp.npy",
                    rng.uniform(-1.5, 0, (n, blocks)).astype(np.float16))
    for name in ROW_TILED_MIN_CASES:
        for part in ("data", "scales", "zp", "outer", "outermin"):
            path = f"{directory}/{name}_{part}.npy"
            if os.path.exists(path):
                np.save(f"{directory}/{name}_t{part}.npy",
                        tile_rows(np.load(path), 16, data=part == "data"))


def min_weight(directory, name, kind):
    """The codes, effective f32 scales and mins of a Q4_K or Q4_1 case, per
    block."""
    codes = np.load(f"{directory}/{name}_codes.npy").astype(np.int64)
    scales = np.load(f"{directory}/{name}_scales.npy").astype(np.float32)
    mins = np.load(f"{directory}/{name}_zp.npy").astype(np.float32)
    if kind == "q4k":
        outer = np.load(f"{directory}/{name}_outer.npy").astype(np.float32)
        outer_min = np.load(f"{directory}/{name}_outermin.npy").astype(
            np.float32)
        scales = scales * np.repeat(outer, 8, axis=1)
        mins = mins * np.repeat(outer_min, 8, axis=1)
    return codes, scales, mins


def expected_integer_mins(directory, name):
    m, n, k, kind, contract = INT_MIN_CASES[name]
    xq = np.load(f"{directory}/{name}_xq.npy").astype(np.int64)
    xs = np.load(f"{directory}/{name}_xs.npy").astype(np.float32)
    block = 32
    if kind == "q6k":
        block = 16
        codes = np.load(f"{directory}/{name}_codes.npy").astype(np.int64)
        outer = np.load(f"{directory}/{name}_outer.npy").astype(np.float32)
        scales = np.load(f"{directory}/{name}_scales.npy").astype(
            np.float32) * np.repeat(outer, 16, axis=1)
        mins = None
    else:
        codes, scales, mins = min_weight(directory, name, kind)

    def add(acc, value, scale):
        return (fused(value, scale, acc) if contract else
                np.float32(acc + np.float32(value * scale)))

    y = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            acc = np.float32(0)
            for kb in range(k // block):
                part = slice(kb * block, (kb + 1) * block)
                isum = np.float32(int(np.dot(xq[i, part], codes[j, part])))
                acc = add(acc, isum, np.float32(xs[i, kb] * scales[j, kb]))
                if mins is not None:
                    asum = np.float32(int(xq[i, part].sum()))
                    acc = add(acc, asum, np.float32(xs[i, kb] * mins[j, kb]))
            y[i, j] = acc
    return y


def expected_mins(directory, name):
    m, n, k, kind, reassoc, contract = MIN_CASES[name]
    x = np.load(f"{directory}/{name}_x.npy")
    codes = np.load(f"{directory}/{name}_codes.npy")
    scales = np.load(f"{directory}/{name}_scales.npy").astype(np.float32)
    if kind == "q6k":
        outer = np.load(f"{directory}/{name}_outer.npy").astype(np.float32)
        scales = scales * np.repeat(outer, 16, axis=1)
        w = codes.astype(np.float32) * np.repeat(scales, 16, axis=1)
        return ordered_sum(x, w, 8, contract)
    codes, scales, mins = min_weight(directory, name, kind)
    scales, mins = (np.repeat(p, 32, axis=1) for p in (scales, mins))
    w = np.array([fused(q, s, b) for q, s, b in
                  zip(codes.ravel().astype(np.float32), scales.ravel(),
                      mins.ravel())], np.float32).reshape(codes.shape)
    return ordered_sum(x, w, 4, contract) if reassoc else \
        strict_sum(x, w, contract)


def decode_e4m3(code):
    """The value of an f8E4M3FN code (no infinities; S.1111.111 is NaN)."""
    sign = -1.0 if code & 0x80 else 1.0
    exponent, mantissa = (code >> 3) & 15, code & 7
    if exponent == 15 and mantissa == 7:
        return float("nan")
    if exponent == 0:
        return sign * mantissa * 2.0 ** -9
    return sign * (1 + mantissa / 8) * 2.0 ** (exponent - 7)


def pack(codes, bits):
    """Codes [N, K] as stored: two 4-bit codes a byte (the even element in
    the low nibble), or one byte each."""
    if bits == 4:
        nibbles = (codes & 15).astype(np.uint8)
        return (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).view(np.int8)
    return (codes & 255).astype(np.uint8).view(np.int8)


def round_f32(value):
    """The f32 nearest to the rational `value`, ties to even."""
    guess = np.float32(float(value))
    best = None
    for candidate in (np.nextafter(guess, np.float32(-np.inf)), guess,
                      np.nextafter(guess, np.float32(np.inf))):
        distance = abs(Fraction(float(candidate)) - value)
        even = int(candidate.view(np.uint32)) % 2 == 0
        key = (distance, not even)
        if best is None or key < best[0]:
            best = (key, candidate)
    return best[1]


def generate(directory):
    rng = np.random.default_rng(20261125)
    for name, (m, n, k, block, bits, signed, zp, scale_type, _) in \
            list(CASES.items()) + list(INT_CASES.items()) + \
            list(STRICT_CASES.items()):
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed \
            else (0, (1 << bits) - 1)
        codes = rng.integers(lo, hi + 1, (n, k))
        scales = (rng.uniform(0.01, 0.2, (n, k // block))
                  .astype(scale_type))
        x = rng.standard_normal((m, k)).astype(np.float32)
        np.save(f"{directory}/{name}_x.npy", x)
        if name in INT_CASES:
            np.save(f"{directory}/{name}_xq.npy",
                    rng.integers(-127, 128, (m, k)).astype(np.int8))
            np.save(f"{directory}/{name}_xs.npy",
                    rng.uniform(0.001, 0.05, (m, k // block))
                    .astype(np.float32))
        np.save(f"{directory}/{name}_data.npy", pack(codes, bits))
        np.save(f"{directory}/{name}_scales.npy", scales)
        np.save(f"{directory}/{name}_codes.npy", codes)
        if zp:
            points = rng.integers(lo, hi + 1, (n, k // block))
            np.save(f"{directory}/{name}_zp.npy", points.astype(np.int8))
        if name in ROW_TILED_CASES:
            np.save(f"{directory}/{name}_tdata.npy",
                    tile_rows(pack(codes, bits), 16, data=True))
            np.save(f"{directory}/{name}_tscales.npy",
                    tile_rows(scales, 16, data=False))
            if zp:
                np.save(f"{directory}/{name}_tzp.npy",
                        tile_rows(points.astype(np.int8), 16, data=False))


def fused(a, b, c):
    """fma(a, b, c) in f32, rounded once."""
    return round_f32(Fraction(float(a)) * Fraction(float(b)) +
                     Fraction(float(c)))


def load_weight(directory, name, block, bits, signed, zp):
    """The centered weight codes (q - zp) and the f32 scales of a case."""
    codes = np.load(f"{directory}/{name}_codes.npy").astype(np.int64)
    scales = np.load(f"{directory}/{name}_scales.npy").astype(np.float32)
    if zp:
        points = np.load(f"{directory}/{name}_zp.npy").astype(np.int64)
        if not signed:
            points &= (1 << bits) - 1
        codes = codes - np.repeat(points, block, axis=1)
    return codes, scales


def expected_integer(directory, name):
    m, n, k, block, bits, signed, zp, _, contract = INT_CASES[name]
    xq = np.load(f"{directory}/{name}_xq.npy").astype(np.int64)
    xs = np.load(f"{directory}/{name}_xs.npy").astype(np.float32)
    codes, scales = load_weight(directory, name, block, bits, signed, zp)
    y = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            acc = np.float32(0)
            for kb in range(k // block):
                part = slice(kb * block, (kb + 1) * block)
                isum = np.float32(int(np.dot(xq[i, part], codes[j, part])))
                scale = np.float32(xs[i, kb] * scales[j, kb])
                acc = (fused(isum, scale, acc) if contract else
                       np.float32(acc + np.float32(isum * scale)))
            y[i, j] = acc
    return y


def generate_mx(directory):
    rng = np.random.default_rng(20261126)
    for name, (m, n, k, _) in MX_CASES.items():
        codes = rng.integers(0, 16, (n, k))
        nibbles = codes.astype(np.uint8)
        np.save(f"{directory}/{name}_data.npy",
                (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).view(np.int8))
        np.save(f"{directory}/{name}_codes.npy", codes)
        # Shared exponents around 2^0, and code 0 (the f32 subnormal
        # 2^-127) in one block.
        scales = rng.integers(120, 131, (n, k // 32)).astype(np.uint8)
        scales[0, 0] = 0
        np.save(f"{directory}/{name}_scales.npy", scales)
        np.save(f"{directory}/{name}_x.npy",
                rng.standard_normal((m, k)).astype(np.float32))


def generate_scaled(directory):
    rng = np.random.default_rng(20261127)
    for name, (m, n, k, block, storage, scale, outer, _) in \
            SCALED_CASES.items():
        lo, hi = {"i4": (-8, 7), "i8": (-128, 127)}.get(storage, (0, 15))
        codes = rng.integers(lo, hi + 1, (n, k))
        if storage == "i8":
            data = codes.astype(np.int8)
        else:
            nibbles = (codes & 15).astype(np.uint8)
            data = (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).view(np.int8)
        np.save(f"{directory}/{name}_data.npy", data)
        np.save(f"{directory}/{name}_codes.npy", codes)
        if scale == "e4m3":
            # Normal codes around 1, one subnormal (3 x 2^-9), one zero and
            # one negative scale.
            scales = rng.integers(0x20, 0x48, (n, k // block)).astype(np.uint8)
            scales[0, :3] = [0x03, 0x00, 0xB8]
        else:
            scales = rng.uniform(0.01, 0.2, (n, k // block)).astype(scale)
        np.save(f"{directory}/{name}_scales.npy", scales)
        if outer:
            np.save(f"{directory}/{name}_outer.npy",
                    np.array([[0.0371]], np.float32))
        np.save(f"{directory}/{name}_x.npy",
                rng.standard_normal((m, k)).astype(np.float32))


def expected_scaled(directory, name):
    m, n, k, block, storage, scale, outer, contract = SCALED_CASES[name]
    x = np.load(f"{directory}/{name}_x.npy")
    codes = np.load(f"{directory}/{name}_codes.npy")
    scales = np.load(f"{directory}/{name}_scales.npy")
    if scale == "e4m3":
        scales = np.array([decode_e4m3(int(c)) for c in scales.ravel()],
                          np.float32).reshape(scales.shape)
    scales = scales.astype(np.float32)
    if outer:
        scales = scales * np.load(f"{directory}/{name}_outer.npy")[0, 0]
    if storage == "e2m1":
        values = np.array([(-1 if c & 8 else 1) * E2M1[c & 7]
                           for c in codes.ravel()],
                          np.float32).reshape(codes.shape)
    else:
        values = codes.astype(np.float32)
    w = values * np.repeat(scales, block, axis=1)
    return ordered_sum(x, w, 8 if storage == "i8" else 4, contract)


def expected_mx(directory, name):
    m, n, k, contract = MX_CASES[name]
    x = np.load(f"{directory}/{name}_x.npy")
    codes = np.load(f"{directory}/{name}_codes.npy")
    exponents = np.load(f"{directory}/{name}_scales.npy").astype(np.int64)
    scales = np.where(exponents == 0, np.float32(2.0 ** -127),
                      np.ldexp(np.float32(1), exponents - 127)).astype(
                          np.float32)
    values = np.array([(-1 if c & 8 else 1) * E2M1[c & 7]
                       for c in codes.ravel()],
                      np.float32).reshape(codes.shape)
    w = values * np.repeat(scales, 32, axis=1)
    return ordered_sum(x, w, 4, contract)


def ordered_sum(x, w, bits, contract):
    """The kernels' float order (module docstring)."""
    m, k = x.shape
    n = w.shape[0]
    lanes = np.arange(16)
    y = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            acc = np.zeros(16, np.float32)
            for k0 in range(0, k, 32):
                if bits == 4:
                    halves = (k0 + 2 * lanes, k0 + 2 * lanes + 1)
                else:
                    halves = (k0 + lanes, k0 + 16 + lanes)
                for index in halves:
                    a, b = x[i, index], w[j, index]
                    if contract:
                        acc = np.array([fused(a[l], b[l], acc[l])
                                        for l in lanes], np.float32)
                    else:
                        acc = acc + a * b
            width = 16
            while width > 1:
                width //= 2
                acc = acc[:width] + acc[width:2 * width]
            y[i, j] = acc[0]
    return y


def expected_strict(directory, name):
    m, n, k, block, bits, signed, zp, _, contract = STRICT_CASES[name]
    x = np.load(f"{directory}/{name}_x.npy")
    codes, scales = load_weight(directory, name, block, bits, signed, zp)
    w = codes.astype(np.float32) * np.repeat(scales, block, axis=1)
    return strict_sum(x, w, contract)


def strict_sum(x, w, contract):
    """The contract's order: for each output, k increasing from +0.0, a
    rounded product and a rounded sum, or one FMA with contract."""
    m, k = x.shape
    y = np.zeros((m, w.shape[0]), np.float32)
    for i in range(m):
        for j in range(w.shape[0]):
            acc = np.float32(0)
            for kk in range(k):
                acc = (fused(x[i, kk], w[j, kk], acc) if contract else
                       np.float32(acc + np.float32(x[i, kk] * w[j, kk])))
            y[i, j] = acc
    return y


def expected(directory, name):
    if name in INT_CASES:
        return expected_integer(directory, name)
    if name in STRICT_CASES:
        return expected_strict(directory, name)
    if name in NARROW_CASES:
        return expected_narrow(directory, name)
    if name in MX_CASES:
        return expected_mx(directory, name)
    if name in SCALED_CASES:
        return expected_scaled(directory, name)
    if name in MIN_CASES:
        return expected_mins(directory, name)
    if name in INT_MIN_CASES:
        return expected_integer_mins(directory, name)
    m, n, k, block, bits, signed, zp, _, contract = CASES[name]
    x = np.load(f"{directory}/{name}_x.npy")
    codes, scales = load_weight(directory, name, block, bits, signed, zp)
    w = codes.astype(np.float32) * np.repeat(scales, block, axis=1)
    return ordered_sum(x, w, bits, contract)


def main():
    if sys.argv[1] == "gen":
        generate(sys.argv[2])
        generate_mx(sys.argv[2])
        generate_scaled(sys.argv[2])
        generate_narrow(sys.argv[2])
        generate_mins(sys.argv[2])
        return 0
    if sys.argv[1] == "same":
        # same DIR A B: the bits of A.npy and B.npy (two computations that
        # must agree) are the same, and A is not all zero.
        a, b = (np.load(f"{sys.argv[2]}/{n}.npy") for n in sys.argv[3:5])
        same = a.shape == b.shape and np.array_equal(
            a.view(np.uint8), b.view(np.uint8)) and bool(np.any(a))
        print(f"{sys.argv[3]} {sys.argv[4]}: "
              f"{'bit-exact' if same else 'DIFFERENT'}")
        return 0 if same else 1
    directory, failed = sys.argv[2], False
    for name in sys.argv[3:]:
        want = expected(directory, name.split(".")[0])
        got = np.load(f"{directory}/{name}.npy")
        same = got.shape == want.shape and got.dtype.itemsize == \
            want.dtype.itemsize and np.array_equal(
                got.view(np.uint8), want.view(np.uint8))
        print(f"{name}: {'bit-exact' if same else 'DIFFERENT'}")
        if not same:
            bad = np.argwhere(got != want)[0]
            print(f"  first at {tuple(bad)}: got {got[tuple(bad)]!r}, "
                  f"expected {want[tuple(bad)]!r}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
