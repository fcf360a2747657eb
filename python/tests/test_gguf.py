"""The GGUF importer (quant_block.gguf over the C++ reader): files written
by the independent writer (quant_block/gguf_writer.py) and, where the npm
package of ggml is present, by ggml itself are opened, imported, compiled
and dequantized; every element is compared bit for bit with an independent
decoder of ggml's formulas (ggml_reference.py, itself checked against
ggml's to_float in test_gguf_reference_vs_ggml.py) or with ggml's own
to_float."""

import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ggml_reference  # noqa: E402
from quant_block import gguf_writer as gw  # noqa: E402
from test_gguf_reference_vs_ggml import (  # noqa: E402,F401
    GgmlInitParams, _float_input, _ggml_to_float, _quantize, ggml)

import quant_block  # noqa: E402
from quant_block import gguf  # noqa: E402

# Every ggml type the importer maps to a scheme (exact or widened), plus the
# plain ones.
IMPORTED_TYPES = [
    gw.GGML_TYPE_F32, gw.GGML_TYPE_F16, gw.GGML_TYPE_BF16,
    gw.GGML_TYPE_Q4_0, gw.GGML_TYPE_Q4_1, gw.GGML_TYPE_Q5_0,
    gw.GGML_TYPE_Q5_1, gw.GGML_TYPE_Q8_0, gw.GGML_TYPE_Q2_K,
    gw.GGML_TYPE_Q3_K, gw.GGML_TYPE_Q4_K, gw.GGML_TYPE_Q5_K,
    gw.GGML_TYPE_Q6_K, gw.GGML_TYPE_IQ4_NL, gw.GGML_TYPE_IQ4_XS,
    gw.GGML_TYPE_TQ1_0, gw.GGML_TYPE_TQ2_0, gw.GGML_TYPE_MXFP4,
    gw.GGML_TYPE_NVFP4, gw.GGML_TYPE_Q2_0,
]
NAMES = {v: k[len("GGML_TYPE_"):] for k, v in vars(gw).items()
         if k.startswith("GGML_TYPE_") and k != "GGML_TYPE_COUNT"}


def assert_same_bits(got, want, what):
    got = np.asarray(got, np.float32)
    assert got.shape == want.shape, what
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    if bad.size:
        i = bad[0]
        pytest.fail(f"{what}: {bad.size} of {got.size} elements differ; first "
                    f"at {np.unravel_index(i, got.shape)}: {got.flat[i]!r} "
                    f"vs {want.flat[i]!r}")


@pytest.mark.parametrize("type_id", IMPORTED_TYPES,
                         ids=[NAMES[t] for t in IMPORTED_TYPES])
def test_every_type_dequantizes_bit_exactly(tmp_path, type_id):
    """Random block bytes (finite parameters) of each type, in a [3, 512]
    and a [2, 2, 256] tensor, through the compiled dequantization."""
    rng = np.random.default_rng(type_id)
    tensors = []
    for name, ne in (("blk.0.w", [512, 3]), ("blk.0.experts", [256, 2, 2])):
        elements, block_bytes = gw.BLOCK[type_id]
        count = int(np.prod(ne)) // elements
        tensors.append((name, ne, type_id,
                        gw.random_blocks(type_id, count, rng, "random")))
    path = tmp_path / "t.gguf"
    gw.write_gguf(path, [("general.architecture", gw.STRING, "llama")],
                  tensors)
    with gguf.open(path) as f:
        for name, ne, _, raw in tensors:
            tensor = f.tensor(name)
            assert tensor.shape == tuple(ne[::-1])
            assert tensor.supported, tensor.unsupported_reason
            want = ggml_reference.dequantize(type_id, raw, ne)
            assert_same_bits(f.dequantize(name), want,
                             f"{NAMES[type_id]} {name}")


