"""The compiled LLaMA model (quant_block.llama): random-weight GGUF files of
every type mix, compiled by the CPU pipeline and run through prefill and
decode over the in-place KV cache, against the float64 numpy reference on
the weights as ggml decodes them (ggml_reference: independent of the
importer) and, where the npm bundle is present, against llama.cpp itself on
the same file; errors for files that are not LLaMA models; the command
line."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import llamacpp  # noqa: E402
from test_llama_reference import TINY, _load, _rel  # noqa: E402

from quant_block import gguf_writer as gw  # noqa: E402
from quant_block import llama  # noqa: E402
from quant_block import llama_reference as lr  # noqa: E402

MIXES = list(gw.LLAMA_MIXES)
PROMPT = np.random.default_rng(1).integers(3, TINY["n_vocab"], 12).tolist()

# f32 activations: f32 arithmetic in a fixed order against float64; the
# bound is docs/Llama.md's (measured 3e-7 .. 6e-7 on these models).
F32_BOUND = 1e-5


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("llama-compiled")
    out = {}
    for mix in MIXES:
        out[mix] = str(d / f"{mix}.gguf")
        gw.write_random_llama(out[mix], mix=mix, seed=3, **TINY)
    return out


def run_in_steps(model, tokens):
    """Prefill of 8, prefill of 2, then decode one by one: the logits of
    every position, each step reading the cache the earlier ones wrote."""
    return np.concatenate([model.prefill(tokens[:8]), model.prefill(tokens[8:10])]
                          + [model.decode(t)[None] for t in tokens[10:]])


@pytest.mark.parametrize("mix", MIXES)
def test_logits_match_the_reference(files, mix):
    _, weights, config = _load(files[mix])
    want = lr.forward(weights, config, PROMPT)
    model = llama.Llama(files[mix], capacity=16, fast=False)
    got = run_in_steps(model, PROMPT)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert _rel(got, want) < F32_BOUND
    assert np.array_equal(got.argmax(1), want.argmax(1))
    # The cache persists and reset() starts over: the same logits again.
    model.reset()
    np.testing.assert_array_equal(model.prefill(PROMPT[:8]), got[:8])


def test_fast_math_and_int8_activations(files):
    """fastmath<fast> products stay within the f32 bound; int8 activations
    (llama.cpp's approach, exact i32 block sums) within the size of its own
    deviation from exact math (docs/Llama.md)."""
    _, weights, config = _load(files["Q4_K_M"])
    want = lr.forward(weights, config, PROMPT)
    fast = llama.Llama(files["Q4_K_M"], capacity=16)
    assert _rel(run_in_steps(fast, PROMPT), want) < F32_BOUND
    # Q4_0 and Q4_K_M: every product takes int8 activations, Q4_K's mins
    # times the activation block sums, Q6_K (widened to i8) in blocks of
    # 16.
    for mix in ("Q4_0", "Q4_K_M"):
        _, weights, config = _load(files[mix])
        want = lr.forward(weights, config, PROMPT)
        int8 = llama.Llama(files[mix], capacity=16, activations="int8")
        products = [line for line in int8.module_text(1).splitlines()
                    if "quant_block.matmul" in line]
        assert all("accumulate(i32)" in line for line in products)
        # Each block's f32 term one FMA (`contract`), unless strict.
        assert all("accumulate(i32) inhibit fastmath<contract> :" in line
                   for line in products)
        with_mins = [line for line in products if "min = f16" in line]
        assert bool(with_mins) == (mix == "Q4_K_M")
        assert all("accumulate(i32)" in line for line in with_mins)
        got = run_in_steps(int8, PROMPT)
        assert 1e-5 < _rel(got, want) < 0.05
        assert np.mean(got.argmax(1) == want.argmax(1)) >= 0.9
        # Strict: the block terms rounded, then added; within the same
        # bound, and not the same bits.
        strict = llama.Llama(files[mix], capacity=16, activations="int8",
                             fast=False)
        assert "fastmath" not in strict.module_text(1)
        exact_adds = run_in_steps(strict, PROMPT)
        assert 1e-5 < _rel(exact_adds, want) < 0.05
        assert not np.array_equal(exact_adds, got)


def prefill_then_decode(model, tokens, prompt):
    """The logits of a prefill of the first `prompt` tokens, then of a
    decode step for each token after them."""
    return np.concatenate([model.prefill(tokens[:prompt])] +
                          [model.decode(t)[None] for t in tokens[prompt:]])


def _host_lacks_amx():
    """The CPU flags AMX tiles need that this host lacks (the JIT uses the
    tiles where it has them all and Linux grants their state)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                          if line.startswith("flags")), [])
    except OSError:
        flags = []
    return sorted({"amx_tile", "amx_int8", "avx512_vnni", "avx512bw"}
                  - set(flags))


