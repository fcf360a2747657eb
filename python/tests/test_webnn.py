"""Tests of the WebNN importer: implied blocks, the generated IR and the
located Module."""

import json
import os
import subprocess

import pytest

from quant_block import MLIRError
from quant_block.webnn import Operand, implied_block, import_op, lower


def test_implied_block_divides():
    assert implied_block([6, 4, 5], [3, 2, 1]) == [2, 2, 5]
    # Lower-rank scales are right-aligned.
    assert implied_block([3, 2, 5], [5]) == [3, 2, 1]
    assert implied_block([3, 2, 5], []) == [3, 2, 5]


def test_implied_block_matches_conformance_attrs(conformance_dir):
    """Every block-wise conformance case records its implied block."""
    checked = 0
    for name in ("webnn_dequantizeLinear.json", "webnn_quantizeLinear.json"):
        with open(os.path.join(conformance_dir, name)) as f:
            for case in json.load(f)["cases"]:
                block = case["attrs"].get("implied_block_shape")
                if block is None:
                    continue
                assert implied_block(case["input"]["shape"],
                                     case["scale"]["shape"]) == block
                checked += 1
    assert checked >= 12


def test_lower_dequantize_ir():
    lowered = lower("dequantize", "f", Operand([6, 4], "int4"),
                    Operand([2, 2], "float16"), Operand([2, 2], "int4"))
    assert lowered.scheme_alias == (
        "#scheme = #quant_block.scheme<i4 : f16, block = [3, 2], "
        "scale = f16, zero_point = i4>")
    assert "quant_block.pack %x scales(%scale : tensor<2x2xf16>) " \
        "zero_points(%zp : tensor<2x2xi4>)" in lowered.function
    assert "-> tensor<6x4xf16>" in lowered.function
    assert 'loc("f")' in lowered.function
    assert "loc(" not in lower("dequantize", "f", Operand([6, 4], "int4"),
                               Operand([2, 2], "float16"), None,
                               located=False).function


def test_import_op_is_a_module_located_at_the_operation():
    module = import_op("dequantize", "dq", Operand([6, 4], "int8"),
                       Operand([2, 4], "float32"), None)
    text = module.print(debug_info=True)
    assert "quant_block.pack" in text
    assert 'loc("dq")' in text


def test_import_op_diagnostic_names_the_operation():
    """A scale that does not divide the input, where WebNN throws: the
    verifier rejects the op at the operation's location."""
    with pytest.raises(MLIRError) as error:
        import_op("dequantize", "bad_dq", Operand([5], "int8"),
                  Operand([2], "float32"), None)
    diagnostic = error.value.diagnostics[0]
    assert diagnostic.location == 'loc("bad_dq")'
    assert "scales dimension 0 (size 2) does not match ceil(dimension 0 " \
        "(size 5) / block 2) = 3" in diagnostic.message


def test_lowered_ir_verifies():
    """The generated IR of a valid case passes quant-opt's verifier."""
    binary_dir = os.environ.get("QUANT_BLOCK_BINARY_DIR")
    if binary_dir is None:
        raise RuntimeError("QUANT_BLOCK_BINARY_DIR is not set; run through "
                           "ctest")
    lowered = lower("quantize", "q", Operand([6], "float32"),
                    Operand([2], "float32"), Operand([2], "uint4"))
    ir = lowered.scheme_alias + "\n" + lowered.function
    result = subprocess.run([os.path.join(binary_dir, "bin", "quant-opt")],
                            input=ir, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "block = [3]" in result.stdout
