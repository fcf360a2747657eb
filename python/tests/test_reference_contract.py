"""The numpy reference against values derived by hand from
docs/Numerics.md: MX scales and MX integers, outer scales and outer mins
(NVFP4, K-quants), the fused multiply-add, rounding at the edges,
quantize_dynamic, shared exponents and quant_block.matmul.

Each expected value is worked out in the comment above it, independently of
the reference's code, so that a test fails when the reference strays from
the contract.
"""

import numpy as np
import pytest

from quant_block import reference as ref
from quant_block.reference import Params, Scheme

F32 = np.float32


def bits(values):
    return np.asarray(values, F32).view(np.uint32).tolist()


# Rounding and the narrow float codecs ----------------------------------------


def test_half_away_from_zero_is_exact():
    # 0.49999997f is below one half: floor(x + 0.5) would give 1 because
    # 0.49999997f + 0.5f rounds to 1.0f. 2^23 + 1 is an integer already
    # (x + 0.5 would round to 2^23 + 2).
    x = np.array([0.49999997, 0.5, 2.5, -2.5, -0.5, 8388609.0, 1.5], F32)
    assert x[0] < 0.5
    got = ref.round_integral(x, "half_away_from_zero")
    assert got.tolist() == [0, 1, 3, -3, -1, 8388609, 2]
    assert ref.round_integral(x, "half_to_even").tolist() == \
        [0, 0, 2, -2, -0.0, 8388609, 2]
    assert ref.round_integral(x, "toward_zero").tolist() == \
        [0, 0, 2, -2, 0, 8388609, 1]


def test_encode_overflow_follows_the_rounding_mode():
    # E4M3FN: the largest normal is 448 (code 0x7E), the next value of its
    # binade would be 480, so 464 is the midpoint. Half-to-even keeps 448
    # there (0x7E is even) and rounds 479 up to NaN; half-away-from-zero
    # rounds the midpoint up too; toward zero keeps everything below 480;
    # 480 itself and -500 (NaN with the sign bit) overflow in every mode.
    x = np.array([464.0, 479.0, 480.0, -500.0], F32)
    assert ref.encode_float(x, "f8E4M3FN", "half_to_even",
                            False).tolist() == [0x7E, 0x7F, 0x7F, 0xFF]
    assert ref.encode_float(x, "f8E4M3FN", "half_away_from_zero",
                            False).tolist() == [0x7F, 0x7F, 0x7F, 0xFF]
    assert ref.encode_float(x, "f8E4M3FN", "toward_zero",
                            False).tolist() == [0x7E, 0x7E, 0x7F, 0xFF]
    # E5M2: max 57344 = 1.75 * 2^15 (code 0x7B, odd), next 65536. The tie
    # 61440 goes to the even neighbour, i.e. up, to Inf (0x7C); toward zero
    # keeps 65000 at 57344, but 65536 starts the next binade: Inf.
    y = np.array([61440.0, 65000.0, 65536.0, -np.inf], F32)
    assert ref.encode_float(y, "f8E5M2", "half_to_even",
                            False).tolist() == [0x7C, 0x7C, 0x7C, 0xFC]
    assert ref.encode_float(y, "f8E5M2", "toward_zero",
                            False).tolist() == [0x7B, 0x7B, 0x7C, 0xFC]
    # Saturation clamps all of them to +-max.
    assert ref.encode_float(y, "f8E5M2", "toward_zero",
                            True).tolist() == [0x7B, 0x7B, 0x7B, 0xFB]


def test_bf16_rounding():
    # 1 + 2^-8 is half a bf16 ulp above 1.0: a tie, to even (1.0); 1 + 3 *
    # 2^-8 ties between 1 + 2^-7 (odd mantissa 1) and 1 + 2^-6 (even).
    x = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20,
                  3.4e38], F32)
    got = ref.round_bf16(x)
    assert got[:3].tolist() == [1.0, 1 + 2 ** -6, 1 + 2 ** -7]
    assert np.isinf(got[3])
    assert ref.float_bits(got[:1], "bf16").tolist() == [0x3F80]