@pytest.mark.skipif(bool(_host_lacks_amx()),
                    reason=f"the host lacks {' '.join(_host_lacks_amx())}")
@pytest.mark.parametrize("mix", ["Q4_0", "MXFP4", "Q4_K_M"])
def test_int8_prefill_with_amx_tiles(files, mix):
    """A prefill of 20 tokens with int8 activations: its products' whole 16
    rows take AMX tiles on this host, the 4 left over and the decode steps
    vpdpbusd; every logit is the same bits as with x86-amx=false, and the
    prefill agrees with the steps of 8 and 2 tokens and decodes (exact
    integer block sums, the same f32 order for each output)."""
    tokens = np.random.default_rng(7).integers(3, TINY["n_vocab"], 24).tolist()
    amx = llama.Llama(files[mix], capacity=32, activations="int8")
    plain = llama.Llama(files[mix], capacity=32, activations="int8",
                        pipeline="quant-block-cpu-pipeline{x86-amx=false}")
    got = prefill_then_decode(amx, tokens, 20)
    want = prefill_then_decode(plain, tokens, 20)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.isfinite(got).all() and np.abs(got).max() > 0


@pytest.mark.parametrize("mix", ["Q4_0", "Q8_0", "Q4_K_M"])
def test_row_tiled_weights(files, mix):
    """row_tiles (by default with int8 activations where the host has
    AVX512-VNNI): every product's weight in tiles of 16 rows (Q4_0, Q8_0,
    Q4_K with its outer scales and mins, the widened Q6_K with its outer
    scales), the embedding table (gathered by rows) row-major; the logits
    of a prefill of 20 tokens (AMX tiles for 16 of them where the host has
    them) and of decode steps are the same bits as with row-major
    weights."""
    tokens = np.random.default_rng(9).integers(3, TINY["n_vocab"], 24).tolist()
    tiled = llama.Llama(files[mix], capacity=32, activations="int8",
                        row_tiles=True, widen_q6_k=True)
    plain = llama.Llama(files[mix], capacity=32, activations="int8",
                        row_tiles=False, widen_q6_k=True)
    for model, want_tiles in ((tiled, True), (plain, False)):
        lines = model.module_text(1).splitlines()
        products = [line for line in lines if "quant_block.matmul" in line]
        # A layer function (shared; q|k|v and gate|up fused) and the head.
        assert len(products) >= 5
        if mix == "Q4_K_M":
            assert any("min = f16" in line for line in products)
            assert any("i8 : f32, block = [16]" in line for line in products)
        assert all(("row_tile = 16" in line) == want_tiles
                   for line in products)
        assert not any("row_tile" in line for line in lines
                       if "quant_block.dequantize" in line)
    got = prefill_then_decode(tiled, tokens, 20)
    want = prefill_then_decode(plain, tokens, 20)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.isfinite(got).all() and np.abs(got).max() > 0


@pytest.mark.parametrize("mix,activations", [
    ("Q4_0", "int8"), ("Q4_K_M", "int8"), ("Q8_0", "f32")])
