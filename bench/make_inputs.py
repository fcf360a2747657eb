"""Writes random inputs for the kernels of bench/ and their quant-run
arguments.

usage: make_inputs.py OUT_DIR [--seed S]

For each kernel K (bench/K.mlir) it writes OUT_DIR/K.<input>.npy and
OUT_DIR/K.args, one quant-run argument per line (the entry, flags and
-i files), which bench/run.sh passes on. The values are random but valid:
any byte is a valid pair of int4 or FP4 E2M1 codes, E8M0 scales stay near
2^0, float scales are positive, activations are standard normal. They do not
change the timings of these kernels (no data-dependent control flow), only
keep the results finite.
"""

import argparse
import os

import numpy as np


def normal(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


def scales(rng, shape):
    return rng.uniform(0.001, 0.05, shape).astype(np.float32)


def random_bytes(rng, shape, dtype):
    return rng.integers(0, 256, shape, dtype=np.uint8).view(dtype)


def e8m0(rng, shape):
    # 2^-8 .. 2^7 around 2^0 (E8M0 bias 127).
    return rng.integers(119, 135, shape, dtype=np.uint8)


# kernel -> (quant-run flags, [(input name, generator)])
KERNELS = {
    "dequant_int4_g32": (
        ["--quantized-as-parts"],
        [("data", lambda r: random_bytes(r, (4096, 2048), np.int8)),
         ("scales", lambda r: scales(r, (4096, 128)))]),
    "dequant_mxfp4": (
        ["--quantized-as-parts"],
        [("data", lambda r: random_bytes(r, (4096, 2048), np.int8)),
         ("scales", lambda r: e8m0(r, (4096, 128)))]),
    "dequant_int8_channel": (
        [],
        [("data", lambda r: random_bytes(r, (4096, 4096), np.int8)),
         ("scales", lambda r: scales(r, (4096, 1)))]),
    "quantize_dynamic_int8_token": (
        [],
        [("x", lambda r: normal(r, (512, 4096)))]),
    "linear_int4_matvec": (
        ["--quantized-as-parts"],
        [("x", lambda r: normal(r, (1, 4096))),
         ("data", lambda r: random_bytes(r, (4096, 2048), np.int8)),
         ("scales", lambda r: scales(r, (4096, 128)))]),
}

# The int4 group-32 layer with f16 scales (issue 10): f32 and int8
# activations, strict order and fastmath<fast>; the same inputs for all four.
for _kernel in ("linear_int4_g32_f16", "linear_int4_g32_f16_fast",
                "linear_int4_g32_f16_i8act", "linear_int4_g32_f16_i8act_fast"):
    KERNELS[_kernel] = (
        ["--quantized-as-parts"],
        [("x", lambda r: normal(r, (1, 4096))),
         ("data", lambda r: random_bytes(r, (4096, 2048), np.int8)),
         ("scales", lambda r: scales(r, (4096, 128)).astype(np.float16))])


def _int4_g32_f16(m, n, k=4096):
    return (["--quantized-as-parts"],
            [("x", lambda r: normal(r, (m, k))),
             ("data", lambda r: random_bytes(r, (n, k // 2), np.int8)),
             ("scales",
              lambda r: scales(r, (n, k // 32)).astype(np.float16))])


# The same layer at M = 8 and 32 (ggml's Q4_0 is timed at the same M) and at
# LLaMA-7B's MLP shape (N, K) = (11008, 4096).
for _m in (8, 32):
    KERNELS[f"linear_int4_g32_f16_fast_m{_m}"] = _int4_g32_f16(_m, 4096)
    KERNELS[f"linear_int4_g32_f16_i8act_m{_m}"] = _int4_g32_f16(_m, 4096)
# Prefill: the int8-activation layer at M = 128 and 512 (AMX tiles where the
# host has them).
for _m in (128, 512):
    KERNELS[f"linear_int4_g32_f16_i8act_m{_m}"] = _int4_g32_f16(_m, 4096)
    KERNELS[f"linear_int4_g32_f16_fast_m{_m}"] = _int4_g32_f16(_m, 4096)
# A dynamic M, called with M = 1.
KERNELS["linear_int4_g32_f16_fast_dynm"] = _int4_g32_f16(1, 4096)
KERNELS["linear_int4_g32_f16_i8act_dynm"] = _int4_g32_f16(1, 4096)
KERNELS["linear_int4_g32_f16_fast_n11008"] = _int4_g32_f16(1, 11008)
KERNELS["linear_int4_g32_f16_i8act_n11008"] = _int4_g32_f16(1, 11008)
# Prefill at the MLP shape, as issue 29's table asks.
for _m in (8, 32, 128, 512):
    KERNELS[f"linear_int4_g32_f16_i8act_n11008_m{_m}"] = _int4_g32_f16(
        _m, 11008)

# bf16 activations (their bits as uint16, as quant-run exchanges bf16),
# compiled for this host (AMX-BF16 tiles where it has them), at issue 29's
# prefill shapes.
def _int4_g32_f16_bf16act(m, n, k=4096):
    flags, inputs = _int4_g32_f16(m, n, k)
    bits = lambda r: (normal(r, (m, k)).view(np.uint32) >> 16).astype(
        np.uint16)
    return (flags + ["--pipeline=quant-block-cpu-pipeline{target-cpu=host}"],
            [("x", bits)] + inputs[1:])


for _m in (8, 32, 128, 512):
    KERNELS[f"linear_int4_g32_f16_bf16act_m{_m}"] = _int4_g32_f16_bf16act(
        _m, 4096)
    KERNELS[f"linear_int4_g32_f16_bf16act_n11008_m{_m}"] = (
        _int4_g32_f16_bf16act(_m, 11008))

# The same layer with the weight in the row-tiled layout (row_tile = 16,
# docs/Packing.md): random bytes in the tiled shapes of its parts.
def _int4_g32_f16_tiled(m, n=4096):
    return (["--quantized-as-parts"],
            [("x", lambda r: normal(r, (m, 4096))),
             ("data",
              lambda r: random_bytes(r, (n // 16, 512, 16, 4), np.int8)),
             ("scales",
              lambda r: scales(r, (n // 16, 128, 16)).astype(np.float16))])


KERNELS["linear_int4_g32_f16_i8act_tiled"] = _int4_g32_f16_tiled(1)
# Prefill with the tiled weight (the AMX kernel's operand decoded from it).
for _m in (8, 32, 128, 512):
    KERNELS[f"linear_int4_g32_f16_i8act_tiled_m{_m}"] = _int4_g32_f16_tiled(_m)
    KERNELS[f"linear_int4_g32_f16_i8act_tiled_n11008_m{_m}"] = (
        _int4_g32_f16_tiled(_m, 11008))

# The row-major weight read as it is (no repack per call): the peer of the
# default pipeline's repack from 128 rows.
for _m in (128, 512):
    _flags, _inputs = _int4_g32_f16(_m, 4096)
    KERNELS[f"linear_int4_g32_f16_i8act_norepack_m{_m}"] = (
        _flags + ["--pipeline=quant-block-cpu-pipeline"
                  "{repack-weights-min-rows=0}"], _inputs)

# MXFP4 (FP4 E2M1 codes, E8M0 scales per 32), NVFP4 and int8 per-channel
# GEMVs.
KERNELS["linear_mxfp4_fast"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (4096, 2048), np.int8)),
     ("scales", lambda r: e8m0(r, (4096, 128)))])
# The MXFP4 layer with int8 activations (MXFP4 x Q8_0), the same inputs;
# both at M = 8 and 32 and at (N, K) = (11008, 4096); row-tiled.
KERNELS["linear_mxfp4_i8act"] = KERNELS["linear_mxfp4_fast"]


def _mxfp4(m, n, k=4096):
    return (["--quantized-as-parts"],
            [("x", lambda r: normal(r, (m, k))),
             ("data", lambda r: random_bytes(r, (n, k // 2), np.int8)),
             ("scales", lambda r: e8m0(r, (n, k // 32)))])


for _kind in ("fast", "i8act"):
    for _m in (8, 32):
        KERNELS[f"linear_mxfp4_{_kind}_m{_m}"] = _mxfp4(_m, 4096)
    KERNELS[f"linear_mxfp4_{_kind}_n11008"] = _mxfp4(1, 11008)
KERNELS["linear_mxfp4_i8act_tiled"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (256, 512, 16, 4), np.int8)),
     ("scales", lambda r: e8m0(r, (256, 128, 16)))])
# NVFP4: E2M1 codes, E4M3 scales per 16 (codes 0x30-0x3F: 0.5 to 0.94),
# one f32 outer scale.
KERNELS["linear_nvfp4_fast"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (4096, 2048), np.int8)),
     ("scales", lambda r: r.integers(0x30, 0x40, (4096, 256), dtype=np.uint8)),
     ("outer", lambda r: np.full((1, 1), 0.01, np.float32))])
KERNELS["linear_nvfp4_i8act"] = KERNELS["linear_nvfp4_fast"]
# GGUF Q4_K: 6-bit sub-block scales and mins (0..63, in bytes) under f16
# outer scales and (negated) outer mins per 8 blocks, as the importer gives
# them.
KERNELS["linear_q4_k_fast"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (4096, 2048), np.int8)),
     ("scales", lambda r: r.integers(0, 64, (4096, 128), dtype=np.uint8)),
     ("zp", lambda r: r.integers(0, 64, (4096, 128), dtype=np.uint8)),
     ("outer", lambda r: scales(r, (4096, 16)).astype(np.float16)),
     ("outermin", lambda r: -scales(r, (4096, 16)).astype(np.float16))])
KERNELS["linear_q4_k_i8act"] = KERNELS["linear_q4_k_fast"]
# The same Q4_K layer row-tiled: every part in tiles of 16 rows.
KERNELS["linear_q4_k_i8act_tiled"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (256, 512, 16, 4), np.int8)),
     ("scales", lambda r: r.integers(0, 64, (256, 128, 16), dtype=np.uint8)),
     ("zp", lambda r: r.integers(0, 64, (256, 128, 16), dtype=np.uint8)),
     ("outer", lambda r: scales(r, (256, 16, 16)).astype(np.float16)),
     ("outermin",
      lambda r: -scales(r, (256, 16, 16)).astype(np.float16))])
# GGUF Q6_K widened to 8-bit codes (-32..31) in blocks of 16 under f16
# outer scales per 16 blocks (what quant_block.llama runs), row-major and
# row-tiled.
KERNELS["linear_q6_k_i8_i8act"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: r.integers(-32, 32, (4096, 4096), dtype=np.int8)),
     ("scales", lambda r: r.integers(-128, 128, (4096, 256), dtype=np.int8)),
     ("outer", lambda r: scales(r, (4096, 16)).astype(np.float16))])
KERNELS["linear_q6_k_i8_i8act_tiled"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: r.integers(-32, 32, (256, 1024, 16, 4),
                                   dtype=np.int8)),
     ("scales", lambda r: r.integers(-128, 128, (256, 256, 16),
                                     dtype=np.int8)),
     ("outer", lambda r: scales(r, (256, 16, 16)).astype(np.float16))])
# GGUF Q6_K in its own 6-bit codes (any bytes are valid codes), row-major
# and row-tiled.
KERNELS["linear_q6_k_i6_i8act"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (4096, 3072), np.int8)),
     ("scales", lambda r: r.integers(-128, 128, (4096, 256), dtype=np.int8)),
     ("outer", lambda r: scales(r, (4096, 16)).astype(np.float16))])
KERNELS["linear_q6_k_i6_i8act_tiled"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (256, 768, 16, 4), np.int8)),
     ("scales", lambda r: r.integers(-128, 128, (256, 256, 16),
                                     dtype=np.int8)),
     ("outer", lambda r: scales(r, (256, 16, 16)).astype(np.float16))])
KERNELS["linear_int8_channel_fast"] = (
    ["--quantized-as-parts"],
    [("x", lambda r: normal(r, (1, 4096))),
     ("data", lambda r: random_bytes(r, (4096, 4096), np.int8)),
     ("scales", lambda r: scales(r, (4096, 1)))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    for kernel, (flags, inputs) in KERNELS.items():
        lines = ["-e", kernel] + flags
        for name, make in inputs:
            path = os.path.join(args.out_dir, f"{kernel}.{name}.npy")
            np.save(path, make(rng))
            lines += ["-i", path]
        with open(os.path.join(args.out_dir, f"{kernel}.args"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print(kernel)


if __name__ == "__main__":
    main()