def test_fma_rounds_once():
    # Float zero point: x = fma(q, s, m). With q = 3, s = 1 + 2^-23 and
    # m = -3 the exact value 3 * 2^-23 is representable. A separate
    # multiply first rounds 3 + 3 * 2^-23 (1.5 ulps of 2^-22 above 3) to
    # 3 + 2^-21 and would give 2^-21.
    s = np.array([[1 + 2 ** -23]], F32)
    x = ref.dequantize(np.array([[3]]), s, np.array([[-3.0]], F32),
                       shape=[1, 1], block=[1, 1], storage="ui4",
                       zero_point_domain="float")
    assert x.tolist() == [[3 * 2 ** -23]]
    assert ref.fma_f32(F32(3), s[0, 0], F32(-3)) == F32(3 * 2 ** -23)


def test_32bit_storage_divides_in_f64():
    # 2^24 / (1 - 2^-24) = 2^24 + 1 + 2^-24 + ...: in f64 that is
    # 16777217.00000006, which rounds to 16777217; an f32 division would
    # first round the quotient to 16777218 (its ulp is 2 there, and the
    # quotient is just above the midpoint).
    x = np.array([[2.0 ** 24]], F32)
    s = np.array([[1 - 2.0 ** -24]], F32)
    kwargs = dict(shape=[1, 1], block=[1, 1], storage="i32",
                  qmin=-2 ** 31, qmax=2 ** 31 - 1)
    assert ref.quantize(x, s, None, storage_bits=32,
                        **kwargs).tolist() == [[16777217]]
    assert ref.quantize(x, s, None, storage_bits=8,
                        **kwargs).tolist() == [[16777218]]


# MX with explicit scales -----------------------------------------------------


def test_mxfp4_with_e8m0_scale():
    # Scale code 128 = 2. x / 2 on the E2M1 grid {0, .5, 1, 1.5, 2, 3, 4, 6}:
    # 1 -> .5, 2.5 -> 1.25 ties to 1 (code 2, even), 3 -> 1.5, 5 -> 2.5
    # ties to 2 (code 4), 7 -> 3.5 ties to 4 (code 6), 13 -> 6.5 saturates
    # to 6, -14 -> -6 (code 0xF), NaN -> +0 (FP4 has no NaN).
    scheme = Scheme("f4E2M1FN", block=(32,), scale="f8E8M0FNU")
    x = np.zeros((1, 32), F32)
    x[0, :9] = [0, 1, 2.5, 3, 5, 7, 13, -14, np.nan]
    params = Params(ref.decode_e8m0([[128]]))
    codes = ref.quantize_scheme(x, scheme, params)
    assert codes[0, :9].tolist() == [0, 1, 2, 3, 4, 6, 7, 0xF, 0]
    y = ref.dequantize_scheme(codes, scheme, params)
    assert y[0, :9].tolist() == [0, 1, 2, 3, 4, 8, 12, -12, 0]


def test_mxint8_fixed_point_and_symmetric_clamp():
    # MXINT8 element k / 64: with scale 2^0 the step is 2^-6. 1.0 -> 64;
    # -2.0 -> -128, clamped symmetrically to -127 (-1.984375); 32.5 / 64
    # ties to 32 (even) or 33 (away); 3.0 -> 192 clamps to 127.
    scheme = Scheme("i8", block=(32,), scale="f8E8M0FNU")
    x = np.zeros((1, 32), F32)
    x[0, :4] = [1.0, -2.0, 32.5 / 64, 3.0]
    params = Params(ref.decode_e8m0([[127]]))
    codes = ref.quantize_scheme(x, scheme, params)
    assert codes[0, :4].tolist() == [64, -127, 32, 127]
    away = Scheme("i8", block=(32,), scale="f8E8M0FNU",
                  rounding="half_away_from_zero")
    assert ref.quantize_scheme(x, away, params)[0, 2] == 33
    y = ref.dequantize_scheme(codes, scheme, params)
    assert y[0, :4].tolist() == [1.0, -1.984375, 0.5, 1.984375]
    # A NaN scale (code 0xFF) dequantizes to NaN.
    nan = Params(ref.decode_e8m0([[255]]))
    assert np.isnan(ref.dequantize_scheme(codes, scheme, nan)).all()