def test_fused_products_give_the_same_bits(files, mix, activations):
    """fuse_products (the default): a block's q, k, v
    weights become one product and gate, up another where their types agree
    (Q4_K_M: q and k alone in the layers whose attn_v is Q6_K), their rows
    concatenated at load; the logits of a prefill (AMX tiles for 16 rows
    where the host has them) and of decode steps are the same bits as with
    the products apart, and no weight byte is added."""
    tokens = np.random.default_rng(11).integers(3, TINY["n_vocab"], 22).tolist()
    fused, apart = (llama.Llama(files[mix], capacity=32,
                                activations=activations, fuse_products=fuse)
                    for fuse in (True, False))
    layers = TINY["n_layer"]
    assert sum(".ffn_gate_up." in n for n in fused.order) == layers
    qkv = sum(".attn_qkv." in n for n in fused.order)
    qk = sum(".attn_qk." in n for n in fused.order)
    types = {apart.tensors[f"blk.{i}.attn_{t}.weight"].type
             for i in range(layers) for t in "qkv"}
    if len(types) == 1:
        assert (qkv, qk) == (layers, 0)
    else:  # Q4_K_M: attn_v is Q6_K in the layers use_more_bits picks.
        assert 0 < qkv < layers and qkv + qk == layers
    # Each block has q, k, v fused, or q, k fused and v apart; gate and up
    # fused: every weight once, in the layer function's order.
    for i in range(layers):
        p = f"blk.{i}."
        if p + "attn_qkv.weight" in fused.order:
            attention = ["attn_qkv"]
        else:
            attention = ["attn_qk", "attn_v"]
            assert fused.tensors[p + "attn_v.weight"].type != \
                fused.tensors[p + "attn_qk.weight"].type
        names = [n[len(p):-len(".weight")] for n in fused.order
                 if n.startswith(p)]
        assert names == (["attn_norm"] + attention +
                         ["attn_output", "ffn_norm", "ffn_gate_up",
                          "ffn_down"])
    products = [line for line in fused.module_text(1).splitlines()
                if "quant_block.matmul" in line]
    assert len(products) < len([line for line in apart.module_text(1)
                                .splitlines() if "quant_block.matmul" in line])
    assert sum(p.nbytes for p in fused.parts) == sum(
        p.nbytes for p in apart.parts)
    got = prefill_then_decode(fused, tokens, 18)
    want = prefill_then_decode(apart, tokens, 18)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.isfinite(got).all() and np.abs(got).max() > 0


@pytest.mark.parametrize("mix", ["Q4_0", "Q4_K_M"])
@pytest.mark.parametrize("row_tiles", [True, False])
def test_weights_load_in_chunks_of_rows(files, mix, row_tiles, monkeypatch):
    """The loader writes row-tiled and fused weights chunk by chunk into
    their final arrays (gguf.File.parts_of_rows, each chunk's file pages
    released after it); chunks of a few row tiles give exactly the arrays
    of repacking each tensor whole, then tiling and concatenating it."""
    monkeypatch.setattr(llama, "_LOAD_CHUNK_BYTES", 1000)
    model = llama.Llama(files[mix], capacity=16, activations="int8",
                        row_tiles=row_tiles, widen_q6_k=False)
    assert any(n.endswith(".ffn_gate_up.weight") for n in model.order)
    file = model.file
    checked = 0
    for name in model.order:
        tensor = model.tensors[name]
        if not getattr(tensor, "made_by_model", False):
            continue
        members = [name]
        for fused, parts in llama._FUSED_PRODUCTS.items():
            if name.endswith("." + fused + ".weight"):
                prefix = name[:-len(fused + ".weight")]
                members = [prefix + m + ".weight" for m in parts]
        wholes = []
        for member in members:
            parts = file.parts(member)
            if "row_tile" in tensor.scheme:
                _, parts = llama._tile_rows(file.tensor(member), parts)
            wholes.append(parts)
        want = [np.concatenate(p) for p in zip(*wholes)]
        got = model.parts[sum(len(model.tensors[n].parts) for n in
                              model.order[:model.order.index(name)]):][
                                  :len(want)]
        assert len(got) == len(tensor.parts) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, name
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
        checked += 1
    assert checked >= TINY["n_layer"]


