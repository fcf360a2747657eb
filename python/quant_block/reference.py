"""An independent numpy reference of the quant-block numerics contract
(docs/Numerics.md): block expansion (ragged last blocks), integer quantize /
dequantize with none / int / float zero points, the OCP narrow float codecs
(by enumeration of every code, not by bit tricks, so that it is independent
of the compiler's implementation), MX integers and E8M0 scales.

Arrays of codes are int64; float values are numpy float32 unless stated.
"""

import numpy as np

# name: (exponent bits, mantissa bits, bias, has_inf, has_nan)
FLOAT_FORMATS = {
    "f8E4M3FN": (4, 3, 7, False, True),
    "f8E5M2": (5, 2, 15, True, True),
    "f6E2M3FN": (2, 3, 1, False, False),
    "f6E3M2FN": (3, 2, 3, False, False),
    "f4E2M1FN": (2, 1, 1, False, False),
}


def float_format_table(name):
    """Values of every code of a format (NaN where the code is NaN)."""
    e_bits, m_bits, bias, has_inf, has_nan = FLOAT_FORMATS[name]
    width = 1 + e_bits + m_bits
    values = []
    for code in range(1 << width):
        sign = -1.0 if code >> (width - 1) else 1.0
        exp = (code >> m_bits) & ((1 << e_bits) - 1)
        man = code & ((1 << m_bits) - 1)
        if has_inf and exp == (1 << e_bits) - 1:
            values.append(sign * np.inf if man == 0 else np.nan)
            continue
        if has_nan and not has_inf and exp == (1 << e_bits) - 1 and \
                man == (1 << m_bits) - 1:
            values.append(np.nan)
            continue
        if exp == 0:
            values.append(sign * man * 2.0 ** (1 - bias - m_bits))
        else:
            values.append(sign * (1 + man / 2.0 ** m_bits) *
                          2.0 ** (exp - bias))
    return np.array(values, dtype=np.float64)


def decode_float(codes, name):
    return float_format_table(name)[np.asarray(codes)].astype(np.float32)


def encode_float(values, name, rounding="half_to_even", saturate=True):
    """Nearest code by enumeration; ties by `rounding`."""
    table = float_format_table(name)
    e_bits, m_bits, bias, has_inf, has_nan = FLOAT_FORMATS[name]
    width = 1 + e_bits + m_bits
    finite = np.isfinite(table)
    max_normal = np.max(table[finite])
    positive_codes = [c for c in range(1 << (width - 1)) if finite[c]]
    grid = table[positive_codes]
    out = np.zeros(np.shape(values), dtype=np.int64)
    for index, v in np.ndenumerate(np.asarray(values, dtype=np.float64)):
        sign = 1 << (width - 1) if np.signbit(v) else 0
        if np.isnan(v):
            # The positive NaN with all magnitude bits set (0x7F for both FP8
            # formats); formats without NaN encode +0.
            nan_codes = [c for c in range(1 << (width - 1))
                         if np.isnan(table[c])]
            out[index] = nan_codes[-1] if nan_codes else 0
            continue
        a = abs(v)
        below = np.max(np.nonzero(grid <= min(a, max_normal))[0])
        lower = grid[below]
        if a >= max_normal:
            if saturate or not (has_inf or has_nan) or a == max_normal:
                code = positive_codes[below]
            else:
                # Overflow rounds past the largest value: Inf or NaN.
                step = max_normal - grid[below - 1]
                if a - max_normal < step / 2 or (a - max_normal == step / 2 and
                                                 positive_codes[below] % 2 == 0):
                    code = positive_codes[below]
                else:
                    code = (int(np.nonzero(np.isinf(table))[0][0]) if has_inf
                            else [c for c in range(1 << (width - 1))
                                  if np.isnan(table[c])][0])
            out[index] = sign | code
            continue
        upper = grid[below + 1]
        low_code, high_code = positive_codes[below], positive_codes[below + 1]
        if rounding == "toward_zero" or a == lower:
            code = low_code
        elif a - lower < upper - a:
            code = low_code
        elif a - lower > upper - a:
            code = high_code
        elif rounding == "half_away_from_zero":
            code = high_code
        else:
            code = low_code if low_code % 2 == 0 else high_code
        out[index] = sign | code
    return out


def expand_blocks(params, shape, block):
    """Repeats each parameter over its block (cropping ragged last blocks)."""
    result = np.asarray(params)
    for axis, (size, b) in enumerate(zip(shape, block)):
        result = np.repeat(result, b, axis=axis)
        result = np.take(result, np.arange(size), axis=axis)
    return result


def decode_e8m0(codes):
    codes = np.asarray(codes, dtype=np.int64)
    values = np.ldexp(np.float64(1.0), codes - 127)
    return np.where(codes == 255, np.nan, values).astype(np.float32)


def round_integral(x, rounding):
    if rounding == "half_to_even":
        return np.rint(x)
    if rounding == "half_away_from_zero":
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    return np.trunc(x)


def dequantize(codes, scales, zero_points, *, shape, block, storage,
               expressed="f32", zero_point_domain="none", mx_int_bits=None):
    """x per docs/Numerics.md, computed in f32 then rounded to `expressed`."""
    s = expand_blocks(np.asarray(scales, np.float32), shape, block)
    if mx_int_bits:
        s = (s * np.float32(2.0 ** (2 - mx_int_bits))).astype(np.float32)
    if storage in FLOAT_FORMATS:
        x = (decode_float(codes, storage) * s).astype(np.float32)
    else:
        q = np.asarray(codes, np.int64)
        if zero_point_domain == "int":
            zp = expand_blocks(np.asarray(zero_points, np.int64), shape, block)
            x = ((q - zp).astype(np.float32) * s).astype(np.float32)
        elif zero_point_domain == "float":
            m = expand_blocks(np.asarray(zero_points, np.float32), shape, block)
            # One fused multiply-add: exact product, one rounding.
            x = (q.astype(np.float64) * s.astype(np.float64) +
                 m.astype(np.float64)).astype(np.float32)
        else:
            x = (q.astype(np.float32) * s).astype(np.float32)
    return x.astype({"f32": np.float32, "f16": np.float16}[expressed])


def quantize(x, scales, zero_points, *, shape, block, storage, qmin=None,
             qmax=None, rounding="half_to_even", saturate=True,
             zero_point_domain="none", storage_bits=8):
    """Storage codes per docs/Numerics.md (true division in f32, or f64 for
    32-bit storage; NaN -> the zero point)."""
    compute = np.float64 if storage_bits >= 32 else np.float32
    xs = np.asarray(x).astype(compute)
    s = expand_blocks(np.asarray(scales, np.float32), shape, block) \
        .astype(compute)
    if storage in FLOAT_FORMATS:
        y = (np.asarray(x).astype(np.float32) /
             expand_blocks(np.asarray(scales, np.float32), shape, block))
        return encode_float(y.astype(np.float32), storage, rounding, saturate)
    if zero_point_domain == "float":
        m = expand_blocks(np.asarray(zero_points, np.float32), shape, block)
        xs = (xs - m.astype(compute)).astype(compute)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = round_integral((xs / s).astype(compute), rounding)
    offset = np.zeros(shape, compute)
    if zero_point_domain == "int":
        offset = expand_blocks(np.asarray(zero_points, np.int64), shape,
                               block).astype(compute)
        r = r + offset
    clamped = np.clip(r, qmin, qmax)
    clamped = np.where(np.isnan(clamped), np.clip(offset, qmin, qmax),
                       clamped)
    return clamped.astype(np.int64)