def test_parts_and_schemes(tmp_path):
    """The part shapes and element types a Q4_K weight crosses as, and its
    scheme, read through quant_block.Scheme."""
    rng = np.random.default_rng(1)
    raw = gw.random_blocks(gw.GGML_TYPE_Q4_K, 8, rng, "random")
    path = tmp_path / "q4k.gguf"
    gw.write_gguf(path, [], [("w", [512, 4], gw.GGML_TYPE_Q4_K, raw)])
    with gguf.open(path) as f:
        t = f.tensor("w")
        assert (t.type, t.shape, t.nbytes) == ("Q4_K", (4, 512), 8 * 144)
        assert [(p.role, p.dtype.str, p.shape) for p in t.parts] == [
            ("data", "|i1", (4, 256)), ("scales", "|u1", (4, 16)),
            ("zero_points", "|u1", (4, 16)), ("outer_scales", "<f2", (4, 2)),
            ("outer_mins", "<f2", (4, 2))]
        scheme = quant_block.Scheme(t.scheme)
        assert (scheme.storage, scheme.block, scheme.scale) == ("ui4", (32,), "ui8")
        assert scheme.outer == {"scale": "f16", "block": (8,), "min": "f16"}
        assert bytes(f.raw("w")) == raw
        # The outer mins are ggml's dmin negated (f16 at byte 2 of a block).
        dmin = np.frombuffer(raw, np.uint8).reshape(8, 144)[:, 2:4].copy()
        assert np.array_equal(f.parts("w")[4].reshape(-1),
                              -dmin.view("<f2").reshape(-1))


@pytest.mark.parametrize("type_id", [gw.GGML_TYPE_Q4_K, gw.GGML_TYPE_Q6_K,
                                     gw.GGML_TYPE_Q4_0, gw.GGML_TYPE_F16],
                         ids=["Q4_K", "Q6_K", "Q4_0", "F16"])
def test_parts_of_rows(tmp_path, type_id):
    """parts_of_rows: rows [begin, end) of every part (the leading
    dimensions of a 3-D tensor flattened) are those rows of the whole
    repack, chunk by chunk, into the caller's arrays or new ones, with the
    file's pages released; bad ranges and buffers are errors that name the
    tensor."""
    rng = np.random.default_rng(type_id)
    elements = gw.BLOCK[type_id][0]
    ne = [2 * max(elements, 32), 5, 3]  # 15 rows
    raw = gw.random_blocks(type_id, int(np.prod(ne)) // elements, rng,
                           "random")
    path = tmp_path / "rows.gguf"
    gw.write_gguf(path, [], [("w", ne, type_id, raw)])
    with gguf.open(path) as f:
        whole = [p.reshape(15, p.shape[-1]) for p in f.parts("w")]
        assert f.rows("w") == 15
        for begin, end in ((0, 4), (4, 11), (11, 15), (7, 7)):
            got = f.parts_of_rows("w", begin, end, release=True)
            for g, w in zip(got, whole):
                assert g.shape == (end - begin, w.shape[1])
                np.testing.assert_array_equal(g.view(np.uint8),
                                              w[begin:end].view(np.uint8))
        out = [np.zeros((3, p.shape[-1]), p.dtype) for p in f.tensor("w").parts]
        assert f.parts_of_rows("w", 12, 15, out=out) is out
        for o, w in zip(out, whole):
            np.testing.assert_array_equal(o.view(np.uint8),
                                          w[12:15].view(np.uint8))
        with pytest.raises(gguf.GGUFError,
                           match=r"tensor 'w': rows \[10, 16\) are not "
                           r"within its 15 rows"):
            f.parts_of_rows("w", 10, 16)
        with pytest.raises(gguf.GGUFError, match=r"rows \[-1, 2\)"):
            f.parts_of_rows("w", -1, 2)
        with pytest.raises(gguf.GGUFError,
                           match="tensor 'w': buffer 0 does not have the "
                           "data part's dense shape"):
            f.parts_of_rows("w", 0, 3, out=[np.zeros((2, o.shape[1]), o.dtype)
                                            for o in out])
        # The pages came back (a read maps them again): the same bytes.
        assert bytes(f.raw("w")) == raw
        np.testing.assert_array_equal(f.parts("w")[0].view(np.uint8),
                                      whole[0].reshape(
                                          f.tensor("w").parts[0].shape)
                                      .view(np.uint8))


def test_metadata_values(tmp_path):
    path = tmp_path / "meta.gguf"
    gw.write_gguf(path, [
        ("general.architecture", gw.STRING, "llama"),
        ("general.alignment", gw.UINT32, 64),
        ("llama.block_count", gw.UINT32, 2),
        ("llama.rope.freq_base", gw.FLOAT32, 10000.0),
        ("x.i8", gw.INT8, -3), ("x.u64", gw.UINT64, 2 ** 63 + 1),
        ("x.i64", gw.INT64, -2 ** 40), ("x.f64", gw.FLOAT64, 0.1),
        ("x.bool", gw.BOOL, True),
        ("tokenizer.ggml.tokens", gw.ARRAY, (gw.STRING, ["<s>", "a", "é"])),
        ("tokenizer.ggml.scores", gw.ARRAY, (gw.FLOAT32, [0.5, -1.0])),
    ], [("w", [64], gw.GGML_TYPE_F32, np.arange(64, dtype="<f4").tobytes())])
    with gguf.open(path) as f:
        m = f.metadata
        assert m["general.architecture"] == "llama"
        assert f.alignment == 64 and f.data_offset % 64 == 0
        assert m["llama.block_count"] == 2
        assert m["llama.rope.freq_base"] == 10000.0
        assert (m["x.i8"], m["x.u64"], m["x.i64"]) == (-3, 2 ** 63 + 1, -2 ** 40)
        assert m["x.f64"] == 0.1 and m["x.bool"] is True
        assert m["tokenizer.ggml.tokens"] == ["<s>", "a", "é"]
        assert m["tokenizer.ggml.scores"].tolist() == [0.5, -1.0]
        assert f.metadata_types["llama.block_count"] == "UINT32"
        assert np.array_equal(f.dequantize("w"), np.arange(64, dtype=np.float32))


