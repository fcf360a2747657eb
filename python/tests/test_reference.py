"""The numpy reference against the external vectors it must agree with."""

import json
import os

import numpy as np
import pytest

from quant_block import reference


def test_formats_match_mx_formats(conformance_dir):
    """The enumerated tables against the E2M1 code table and the format
    facts (max / min normal, subnormals, NaN codes) of mx_formats.json."""
    with open(os.path.join(conformance_dir, "mx_formats.json")) as f:
        facts = json.load(f)
    table = reference.float_format_table("f4E2M1FN")
    for row in facts["e2m1_code_table"]["rows"]:
        assert table[row["code"]] == row["value"]
        assert np.signbit(table[row["code"]]) == np.signbit(row["value"])
    names = {"fp8_e4m3": "f8E4M3FN", "fp8_e5m2": "f8E5M2",
             "fp6_e3m2": "f6E3M2FN", "fp6_e2m3": "f6E2M3FN",
             "fp4_e2m1": "f4E2M1FN"}
    for key, name in names.items():
        fmt = facts["element_formats"][key]
        values = reference.float_format_table(name)
        finite = values[np.isfinite(values)]
        positive = finite[finite > 0]
        assert positive.max() == fmt["max_normal"], key
        assert positive.min() == fmt["min_subnormal"], key
        nan_codes = [f"0x{c:02X}" for c in range(values.size)
                     if np.isnan(values[c])]
        assert nan_codes == [c.upper().replace("0X", "0x")
                             for c in fmt["nan_codes"]], key


def test_onnx_float_quantize_codes(conformance_dir):
    """ONNX float8 / float4 QuantizeLinear cases, code for code (zero by
    value, as the source stores -0.0 as +0)."""
    names = {"float8e4m3fn": "f8E4M3FN", "float8e5m2": "f8E5M2",
             "float4e2m1": "f4E2M1FN"}
    with open(os.path.join(conformance_dir, "onnx_quantizelinear.json")) as f:
        cases = json.load(f)["cases"]
    checked = 0
    for case in cases:
        dtype = case["expected"]["dtype"]
        if dtype not in names:
            continue
        shape = case["input"]["shape"]
        x = np.array(case["input"]["data"], np.float32).reshape(shape)
        scale = np.array(case["scale"]["data"], np.float32)
        if scale.size == 1:
            scales, block = scale.reshape([1] * len(shape)), list(shape)
        else:
            axis = case["attrs"]["axis"]
            scales = scale.reshape([-1 if a == axis else 1
                                    for a in range(len(shape))])
            block = [1 if a == axis else d for a, d in enumerate(shape)]
        codes = reference.quantize(x, scales, None, shape=shape, block=block,
                                   storage=names[dtype]).ravel()
        want = [int(b, 16) for b in case["expected"]["bits"]]
        width = 8 if dtype.startswith("float8") else 4
        magnitude = (1 << (width - 1)) - 1
        got = [w if c & magnitude == 0 and w & magnitude == 0 else int(c)
               for c, w in zip(codes, want)]
        assert got == want, case["name"]
        checked += 1
    assert checked == 3


def test_integer_ties_and_nan():
    shape, block = [1, 4], [1, 4]
    x = np.array([[0.5, 1.5, -2.5, np.nan]], np.float32)
    ones = np.ones((1, 1), np.float32)
    even = reference.quantize(x, ones, np.array([[3]]), shape=shape,
                              block=block, storage="i8", qmin=-128, qmax=127,
                              zero_point_domain="int")
    away = reference.quantize(x, ones, np.array([[3]]), shape=shape,
                              block=block, storage="i8", qmin=-128, qmax=127,
                              rounding="half_away_from_zero",
                              zero_point_domain="int")
    assert even.tolist() == [[3, 5, 1, 3]]
    assert away.tolist() == [[4, 5, 0, 3]]


def test_row_tiled_layout():
    # 32 rows of 8 bytes (16 int4 codes), 2 blocks: byte (r, c) = 8 r + c.
    data = np.arange(32 * 8, dtype=np.int64).reshape(32, 8).astype(np.uint8)
    tiled = reference.tile_rows(data, 16, data=True)
    assert tiled.shape == (2, 2, 16, 4)
    # Word 1 of row 17 (tile 1, row 1 of the tile): bytes 4..7 of row 17.
    assert list(tiled[1, 1, 1]) == [17 * 8 + 4, 17 * 8 + 5, 17 * 8 + 6,
                                    17 * 8 + 7]
    # The 64 bytes of one word index are the 16 rows' words in row order.
    assert list(tiled[0, 0].reshape(-1)[:8]) == [0, 1, 2, 3, 8, 9, 10, 11]
    scales = np.arange(32 * 2, dtype=np.float32).reshape(32, 2)
    tiled_scales = reference.tile_rows(scales, 16, data=False)
    assert tiled_scales.shape == (2, 2, 16)
    assert tiled_scales[1, 0, 3] == scales[19, 0]
    assert np.array_equal(reference.untile_rows(tiled, data=True), data)
    assert np.array_equal(
        reference.untile_rows(tiled_scales, data=False), scales)
    with pytest.raises(ValueError):
        reference.tile_rows(data[:24], 16, data=True)
