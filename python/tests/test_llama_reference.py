"""The LLaMA test oracles: random-weight LLaMA GGUF files
(quant_block.gguf_writer.write_random_llama and its quantizers), the float64
reference forward pass (quant_block.llama_reference) and the ctypes wrapper
of the prebuilt llama.cpp (llamacpp.py).

Always run: the files of every mix read back (read_gguf) with the names,
shapes, types and metadata of notes gguf.md section 5, their weights
decoded by ggml_reference within each type's quantization error of the
float weights; the quantizers against their definitions; properties of the
reference (causality, RoPE on stored rows = Hugging Face's rotate_half on
un-permuted rows, contiguous GQA grouping).

With the npm bundle of ggml / llama.cpp (skipped, saying why, without it):
the quantizers byte for byte against ggml_quantize_chunk (Q4_0, Q5_0, Q8_0,
MXFP4) or decodable by ggml's to_float (Q4_K, Q6_K); llama.cpp's struct
layouts checked; llama.cpp's logits of a tiny model against the reference
on the same dequantized weights: top-1 agreement on >= 90 % of the 32
positions, relative L2 error < 0.05 (llama.cpp quantizes activations to
Q8_0 / Q8_K and keeps the KV cache in f16: notes llama-cpp.md).
"""

import ctypes
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ggml_reference  # noqa: E402
import llamacpp  # noqa: E402
from test_gguf_reference_vs_ggml import (  # noqa: E402,F401
    _float_input, _ggml_to_float, _quantize, ggml)

from quant_block import gguf_writer as gw  # noqa: E402
from quant_block import llama_reference as lr  # noqa: E402

MIXES = list(gw.LLAMA_MIXES)

# The tiny model: every row length a multiple of 256, so Q4_K_M has no
# fallbacks; 4 query heads over 2 kv heads (GQA).
TINY = dict(n_vocab=512, n_embd=256, n_layer=2, n_ff=512, n_head=4,
            n_head_kv=2)
N_PROMPT = 32

NAMES = {v: k[len("GGML_TYPE_"):] for k, v in vars(gw).items()
         if k.startswith("GGML_TYPE_") and k != "GGML_TYPE_COUNT"}

# Relative L2 error of dequantize(quantize(x)) on gaussian rows, per type:
# bounds about 1.5x what the quantizers give.
QUANT_ERROR = {gw.GGML_TYPE_F32: 0.0, gw.GGML_TYPE_F16: 1e-3,
               gw.GGML_TYPE_Q8_0: 0.01, gw.GGML_TYPE_Q5_0: 0.07,
               gw.GGML_TYPE_Q4_0: 0.13, gw.GGML_TYPE_Q4_K: 0.13,
               gw.GGML_TYPE_Q6_K: 0.03, gw.GGML_TYPE_MXFP4: 0.18}


def _rel(a, b):
    return float(np.linalg.norm(np.asarray(a, np.float64) - b)
                 / np.linalg.norm(b))


def _load(path):
    """(read_gguf result, {name: float32 weights decoded by ggml_reference},
    config)."""
    f = gw.read_gguf(path)
    weights = {t.name: ggml_reference.dequantize(t.type_id, t.data, t.ne)
               for t in f.tensors}
    return f, weights, lr.config_from_metadata(f.kv, weights)


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory):
    """{mix: path} of the tiny model (seed 0) in every mix."""
    d = tmp_path_factory.mktemp("llama")
    files = {}
    for mix in MIXES:
        files[mix] = str(d / f"tiny-{mix}.gguf")
        gw.write_random_llama(files[mix], mix=mix, seed=0, **TINY)
    return files


# --- the files ---------------------------------------------------------------