def test_unsupported_types_are_errors_at_the_tensor(tmp_path):
    path = tmp_path / "iq.gguf"
    gw.write_gguf(path, [], [
        ("blk.3.ffn_up.weight", [256, 2], gw.GGML_TYPE_IQ2_XXS, bytes(2 * 66)),
        ("blk.3.ffn_norm.weight", [256], gw.GGML_TYPE_F32, bytes(1024))])
    with gguf.open(path) as f:
        t = f.tensor("blk.3.ffn_up.weight")
        assert not t.supported and "IQ2_XXS" in t.unsupported_reason
        with pytest.raises(gguf.GGUFError) as error:
            f.import_module()
        message = str(error.value)
        assert 'loc("blk.3.ffn_up.weight"' in message
        assert "type IQ2_XXS is a lattice codebook type" in message
        module = f.import_module(skip_unsupported=True)
        assert "blk.3.ffn_norm.weight" in str(module)
        assert "ffn_up" not in str(module)
        assert "left out" in str(module.import_diagnostics[0])
        with pytest.raises(gguf.GGUFError, match="IQ2_XXS"):
            f.parts("blk.3.ffn_up.weight")
        with pytest.raises(gguf.GGUFError, match="no tensor named 'nope'"):
            f.tensor("nope")


def test_mxfp4_exponent_ff_is_refused(tmp_path):
    """ggml reads E8M0 0xFF as 2^127, OCP as NaN: the importer names the
    block rather than changing the values."""
    block = bytes([0xFF]) + bytes(16)
    path = tmp_path / "mx.gguf"
    gw.write_gguf(path, [], [("w", [64, 1], gw.GGML_TYPE_MXFP4,
                              bytes([127]) + bytes(16) + block)])
    with gguf.open(path) as f:
        with pytest.raises(gguf.GGUFError,
                           match=r"tensor 'w' \(MXFP4\): block 1 of row 0 "
                                 r"has exponent byte 0xFF"):
            f.parts("w")


def test_hostile_file_raises_with_the_field(tmp_path):
    path = tmp_path / "bad.gguf"
    path.write_bytes(b"GGUG" + bytes(20))
    with pytest.raises(gguf.GGUFError, match="magic: expected"):
        gguf.open(path)
    with pytest.raises(gguf.GGUFError, match="cannot open"):
        gguf.open(tmp_path / "missing.gguf")


def linear(f, name, x):
    """x @ W.T by the compiled quant_block.matmul (strict f32 order) on the
    imported weight `name` of the open file `f`, its parts from the file."""
    (n, k), m = f.tensor(name).shape, x.shape[0]
    w_type = f.tensor(name).mlir_type
    module = quant_block.Module.parse(f"""
      func.func @linear(%x: tensor<{m}x{k}xf32>, %w: {w_type})
          -> tensor<{m}x{n}xf32> {{
        %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32)
            inhibit : tensor<{m}x{k}xf32>, {w_type} -> tensor<{m}x{n}xf32>
        return %y : tensor<{m}x{n}xf32>
      }}""")
    return quant_block.compile(module).linear(x, *f.parts(name))


