"""An independent numpy reference of the quant-block numerics contract
(docs/Numerics.md): block expansion (ragged last blocks), integer quantize /
dequantize with none / int / float zero points, the OCP narrow float codecs
(by enumeration of every code, not by bit tricks, so that it is independent
of the compiler's implementation), MX integers and E8M0 scales, outer
(second-level) scales and outer mins (NVFP4, GGUF K-quants),
quantize_dynamic (absmax, minmax, mx) and quant_block.matmul with float and
i32 accumulation.

Arrays of codes are int64; float values are numpy float32 unless stated.
Values of the 16-bit types are numpy float16 for f16 and float32 arrays that
hold bf16 values for bf16 (numpy has no bfloat16); `float_bits` gives the
bit patterns of any of them.

The low-level `quantize` / `dequantize` take the parameters as keyword
arguments; `Scheme` bundles a scheme's fields (as `#quant_block.scheme`
spells them) for the higher-level functions (`quantize_scheme`,
`dequantize_scheme`, `quantize_dynamic`, `matmul_integer`).
"""

import functools
import re
from dataclasses import dataclass
from typing import NamedTuple, Optional, Tuple

import numpy as np

# name: (exponent bits, mantissa bits, bias, has_inf, has_nan)
FLOAT_FORMATS = {
    "f8E4M3FN": (4, 3, 7, False, True),
    "f8E5M2": (5, 2, 15, True, True),
    "f6E2M3FN": (2, 3, 1, False, False),
    "f6E3M2FN": (3, 2, 3, False, False),
    "f4E2M1FN": (2, 1, 1, False, False),
}

# Element / expressed float types computed with numpy (bf16 emulated).
EXPRESSED_TYPES = ("f32", "f16", "bf16")