def _expected_type(name, mix, n_layer, k, tied):
    """llama_tensor_types' documented rules, restated."""
    if name.endswith("norm.weight"):
        return gw.GGML_TYPE_F32
    is_output = name == "output.weight" or (
        tied and name == "token_embd.weight")
    if mix == "F32":
        return gw.GGML_TYPE_F32
    if mix == "Q8_0":
        return gw.GGML_TYPE_Q8_0
    if mix == "MXFP4":
        return gw.GGML_TYPE_MXFP4
    if mix == "Q4_0":
        if is_output:
            return gw.GGML_TYPE_Q6_K if k % 256 == 0 else gw.GGML_TYPE_Q8_0
        return gw.GGML_TYPE_Q4_0
    layer = int(name.split(".")[1]) if name.startswith("blk.") else -1
    more = (layer < n_layer // 8 or layer >= 7 * n_layer // 8
            or (layer - n_layer // 8) % 3 == 2)
    wide = is_output or (name.split(".")[-2] in ("attn_v", "ffn_down")
                         and more)
    if k % 256:
        return gw.GGML_TYPE_Q8_0 if wide else gw.GGML_TYPE_Q5_0
    return gw.GGML_TYPE_Q6_K if wide else gw.GGML_TYPE_Q4_K


@pytest.mark.parametrize("tied", [False, True], ids=["untied", "tied"])
@pytest.mark.parametrize("mix", MIXES)
def test_random_llama_reads_back(tmp_path, mix, tied):
    """Names in file order, ne, types, metadata (u32 ints, f32 floats, the
    tokenizer) as written; every tensor decodes (ggml_reference) to the
    float weights within its type's quantization error."""
    dims = dict(TINY, n_layer=9)  # use_more_bits picks 0, 3, 6, 7, 8
    path = str(tmp_path / "m.gguf")
    info = gw.write_random_llama(path, mix=mix, seed=3, tie_output=tied,
                                 n_ctx=2048, freq_base=500000.0, eps=1e-6,
                                 **dims)
    f = gw.read_gguf(path)
    assert os.path.getsize(path) == info["size"]
    hd = dims["n_embd"] // dims["n_head"]
    names = [t.name for t in f.tensors]
    want_names = ["token_embd.weight"]
    for i in range(dims["n_layer"]):
        want_names += [f"blk.{i}.{n}.weight" for n in (
            "attn_norm", "attn_q", "attn_k", "attn_v", "attn_output",
            "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")]
    want_names += ["output_norm.weight"] + ([] if tied else ["output.weight"])
    assert names == want_names
    e, v, ff = dims["n_embd"], dims["n_vocab"], dims["n_ff"]
    shape_of = {"token_embd": [e, v], "output": [e, v], "output_norm": [e],
                "attn_norm": [e], "ffn_norm": [e],
                "attn_q": [e, dims["n_head"] * hd],
                "attn_k": [e, dims["n_head_kv"] * hd],
                "attn_v": [e, dims["n_head_kv"] * hd],
                "attn_output": [dims["n_head"] * hd, e],
                "ffn_gate": [e, ff], "ffn_up": [e, ff], "ffn_down": [ff, e]}
    for index, t in enumerate(f.tensors):
        assert t.ne == shape_of[t.name.split(".")[-2]], t.name
        want_type = _expected_type(t.name, mix, dims["n_layer"], t.ne[0],
                                   tied)
        assert t.type_id == want_type == info["types"][t.name], \
            (t.name, NAMES[t.type_id], NAMES[want_type])
        got = ggml_reference.dequantize(t.type_id, t.data, t.ne)
        floats = gw.random_llama_tensor(t.name, t.ne, 3, index)
        assert got.shape == floats.shape == tuple(t.ne[::-1])
        assert _rel(got, floats) <= QUANT_ERROR[t.type_id], \
            (t.name, NAMES[t.type_id], _rel(got, floats))
    if mix == "Q4_K_M":
        wide = {i for i in range(9)
                if f.tensor(f"blk.{i}.attn_v.weight").type_id
                == gw.GGML_TYPE_Q6_K}
        assert wide == {0, 3, 6, 7, 8}

    types = {key: gguf_type for key, gguf_type, _ in f.metadata}
    kv = f.kv
    u32 = {"general.file_type": gw.LLAMA_FTYPE[mix],
           "general.quantization_version": 2,
           "llama.context_length": 2048, "llama.embedding_length": e,
           "llama.block_count": 9, "llama.feed_forward_length": ff,
           "llama.rope.dimension_count": hd,
           "llama.attention.head_count": dims["n_head"],
           "llama.attention.head_count_kv": dims["n_head_kv"],
           "llama.vocab_size": v, "tokenizer.ggml.bos_token_id": 1,
           "tokenizer.ggml.eos_token_id": 2,
           "tokenizer.ggml.unknown_token_id": 0}
    for key, value in u32.items():
        assert (types[key], kv[key]) == (gw.UINT32, value), key
    assert types["llama.rope.freq_base"] == gw.FLOAT32
    assert kv["llama.rope.freq_base"] == 500000.0
    assert types["llama.attention.layer_norm_rms_epsilon"] == gw.FLOAT32
    assert kv["llama.attention.layer_norm_rms_epsilon"] == pytest.approx(
        1e-6, rel=1e-7)
    assert kv["general.architecture"] == "llama"
    assert f.metadata[0][0] == "general.architecture"
    assert kv["tokenizer.ggml.model"] == "llama"
    elem, tokens = kv["tokenizer.ggml.tokens"]
    assert elem == gw.STRING and len(tokens) == v
    assert len(set(tokens)) == v  # llama.cpp aborts on duplicates
    assert tokens[:3] == ["<unk>", "<s>", "</s>"]
    assert tokens[3 + 10] == "<0x0A>"  # the newline token of an SPM vocab
    assert kv["tokenizer.ggml.scores"][0] == gw.FLOAT32
    assert len(kv["tokenizer.ggml.scores"][1]) == v
    assert kv["tokenizer.ggml.token_type"] == (
        gw.INT32, [2, 3, 3] + [6] * 256 + [1] * (v - 259))

    config = lr.config_from_metadata(kv)
    assert config == dict(n_embd=e, n_layer=9, n_ff=ff,
                          n_head=dims["n_head"],
                          n_head_kv=dims["n_head_kv"], n_rot=hd,
                          freq_base=500000.0,
                          eps=kv["llama.attention.layer_norm_rms_epsilon"],
                          n_vocab=v)


def test_same_seed_same_weights_in_every_mix(tiny_files):
    """Every mix of one seed quantizes the same float weights, so a mix
    can be compared with the F32 file."""
    f32 = gw.read_gguf(tiny_files["F32"])
    for mix in MIXES:
        f = gw.read_gguf(tiny_files[mix])
        for t32, t in zip(f32.tensors, f.tensors):
            got = ggml_reference.dequantize(t.type_id, t.data, t.ne)
            want = ggml_reference.dequantize(t32.type_id, t32.data, t32.ne)
            assert _rel(got, want) <= QUANT_ERROR[t.type_id], (mix, t.name)


def test_write_random_llama_refuses_bad_shapes(tmp_path):
    with pytest.raises(ValueError, match="multiple of the block size"):
        gw.write_random_llama(str(tmp_path / "x.gguf"), n_vocab=64,
                              n_embd=48, n_layer=1, n_ff=64, n_head=4,
                              n_head_kv=4, mix="Q4_0")
    with pytest.raises(ValueError, match="heads"):
        gw.write_random_llama(str(tmp_path / "x.gguf"), n_vocab=64,
                              n_embd=64, n_layer=1, n_ff=64, n_head=4,
                              n_head_kv=3, mix="F32")
    with pytest.raises(ValueError, match="unknown mix"):
        gw.write_random_llama(str(tmp_path / "x.gguf"), n_vocab=64,
                              n_embd=64, n_layer=1, n_ff=64, n_head=4,
                              n_head_kv=4, mix="Q3_K_S")


def test_q4_k_m_fallbacks_for_short_rows():
    """Rows not a multiple of 256 fall back as llama.cpp does: Q4_K ->
    Q5_0, Q6_K -> Q8_0."""
    shapes = gw.llama_tensor_shapes(n_vocab=64, n_embd=128, n_layer=1,
                                    n_ff=256, n_head=2, n_head_kv=2)
    types = gw.llama_tensor_types(shapes, "Q4_K_M", 1)
    assert types["blk.0.attn_q.weight"] == gw.GGML_TYPE_Q5_0
    assert types["blk.0.attn_v.weight"] == gw.GGML_TYPE_Q8_0
    assert types["blk.0.ffn_down.weight"] == gw.GGML_TYPE_Q6_K  # K = n_ff
    assert types["output.weight"] == gw.GGML_TYPE_Q8_0
    assert gw.llama_tensor_types(shapes, "Q4_0", 1)["output.weight"] == \
        gw.GGML_TYPE_Q8_0


# --- the quantizers ----------------------------------------------------------

@pytest.mark.parametrize("type_id", gw.QUANTIZE_TYPES,
                         ids=[NAMES[t] for t in gw.QUANTIZE_TYPES])
def test_quantize_round_trip(type_id):
    """quantize's bytes have the tensor's size and decode (ggml_reference)
    within the type's error; zero rows stay zero."""
    rng = np.random.default_rng(type_id)
    x = rng.standard_normal((8, 512)).astype(np.float32)
    x[3] = 0
    raw = gw.quantize(type_id, x)
    assert len(raw) == gw.tensor_nbytes(type_id, [512, 8])
    y = ggml_reference.dequantize(type_id, raw, [512, 8])
    assert np.all(y[3] == 0)
    assert _rel(y, x) <= QUANT_ERROR[type_id]


def test_q8_0_rounds_halves_away_from_zero():
    """roundf, not rint: with amax 127 (d = 1) the codes of +-0.5, +-1.5,
    +-2.5 are +-1, +-2, +-3, and 0.49999997 stays 0."""
    x = np.zeros(32, dtype=np.float32)
    x[:8] = [127, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997]
    codes = np.frombuffer(gw.quantize(gw.GGML_TYPE_Q8_0, x)[2:], np.int8)
    assert list(codes[:8]) == [127, 1, 2, 3, -1, -2, -3, 0]


def test_mxfp4_rounds_to_nearest_even():
    """OCP: amax 6 gives the exponent byte 127 (scale 1); x/scale rounded
    to the nearest E2M1 value, ties to the even code; saturation at 6;
    never code 8."""
    vals = [6, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 5.9, -0.25, -0.0,
            -6, 0.3, -2.9]
    want = [7, 0, 2, 2, 4, 4, 6, 6, 7, 0, 0, 15, 1, 13]
    x = np.zeros(32, dtype=np.float32)
    x[:len(vals)] = vals
    raw = np.frombuffer(gw.quantize(gw.GGML_TYPE_MXFP4, x), np.uint8)
    assert raw[0] == 127
    codes = np.concatenate([raw[1:] & 15, raw[1:] >> 4])
    assert list(codes[:len(vals)]) == want
    assert 8 not in codes


@pytest.mark.parametrize("kind", ["moderate", "binades"])
@pytest.mark.parametrize("type_id", [gw.GGML_TYPE_Q4_0, gw.GGML_TYPE_Q5_0,
                                     gw.GGML_TYPE_Q8_0, gw.GGML_TYPE_MXFP4,
                                     gw.GGML_TYPE_F16],
                         ids=["Q4_0", "Q5_0", "Q8_0", "MXFP4", "F16"])
def test_quantize_matches_ggml(ggml, type_id, kind):
    """Q4_0 / Q5_0 / Q8_0 are ggml's reference quantizers: the same bytes
    as ggml_quantize_chunk; so is MXFP4 on inputs without exact ties (ggml
    breaks those toward the smaller magnitude, OCP to even)."""
    x = _float_input(kind, np.random.default_rng([type_id, len(kind)]))
    assert gw.quantize(type_id, x) == _quantize(ggml, type_id, x)


@pytest.mark.parametrize("type_id", [gw.GGML_TYPE_Q4_K, gw.GGML_TYPE_Q6_K],
                         ids=["Q4_K", "Q6_K"])
def test_k_quants_decode_in_ggml(ggml, type_id):
    """Q4_K / Q6_K (a scheme of our own) are valid blocks: ggml's to_float
    decodes them to what ggml_reference decodes, and they are about as
    close to the input as ggml's own quantization."""
    x = _float_input("moderate", np.random.default_rng(type_id))
    ne = [x.shape[1], x.shape[0]]
    raw = gw.quantize(type_id, x)
    ours = ggml_reference.dequantize(type_id, raw, ne)
    np.testing.assert_array_equal(_ggml_to_float(ggml, type_id, raw, ne),
                                  ours)
    theirs = ggml_reference.dequantize(
        type_id, _quantize(ggml, type_id, x), ne)
    assert _rel(ours, x) <= 1.25 * _rel(theirs, x)


# --- the reference -----------------------------------------------------------

def _small_model(n_head=4, n_head_kv=2, seed=0):
    rng = np.random.default_rng(seed)
    e, ff, v, hd = 32, 48, 40, 8
    config = dict(n_embd=e, n_layer=2, n_ff=ff, n_head=n_head,
                  n_head_kv=n_head_kv, n_rot=hd, freq_base=10000.0,
                  eps=1e-5, n_vocab=v)
    w = {"token_embd.weight": rng.standard_normal((v, e)),
         "output_norm.weight": 1 + 0.1 * rng.standard_normal(e),
         "output.weight": rng.standard_normal((v, e)) / np.sqrt(e)}
    for i in range(2):
        p = f"blk.{i}."
        w[p + "attn_norm.weight"] = 1 + 0.1 * rng.standard_normal(e)
        w[p + "ffn_norm.weight"] = 1 + 0.1 * rng.standard_normal(e)
        for name, shape in (("attn_q", (n_head * hd, e)),
                            ("attn_k", (n_head_kv * hd, e)),
                            ("attn_v", (n_head_kv * hd, e)),
                            ("attn_output", (e, n_head * hd)),
                            ("ffn_gate", (ff, e)), ("ffn_up", (ff, e)),
                            ("ffn_down", (e, ff))):
            w[p + name + ".weight"] = (rng.standard_normal(shape)
                                       / np.sqrt(shape[1]))
    return w, config


def test_reference_is_causal_and_tied():
    """Logits at position t depend on tokens 0..t only; without
    output.weight the head is token_embd."""
    w, config = _small_model()
    tokens = np.arange(10) % config["n_vocab"]
    full = lr.forward(w, config, tokens)
    assert full.shape == (10, config["n_vocab"])
    np.testing.assert_allclose(lr.forward(w, config, tokens[:6]), full[:6],
                               rtol=1e-12, atol=1e-12)
    tied = dict(w)
    del tied["output.weight"]
    x = lr.forward(dict(tied, **{"output.weight":
                                 tied["token_embd.weight"]}), config, tokens)
    np.testing.assert_allclose(lr.forward(tied, config, tokens), x,
                               rtol=1e-12, atol=1e-12)


def test_reference_rope_is_neox_on_unpermuted_rows():
    """NORM-mode RoPE on the GGUF's rows equals Hugging Face's rotate_half
    (NEOX) on the rows un-permuted (the inverse of convert_hf_to_gguf's
    permute), the fact of notes llama-cpp.md, checked on the reference's
    q and k after RoPE."""
    rng = np.random.default_rng(1)
    t, heads, hd, k_in = 7, 3, 8, 16
    w = rng.standard_normal((heads * hd, k_in))
    x = rng.standard_normal((t, k_in))
    pos = np.arange(t)
    got = lr.rope_norm((x @ w.T).reshape(t, heads, hd), pos, hd, 10000.0)
    unperm = w.reshape(heads, hd // 2, 2, k_in).swapaxes(1, 2).reshape(
        heads * hd, k_in)
    y = (x @ unperm.T).reshape(t, heads, hd)
    inv = 10000.0 ** (-np.arange(0, hd, 2) / hd)
    ang = np.concatenate([pos[:, None] * inv] * 2, axis=1)[:, None, :]
    rot = np.concatenate([-y[..., hd // 2:], y[..., :hd // 2]], axis=-1)
    neox = y * np.cos(ang) + rot * np.sin(ang)
    # Back to the stored (interleaved) order.
    back = neox.reshape(t, heads, 2, hd // 2).swapaxes(2, 3).reshape(
        t, heads, hd)
    np.testing.assert_allclose(got, back, rtol=1e-12, atol=1e-12)
    # Partial rotation: dims from n_rot on pass unchanged.
    part = lr.rope_norm((x @ w.T).reshape(t, heads, hd), pos, 4, 10000.0)
    np.testing.assert_array_equal(part[..., 4:],
                                  (x @ w.T).reshape(t, heads, hd)[..., 4:])


def test_reference_gqa_groups_are_contiguous():
    """GQA with n_head_kv kv heads equals MHA whose k / v rows repeat each
    kv head for n_head / n_head_kv consecutive query heads."""
    w, config = _small_model(n_head=4, n_head_kv=2)
    mha = dict(w)
    hd = config["n_embd"] // config["n_head"]
    for i in range(config["n_layer"]):
        for name in ("attn_k", "attn_v"):
            key = f"blk.{i}.{name}.weight"
            heads = w[key].reshape(2, hd, -1)
            mha[key] = np.repeat(heads, 2, axis=0).reshape(4 * hd, -1)
    tokens = np.arange(9)
    np.testing.assert_allclose(
        lr.forward(w, config, tokens),
        lr.forward(mha, dict(config, n_head_kv=4), tokens),
        rtol=1e-12, atol=1e-12)


# --- llama.cpp ---------------------------------------------------------------

@pytest.fixture(scope="module")
def llama_lib():
    """libllama of the bundle, ABI checked and backends loaded; skips
    without it."""
    folder, reason = llamacpp.library_dir()
    if folder is None:
        pytest.skip(reason)
    return llamacpp.load_library(folder)[0]


def test_llamacpp_abi(llama_lib):
    """The declared llama_model_params / llama_context_params / llama_batch
    are the library's (sizes, bytes written by the default-params
    functions, the 47 defaults)."""
    llamacpp.check_abi(llama_lib)


class _ModelParams2025(ctypes.Structure):
    """llama_model_params of a 2025 llama.h (72 bytes: use_mmap /
    use_direct_io / use_mlock, no load_mode / lazy_mode)."""
    _fields_ = [("devices", ctypes.c_void_p),
                ("tensor_buft_overrides", ctypes.c_void_p),
                ("n_gpu_layers", ctypes.c_int32),
                ("split_mode", ctypes.c_int32),
                ("main_gpu", ctypes.c_int32),
                ("tensor_split", ctypes.c_void_p),
                ("progress_callback", ctypes.c_void_p),
                ("progress_callback_user_data", ctypes.c_void_p),
                ("kv_overrides", ctypes.c_void_p)] + [
        (name, ctypes.c_bool) for name in (
            "vocab_only", "use_mmap", "use_direct_io", "use_mlock",
            "check_tensors", "use_extra_bufts", "no_host", "no_alloc")]


def test_llamacpp_abi_check_catches_an_old_header(llama_lib):
    """The canary check refuses the layout of an older llama.h (the
    function writes 78 bytes, past its 72), so a harness built on the
    wrong header cannot go unnoticed."""
    assert ctypes.sizeof(_ModelParams2025) == 72
    with pytest.raises(AssertionError, match="past the"):
        llamacpp.check_written(llama_lib, "llama_model_default_params",
                               _ModelParams2025)


def _prompt():
    return np.random.default_rng(0).integers(3, TINY["n_vocab"], N_PROMPT)


@pytest.mark.parametrize("mix", MIXES)
def test_llamacpp_logits_match_reference(llama_lib, tiny_files, mix,
                                         record_property):
    """llama.cpp (defaults: flash attention auto = on, AMX / repacked
    weights) against the float64 reference on ggml_reference's decoding
    of the same file: top-1 on >= 90 % of the positions, every
    disagreement a near tie (the reference's logit of llama.cpp's token
    within 4 RMS errors of its maximum), relative L2 error < 0.05 (F32:
    < 0.005, llama.cpp's f16 KV cache and flash attention only)."""
    _, weights, config = _load(tiny_files[mix])
    tokens = _prompt()
    want = lr.forward(weights, config, tokens)
    with llamacpp.LlamaCpp(tiny_files[mix], n_ctx=64) as llm:
        assert llm.n_vocab == TINY["n_vocab"] and llm.rope_type == 0
        got = llm.logits(tokens).astype(np.float64)
    assert got.shape == want.shape
    rel = _rel(got, want)
    top1 = float(np.mean(got.argmax(1) == want.argmax(1)))
    rms = np.sqrt(np.mean((got - want) ** 2))
    gap = want.max(1) - want[np.arange(len(tokens)), got.argmax(1)]
    record_property("top1", top1)
    record_property("rel_l2", rel)
    print(f"\n{mix}: top-1 {top1:.3f}, relative L2 {rel:.4f}, max |err| / "
          f"max |logit| {np.abs(got - want).max() / np.abs(want).max():.4f}")
    assert top1 >= 0.9
    assert np.all(gap <= 4 * rms), gap.max() / rms
    assert rel < (0.005 if mix == "F32" else 0.05)


def test_llamacpp_fresh_sequences_and_chunks(llama_lib, tiny_files):
    """Each logits() call starts a fresh sequence (same result twice);
    feeding the prompt in n_batch chunks, without flash attention or
    without the AMX / repacked buffers, moves the logits by about 1 %."""
    path = tiny_files["Q4_0"]
    tokens = _prompt()
    with llamacpp.LlamaCpp(path, n_ctx=64) as llm:
        first = llm.logits(tokens)
        np.testing.assert_array_equal(llm.logits(tokens), first)
        head = llm.logits(tokens[:5])
    assert _rel(head, first[:5]) < 0.02
    for kwargs in (dict(n_batch=8), dict(flash_attn=False),
                   dict(use_extra_bufts=False, flash_attn=True)):
        with llamacpp.LlamaCpp(path, n_ctx=64, **kwargs) as llm:
            assert _rel(llm.logits(tokens), first) < 0.03, kwargs


def test_llamacpp_bench_smoke(llama_lib, tiny_files):
    """bench() returns tokens per second for pp and tg."""
    with llamacpp.LlamaCpp(tiny_files["Q4_0"], n_ctx=64) as llm:
        assert (llm.n_ctx, llm.n_batch) == (256, 64)  # padded; clamped
        speed = llm.bench(pp=100, tg=4)  # pp in two llama_decode calls
        with pytest.raises(ValueError):
            llm.bench(pp=llm.n_ctx + 1, tg=0)
    assert set(speed) == {"pp", "tg"}
    assert speed["pp"] > 0 and speed["tg"] > 0