def test_matmul_on_imported_weights(tmp_path):
    """quant_block.matmul on imported Q4_0 / Q4_K / Q6_K weights (their
    parts from the file) against numpy on the reference's dequantized
    weight: the strict f32 order differs from numpy's only by rounding."""
    rng = np.random.default_rng(5)
    n, k, m = 16, 512, 3
    for type_id in (gw.GGML_TYPE_Q4_0, gw.GGML_TYPE_Q4_K, gw.GGML_TYPE_Q6_K):
        elements, _ = gw.BLOCK[type_id]
        raw = gw.random_blocks(type_id, n * k // elements, rng, "random")
        path = tmp_path / f"{type_id}.gguf"
        gw.write_gguf(path, [], [("w", [k, n], type_id, raw)])
        with gguf.open(path) as f:
            x = rng.standard_normal((m, k)).astype(np.float32)
            y = linear(f, "w", x)
        w = ggml_reference.dequantize(type_id, raw, [k, n]).astype(np.float64)
        want = x.astype(np.float64) @ w.T
        scale = np.abs(x).astype(np.float64) @ np.abs(w).T
        assert np.all(np.abs(y - want) <= 1e-5 * scale + 1e-30), NAMES[type_id]


def test_command_line(tmp_path):
    rng = np.random.default_rng(3)
    raw = gw.random_blocks(gw.GGML_TYPE_Q6_K, 4, rng, "random")
    path = tmp_path / "cli.gguf"
    gw.write_gguf(path, [("general.architecture", gw.STRING, "llama")],
                  [("output.weight", [512, 2], gw.GGML_TYPE_Q6_K, raw)])
    out = tmp_path / "w.npy"
    env = dict(os.environ)
    run = [sys.executable, "-m", "quant_block.gguf"]
    result = subprocess.run(run + ["dequantize", str(path), "output.weight",
                                   "-o", str(out)],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert_same_bits(np.load(out),
                     ggml_reference.dequantize(gw.GGML_TYPE_Q6_K, raw,
                                               [512, 2]), "CLI Q6_K")
    listing = subprocess.run(run + ["list", str(path)], capture_output=True,
                             text=True, env=env)
    assert listing.returncode == 0, listing.stderr
    assert "output.weight: Q6_K [2, 512] -> !quant_block.tensor<2x512" in \
        listing.stdout
    missing = subprocess.run(run + ["dequantize", str(path), "nope", "-o",
                                    str(out)], capture_output=True, text=True,
                             env=env)
    assert missing.returncode == 1
    assert "no tensor named 'nope'" in missing.stderr


# --- against ggml itself (optional: needs the npm package) -----------------

GGML_QUANTIZED = [t for t in IMPORTED_TYPES if t not in (
    gw.GGML_TYPE_F32,)]


def test_files_written_by_ggml_match_its_to_float(ggml, tmp_path):
    """ggml quantizes (ggml_quantize_chunk) and writes (gguf_write_to_file)
    a file with a tensor of every importable type; each tensor, imported
    and dequantized by compiled code, equals ggml's to_float bit for bit."""
    rng = np.random.default_rng(17)
    path = str(tmp_path / "ggml.gguf")
    g = ggml.gguf_init_empty()
    ctx = ggml.ggml_init(GgmlInitParams(64 << 20, None, False))
    expected = {}
    try:
        ggml.gguf_set_val_str(g, b"general.architecture", b"llama")
        ggml.gguf_set_val_u32(g, b"general.quantization_version", 2)
        for type_id in GGML_QUANTIZED:
            for kind in ("moderate", "binades"):
                x = _float_input(kind, rng)
                rows, row = x.shape
                name = f"{NAMES[type_id]}.{kind}"
                t = ggml.ggml_new_tensor_2d(ctx, type_id, row, rows)
                ggml.ggml_set_name(t, name.encode())
                raw = _quantize(ggml, type_id, x)
                ctypes_memmove(ggml.ggml_get_data(t), raw)
                ggml.gguf_add_tensor(g, t)
                expected[name] = _ggml_to_float(ggml, type_id, raw, [row, rows])
        assert ggml.gguf_write_to_file(g, path.encode(), False)
    finally:
        ggml.gguf_free(g)
        ggml.ggml_free(ctx)
    with gguf.open(path) as f:
        assert f.metadata["general.quantization_version"] == 2
        for name, want in expected.items():
            assert_same_bits(f.dequantize(name), want, name)


def ctypes_memmove(address, data):
    import ctypes
    ctypes.memmove(address, data, len(data))


@pytest.fixture(scope="module")
def ggml_cpu(ggml):
    """ggml's portable CPU backend (libggml-cpu-x64.so: no instruction the
    host may lack) beside libggml-base.so, for ggml_mul_mat."""
    import ctypes
    base_dir = os.path.dirname(ggml._name)
    path = os.path.join(base_dir, "libggml-cpu-x64.so")
    if not os.path.isfile(path):
        pytest.skip(f"{path} not found (npm's @node-llama-cpp/linux-x64)")
    lib = ctypes.CDLL(path)
    lib.ggml_cpu_init.restype = None
    lib.ggml_graph_compute_with_ctx.restype = ctypes.c_int
    lib.ggml_graph_compute_with_ctx.argtypes = [ctypes.c_void_p,
                                                ctypes.c_void_p, ctypes.c_int]
    ggml.ggml_mul_mat.restype = ctypes.c_void_p
    ggml.ggml_mul_mat.argtypes = [ctypes.c_void_p] * 3
    ggml.ggml_new_graph.restype = ctypes.c_void_p
    ggml.ggml_new_graph.argtypes = [ctypes.c_void_p]
    ggml.ggml_build_forward_expand.restype = None
    ggml.ggml_build_forward_expand.argtypes = [ctypes.c_void_p] * 2
    lib.ggml_cpu_init()
    return lib


def ggml_mul_mat(ggml, ggml_cpu, type_id, raw, n, k, x):
    """ggml_mul_mat(W, x) of a [N, K] weight of `type_id` (ggml's blocks
    `raw`) and f32 activations x [M, K]: y [M, N], as llama.cpp computes a
    linear layer (activations quantized to the weight's vec_dot_type)."""
    import ctypes
    m = x.shape[0]
    ctx = ggml.ggml_init(GgmlInitParams(64 << 20, None, False))
    try:
        w = ggml.ggml_new_tensor_2d(ctx, type_id, k, n)
        ctypes.memmove(ggml.ggml_get_data(w), raw, len(raw))
        a = ggml.ggml_new_tensor_2d(ctx, gw.GGML_TYPE_F32, k, m)
        ctypes.memmove(ggml.ggml_get_data(a), np.ascontiguousarray(x).ctypes.data,
                       x.nbytes)
        y = ggml.ggml_mul_mat(ctx, w, a)
        graph = ggml.ggml_new_graph(ctx)
        ggml.ggml_build_forward_expand(graph, y)
        assert ggml_cpu.ggml_graph_compute_with_ctx(ctx, graph, 1) == 0
        out = np.empty((m, n), np.float32)
        ctypes.memmove(out.ctypes.data, ggml.ggml_get_data(y), out.nbytes)
        return out
    finally:
        ggml.ggml_free(ctx)


@pytest.mark.parametrize("type_id", [gw.GGML_TYPE_Q4_0, gw.GGML_TYPE_Q4_K,
                                     gw.GGML_TYPE_Q6_K],
                         ids=["Q4_0", "Q4_K", "Q6_K"])
def test_matmul_agrees_with_ggml_mul_mat(ggml, ggml_cpu, tmp_path, type_id):
    """The compiled quant_block.matmul on an imported weight and
    ggml_mul_mat on the same blocks, against the exact product of the
    dequantized weight (f64). Ours is within f32 rounding of it; ggml's
    differs by its activation quantization, bounded as docs/GGUF.md derives
    (Q8_0 for Q4_0: per element 0.5 + 127 * 2^-11 times d = amax / 127 of
    its 32-block; Q8_K for the K-quants: 0.5 d plus rounding, blocks of
    256), so the check fails on any layout or scale mismatch."""
    rng = np.random.default_rng(23)
    n, k, m = 32, 512, 4
    weight = rng.standard_normal((n, k)).astype(np.float32)
    raw = _quantize(ggml, type_id, weight)
    path = tmp_path / "w.gguf"
    gw.write_gguf(path, [], [("w", [k, n], type_id, raw)])
    x = rng.standard_normal((m, k)).astype(np.float32)
    with gguf.open(path) as f:
        ours = linear(f, "w", x)
    theirs = ggml_mul_mat(ggml, ggml_cpu, type_id, raw, n, k, x)
    w = _ggml_to_float(ggml, type_id, raw, [k, n]).astype(np.float64)
    exact = x.astype(np.float64) @ w.T
    magnitude = np.abs(x).astype(np.float64) @ np.abs(w).T
    assert np.all(np.abs(ours - exact) <= 1e-5 * magnitude)
    block = 32 if type_id == gw.GGML_TYPE_Q4_0 else 256
    amax = np.abs(x).reshape(m, k // block, block).max(-1)
    per_element = (0.5 + 127 * 2.0 ** -11) * amax / 127
    error = np.repeat(per_element, block, axis=1).astype(np.float64) @ np.abs(w).T
    deviation = np.abs(theirs - exact)
    assert np.all(deviation <= error + 1e-5 * magnitude)
    # The bound is not vacuous: ggml's activation rounding shows.
    assert deviation.max() > 1e-5 * magnitude.max()