def test_mx_shared_exponents():
    # E4M3: emax 8, max 448. a = 1000: floor(log2 1000) - 8 = 1; ceil: 1000
    # / 2 = 500 > 448, 1000 / 4 = 250 -> 2; half_to_even: 1000 / 448 = 2.23
    # lies in [2, 4) below the tie 1.5 * 2 = 3 -> 1.
    # a = 1344 = 448 * 3: exactly the tie 1.5 * 2^1 -> the even exponent 2.
    # a = 672 = 448 * 1.5: the tie 1.5 * 2^0 -> 0; ceil: 672 > 448 -> 1.
    # a = 448: floor 0, ceil 0 (448 <= 448), half_to_even 0.
    a = [1000.0, 1344.0, 672.0, 448.0, 0.0, np.nan, np.inf, 2.0 ** -140]
    floor = ref.mx_shared_exponent(a, "f8E4M3FN", "floor")
    ceil = ref.mx_shared_exponent(a, "f8E4M3FN", "ceil")
    even = ref.mx_shared_exponent(a, "f8E4M3FN", "half_to_even")
    assert floor[:5].tolist() == [1, 2, 1, 0, -127]
    assert ceil[:5].tolist() == [2, 2, 1, 0, -127]
    assert even[:5].tolist() == [1, 2, 0, 0, -127]
    for e in (floor, ceil, even):
        assert np.isnan(e[5]) and np.isnan(e[6]) and e[7] == -127
    # MXINT8: emax 0, max 127 / 64. 2.0 > 1.984375 needs e = 1 under ceil;
    # 2^128 (just above f32's max) gives 128 and clamps to 127.
    assert ref.mx_shared_exponent([1.0, 2.0, 2.0 ** 128], "i8",
                                  "ceil").tolist() == [0, 1, 127]
    assert ref.mx_shared_exponent([1.0, 2.0, 2.0 ** 127], "i8",
                                  "floor").tolist() == [0, 1, 127]


# Outer scales and outer mins -------------------------------------------------


def test_nvfp4_explicit_outer_scale():
    # s_eff = scale * outer: 0.5 * 2 = 1 and 1.5 * 2 = 3. Block 0: 6 -> 6
    # (code 7), 0.75 ties between 0.5 and 1 -> 1 (code 2, even). Block 1:
    # 9 / 3 = 3 (code 5), 4.5 / 3 = 1.5 (code 3).
    scheme = Scheme("f4E2M1FN", block=(16,), scale="f8E4M3FN", outer="f32")
    x = np.zeros((1, 32), F32)
    x[0, [0, 1, 16, 17]] = [6, 0.75, 9, 4.5]
    params = Params(np.array([[0.5, 1.5]], F32),
                    outer_scales=np.array([[2.0]], F32))
    codes = ref.quantize_scheme(x, scheme, params)
    assert codes[0, [0, 1, 16, 17]].tolist() == [7, 2, 5, 3]
    y = ref.dequantize_scheme(codes, scheme, params)
    assert y[0, [0, 1, 16, 17]].tolist() == [6, 1, 9, 4.5]