@pytest.mark.parametrize("row_tiles", [True, False])
def test_q6k_in_its_own_six_bit_codes(files, row_tiles):
    """widen_q6_k=False (the default where the int8 kernels with one weight
    row per lane take the products, as row_tiles): Q4_K_M's Q6_K weights
    (the head, half the layers' attn_v and ffn_down) keep the file's 6-bit
    codes, 2 bits per weight fewer than widened, and the logits of a
    prefill of 20 tokens (AMX tiles for 16 of them where the host has them)
    and of decode steps are the same bits as with the codes widened to
    bytes (where the host lacks AVX512-VNNI the 6-bit products take the
    generic lowering, with the same bits)."""
    tokens = np.random.default_rng(10).integers(3, TINY["n_vocab"], 24).tolist()
    models = [llama.Llama(files["Q4_K_M"], capacity=32, activations="int8",
                          row_tiles=row_tiles, widen_q6_k=widen)
              for widen in (False, True)]
    six, widened = models
    products = [line for line in six.module_text(1).splitlines()
                if "quant_block.matmul" in line]
    assert any("i6 : f32, block = [16], scale = i8" in line
               for line in products)
    assert not any("i8 : f32, block = [16], scale = i8" in line
                   for line in products)
    assert sum(p.nbytes for p in six.parts) < sum(
        p.nbytes for p in widened.parts)
    got = prefill_then_decode(six, tokens, 20)
    want = prefill_then_decode(widened, tokens, 20)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.isfinite(got).all() and np.abs(got).max() > 0


@pytest.mark.parametrize("activations", ["f32", "int8"])
def test_prefill_of_the_last_logits(files, activations):
    """last_logits (llama-bench's prompt test, and generate's prompt): the
    head on the last position only, the same bits as its row of the full
    logits; the cache the same afterwards (the next decode agrees)."""
    full = llama.Llama(files["Q4_0"], capacity=16, activations=activations)
    last = llama.Llama(files["Q4_0"], capacity=16, activations=activations)
    want = full.prefill(PROMPT[:10])
    got = last.prefill(PROMPT[:10], last_logits=True)
    assert got.shape == (1, want.shape[1])
    np.testing.assert_array_equal(got.view(np.uint32), want[-1:].view(np.uint32))
    np.testing.assert_array_equal(last.decode(PROMPT[10]).view(np.uint32),
                                  full.decode(PROMPT[10]).view(np.uint32))


def test_module_uses_quant_block_ops_on_the_imported_weights(files):
    model = llama.Llama(files["Q4_0"], capacity=16)
    text = model.module_text(4)
    # One function per distinct tuple of block weight types (one here),
    # called once per block: 4 products in it (q|k|v and gate|up fused:
    # fuse_products; 7 apart), the head in @forward.
    assert text.count("func.call @layer0(") == TINY["n_layer"]
    assert text.count("quant_block.matmul") == 4 + 1
    assert llama.Llama(files["Q4_0"], capacity=16, fuse_products=False) \
        .module_text(4).count("quant_block.matmul") == 7 + 1
    # The embedding is a gather of quantized rows: the one dequantize makes
    # the 4 rows of the call, and no [n_vocab, n_embd] float table exists.
    assert text.count("quant_block.dequantize") == 1
    dequantize = next(line for line in text.splitlines()
                      if "quant_block.dequantize" in line)
    assert "-> tensor<4x256xf32>" in dequantize
    assert "tensor<512x256xf32>" not in text
    assert 'quant_block.gguf_tensor = "blk.1.ffn_down.weight"' in text
    assert "bufferization.materialize_in_destination" in text
    assert "dense<" not in text  # no weight in the IR
    # The Q6_K head's codes are widened to i8 under the file's two levels
    # of scales (the kernels' form; not the file's parts, so not marked as
    # a GGUF tensor); widen_q6_k=False keeps the file's 6-bit codes.
    head = model.tensors["output.weight"]
    assert head.type == "Q6_K" and ("i8 : f32, block = [16], scale = i8, "
                                    "outer = <f16, block = [16]>") \
        in head.mlir_type
    assert 'quant_block.gguf_tensor = "output.weight"' not in text
    plain = llama.Llama(files["Q4_0"], capacity=16, widen_q6_k=False)
    assert "i6 : f32" in plain.tensors["output.weight"].mlir_type
    assert 'quant_block.gguf_tensor = "output.weight"' in plain.module_text(1)