def _ieee(function):
    """Runs `function` without numpy's floating-point warnings: NaN, Inf and
    overflow to Inf are results of the contract, not errors."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
    return wrapper


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


def max_finite(name):
    """Largest finite value of an OCP float format."""
    table = float_format_table(name)
    return float(np.max(table[np.isfinite(table)]))


def decode_float(codes, name):
    return float_format_table(name)[np.asarray(codes)].astype(np.float32)


def encode_float(values, name, rounding="half_to_even", saturate=True):
    """Nearest code by enumeration; ties by `rounding`.

    The magnitude is rounded on the format's grid extended upwards by one
    step of its top binade (the value the next code would have if the
    exponent were unbounded), and only then is overflow decided, so that
    `toward_zero` keeps values just above the largest normal finite and
    `half_away_from_zero` sends the exact midpoint above it to Inf / NaN, as
    IEEE rounding of an unbounded exponent does. Anything from the next
    binade up (and +-Inf) overflows: `saturate` clamps it to +-max_finite,
    otherwise E5M2 writes Inf and E4M3FN NaN (keeping the sign bit); fp6 and
    fp4 always clamp. A NaN writes the positive all-ones NaN code, or +0
    where the format has no NaN.
    """
    table = float_format_table(name)
    e_bits, m_bits, bias, has_inf, has_nan = FLOAT_FORMATS[name]
    width = 1 + e_bits + m_bits
    sign_bit = 1 << (width - 1)
    positive = np.arange(sign_bit)
    finite = np.isfinite(table[positive])
    codes = positive[finite]          # increasing codes, increasing values
    grid = table[codes]
    top = grid[-1]
    beyond = top + (grid[-1] - grid[-2])
    nan_codes = [c for c in positive if np.isnan(table[c])]
    nan_code = nan_codes[-1] if nan_codes else 0
    overflow_code = (int(np.nonzero(np.isposinf(table))[0][0]) if has_inf
                     else nan_code)

    v = np.asarray(values, dtype=np.float64)
    a = np.abs(v)
    low = np.clip(np.searchsorted(grid, a, side="right") - 1, 0,
                  len(grid) - 1)
    lower = grid[low]
    upper = np.where(low + 1 < len(grid),
                     grid[np.minimum(low + 1, len(grid) - 1)], beyond)
    # The midpoint of two neighbours has at most one bit more than they do:
    # exact in float64, so the comparisons below are exact.
    mid = (lower + upper) / 2
    low_code = codes[low]
    if rounding == "toward_zero":
        up = np.zeros(a.shape, bool)
    elif rounding == "half_away_from_zero":
        up = a >= mid
    else:
        up = (a > mid) | ((a == mid) & (low_code % 2 == 1))
    up &= a != lower
    # Overflow: rounded beyond the top value, from the next binade, or Inf.
    over = (up & (low == len(grid) - 1)) | (a >= beyond)
    magnitude = np.where(up, codes[np.minimum(low + 1, len(grid) - 1)],
                         low_code)
    if saturate or not (has_inf or has_nan):
        magnitude = np.where(over, codes[-1], magnitude)
    else:
        magnitude = np.where(over, overflow_code, magnitude)
    out = np.where(np.signbit(v), sign_bit, 0) | magnitude
    return np.where(np.isnan(v), nan_code, out).astype(np.int64)


def is_nan_code(codes, name):
    """True where `codes` decode to NaN (the only way to compare NaN codes:
    E4M3FN has two, E5M2 six)."""
    return np.isnan(float_format_table(name)[np.asarray(codes)])


def resolve_block(block, shape):
    """A scheme block list resolved against `shape`: right-aligned (missing
    leading entries are 1), -1 (`*`) the whole dimension, an empty or absent
    list per-tensor (every dimension whole)."""
    shape = list(shape)
    if not block:
        return shape
    block = [1] * (len(shape) - len(block)) + list(block)
    return [d if b == -1 else b for d, b in zip(shape, block)]


def scale_shape(shape, block):
    """ceil(dim / block) per dimension for a resolved `block`."""
    return [-(-d // b) for d, b in zip(shape, block)]


def expand_blocks(params, shape, block):
    """Repeats each parameter over its block (cropping ragged last blocks)."""
    result = np.asarray(params)
    for axis, (size, b) in enumerate(zip(shape, block)):
        result = np.repeat(result, b, axis=axis)
        result = np.take(result, np.arange(size), axis=axis)
    return result


def block_reduce(values, block, reduce, pad):
    """Reduces every block of `values` (a resolved `block`, ragged last blocks
    allowed) with `reduce` (np.max, np.min: NaN-propagating); the padding of
    ragged blocks is `pad`, which must not change the result."""
    values = np.asarray(values)
    sshape = scale_shape(values.shape, block)
    padded = np.full([s * b for s, b in zip(sshape, block)], pad,
                     dtype=values.dtype)
    padded[tuple(slice(0, d) for d in values.shape)] = values
    split = []
    for s, b in zip(sshape, block):
        split += [s, b]
    blocks = padded.reshape(split)
    return reduce(blocks, axis=tuple(range(1, 2 * len(sshape), 2)))


def decode_e8m0(codes):
    codes = np.asarray(codes, dtype=np.int64)
    values = np.ldexp(np.float64(1.0), codes - 127)
    return np.where(codes == 255, np.nan, values).astype(np.float32)


def encode_e8m0(values):
    """E8M0 codes of exact powers of two (2^-127..2^127); NaN -> 0xFF."""
    v = np.asarray(values, dtype=np.float64)
    mantissa, exponent = np.frexp(np.where(np.isnan(v), 1.0, v))
    assert np.all((mantissa == 0.5) | np.isnan(v)), "not a power of two"
    return np.where(np.isnan(v), 255, exponent - 1 + 127).astype(np.int64)


def round_bf16(values):
    """f32 -> the nearest bf16 (ties to even; overflow to Inf), as float32.

    Done on the bit pattern: add half an ulp of bf16 (minus one when the
    kept last bit is even) and truncate, the textbook round-to-nearest-even
    of a truncation. NaN stays a quiet NaN.
    """
    f = np.asarray(values, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    rounded = ((bits + np.uint64(0x7FFF) + ((bits >> sixteen) &
                                            np.uint64(1))) >> sixteen) \
        << sixteen
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f), np.float32(np.nan), out).astype(np.float32)


@_ieee
def convert_float(values, type_name):
    """Rounds f32 (or narrower) values once to a float type: f32 / f16 / bf16
    round to nearest even and overflow to Inf; f8E4M3FN saturates (how
    quantize_dynamic stores E4M3 block scales). f16 comes back as float16,
    the others as float32."""
    f = np.asarray(values, dtype=np.float32)
    if type_name == "f32":
        return f
    if type_name == "f16":
        with np.errstate(over="ignore"):
            return f.astype(np.float16)
    if type_name == "bf16":
        return round_bf16(f)
    if type_name in FLOAT_FORMATS:
        return decode_float(encode_float(f, type_name), type_name)
    raise ValueError(f"not a float type: {type_name}")


def float_bits(values, type_name):
    """Bit patterns (int64) of float values of `type_name`: f32, f16, bf16,
    the OCP formats (their codes) and f8E8M0FNU. The values must be exact in
    the type."""
    if type_name == "f32":
        return np.asarray(values, np.float32).view(np.uint32).astype(np.int64)
    if type_name == "f16":
        return np.asarray(values, np.float16).view(np.uint16).astype(np.int64)
    if type_name == "bf16":
        bits = np.asarray(values, np.float32).view(np.uint32)
        return (bits >> 16).astype(np.int64)
    if type_name == "f8E8M0FNU":
        return encode_e8m0(values)
    if type_name in FLOAT_FORMATS:
        return encode_float(np.asarray(values, np.float32), type_name)
    raise ValueError(f"not a float type: {type_name}")


def from_bits(bits, type_name):
    """Inverse of float_bits: values of `type_name` from bit patterns."""
    bits = np.asarray(bits, dtype=np.int64)
    if type_name == "f32":
        return bits.astype(np.uint32).view(np.float32)
    if type_name == "f16":
        return bits.astype(np.uint16).view(np.float16)
    if type_name == "bf16":
        return np.left_shift(bits.astype(np.uint32), np.uint32(16)) \
            .astype(np.uint32).view(np.float32)
    if type_name == "f8E8M0FNU":
        return decode_e8m0(bits)
    if type_name in FLOAT_FORMATS:
        return decode_float(bits, type_name)
    raise ValueError(f"not a float type: {type_name}")


def round_integral(x, rounding):
    """Rounds to an integral value. Half-away-from-zero is decided on the
    exact fraction |x| - trunc(|x|), never as floor(|x| + 0.5), whose
    addition rounds (0.49999997f + 0.5f is 1.0f)."""
    x = np.asarray(x)
    if rounding == "half_to_even":
        return np.rint(x)
    if rounding == "half_away_from_zero":
        magnitude = np.abs(x)
        whole = np.trunc(magnitude)
        with np.errstate(invalid="ignore"):
            whole = np.where(magnitude - whole >= 0.5, whole + 1, whole)
        return np.copysign(whole, x)
    return np.trunc(x)


@_ieee
def fma_f32(a, b, c):
    """fma(a, b, c) of float32 values with one rounding to float32.

    a * b is exact in float64 (24 + 24 bits). The sum with c is rounded to
    float64 with round-to-odd (TwoSum gives the exact error; an inexact sum
    with an even last bit moves one ulp toward the error), and a
    round-to-odd result of 53 >= 24 + 2 bits rounds to float32 exactly as
    the exact sum would, so no double rounding happens.
    """
    a = np.asarray(a, np.float32).astype(np.float64)
    b = np.asarray(b, np.float32).astype(np.float64)
    c = np.asarray(c, np.float32).astype(np.float64)
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    fixable = np.isfinite(s) & np.isfinite(err) & (err != 0)
    even = (s.view(np.int64) & 1) == 0
    toward = np.where(err > 0, np.inf, -np.inf)
    s = np.where(fixable & even, np.nextafter(s, toward), s)
    return s.astype(np.float32)


def storage_bits(type_name):
    """Bits of a storage or scale type name (i3 -> 3, ui16 -> 16,
    f6E2M3FN -> 6, f8E8M0FNU -> 8)."""
    return int(re.match(r"u?[if](\d+)", type_name).group(1))


def type_max(type_name):
    """Largest finite value of a float type (f32, f16, bf16, the OCP
    formats) or of an integer type."""
    if type_name in FLOAT_FORMATS:
        return max_finite(type_name)
    if type_name == "f8E8M0FNU":
        return 2.0 ** 127
    if type_name == "f32":
        return float(np.finfo(np.float32).max)
    if type_name == "f16":
        return float(np.finfo(np.float16).max)
    if type_name == "bf16":
        return float(from_bits(0x7F7F, "bf16"))
    return float(integer_range(type_name)[1])


def integer_range(storage):
    """Full [qmin, qmax] of an integer storage type name (i8, ui4, i32)."""
    width = int(storage.lstrip("ui"))
    if storage.startswith("ui"):
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def _expand_outer(values, sshape, outer_block):
    """Outer parameters (over the scale tensor) expanded to the scale
    shape."""
    ob = resolve_block(outer_block, sshape)
    return expand_blocks(np.asarray(values, np.float32), sshape, ob)


def effective_scales(scales, *, outer_scales=None, outer_block=None,
                     mx_int_bits=None):
    """s_eff per block, in f32: scale (converted exactly) times the outer
    scale of its super-block (one f32 rounding), times 2^-(N-2) for N-bit MX
    integers (their two's-complement fixed point). Integer scale types
    (K-quant ui6) are passed as their integer values."""
    s = np.asarray(scales, np.float32)
    if outer_scales is not None:
        s = (s * _expand_outer(outer_scales, s.shape, outer_block)) \
            .astype(np.float32)
    if mx_int_bits:
        s = (s * np.float32(2.0 ** (2 - mx_int_bits))).astype(np.float32)
    return s


def effective_mins(zero_points, *, outer_mins, outer_block=None):
    """m_eff per block with an outer min, in f32: zero point (integer or
    float, converted exactly) times the outer min of its super-block."""
    m = np.asarray(zero_points).astype(np.float32)
    return (m * _expand_outer(outer_mins, m.shape, outer_block)) \
        .astype(np.float32)


def _to_expressed(x, expressed):
    """Rounds f32 results once to the expressed type (overflow to Inf)."""
    return convert_float(x, expressed)


@_ieee
def dequantize(codes, scales, zero_points, *, shape, block, storage,
               expressed="f32", zero_point_domain="none", mx_int_bits=None,
               outer_scales=None, outer_block=None, outer_mins=None):
    """x per docs/Numerics.md, computed in f32 then rounded to `expressed`.

    With `outer_scales` the scale is s_eff (effective_scales); with
    `outer_mins` the zero points are float-domain mins scaled by them
    (m_eff), whatever their type (the K-quant ui6 mins).
    """
    block = resolve_block(block, shape)
    s = expand_blocks(effective_scales(scales, outer_scales=outer_scales,
                                       outer_block=outer_block,
                                       mx_int_bits=mx_int_bits), shape, block)
    if storage in FLOAT_FORMATS:
        x = (decode_float(codes, storage) * s).astype(np.float32)
    else:
        q = np.asarray(codes, np.int64)
        if outer_mins is not None:
            zero_point_domain = "float"
            zero_points = effective_mins(zero_points, outer_mins=outer_mins,
                                         outer_block=outer_block)
        if zero_point_domain == "int":
            zp = expand_blocks(np.asarray(zero_points, np.int64), shape, block)
            x = ((q - zp).astype(np.float32) * s).astype(np.float32)
        elif zero_point_domain == "float":
            m = expand_blocks(np.asarray(zero_points, np.float32), shape,
                              block)
            # One fused multiply-add of f32(q): exact product, one rounding.
            x = fma_f32(q.astype(np.float32), s, m)
        else:
            x = (q.astype(np.float32) * s).astype(np.float32)
    return _to_expressed(x, expressed)


@_ieee
def quantize(x, scales, zero_points, *, shape, block, storage, qmin=None,
             qmax=None, rounding="half_to_even", saturate=True,
             zero_point_domain="none", storage_bits=8, mx_int_bits=None,
             outer_scales=None, outer_block=None, outer_mins=None):
    """Storage codes per docs/Numerics.md (true division in f32, or f64 for
    32-bit storage; NaN -> the zero point).

    MX integers (`mx_int_bits`) divide by 2^e * 2^-(N-2) and clamp
    symmetrically (the most negative code is never produced). With
    `outer_scales` / `outer_mins` the effective parameters replace the
    block's (see dequantize).
    """
    block = resolve_block(block, shape)
    compute = np.float64 if storage_bits >= 32 else np.float32
    s32 = expand_blocks(effective_scales(scales, outer_scales=outer_scales,
                                         outer_block=outer_block,
                                         mx_int_bits=mx_int_bits),
                        shape, block)
    if storage in FLOAT_FORMATS:
        y = np.asarray(x).astype(np.float32) / s32
        return encode_float(y.astype(np.float32), storage, rounding, saturate)
    if mx_int_bits:
        qmin = max(qmin, -qmax)
    xs = np.asarray(x).astype(np.float32).astype(compute)
    s = s32.astype(compute)
    if outer_mins is not None:
        zero_point_domain = "float"
        zero_points = effective_mins(zero_points, outer_mins=outer_mins,
                                     outer_block=outer_block)
    if zero_point_domain == "float":
        m = expand_blocks(np.asarray(zero_points, np.float32), shape, block)
        xs = (xs - m.astype(compute)).astype(compute)
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


# Schemes ---------------------------------------------------------------------


@dataclass(frozen=True)
class Scheme:
    """The fields of a `#quant_block.scheme` (names as the syntax spells
    them; `block` uses -1 for `*`, an empty tuple for per-tensor)."""
    storage: str
    expressed: str = "f32"
    block: Tuple[int, ...] = ()
    scale: str = "f32"
    zero_point: Optional[str] = None
    range: Optional[Tuple[int, int]] = None
    rounding: str = "half_to_even"
    saturate: bool = True
    scale_rounding: str = "floor"
    outer: Optional[str] = None
    outer_block: Tuple[int, ...] = ()
    outer_min: Optional[str] = None
    # The row-tiled layout of the lowered parts (docs/Packing.md; 0:
    # row-major). It changes no value, only how the parts are stored
    # (tile_rows).
    row_tile: int = 0

    @property
    def integer_storage(self):
        return self.storage not in FLOAT_FORMATS

    @property
    def storage_bits(self):
        return storage_bits(self.storage)

    @property
    def mx(self):
        return self.scale == "f8E8M0FNU"

    @property
    def mx_int_bits(self):
        """N for MX integers (E8M0 scales, integer storage), else None."""
        return self.storage_bits if self.mx and self.integer_storage else None

    @property
    def zero_point_domain(self):
        """none, int or float; zero points under an outer min are float-domain
        mins whatever their type (the scheme attribute says so too)."""
        if self.zero_point is None:
            return "none"
        if self.outer_min is not None or self.zero_point in EXPRESSED_TYPES:
            return "float"
        return "int"

    @property
    def qrange(self):
        """[qmin, qmax] of integer storage (the `range` field or the full
        storage range)."""
        return self.range if self.range else integer_range(self.storage)

    def block_for(self, shape):
        return resolve_block(self.block, shape)

    def scale_shape(self, shape):
        return scale_shape(shape, self.block_for(shape))

    def outer_shape(self, shape):
        sshape = self.scale_shape(shape)
        return scale_shape(sshape, resolve_block(self.outer_block, sshape))


class Params(NamedTuple):
    """A quantized tensor's parameters as values: scales (float32; integer
    scale types as their integers), zero points (int64 or float values),
    outer scales and outer mins (float32), each at its contracted shape."""
    scales: np.ndarray
    zero_points: Optional[np.ndarray] = None
    outer_scales: Optional[np.ndarray] = None
    outer_mins: Optional[np.ndarray] = None


def _scheme_kwargs(scheme, shape, params):
    return dict(shape=list(shape), block=scheme.block_for(shape),
                storage=scheme.storage,
                zero_point_domain=scheme.zero_point_domain,
                mx_int_bits=scheme.mx_int_bits,
                outer_scales=params.outer_scales,
                outer_block=scheme.outer_block,
                outer_mins=params.outer_mins)


def quantize_scheme(x, scheme, params):
    """quant_block.quantize of `x` (values of the expressed type) with the
    given parameters."""
    x = np.asarray(x)
    kwargs = _scheme_kwargs(scheme, x.shape, params)
    if scheme.integer_storage:
        qmin, qmax = scheme.qrange
        return quantize(x, params.scales, params.zero_points, qmin=qmin,
                        qmax=qmax, rounding=scheme.rounding,
                        storage_bits=scheme.storage_bits, **kwargs)
    return quantize(x, params.scales, None, rounding=scheme.rounding,
                    saturate=scheme.saturate, **kwargs)


def dequantize_scheme(codes, scheme, params):
    """quant_block.dequantize: values of the expressed type."""
    codes = np.asarray(codes)
    return dequantize(codes, params.scales, params.zero_points,
                      expressed=scheme.expressed,
                      **_scheme_kwargs(scheme, codes.shape, params))


# MX shared exponents ---------------------------------------------------------


def mx_element_facts(storage):
    """(emax, largest magnitude) of an MX element type: the OCP float's, or
    (0, (2^(N-1) - 1) / 2^(N-2)) for N-bit MX integers (MXINT8: 127/64)."""
    if storage in FLOAT_FORMATS:
        value = max_finite(storage)
        return int(np.floor(np.log2(value))), value
    width = int(storage.lstrip("i"))
    return 0, ((1 << (width - 1)) - 1) / 2.0 ** (width - 2)


def mx_shared_exponent(max_abs, storage, scale_rounding="floor"):
    """The shared exponent of blocks with largest magnitudes `max_abs`
    (float64-exact values), or NaN where it is NaN or Inf.

    floor: floor(log2(a)) - emax (frexp: exact). ceil: the smallest e with
    a / 2^e <= max_normal. half_to_even: the ideal scale a / max_normal
    rounded to a power of two in the linear domain, a mantissa of exactly
    1.5 being a tie broken toward the even exponent. Both are decided by
    comparing a with exact multiples max_normal * 2^k (never with a rounded
    quotient). Clamped to [-127, 127]; a == 0 gives -127.
    """
    emax, max_normal = mx_element_facts(storage)
    a = np.asarray(max_abs, dtype=np.float64)
    out = np.full(a.shape, np.nan)
    for index, value in np.ndenumerate(a):
        if not np.isfinite(value):
            continue
        if value == 0:
            out[index] = -127
            continue
        floor_log2 = int(np.frexp(value)[1]) - 1
        if scale_rounding == "floor":
            e = floor_log2 - emax
        else:
            # lo: 2^lo * max_normal <= a < 2^(lo + 1) * max_normal.
            lo = floor_log2 - emax - 1
            while np.ldexp(max_normal, lo + 1) <= value:
                lo += 1
            if scale_rounding == "ceil":
                e = lo if np.ldexp(max_normal, lo) == value else lo + 1
            else:
                tie = np.ldexp(1.5 * max_normal, lo)
                if value != tie:
                    e = lo if value < tie else lo + 1
                else:
                    e = lo if lo % 2 == 0 else lo + 1
        out[index] = min(max(e, -127), 127)
    return out


# quantize_dynamic ------------------------------------------------------------


def _ieee_min(blocks, axis):
    """np.min with IEEE 754-2019 minimum semantics: NaN propagates (np.min
    does) and -0.0 is below +0.0 (np.min does not say)."""
    low = np.min(blocks, axis=axis)
    negative_zero = np.any((blocks == 0) & np.signbit(blocks), axis=axis)
    return np.where((low == 0) & negative_zero, np.float32(-0.0), low)


def _store_scale(values, scale_type):
    """Rounds f32 scales to the scale type (f8E4M3FN: nearest even,
    saturating), as values (float32, or float16 for f16)."""
    return convert_float(values, scale_type)


@_ieee
def quantize_dynamic(x, method, scheme):
    """quant_block.quantize_dynamic: (codes, Params) with the parameters as
    stored in the scheme's types (docs/Numerics.md, "Dynamic quantization").

    All statistics are f32 (f16 / bf16 inputs are exact in it) and every
    division is one f32 division, the parameters rounded once to their
    types. The block maxima and minima propagate NaN (IEEE maximum /
    minimum), so a block holding NaN gets a NaN scale; -0.0 counts as below
    +0.0.

    * absmax: s = max|x_b| / qmax (integer storage, the scheme's range) or
      / max_finite (float storage); a zero quotient (an all-zero block)
      becomes 1. With a per-tensor outer scale (NVFP4): outer = max|x| /
      (max_storage * max_scale_type) over the tensor (1 where that is 0),
      stored in the outer type; block scales are (max|x_b| / max_storage) /
      outer before the zero test and the rounding to the scale type.
    * minmax: lo = min(min x_b, 0), hi = max(max x_b, 0); s = (hi - lo) /
      (qmax - qmin), 0 -> 1, rounded to the scale type; an int zero point is
      clamp(round_half_to_even(qmin - lo / s)) with the stored s (as ONNX
      DynamicQuantizeLinear and torch's choose_qparams round it, whatever
      the element rounding), a float zero point is lo in its type.
    * mx: the shared exponent (scheme.scale_rounding); scale 2^e, NaN for a
      block holding NaN or Inf.
    """
    x = np.asarray(x)
    xf = x.astype(np.float32)
    shape = list(x.shape)
    block = scheme.block_for(shape)
    zero_points = outer_scales = None
    if method == "mx":
        amax = block_reduce(np.abs(xf), block, np.max, 0)
        e = mx_shared_exponent(amax, scheme.storage, scheme.scale_rounding)
        scales = np.where(np.isnan(e), np.nan,
                          np.ldexp(1.0, np.nan_to_num(e).astype(np.int64)))
        scales = scales.astype(np.float32)
    elif method == "absmax":
        if scheme.integer_storage:
            storage_max = float(scheme.qrange[1])
        else:
            storage_max = max_finite(scheme.storage)
        amax = block_reduce(np.abs(xf), block, np.max, 0)
        s = (amax / np.float32(storage_max)).astype(np.float32)
        if scheme.outer is not None:
            assert not scheme.outer_block, "a blocked outer is not derived"
            # The divisor is an f32 constant of the f32 computation: exact
            # for NVFP4 (6 * 448), Inf for f32 or bf16 block scales.
            with np.errstate(over="ignore"):
                divisor = np.float32(storage_max * type_max(scheme.scale))
            outer = (np.max(amax) / divisor).astype(np.float32)
            outer = np.float32(1) if outer == 0 else outer
            outer = np.asarray(convert_float(outer, scheme.outer))
            outer_scales = np.full(scheme.outer_shape(shape),
                                   outer.astype(np.float32))
            s = (s / outer.astype(np.float32)).astype(np.float32)
        s = np.where(s == 0, np.float32(1), s).astype(np.float32)
        scales = _store_scale(s, scheme.scale).astype(np.float32)
    elif method == "minmax":
        qmin, qmax = scheme.qrange
        # IEEE minimum(low, +0) / maximum(high, +0): NaN stays, -0.0 is the
        # smaller zero.
        low = block_reduce(xf, block, _ieee_min, np.inf)
        high = block_reduce(xf, block, np.max, -np.inf)
        keep = (low < 0) | np.isnan(low) | ((low == 0) & np.signbit(low))
        lo = np.where(keep, low, np.float32(0)).astype(np.float32)
        hi = np.where((high > 0) | np.isnan(high), high,
                      np.float32(0)).astype(np.float32)
        s = ((hi - lo).astype(np.float32) /
             np.float32(qmax - qmin)).astype(np.float32)
        s = np.where(s == 0, np.float32(1), s).astype(np.float32)
        scales = _store_scale(s, scheme.scale).astype(np.float32)
        if scheme.zero_point_domain == "float":
            zero_points = convert_float(lo.astype(np.float32),
                                        scheme.zero_point)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                shifted = (np.float32(qmin) -
                           (lo / scales).astype(np.float32)) \
                    .astype(np.float32)
            zero_points = np.clip(np.rint(shifted), qmin, qmax) \
                .astype(np.int64)
    else:
        raise ValueError(f"unknown method {method}")
    params = Params(np.asarray(scales, np.float32), zero_points,
                    outer_scales)
    return quantize_scheme(x, scheme, params), params


# quant_block.matmul ----------------------------------------------------------


def _accumulator(values, acc):
    return {"f32": lambda v: np.asarray(v, np.float32),
            "f16": lambda v: np.asarray(v, np.float32).astype(np.float16),
            "bf16": round_bf16}[acc](values)


@_ieee
def matmul_float(lhs, weight, *, transpose_rhs=False, accumulate="f32",
                 expressed="f32"):
    """Float-accumulating quant_block.matmul of `lhs` [..., M, K] and the
    dequantized weight ([K, N], [N, K] with transpose_rhs, or with the lhs's
    batch dimensions), both values of the expressed type.

    Both sides are extended to the accumulator; `sum = sum + lhs * w` runs
    over k in increasing order from +0.0, each product and each sum rounded
    to the accumulator (f16 / bf16 products and sums are exact in f32 before
    their one rounding, up to a double rounding that 24 >= 2p + 2 bits makes
    harmless); the sum is rounded once to the expressed type.
    """
    lhs = np.asarray(lhs).astype(np.float32)
    w = np.asarray(weight).astype(np.float32)
    if transpose_rhs:
        w = np.swapaxes(w, -1, -2)
    k_size = lhs.shape[-1]
    out_shape = np.broadcast_shapes(lhs.shape[:-2], w.shape[:-2]) + \
        (lhs.shape[-2], w.shape[-1])
    total = _accumulator(np.zeros(out_shape, np.float32), accumulate)
    for k in range(k_size):
        product = _accumulator(lhs[..., :, k:k + 1] * w[..., k:k + 1, :],
                               accumulate)
        total = _accumulator(np.asarray(total, np.float32) +
                             np.asarray(product, np.float32), accumulate)
    return _to_expressed(np.asarray(total, np.float32), expressed)


@_ieee
def matmul_integer(lhs_codes, lhs_scheme, lhs_params, rhs_codes, rhs_scheme,
                   rhs_params, *, transpose_rhs=False):
    """i32-accumulating quant_block.matmul (llama.cpp style): per K-block
    `isum = sum (ql - zl) * (qr - zr)` exactly (int64 here, i32 in the
    contract: at most B * 255 * 255 per block); then over the blocks in
    increasing order from +0.0, in f32, `acc += f32(isum) * (f32(sl) *
    f32(sr))`; rounded once to the expressed type. Both sides need the same
    block size B along K (ragged last block allowed here). FP4 E2M1 weight
    codes (MXFP4, NVFP4) enter as twice their values, and each block sum is
    halved (exactly) before its scale product. A weight with mins (float
    zero points, or integer ones under an outer min: m_eff) keeps its codes
    uncentered, and each block then adds a second term after the first:
    `acc += f32(asum) * (f32(sl) * m)`, `asum = sum (ql - zl)` exactly."""
    lq = np.asarray(lhs_codes, np.int64)
    twice = rhs_scheme.storage == "f4E2M1FN"
    if twice:
        rq = (2 * decode_float(rhs_codes, "f4E2M1FN")).astype(np.int64)
    else:
        rq = np.asarray(rhs_codes, np.int64)
    lshape, rshape = list(lq.shape), list(rq.shape)
    lblock = lhs_scheme.block_for(lshape)
    rblock = rhs_scheme.block_for(rshape)
    # Parameters at every element; then K-blocks are read at their first k.
    ls = expand_blocks(np.asarray(lhs_params.scales, np.float32), lshape,
                       lblock)
    # The weight's effective scales: times a per-tensor outer scale, rounded
    # once (NVFP4), as dequantize computes them.
    rs = expand_blocks(effective_scales(rhs_params.scales,
                                        outer_scales=rhs_params.outer_scales,
                                        outer_block=rhs_scheme.outer_block),
                       rshape, rblock)
    lz = (expand_blocks(np.asarray(lhs_params.zero_points, np.int64), lshape,
                        lblock) if lhs_scheme.zero_point else 0)
    mins = rhs_scheme.zero_point_domain == "float"
    rm = None
    if mins:
        raw = rhs_params.zero_points
        rm = expand_blocks(
            effective_mins(raw, outer_mins=rhs_params.outer_mins,
                           outer_block=rhs_scheme.outer_block)
            if rhs_scheme.outer_min else np.asarray(raw, np.float32),
            rshape, rblock)
    rz = (expand_blocks(np.asarray(rhs_params.zero_points, np.int64), rshape,
                        rblock) if rhs_scheme.zero_point and not mins else 0)
    lc, rc = lq - lz, rq - rz
    if transpose_rhs:
        rc, rs = np.swapaxes(rc, -1, -2), np.swapaxes(rs, -1, -2)
        if mins:
            rm = np.swapaxes(rm, -1, -2)
        k_block = rblock[-1]
    else:
        k_block = rblock[-2]
    assert lblock[-1] == k_block or (lblock[-1] >= lshape[-1] and
                                     k_block >= lshape[-1]), \
        "both sides need the same block size along K"
    k_size = lshape[-1]
    out_shape = np.broadcast_shapes(lc.shape[:-2], rc.shape[:-2]) + \
        (lshape[-2], rc.shape[-1])
    total = np.zeros(out_shape, np.float32)
    for k0 in range(0, k_size, k_block):
        k1 = min(k0 + k_block, k_size)
        isum = np.matmul(lc[..., :, k0:k1], rc[..., k0:k1, :])
        scale = (ls[..., :, k0:k0 + 1] * rs[..., k0:k0 + 1, :]) \
            .astype(np.float32)
        isum = isum.astype(np.float32)
        if twice:
            isum = (isum * np.float32(0.5)).astype(np.float32)
        term = (isum * scale).astype(np.float32)
        total = (total + term).astype(np.float32)
        if mins:
            asum = lc[..., :, k0:k1].sum(axis=-1, keepdims=True) \
                .astype(np.float32)
            min_scale = (ls[..., :, k0:k0 + 1] * rm[..., k0:k0 + 1, :]) \
                .astype(np.float32)
            total = (total + (asum * min_scale).astype(np.float32)) \
                .astype(np.float32)
    return _to_expressed(total, rhs_scheme.expressed)


# --- The row-tiled layout of lowered parts (docs/Packing.md) ---------------

def tile_rows(part, row_tile, *, data):
    """A lowered part of an [N, K] weight in the row-tiled layout
    (`row_tile = R`): the data bytes [N, 4 W] as [N / R, W, R, 4] (word d of
    the tile's R rows in row order, then word d + 1), the scales or zero
    points [N, K / B] as [N / R, K / B, R]. Only the layout changes."""
    part = np.asarray(part)
    n, width = part.shape
    if n % row_tile:
        raise ValueError(f"row_tile {row_tile} does not divide {n} rows")
    if data:
        if width % 4:
            raise ValueError(f"{width} bytes per row are not whole words")
        return np.ascontiguousarray(
            part.reshape(n // row_tile, row_tile, width // 4, 4)
            .transpose(0, 2, 1, 3))
    return np.ascontiguousarray(
        part.reshape(n // row_tile, row_tile, width).transpose(0, 2, 1))


def untile_rows(part, *, data):
    """The row-major [N, X] part of a row-tiled one (`tile_rows` undone)."""
    part = np.asarray(part)
    if data:
        tiles, words, row_tile, _ = part.shape
        return np.ascontiguousarray(
            part.transpose(0, 2, 1, 3).reshape(tiles * row_tile, words * 4))
    tiles, blocks, row_tile = part.shape
    return np.ascontiguousarray(
        part.transpose(0, 2, 1).reshape(tiles * row_tile, blocks))
