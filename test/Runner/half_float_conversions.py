"""Conversions to and from bf16 and f16, compiled and run, against an
independent numpy reference.

Usage: half_float_conversions.py QUANT_RUN SCRATCH_DIR

Compiles arith.truncf (f32 and f64 to bf16 and f16) and arith.extf (every
bf16 and f16 bit pattern to f32 and f64) with --quant-block-cpu-pipeline,
runs them with quant-run and compares every result bit. The inputs are the
values where a wrong conversion shows: subnormal results (which
vcvtneps2bf16 flushes), exact ties and their neighbours, the overflow
boundary, +-0, +-Inf, NaNs with payloads, f64 values a double rounding
through f32 would get wrong, and random bit patterns. Run under
`lit -Dtarget=...` the same comparison covers other x86-64 levels.

The reference rounds with float64 arithmetic (scaling by the quantum and
np.rint, both exact here), not with bit tricks like the compiled code.
"""

import os
import subprocess
import sys

import numpy as np

np.seterr(all="ignore")

KERNELS = """
func.func @trunc_f32_bf16(%x: tensor<{n32}xf32>) -> tensor<{n32}xbf16> {{
  %r = arith.truncf %x : tensor<{n32}xf32> to tensor<{n32}xbf16>
  return %r : tensor<{n32}xbf16>
}}
func.func @trunc_f32_f16(%x: tensor<{n32}xf32>) -> tensor<{n32}xf16> {{
  %r = arith.truncf %x : tensor<{n32}xf32> to tensor<{n32}xf16>
  return %r : tensor<{n32}xf16>
}}
func.func @trunc_f64_bf16(%x: tensor<{n64}xf64>) -> tensor<{n64}xbf16> {{
  %r = arith.truncf %x : tensor<{n64}xf64> to tensor<{n64}xbf16>
  return %r : tensor<{n64}xbf16>
}}
func.func @trunc_f64_f16(%x: tensor<{n64}xf64>) -> tensor<{n64}xf16> {{
  %r = arith.truncf %x : tensor<{n64}xf64> to tensor<{n64}xf16>
  return %r : tensor<{n64}xf16>
}}
func.func @ext_bf16(%x: tensor<65536xbf16>)
    -> (tensor<65536xf32>, tensor<65536xf64>) {{
  %a = arith.extf %x : tensor<65536xbf16> to tensor<65536xf32>
  %b = arith.extf %x : tensor<65536xbf16> to tensor<65536xf64>
  return %a, %b : tensor<65536xf32>, tensor<65536xf64>
}}
func.func @ext_f16(%x: tensor<65536xf16>)
    -> (tensor<65536xf32>, tensor<65536xf64>) {{
  %a = arith.extf %x : tensor<65536xf16> to tensor<65536xf32>
  %b = arith.extf %x : tensor<65536xf16> to tensor<65536xf64>
  return %a, %b : tensor<65536xf32>, tensor<65536xf64>
}}
"""

# (significand bits including the implicit one, minimum normal exponent,
#  largest finite value)
BF16 = (8, -126, (2 - 2.0**-7) * 2.0**127)
F16 = (11, -14, 65504.0)


def round_reference(values, fmt):
    """values (float64, exact) rounded to nearest even into fmt, as float64;
    NaN stays NaN."""
    bits, emin, largest = fmt
    v = np.asarray(values, np.float64)
    out = np.full(v.shape, np.nan)
    finite = np.isfinite(v)
    _, exponent = np.frexp(np.where(finite, v, 1.0))
    quantum_exponent = np.maximum(exponent - 1, emin) - (bits - 1)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.ldexp(np.rint(np.ldexp(v, -quantum_exponent)),
                           quantum_exponent)
    rounded = np.where(np.abs(rounded) > largest,
                       np.copysign(np.inf, v), rounded)
    out[finite] = rounded[finite]
    infinite = np.isinf(v)
    out[infinite] = v[infinite]
    return out