def test_decode_attention_runs_on_threads_over_a_head_major_cache(files):
    """A decode step's attention is an scf.forall over the kv heads on the
    CPU pipeline (the vectorizer never splits its dynamic length over
    threads), over a cache of [layer, kv head, position, head dim]; the
    SPIR-V pipeline's whole-capacity attention has no forall. The logits
    are those of test_logits_match_the_reference either way."""
    model = llama.Llama(files["Q4_0"], capacity=16)
    c = model.config
    assert model.kcache.shape == (c.n_layer, c.n_head_kv, 64, c.head_dim)
    decode = model.module_text(1)
    assert decode.count(" = scf.forall (") == 1
    assert f") in ({c.n_head_kv}) shared_outs(" in decode
    # The prefill's attention takes its threads from the vectorizer.
    assert "scf.forall" not in model.module_text(4)
    spirv = llama.Llama(files["Q4_0"], capacity=16,
                        pipeline="quant-block-spirv-pipeline")
    assert "scf.forall" not in spirv.module_text(1)


def test_generate_is_greedy(files):
    model = llama.Llama(files["Q8_0"], capacity=16)
    out = model.generate(PROMPT[:4], 5)
    model.reset()
    step = model.prefill(PROMPT[:4])[-1]
    expect = []
    for _ in range(5):
        expect.append(int(np.argmax(step)))
        step = model.decode(expect[-1])
    assert out == expect


def test_capacity_and_token_errors(files):
    model = llama.Llama(files["F32"], capacity=8)
    with pytest.raises(ValueError, match="exceed the cache's capacity of 8"):
        model.prefill(PROMPT[:9])
    with pytest.raises(ValueError, match=r"token ids must be in \[0, 512\)"):
        model.prefill([512])