def test_k_quant_super_blocks():
    # Q4_K-like: ui4 codes in blocks of 32, ui6 scales and mins, f16 outer
    # scale d and outer min (ggml's dmin negated) per 8 blocks. Scales
    # [2, 3], mins [4, 1], d = 0.5, -dmin = -0.25: s_eff = [1, 1.5], m_eff =
    # [-1, -0.25], x = fma(q, s_eff, m_eff).
    scheme = Scheme("ui4", block=(32,), scale="ui6", zero_point="ui6",
                    outer="f16", outer_block=(8,), outer_min="f16")
    assert scheme.zero_point_domain == "float"
    assert scheme.outer_shape([1, 64]) == [1, 1]
    params = Params(np.array([[2, 3]], F32), np.array([[4, 1]]),
                    np.array([[0.5]], F32), np.array([[-0.25]], F32))
    codes = np.zeros((1, 64), np.int64)
    codes[0, [0, 1, 32, 33]] = [3, 0, 15, 1]
    y = ref.dequantize_scheme(codes, scheme, params)
    # 3 * 1 - 1 = 2, 0 - 1 = -1, 15 * 1.5 - 0.25 = 22.25, 1.5 - 0.25.
    assert y[0, [0, 1, 32, 33]].tolist() == [2, -1, 22.25, 1.25]
    # Quantize: (2 + 1) / 1 = 3; (2.5 + 1) = 3.5 ties to 4; (-5 + 1) clamps
    # to 0; (1.25 + 0.25) / 1.5 = 1; 100 clamps to 15.
    x = np.zeros((1, 64), F32)
    x[0, [0, 1, 2, 32, 33]] = [2, 2.5, -5, 1.25, 100]
    q = ref.quantize_scheme(x, scheme, params)
    assert q[0, [0, 1, 2, 32, 33]].tolist() == [3, 4, 0, 1, 15]


def test_blocked_outer_scale_with_int_zero_points():
    # Without an outer min the int zero point stays an int zero point:
    # x = (q - zp) * s_eff. Blocks of 2, scales [1, 2, 3, 4] (ui4), outer
    # [0.5, 0.25] per 2 blocks: s_eff = [0.5, 1, 0.75, 1].
    scheme = Scheme("i8", block=(2,), scale="ui4", zero_point="i8",
                    outer="f32", outer_block=(2,))
    assert scheme.zero_point_domain == "int"
    params = Params(np.array([1, 2, 3, 4], F32), np.array([1, 0, -1, 2]),
                    np.array([0.5, 0.25], F32))
    codes = np.array([3, 1, 2, 0, 1, 3, 2, 2])
    y = ref.dequantize_scheme(codes, scheme, params)
    assert y.tolist() == [1.0, 0.0, 2.0, 0.0, 1.5, 3.0, 0.0, 0.0]


# quantize_dynamic ------------------------------------------------------------


