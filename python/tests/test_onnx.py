"""The ONNX importer: models built with onnx.helper (written without the
checker: the installed onnx may predate the opsets they use) are imported,
compiled with the CPU pipeline, run, and compared with numpy models of the
operators (the weights dequantized by quant_block.reference)."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="needs python3-onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import quant_block  # noqa: E402
from quant_block import reference  # noqa: E402
from quant_block.onnx import OnnxImportError, import_model  # noqa: E402

rng = np.random.default_rng(7)


def make_model(nodes, inputs, outputs, initializers):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        [numpy_helper.from_array(a, n) for n, a in initializers.items()])
    return helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])


def run(model, *inputs):
    return quant_block.compile(import_model(model)).main(*inputs)


def pack_nibbles(codes):
    """Two 4-bit codes per byte, the first in the low nibble."""
    codes = np.asarray(codes, np.uint8)
    if codes.shape[-1] % 2:
        codes = np.concatenate([codes, np.zeros(codes.shape[:-1] + (1,), np.uint8)], -1)
    return codes[..., 0::2] | (codes[..., 1::2] << 4)


def matmul_nbits_weight(n, k, block, zero_points=True):
    codes = rng.integers(0, 16, (n, k)).astype(np.uint8)
    blocks = -(-k // block)
    scales = (rng.random((n, blocks)) * 0.1 + 0.01).astype(np.float32)
    zps = rng.integers(0, 16, (n, blocks)).astype(np.uint8) if zero_points \
        else np.full((n, blocks), 8, np.uint8)
    scheme = reference.Scheme("ui4", block=(1, block), zero_point="ui4")
    dequantized = reference.dequantize_scheme(
        codes, scheme, reference.Params(scales, zps, None, None))
    packed = pack_nibbles(codes.reshape(n, blocks, block))
    inits = {"B": packed, "S": scales.reshape(-1)}
    if zero_points:
        inits["Z"] = pack_nibbles(zps).reshape(-1)
    return inits, dequantized


def test_two_layer_matmul_nbits_mlp():
    m, k, hidden, n, block = 4, 64, 32, 16, 32
    w1, d1 = matmul_nbits_weight(hidden, k, block)
    w2, d2 = matmul_nbits_weight(n, hidden, block, zero_points=False)
    inits = {"B1": w1["B"], "S1": w1["S"], "Z1": w1["Z"],
             "B2": w2["B"], "S2": w2["S"]}
    nodes = [
        helper.make_node("MatMulNBits", ["x", "B1", "S1", "Z1"], ["h"],
                         domain="com.microsoft", K=k, N=hidden, bits=4,
                         block_size=block),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("MatMulNBits", ["r", "B2", "S2"], ["y"],
                         domain="com.microsoft", K=hidden, N=n, bits=4,
                         block_size=block),
    ]
    model = make_model(nodes, [("x", [m, k])], [("y", [m, n])], inits)
    assert str(import_model(model)).count("quant_block.matmul") == 2
    x = rng.standard_normal((m, k)).astype(np.float32)
    expected = np.maximum(x @ d1.T, 0) @ d2.T
    np.testing.assert_allclose(run(model, x), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["per-tensor", "per-axis", "blocked"])
def test_dequantize_linear_matmul(kind):
    m, k, n = 3, 16, 8
    w = rng.integers(-128, 128, (k, n)).astype(np.int8)
    attrs = {}
    if kind == "per-tensor":
        s = np.float32(0.05)
        zp = np.int8(3)
        expected_w = (w.astype(np.float32) - 3) * s
    elif kind == "per-axis":
        s = (rng.random(n) * 0.1 + 0.01).astype(np.float32)
        zp = rng.integers(-5, 5, n).astype(np.int8)
        attrs = {"axis": 1}
        expected_w = (w.astype(np.float32) - zp) * s
    else:
        s = (rng.random((k // 4, n)) * 0.1 + 0.01).astype(np.float32)
        zp = rng.integers(-5, 5, (k // 4, n)).astype(np.int8)
        attrs = {"axis": 0, "block_size": 4}
        expected_w = (w.astype(np.float32) - np.repeat(zp, 4, 0)) * np.repeat(s, 4, 0)
    nodes = [helper.make_node("DequantizeLinear", ["W", "S", "Z"], ["wf"], **attrs),
             helper.make_node("MatMul", ["x", "wf"], ["y"])]
    model = make_model(nodes, [("x", [m, k])], [("y", [m, n])],
                       {"W": w, "S": np.asarray(s), "Z": np.asarray(zp)})
    assert "quant_block.matmul" in str(import_model(model))
    x = rng.standard_normal((m, k)).astype(np.float32)
    np.testing.assert_allclose(run(model, x), x @ expected_w, rtol=1e-5,
                               atol=1e-5)


def test_quantize_linear_rounds_half_to_even_and_saturates():
    x = np.array([[0.5, 1.5, 2.5, -0.5, 300.0, -300.0]], np.float32)
    nodes = [helper.make_node("QuantizeLinear", ["x", "S", "Z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "S", "Z"], ["y"])]
    model = make_model(nodes, [("x", [1, 6])], [("y", [1, 6])],
                       {"S": np.float32(1.0), "Z": np.uint8(10)})
    expected = np.clip(np.round(x) + 10, 0, 255) - 10
    np.testing.assert_array_equal(run(model, x), expected)


def test_gemm_and_shape_ops():
    w = rng.standard_normal((8, 18)).astype(np.float32)   # [N, K], transB
    bias = rng.standard_normal(8).astype(np.float32)
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node("Flatten", ["xt"], ["xf"], axis=1),
        helper.make_node("Reshape", ["xf", "shape"], ["xr"]),
        helper.make_node("Gemm", ["xr", "W", "bias"], ["g"], transB=1),
        helper.make_node("Cast", ["g"], ["y"], to=TensorProto.FLOAT),
    ]
    model = make_model(nodes, [("x", [3, 2, 6])], [("y", [2, 8])],
                       {"W": w, "bias": bias,
                        "shape": np.array([2, -1], np.int64)})
    x = rng.standard_normal((3, 2, 6)).astype(np.float32)
    xr = np.transpose(x, (1, 0, 2)).reshape(2, -1)
    np.testing.assert_allclose(run(model, x), xr @ w.T + bias, rtol=1e-5,
                               atol=1e-5)


def test_unsupported_node_is_an_error_naming_it():
    nodes = [helper.make_node("Softmax", ["x"], ["y"], name="attention_softmax")]
    model = make_model(nodes, [("x", [2, 4])], [("y", [2, 4])], {})
    with pytest.raises(OnnxImportError,
                       match="node 'attention_softmax' \\(Softmax\\): this "
                             "operator is not imported"):
        import_model(model)


def test_ops_carry_the_node_names():
    """Each op is located at its node (the op_type when it has no name,
    the name escaped as MLIR escapes strings), each argument at its graph
    input, the function and its return at the graph."""
    nodes = [helper.make_node("Relu", ["x"], ["r"], name='relu "1"\\'),
             helper.make_node("Relu", ["r"], ["y"])]
    model = make_model(nodes, [("x", [4])], [("y", [4])], {})
    text = import_model(model).print(debug_info=True)
    for loc in ('loc("relu \\221\\22\\\\")', 'loc("Relu")', 'loc("x")',
                'loc("g")'):
        assert loc in text
    assert 'loc("' not in str(import_model(model))


def test_verifier_diagnostic_points_at_the_node():
    """A blocked scale of the wrong shape gets past the importer (the
    verifier owns that rule) and is reported at the DequantizeLinear."""
    w = rng.integers(-128, 128, (16, 8)).astype(np.int8)
    s = np.ones((3, 8), np.float32)   # ceil(16 / 4) = 4 rows are needed
    nodes = [helper.make_node("DequantizeLinear", ["W", "S"], ["wf"], axis=0,
                              block_size=4, name="fc1_weight"),
             helper.make_node("MatMul", ["x", "wf"], ["y"], name="fc1")]
    model = make_model(nodes, [("x", [2, 16])], [("y", [2, 8])],
                       {"W": w, "S": s})
    with pytest.raises(quant_block.MLIRError) as error:
        import_model(model)
    diagnostic = error.value.diagnostics[0]
    assert diagnostic.location == 'loc("fc1_weight")'
    assert "scales dimension 0 (size 3) does not match ceil(dimension 0 " \
        "(size 16) / block 4) = 4" in diagnostic.message


def test_reads_serialized_models(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    model = make_model(nodes, [("x", [4])], [("y", [4])], {})
    path = tmp_path / "relu.onnx"
    path.write_bytes(model.SerializeToString())
    x = np.array([-1, 2, -3, 4], np.float32)
    for source in (str(path), model.SerializeToString()):
        np.testing.assert_array_equal(
            quant_block.compile(import_model(source)).main(x), [0, 2, 0, 4])


ORT_SCRIPT = r"""
const ort = require('onnxruntime-node');
const fs = require('fs');
(async () => {
  const [modelPath, inputPath] = process.argv.slice(2);
  const input = JSON.parse(fs.readFileSync(inputPath));
  const session = await ort.InferenceSession.create(modelPath);
  const feeds = {};
  for (const [name, value] of Object.entries(input))
    feeds[name] = new ort.Tensor('float32', Float32Array.from(value.data), value.shape);
  const results = await session.run(feeds);
  const out = {};
  for (const [name, tensor] of Object.entries(results))
    out[name] = {data: Array.from(tensor.data), shape: tensor.dims};
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e.message); process.exit(1); });
"""


def onnxruntime_node_modules():
    """The node_modules holding onnxruntime-node ($QUANT_BLOCK_ORT_NODE_MODULES,
    which ctest points at build/npm/node_modules), or a reason to skip."""
    import os
    import shutil
    if not shutil.which("node"):
        return None, "node is not installed (Debian: nodejs)"
    modules = os.environ.get("QUANT_BLOCK_ORT_NODE_MODULES", "")
    if not modules or not os.path.isdir(os.path.join(modules, "onnxruntime-node")):
        return None, ("onnxruntime-node is not installed (run.sh test installs "
                      "it into build/npm: npm install --ignore-scripts "
                      "onnxruntime-node@1.30)")
    return modules, None


def test_matmul_nbits_mlp_matches_onnxruntime(tmp_path):
    import json
    import os
    import subprocess
    modules, reason = onnxruntime_node_modules()
    if modules is None:
        pytest.skip(reason)
    m, k, hidden, n, block = 4, 64, 32, 16, 32
    w1, _ = matmul_nbits_weight(hidden, k, block)
    w2 = rng.integers(-128, 128, (hidden, n)).astype(np.int8)
    s2 = (rng.random((hidden // 8, n)) * 0.05 + 0.01).astype(np.float32)
    nodes = [
        helper.make_node("MatMulNBits", ["x", "B", "S", "Z"], ["h"],
                         domain="com.microsoft", K=k, N=hidden, bits=4,
                         block_size=block),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("DequantizeLinear", ["W2", "S2"], ["w2f"], axis=0,
                         block_size=8),
        helper.make_node("MatMul", ["r", "w2f"], ["y"]),
    ]
    model = make_model(nodes, [("x", [m, k])], [("y", [m, n])],
                       dict(w1, W2=w2, S2=s2))
    model.ir_version = 10  # Blocked DequantizeLinear is opset 21.
    model_path = tmp_path / "mlp.onnx"
    model_path.write_bytes(model.SerializeToString())
    x = rng.standard_normal((m, k)).astype(np.float32)
    (tmp_path / "input.json").write_text(json.dumps(
        {"x": {"data": x.reshape(-1).tolist(), "shape": list(x.shape)}}))
    (tmp_path / "run.js").write_text(ORT_SCRIPT)
    out = subprocess.run(
        ["node", str(tmp_path / "run.js"), str(model_path),
         str(tmp_path / "input.json")], capture_output=True, text=True,
        env=dict(os.environ, NODE_PATH=modules), timeout=120)
    assert out.returncode == 0, out.stderr
    y_ort = np.array(json.loads(out.stdout)["y"]["data"],
                     np.float32).reshape(m, n)
    np.testing.assert_allclose(run(model, x), y_ort, rtol=1e-4, atol=1e-4)