def bf16_bits_of_exact(values):
    """bf16 bit patterns of float64 values that are exact in bf16."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(
        np.uint16)


def f16_bits_of_exact(values):
    return np.asarray(values, np.float16).view(np.uint16)


def expected_truncation(inputs, fmt):
    """Expected bit patterns: the rounded value, or for a NaN the quiet NaN
    with the sign and the top payload bits of the input."""
    is_bf16 = fmt is BF16
    rounded = round_reference(inputs.astype(np.float64), fmt)
    exact = np.where(np.isnan(rounded), 0.0, rounded)
    with np.errstate(over="ignore"):
        bits = (bf16_bits_of_exact(exact) if is_bf16 else
                f16_bits_of_exact(exact)).astype(np.uint32)
    if inputs.dtype == np.float64:
        raw = inputs.view(np.uint64)
        sign = ((raw >> 48) & 0x8000).astype(np.uint32)
        payload = ((raw >> (45 if is_bf16 else 42)) &
                   (0x3F if is_bf16 else 0x1FF)).astype(np.uint32)
    else:
        raw = inputs.view(np.uint32)
        sign = ((raw >> 16) & 0x8000).astype(np.uint32)
        payload = ((raw >> (16 if is_bf16 else 13)) &
                   (0x3F if is_bf16 else 0x1FF)).astype(np.uint32)
    quiet = sign | (0x7FC0 if is_bf16 else 0x7E00) | payload
    return np.where(np.isnan(inputs), quiet, bits).astype(np.uint16)


def f32_inputs(rng):
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 65504.0,
                         65519.99, 65520.0, 65535.0, 65536.0, 3.0e38,
                         3.4e38, 2.0**-24, 2.0**-25, 1.5 * 2.0**-25,
                         2.0**-14, 2.0**-133, 2.0**-134, 1.5 * 2.0**-134,
                         2.0**-149, 2.0**-126],
                        np.float64).astype(np.float32)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFA5A5A5,
                     0x7FFFFFFF, 0x7F812345], np.uint32).view(np.float32)
    # Every f32 around each bf16 / f16 rounding boundary: a few ulps on
    # either side of the midpoints between consecutive codes.
    around = []
    for shift in (16, 13):
        codes = rng.integers(0, 1 << (32 - shift), 4000, dtype=np.uint64)
        midpoints = (codes << shift) + (1 << (shift - 1))
        for delta in (-2, -1, 0, 1, 2):
            around.append((midpoints + np.uint64(delta + (1 << 32))) &
                          np.uint64(0xFFFFFFFF))
    around = np.concatenate(around).astype(np.uint32).view(np.float32)
    # The whole f16 subnormal and small-normal range, densely.
    small = np.arange(0, 0x38900000, 0x1000, dtype=np.uint32).view(
        np.float32)
    random = rng.integers(0, 1 << 32, 60000, dtype=np.uint64).astype(
        np.uint32).view(np.float32)
    values = np.concatenate([specials, nans, around, small, -small, random])
    return values.astype(np.float32)


def f64_inputs(rng):
    values = []
    for bits, fmt in ((16, BF16), (13, F16)):
        # f32 midpoints nudged by less than an f32 ulp: rounding to f32
        # first would make them exact ties and round them to even.
        codes = rng.integers(0, 1 << (32 - bits), 4000, dtype=np.uint64)
        mid = ((codes << bits) + (1 << (bits - 1))).astype(np.uint32)
        mid = mid.view(np.float32).astype(np.float64)
        mid = mid[np.isfinite(mid)]
        for nudge in (-2.0**-40, 2.0**-40, -2.0**-30, 2.0**-30):
            values.append(mid * (1 + nudge))
        values.append(mid)
    values.append(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan,
                            1 + 2.0**-8 + 2.0**-30, 1e-300, -1e-300, 1e300,
                            -1e300, 2.0**-133, 2.0**-134 * (1 + 2.0**-30),
                            2.0**-25 * (1 + 2.0**-40), 65520.0 - 2.0**-30,
                            65520.0, 3.3961e38, 3.39615e38]))
    values.append(rng.standard_normal(30000) *
                  np.exp2(rng.integers(-150, 130, 30000)))
    return np.concatenate(values).astype(np.float64)


def run(quant_run, module, entry, inputs, outputs):
    command = [quant_run, module, "-e", entry]
    for path in inputs:
        command += ["-i", path]
    for path in outputs:
        command += ["-o", path]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"quant-run -e {entry} failed:\n{done.stderr}")
    return [np.load(path) for path in outputs]


def main():
    quant_run, scratch = sys.argv[1:3]
    os.makedirs(scratch, exist_ok=True)
    rng = np.random.default_rng(2026)
    x32, x64 = f32_inputs(rng), f64_inputs(rng)
    module = os.path.join(scratch, "kernels.mlir")
    with open(module, "w") as f:
        f.write(KERNELS.format(n32=x32.size, n64=x64.size))
    path = lambda name: os.path.join(scratch, name + ".npy")
    np.save(path("x32"), x32)
    np.save(path("x64"), x64)
    all16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    np.save(path("all_bf16"), all16)
    np.save(path("all_f16"), all16.view(np.float16))

    checks = []
    for entry, inputs, fmt in (("trunc_f32_bf16", x32, BF16),
                               ("trunc_f32_f16", x32, F16),
                               ("trunc_f64_bf16", x64, BF16),
                               ("trunc_f64_f16", x64, F16)):
        (got,) = run(quant_run, module, entry,
                     [path("x32" if inputs is x32 else "x64")],
                     [path(entry)])
        checks.append((entry, inputs, got.view(np.uint16),
                       expected_truncation(inputs, fmt)))

    # Extensions: bf16 is the top half of an f32 (NaN payloads included);
    # f16 values are exact in f32, and a NaN becomes quiet.
    b32, b64 = run(quant_run, module, "ext_bf16", [path("all_bf16")],
                   [path("bf16_f32"), path("bf16_f64")])
    want32 = all16.astype(np.uint32) << 16
    checks.append(("ext_bf16 f32", all16, b32.view(np.uint32), want32))
    checks.append(("ext_bf16 f64", all16, b64.view(np.uint64),
                   want32.view(np.float32).astype(np.float64)
                   .view(np.uint64)))
    h32, h64 = run(quant_run, module, "ext_f16", [path("all_f16")],
                   [path("f16_f32"), path("f16_f64")])
    halves = all16.view(np.float16)
    nan = np.isnan(halves)
    want = halves.astype(np.float32).view(np.uint32)
    quiet = ((all16.astype(np.uint32) & 0x8000) << 16) | 0x7FC00000 | (
        (all16.astype(np.uint32) & 0x3FF) << 13)
    want = np.where(nan, quiet, want)
    checks.append(("ext_f16 f32", all16, h32.view(np.uint32), want))
    checks.append(("ext_f16 f64", all16, h64.view(np.uint64),
                   want.view(np.float32).astype(np.float64).view(np.uint64)))

    passed = failed = 0
    for name, inputs, got, want in checks:
        wrong = np.nonzero(got != want)[0]
        passed += got.size - wrong.size
        failed += wrong.size
        for i in wrong[:5]:
            print(f"{name}: input {inputs[i]!r} ({inputs.view(np.uint64 if inputs.itemsize == 8 else np.uint32 if inputs.itemsize == 4 else np.uint16)[i]:#x}): "
                  f"got {int(got[i]):#x}, expected {int(want[i]):#x}")
    print(f"half-float conversions: {passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