def test_absmax_integer():
    # Block [127, -63.5, 0.5, 0]: s = 127 / 127 = 1; -63.5 ties to -64, 0.5
    # to 0 (half to even). The all-zero block gets s = 1; the NaN block a
    # NaN scale, codes 0 (the zero point) and NaN values.
    scheme = Scheme("i8", block=(1, 4))
    x = np.array([[127, -63.5, 0.5, 0], [0, 0, 0, 0],
                  [np.nan, 1, 2, 3]], F32)
    codes, params = ref.quantize_dynamic(x, "absmax", scheme)
    assert params.scales[:2].tolist() == [[1.0], [1.0]]
    assert np.isnan(params.scales[2, 0])
    assert codes.tolist() == [[127, -64, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    y = ref.dequantize_scheme(codes, scheme, params)
    assert np.isnan(y[2]).all()
    # Narrow range [-7, 7]: s = 7 / 7 = 1; 3.5 -> 4, -1.75 -> -2.
    narrow = Scheme("i4", range=(-7, 7))
    codes, params = ref.quantize_dynamic(np.array([7, 3.5, -1.75, 0], F32),
                                         "absmax", narrow)
    assert params.scales.tolist() == [1.0]
    assert codes.tolist() == [7, 4, -2, 0]


def test_absmax_scale_types():
    # f16 scale: 1 / 127 = 2^-7 * 1.00787..., 10 mantissa bits: 1032 / 1024
    # * 2^-7 = 0.00787353515625; 1 / that = 127.006 -> 127.
    codes, params = ref.quantize_dynamic(np.array([1.0], F32), "absmax",
                                         Scheme("i8", scale="f16"))
    assert params.scales.tolist() == [0.00787353515625]
    assert codes.tolist() == [127]
    # Float storage: max 896 / 448 = 2; 896 -> 448 (0x7E), 3 -> 1.5 (0x3C),
    # 1 -> 0.5 (0x30).
    codes, params = ref.quantize_dynamic(np.array([896, 3, 1, 0], F32),
                                         "absmax", Scheme("f8E4M3FN"))
    assert params.scales.tolist() == [2.0]
    assert codes.tolist() == [0x7E, 0x3C, 0x30, 0]


def test_minmax():
    # quantize-dynamic.mlir's blocks: [1, 2, 3, 4] widens to [0, 4], s =
    # 4 / 15 (0.26666668f), zp 0, codes 3.75 -> 4, 7.4999996 -> 7, 11, 15.
    # [-1, 0, 0.5, 1]: s = 2 / 15, zp = round(1 / 0.13333334f) =
    # round(7.4999996) = 7; -1 -> -7 + 7 = 0.
    scheme = Scheme("ui4", block=(4,), zero_point="ui4")
    x = np.array([1, 2, 3, 4, -1, 0, 0.5, 1], F32)
    codes, params = ref.quantize_dynamic(x, "minmax", scheme)
    assert params.scales.tolist() == [F32(4 / 15), F32(2 / 15)]
    assert params.zero_points.tolist() == [0, 7]
    assert codes[:4].tolist() == [4, 7, 11, 15]
    assert codes[4] == 0
    # A zero-point tie: [-1.25, 6.25] gives s = 7.5 / 15 = 0.5 and zp =
    # round(2.5) = 2, half to even whatever the element rounding; the
    # elements then round away from zero: -2.5 -> -3 + 2 clamps to 0, 12.5
    # -> 13 + 2 = 15.
    away = Scheme("ui4", zero_point="ui4", rounding="half_away_from_zero")
    codes, params = ref.quantize_dynamic(np.array([-1.25, 6.25], F32),
                                         "minmax", away)
    assert params.scales.tolist() == [0.5]
    assert params.zero_points.tolist() == [2]
    assert codes.tolist() == [0, 15]


def test_minmax_float_zero_point():
    # m = min = -1 (f16), s = 4 / 15; (3 + 1) / 0.26666668f = 14.9999994
    # -> 15. A block whose min is -0.0 keeps m = -0.0 (-0.0 < +0.0). A NaN
    # makes the scale and the min NaN.
    scheme = Scheme("ui4", block=(2,), zero_point="f16")
    x = np.array([-1.0, 3.0, -0.0, 3.0, np.nan, 1.0], F32)
    codes, params = ref.quantize_dynamic(x, "minmax", scheme)
    assert params.zero_points[0] == -1.0
    assert ref.float_bits(params.zero_points[1:2], "f16").tolist() == \
        [0x8000]
    assert np.isnan(params.zero_points[2]) and np.isnan(params.scales[2])
    assert codes[:4].tolist() == [0, 15, 0, 15]


def test_mx_dynamic():
    # quantize-dynamic.mlir: max 1000 -> shared exponent 1 (code 128); 17 /
    # 2 = 8.5 ties to 8, 19 / 2 = 9.5 to 10, 1000 / 2 = 500 saturates to
    # 448. The all-zero row gets 2^-127 (code 0); an Inf row the NaN scale.
    scheme = Scheme("f8E4M3FN", block=(1, 32), scale="f8E8M0FNU")
    x = np.zeros((3, 32), F32)
    x[0] = np.arange(1, 33)
    x[0, 31] = 1000
    x[2, 5] = np.inf
    codes, params = ref.quantize_dynamic(x, "mx", scheme)
    assert ref.encode_e8m0(params.scales).tolist() == [[128], [0], [255]]
    y = ref.dequantize_scheme(codes, scheme, params)
    assert y[0, [16, 18, 31]].tolist() == [16, 20, 896]
    assert (y[1] == 0).all() and np.isnan(y[2]).all()


def test_nvfp4_dynamic():
    # nvfp4.mlir: tensor max 2688 = 6 * 448 gives outer 1. Block (0, 0): max
    # 16, 16 / 6 = 2.67 -> E4M3 2.75 (code 67); block (0, 1): 0.75 / 6 =
    # 0.125 (code 32); block (1, 0): 2688 / 6 = 448 (code 126); the zero
    # block (1, 1) gets 1 (code 56).
    scheme = Scheme("f4E2M1FN", block=(16,), scale="f8E4M3FN", outer="f32")
    x = np.zeros((2, 32), F32)
    x[0, :16] = np.arange(1, 17)
    x[0, 16:19] = [0.5, 0.25, -0.5]
    x[0, 31] = 0.75
    x[1, :3] = [2688, -1, 1]
    codes, params = ref.quantize_dynamic(x, "absmax", scheme)
    assert params.outer_scales.tolist() == [[1.0]]
    assert ref.float_bits(params.scales, "f8E4M3FN").tolist() == \
        [[67, 32], [126, 56]]
    y = ref.dequantize_scheme(codes, scheme, params)
    assert y[0, :4].tolist() == [1.375, 1.375, 2.75, 4.125]
    assert y[1, :2].tolist() == [2688, -0.0]


# matmul ----------------------------------------------------------------------


def test_matmul_float_sums_in_order():
    # f32: 1e8 + 1 rounds back to 1e8 (ulp 8), so ((0 + 1e8) + 1) - 1e8 = 0
    # while ((0 + 1e8) - 1e8) + 1 = 1.
    w = np.ones((3, 1), F32)
    assert ref.matmul_float(np.array([[1e8, 1, -1e8]], F32), w).tolist() == \
        [[0.0]]
    assert ref.matmul_float(np.array([[1e8, -1e8, 1]], F32), w).tolist() == \
        [[1.0]]
    # transpose_rhs reads the weight as [N, K].
    assert ref.matmul_float(np.array([[1e8, -1e8, 1]], F32), w.T,
                            transpose_rhs=True).tolist() == [[1.0]]


def test_matmul_accumulator_type():
    # f16 operands [2048, 1, 1] times ones: in f32 the sum is 2050, which
    # f16 holds (ulp 2); accumulated in f16, 2048 + 1 ties back to 2048 twice.
    lhs = np.array([[2048, 1, 1]], np.float16)
    w = np.ones((3, 1), np.float16)
    assert ref.matmul_float(lhs, w, accumulate="f32",
                            expressed="f16").tolist() == [[2050]]
    assert ref.matmul_float(lhs, w, accumulate="f16",
                            expressed="f16").tolist() == [[2048]]


def test_matmul_integer_int8_dot():
    # int8-dot.mlir: per block of 4 along K, isum of centered codes, then
    # acc += isum * (sl * sr). y[0][0] = -8 * 0.5 * 1 + 77 * 0.25 * 0.5 =
    # 5.625; y[1][0] = 200 * 2 - 6 * 0.125 * 0.5 = 399.625; y[1][1] = -1.
    lhs_scheme = Scheme("i8", block=(1, 4))
    rhs_scheme = Scheme("i4", block=(1, 4), scale="f16", zero_point="i4")
    lq = np.array([[1, -2, 3, -4, 127, -128, 0, 5],
                   [10, 20, 30, 40, -1, -1, -1, -1]])
    rq = np.array([[0, 1, 2, 3, 7, 6, 5, -8], [-1, -1, -1, -1, 1, 1, 1, 1],
                   [1, 0, 1, 0, 1, 0, 1, 0]])
    lp = Params(np.array([[0.5, 0.25], [2.0, 0.125]], F32))
    rp = Params(np.array([[1.0, 0.5], [0.25, 2.0], [1.0, 1.0]], F32),
                np.array([[0, 1], [-1, 0], [0, 1]]))
    y = ref.matmul_integer(lq, lhs_scheme, lp, rq, rhs_scheme, rp,
                           transpose_rhs=True)
    assert y.tolist() == [[5.625, 2, 32.75], [399.625, -1, 80.25]]


def test_matmul_integer_with_weight_mins():
    # Mins (Q4_1's float zero points; Q4_K's integer ones under an outer
    # min): per block, acc += isum * (sl * s) with the codes uncentered, then
    # acc += asum * (sl * m), asum the block's sum of activation codes.
    # Block 0: isum 20, asum 10: 20 * 0.5 - 10 * 0.5 = 5; block 1: isum -13,
    # asum 2: -13 * 0.5 + 2 * 0.125 = -6.25: -1.25, the product of the
    # dequantized values (w = q * s + m) exactly.
    lhs_scheme = Scheme("i8", block=(1, 4))
    lq = np.array([[1, 2, 3, 4, -1, 0, 1, 2]])
    lp = Params(np.array([[0.5, 0.25]], F32))
    rq = np.array([[0, 1, 2, 3, 15, 0, 0, 1]])
    q4_1 = Scheme("ui4", block=(1, 4), scale="f32", zero_point="f32")
    rp = Params(np.array([[1.0, 2.0]], F32), np.array([[-1.0, 0.5]], F32))
    y = ref.matmul_integer(lq, lhs_scheme, lp, rq, q4_1, rp,
                           transpose_rhs=True)
    assert y.tolist() == [[-1.25]]
    x = ref.dequantize_scheme(lq, lhs_scheme, lp)
    w = ref.dequantize_scheme(rq, q4_1, rp)
    assert ref.matmul_float(x, w.T).tolist() == [[-1.25]]
    # Q4_K's form: s_eff = [2, 4] * 0.5, m_eff = [4, 1] * -0.25; block 1's
    # min term is 2 * (0.25 * -0.25).
    q4_k = Scheme("ui4", block=(1, 4), scale="ui8", zero_point="ui8",
                  outer="f32", outer_block=(2,), outer_min="f32")
    rp = Params(np.array([[2, 4]], F32), np.array([[4, 1]]),
                np.array([[0.5]], F32), np.array([[-0.25]], F32))
    y = ref.matmul_integer(lq, lhs_scheme, lp, rq, q4_k, rp,
                           transpose_rhs=True)
    assert y.tolist() == [[-1.625]]


def test_matmul_integer_rounds_per_block_not_per_product():
    # Codes [1, 6] with the lhs scale t = 1/3 in f32 (0.3333333432674408)
    # and unit weights, one block of 2. i32: isum = 7, 7 * t =
    # 2.33333340287 rounds to the f32 2.3333334922790527. The float product
    # of the dequantized values rounds 6 * t = 2.00000006 to 2.0 first, then
    # 2 + t = 2.33333334327 rounds down to 2.3333332538604736.
    t = F32(1) / F32(3)
    lhs_scheme = Scheme("i8", block=(1, 2))
    rhs_scheme = Scheme("i8", block=(2, 1))
    lq, lp = np.array([[1, 6]]), Params(np.array([[t]], F32))
    rq, rp = np.array([[1], [1]]), Params(np.array([[1.0]], F32))
    y = ref.matmul_integer(lq, lhs_scheme, lp, rq, rhs_scheme, rp)
    assert y.tolist() == [[2.3333334922790527]]
    w = ref.dequantize_scheme(rq, rhs_scheme, rp)
    x = ref.dequantize_scheme(lq, lhs_scheme, lp)
    assert ref.matmul_float(x, w).tolist() == [[2.3333332538604736]]


@pytest.mark.parametrize("storage", ["i4", "ui8", "f8E5M2", "f6E3M2FN"])
def test_dequantize_then_matmul_matches_per_element(storage):
    # The weight is dequantized exactly as dequantize does; a 1x1 product is
    # lhs * w rounded once.
    scheme = Scheme(storage, block=(2, 1))
    params = Params(np.array([[0.5]], F32))
    codes = np.array([[1], [2]])
    w = ref.dequantize_scheme(codes, scheme, params)
    y = ref.matmul_float(np.array([[3.0, 0.0]], F32), w)
    assert y.tolist() == [[F32(3.0) * w[0, 0]]]


def test_ragged_blocks_in_the_reference():
    # Blocks of 2 over 5 elements: [127, 63.5], [-254, 127], [381]: absmax
    # scales 1, 2 and 3 (the ragged last block is a block of its own);
    # 63.5 and 127 / 2 tie to 64.
    x = np.array([127, 63.5, -254, 127, 381], F32)
    codes, params = ref.quantize_dynamic(x, "absmax", Scheme("i8",
                                                             block=(2,)))
    assert params.scales.tolist() == [1, 2, 3]
    assert codes.tolist() == [127, 64, -127, 64, 127]
    assert ref.block_reduce(x, [2], np.max, -np.inf).tolist() == \
        [127, 127, 381]