def rewrite(src, dst, drop_key=None, set_key=None, drop_tensor=None,
            reshape=None):
    """A copy of the GGUF `src` with one key or tensor removed or changed."""
    f = gw.read_gguf(src)
    metadata = [(k, t, v) for k, t, v in f.metadata if k != drop_key]
    if set_key:
        metadata = [(k, t, set_key[1] if k == set_key[0] else v)
                    for k, t, v in metadata]
    tensors = []
    for t in f.tensors:
        if t.name == drop_tensor:
            continue
        ne, data = list(t.ne), t.data
        if t.name == reshape:
            ne, data = [ne[0] // 2] + ne[1:], data[:len(data) // 2]
        tensors.append((t.name, ne, t.type_id, data))
    gw.write_gguf(dst, metadata, tensors)
    return dst


def test_files_that_are_not_llama_models(files, tmp_path):
    src = files["Q4_0"]
    cases = [
        (dict(set_key=("general.architecture", "gpt2")),
         "general.architecture is 'gpt2', not 'llama'"),
        (dict(drop_key="llama.block_count"),
         "metadata key 'llama.block_count' is missing"),
        (dict(drop_tensor="blk.1.attn_v.weight"),
         "tensor 'blk.1.attn_v.weight' is missing"),
        (dict(reshape="blk.0.ffn_up.weight"),
         "tensor 'blk.0.ffn_up.weight' has shape [512, 128], but the "
         "metadata says [512, 256]"),
    ]
    for i, (change, message) in enumerate(cases):
        path = rewrite(src, str(tmp_path / f"bad{i}.gguf"), **change)
        with pytest.raises(llama.LlamaError, match=message.replace("[", r"\[")
                           .replace("]", r"\]")):
            llama.Llama(path)


def test_command_line(files, tmp_path):
    out = tmp_path / "logits.npy"
    run = [sys.executable, "-m", "quant_block.llama", files["Q4_0"]]
    tokens = ",".join(str(t) for t in PROMPT[:6])
    result = subprocess.run(run + ["--tokens", tokens, "--logits", str(out),
                                   "--strict"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    _, weights, config = _load(files["Q4_0"])
    assert _rel(np.load(out), lr.forward(weights, config, PROMPT[:6])) < F32_BOUND
    bench = subprocess.run(run + ["--bench", "pp8,tg4", "--threads", "1"],
                           capture_output=True, text=True)
    assert bench.returncode == 0, bench.stderr
    lines = bench.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["pp8", "tg4"]
    assert all(line.endswith(" tok/s") and float(line.split()[1]) > 0
               for line in lines)
    bad = subprocess.run(run[:3] + [str(tmp_path / "missing.gguf"),
                                    "--tokens", "1"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "cannot open" in bad.stderr


# --- against llama.cpp (optional: needs the npm bundle) --------------------

@pytest.mark.parametrize("mix", ["Q4_0", "Q4_K_M"])
def test_agrees_with_llamacpp(files, mix, record_property):
    """The same file through llama.cpp and through the compiled model, all
    positions of a 64-token prompt: top-1 agreement and relative L2 error
    of the logits, within what llama.cpp's own activation quantization,
    f16 cache and flash attention cost it (docs/Llama.md)."""
    folder, reason = llamacpp.library_dir()
    if folder is None:
        pytest.skip(reason)
    tokens = np.random.default_rng(2).integers(3, TINY["n_vocab"], 64)
    model = llama.Llama(files[mix], capacity=64)
    ours = model.prefill(tokens).astype(np.float64)
    with llamacpp.LlamaCpp(files[mix], n_ctx=64) as llm:
        theirs = llm.logits(tokens).astype(np.float64)
    _, weights, config = _load(files[mix])
    exact = lr.forward(weights, config, tokens)
    rel = _rel(ours, theirs)
    top1 = float(np.mean(ours.argmax(1) == theirs.argmax(1)))
    record_property("top1", top1)
    record_property("rel_l2", rel)
    print(f"\n{mix}: top-1 agreement {top1:.3f}, relative L2 {rel:.4f}; "
          f"llama.cpp vs exact {_rel(theirs, exact):.4f}, ours vs exact "
          f"{_rel(ours, exact):.2e}")
    assert _rel(ours, exact) < F32_BOUND
    assert rel < 0.05 and top1 >= 0.9


# --- the GPU pipelines compile the model too -------------------------------

def tool(name):
    """A tool of the build tree ($QUANT_BLOCK_BINARY_DIR/bin), or None."""
    folder = os.environ.get("QUANT_BLOCK_BINARY_DIR")
    path = os.path.join(folder, "bin", name) if folder else None
    return path if path and os.path.exists(path) else None


@pytest.mark.parametrize("pipeline,validator", [
    ("quant-block-nvvm-pipeline=format=isa",
     "{ptxas} -arch=sm_80 {{}} -o /dev/null"),
    ("quant-block-spirv-pipeline", "{spirv_val} --target-env vulkan1.1 {{}}"),
])
def test_gpu_pipelines_compile_the_model(files, tmp_path, pipeline, validator):
    """The model's module (a prefill of 4 tokens over a Q4_0 file) through
    the NVVM and SPIR-V pipelines; every kernel object assembles with
    ptxas for sm_80 / validates with spirv-val, where those are installed.
    (For SPIR-V the attention spans the whole cache, masked: that pipeline
    cannot slice a buffer by a dynamic size inside a kernel.)"""
    import shutil
    quant_opt = tool("quant-opt")
    if quant_opt is None:
        pytest.skip("quant-opt not found (set QUANT_BLOCK_BINARY_DIR)")
    name = pipeline.split("=")[0]
    model = llama.Llama(files["Q4_0"], capacity=16, pipeline=name)
    source = tmp_path / "model.mlir"
    source.write_text(model.module_text(4))
    lowered = tmp_path / "lowered.mlir"
    result = subprocess.run([quant_opt, str(source), f"--{pipeline}", "-o",
                             str(lowered)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                      if os.path.exists("/usr/local/cuda/bin/ptxas")
                                      else None)
    spirv_val = shutil.which("spirv-val")
    needed = ptxas if "nvvm" in name else spirv_val
    if needed is None:
        pytest.skip(f"compiled; no {'ptxas' if 'nvvm' in name else 'spirv-val'}"
                    " to check the kernels")
    helper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "..", "test", "GPU", "Inputs", "gpu_binary.py")
    check = subprocess.run(
        [sys.executable, helper, str(lowered), "--dir", str(tmp_path / "objects"),
         "--suffix", ".ptx" if "nvvm" in name else ".spv", "--run",
         validator.format(ptxas=ptxas, spirv_val=spirv_val)],
        capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "validated" in check.stdout and "kernel objects" in check.stdout


def _vulkan_runtime():
    from quant_block.runner import gpu_runtime_library
    try:
        return gpu_runtime_library("vulkan")
    except (FileNotFoundError, ImportError):
        return None


def _vulkan_subgroup_size():
    """The subgroup size of the first Vulkan device vulkaninfo lists (the
    runtime's), or None."""
    try:
        info = subprocess.run(["vulkaninfo"], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"^\s*subgroupSize\s*=\s*(\d+)", info, re.M)
    return int(found.group(1)) if found else None


_SUBGROUP_SIZE = _vulkan_subgroup_size()


@pytest.mark.skipif(_vulkan_runtime() is None,
                    reason="libQuantBlockVulkanRuntime.so was not built")
@pytest.mark.parametrize("pipeline,activations", [
    ("quant-block-spirv-pipeline", "f32"),
    ("quant-block-spirv-pipeline{int8-dot-products=true}", "int8"),
    # The matmul kernels' butterflies and the reductions' trees within a
    # subgroup as subgroup shuffles, the device's size required.
    pytest.param(
        f"quant-block-spirv-pipeline{{subgroup-size={_SUBGROUP_SIZE}}}",
        "f32", marks=pytest.mark.skipif(
            _SUBGROUP_SIZE is None,
            reason="vulkaninfo does not report the device's subgroup size")),
])
def test_the_model_runs_on_vulkan_with_resident_weights(files, pipeline,
                                                       activations):
    """The model through the SPIR-V pipeline, run on the Vulkan device
    (lavapipe here): its weights, KV cache and RoPE tables uploaded once and
    passed as device-resident arguments to every compiled function (the
    prefill's and the decode's), the layer functions taking them and the
    activations between them as such; a decode step then moves the token
    and a few scalars up and the logits down, nothing else. The logits are the CPU
    pipeline's within the f32 bound, the same top-1 token at every
    position (int8 activations: the integer kernels' SDot block sums)."""
    cpu = llama.Llama(files["Q4_0"], capacity=16, activations=activations)
    want = np.concatenate([cpu.prefill(PROMPT[:8])]
                          + [cpu.decode(t)[None] for t in PROMPT[8:11]])
    gpu = llama.Llama(files["Q4_0"], capacity=16, activations=activations,
                      pipeline=pipeline)
    got = [gpu.prefill(PROMPT[:8]), gpu.decode(PROMPT[8])[None]]
    assert gpu.on_device
    weight_bytes = sum(p.nbytes for p in gpu.parts)
    executable = gpu._functions[(1, False)].function._executable
    launches_before = executable.launch_stats()
    before = executable.copy_stats()
    got.append(gpu.decode(PROMPT[9])[None])
    after = executable.copy_stats()
    step = executable.launch_stats()
    got.append(gpu.decode(PROMPT[10])[None])
    next_step = executable.launch_stats()
    # The runtime's launch counts: every step launches the same kernels
    # (36 with f32 activations, 43 with int8 here; 38 and 45 with q's and
    # k's RoPE apart, 40 and 47 with the K and
    # V cache stores apart, 46 and 53 with q, k, v
    # and gate, up as separate products, 64 and 79 before
    # --quant-block-gpu-fuse-parallel-loops ran loops over fewer dimensions
    # in sequence inside their neighbours and the attention's weighted sum
    # of values joined its fill: at most 20 a layer now) and
    # waits for the device once, for the logits: the layer functions are
    # private and return without waiting for their kernels (ordered-queue
    # of --quant-block-gpu-data-movement; once per function before).
    launches = [{key: later[key] - earlier[key] for key in later}
                for earlier, later in ((launches_before, step),
                                       (step, next_step))]
    assert launches[0] == launches[1]
    assert sum(".attn_qkv." in n or ".ffn_gate_up." in n
               for n in gpu.order) == 2 * gpu.config.n_layer
    assert 0 < launches[0]["kernels"] <= 8 + 20 * gpu.config.n_layer
    assert launches[0]["synchronizations"] == 1
    got = np.concatenate(got)
    up = after["host_to_device"][1] - before["host_to_device"][1]
    down = after["device_to_host"][1] - before["device_to_host"][1]
    assert 0 < up < 256 and weight_bytes > 100000
    assert down == 4 * gpu.config.n_vocab
    assert _rel(got, want) < F32_BOUND
    assert np.array_equal(got.argmax(1), want.argmax(1))


@pytest.mark.skipif(_vulkan_runtime() is None,
                    reason="libQuantBlockVulkanRuntime.so was not built")
def test_the_prefill_runs_on_emulated_tensor_cores(files):
    """A prefill of 16 tokens with int8 activations: every product of the
    layers (16 rows of activations against Q4_0 weights) takes the NVVM
    pipeline's tensor-core kernel (mma.sync.m16n8k32), here on Vulkan
    with its warp-level products emulated in workgroup memory
    (emulated-tensor-cores): the CPU pipeline's logits within the f32
    bound, the same top-1 token at every position."""
    prompt = (PROMPT + PROMPT)[:16]
    cpu = llama.Llama(files["Q4_0"], capacity=16, activations="int8")
    want = cpu.prefill(prompt)
    gpu = llama.Llama(
        files["Q4_0"], capacity=16, activations="int8",
        pipeline="quant-block-spirv-pipeline{emulated-tensor-cores=true}")
    got = gpu.prefill(prompt)
    assert gpu.on_device
    assert _rel(got, want) < F32_BOUND
    assert np.array_equal(got.argmax(1), want.argmax(1))
    # The same module through the NVVM pipeline: its products are
    # mma.sync instructions (q|k|v, o, gate|up and down of each layer).
    quant_opt = tool("quant-opt")
    if quant_opt is None:
        pytest.skip("ran; quant-opt not found to compile for NVVM")
    nvvm = llama.Llama(files["Q4_0"], capacity=16, activations="int8",
                       pipeline="quant-block-nvvm-pipeline")
    lowered = subprocess.run(
        [quant_opt, "--quant-block-nvvm-pipeline=format=isa"],
        input=nvvm.module_text(16), capture_output=True, text=True)
    assert lowered.returncode == 0, lowered.stderr
    layers = nvvm.config.n_layer
    assert lowered.stdout.count("mma.sync.aligned.m16n8k32") >= 4 * layers


def test_the_demo_runs():
    """examples/llama_demo.py, the main job of `./run.sh demo`: it writes,
    imports, compiles and runs a model and reports its agreement."""
    demo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "examples", "llama_demo.py")
    result = subprocess.run([sys.executable, demo], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines()
                if "against exact float64 math" in line)
    error = float(line.split("relative error ")[1].split(",")[0])
    assert error < F32_BOUND
    assert "tokens/s" in result.stdout
