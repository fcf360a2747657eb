"""An independent float64 numpy reference of the LLaMA forward pass, as
llama.cpp computes it for ``general.architecture = llama``.

It is the oracle of the compiled model (``quant_block.llama``): written
from the architecture (notes ``llama-cpp.md``, "What llama.cpp computes")
with nothing but numpy, in float64, on weights already dequantized (for a
GGUF file, by an independent decoder such as the tests'
``ggml_reference.dequantize``). It never loads the project's library.

``forward(weights, config, tokens)`` returns the logits of every position of
a prompt that starts at position 0. With ``x`` the residual stream
(``[n_tokens, n_embd]``), ``hd = n_embd / n_head`` and ``W·x`` meaning
``x @ W.T`` for a row-major ``[N, K]`` weight (ggml ``ne = {K, N}``):

    x = token_embd[tokens]
    per layer l (prefix blk.l.):
        h = rmsnorm(x, attn_norm)
        q = rope(attn_q·h), k = rope(attn_k·h), v = attn_v·h   (per head)
        a_h = softmax(q_h k_g^T / sqrt(hd) + causal mask) v_g,
              g = h // (n_head / n_head_kv)                    (GQA)
        x = x + attn_output·concat_h(a_h)
        h = rmsnorm(x, ffn_norm)
        x = x + ffn_down·(silu(ffn_gate·h) * ffn_up·h)
    logits = output·rmsnorm(x, output_norm)    (output = token_embd if tied)

    rmsnorm(x, w) = x / sqrt(mean(x^2) + eps) * w   (over n_embd, per token)
    silu(z) = z / (1 + exp(-z))

RoPE is llama.cpp's NORM mode (``llama_model_rope_type`` = 0 for llama):
in each head of the q / k rows *as stored in the GGUF* (the converter
permuted them for this), the adjacent pairs ``(x[2i], x[2i+1])``, ``i <
n_rot / 2``, rotate by ``theta = pos * freq_base^(-2i / n_rot)``:

    x'[2i]   = x[2i] cos(theta) - x[2i+1] sin(theta)
    x'[2i+1] = x[2i] sin(theta) + x[2i+1] cos(theta)

and dims ``n_rot..hd-1`` of a head pass unchanged. Hugging Face's
``rotate_half`` (pairs ``(x[i], x[i + hd/2])``) on the same rows is wrong
(notes: max relative error 0.94 against llama.cpp).

No biases, no RoPE scaling (YaRN, rope_freqs), no sliding window: what the
``llama`` architecture of a plain LLaMA / Mistral-style file uses.
"""

import numpy as np

# GGUF keys of the hyperparameters, after the "<arch>." prefix.
_KEYS = {
    "n_embd": "embedding_length",
    "n_layer": "block_count",
    "n_ff": "feed_forward_length",
    "n_head": "attention.head_count",
    "n_head_kv": "attention.head_count_kv",
    "n_rot": "rope.dimension_count",
    "freq_base": "rope.freq_base",
    "eps": "attention.layer_norm_rms_epsilon",
}


def config_from_metadata(metadata, weights=None):
    """The ``config`` of ``forward`` from GGUF metadata.

    metadata: ``{key: value}`` (e.g. ``read_gguf(path).kv``); the prefix is
    ``general.architecture`` (default "llama"). Required: embedding_length,
    block_count, feed_forward_length, attention.head_count,
    attention.layer_norm_rms_epsilon. Defaults as llama.cpp's loader:
    head_count_kv = head_count, rope.dimension_count = n_embd / n_head,
    rope.freq_base = 10000. n_vocab: ``weights["token_embd.weight"]``'s
    row count when ``weights`` is given, else llama.vocab_size, else the
    length of tokenizer.ggml.tokens (stored as ``(type, [values])``).
    Returns a dict with keys n_embd, n_layer, n_ff, n_head, n_head_kv,
    n_rot, freq_base, eps, n_vocab (ints and floats).
    """
    arch = metadata.get("general.architecture", "llama")

    def get(name, default=None):
        key = f"{arch}.{_KEYS[name]}"
        if key in metadata:
            return metadata[key]
        if default is None:
            raise KeyError(f"metadata has no {key}")
        return default

    config = {name: int(get(name)) for name in
              ("n_embd", "n_layer", "n_ff", "n_head")}
    config["n_head_kv"] = int(get("n_head_kv", config["n_head"]))
    config["n_rot"] = int(get("n_rot", config["n_embd"] // config["n_head"]))
    config["freq_base"] = float(get("freq_base", 10000.0))
    config["eps"] = float(get("eps"))
    if weights is not None and "token_embd.weight" in weights:
        config["n_vocab"] = int(np.shape(weights["token_embd.weight"])[0])
    elif f"{arch}.vocab_size" in metadata:
        config["n_vocab"] = int(metadata[f"{arch}.vocab_size"])
    else:
        tokens = metadata["tokenizer.ggml.tokens"]
        config["n_vocab"] = len(tokens[1] if isinstance(tokens, tuple)
                                else tokens)
    return config


def rms_norm(x, w, eps):
    """``x / sqrt(mean(x^2, last axis) + eps) * w``."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def silu(z):
    """``z * sigmoid(z) = z / (1 + exp(-z))`` (overflow-safe)."""
    return z * (0.5 * (1.0 + np.tanh(0.5 * z)))


def rope_norm(x, positions, n_rot, freq_base):
    """llama.cpp's NORM-mode RoPE on ``x`` = ``[n_tokens, n_heads, hd]``:
    pairs ``(x[2i], x[2i+1])`` of each head, ``i < n_rot / 2``, rotated by
    ``positions * freq_base^(-2i / n_rot)``; dims from n_rot on unchanged.
    Returns a new array."""
    out = np.array(x, dtype=np.float64)
    half = n_rot // 2
    inv_freq = freq_base ** (-2.0 * np.arange(half) / n_rot)
    theta = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq
    cos = np.cos(theta)[:, None, :]
    sin = np.sin(theta)[:, None, :]
    x0 = out[..., 0:n_rot:2].copy()
    x1 = out[..., 1:n_rot:2].copy()
    out[..., 0:n_rot:2] = x0 * cos - x1 * sin
    out[..., 1:n_rot:2] = x0 * sin + x1 * cos
    return out


def attention(q, k, v):
    """Causal softmax attention with GQA, per head: ``q`` = ``[T, n_head,
    hd]``, ``k``, ``v`` = ``[T, n_head_kv, hd]``; query head h reads kv
    head ``h // (n_head / n_head_kv)`` (contiguous groups, as ggml's
    mul_mat broadcast); scores scaled by ``1/sqrt(hd)``; token t sees
    tokens 0..t. Returns ``[T, n_head * hd]``."""
    t, n_head, hd = q.shape
    group = n_head // k.shape[1]
    kh = np.repeat(k, group, axis=1)          # kv head of query head h
    vh = np.repeat(v, group, axis=1)
    scores = np.einsum("thd,shd->hts", q, kh) / np.sqrt(hd)
    future = np.triu(np.ones((t, t), dtype=bool), k=1)
    scores = np.where(future[None], -np.inf, scores)
    scores -= scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hts,shd->thd", p, vh).reshape(t, n_head * hd)


def forward(weights, config, tokens):
    """Logits float64 ``[n_tokens, n_vocab]`` of every position of
    ``tokens`` (positions 0..n_tokens-1).

    weights: ``{GGUF tensor name: float array}``, row-major (``[N, K]`` for
    a weight with ggml ``ne = {K, N}``, 1-D norms), already dequantized;
    ``output.weight`` may be absent (tied to ``token_embd.weight``).
    config: as ``config_from_metadata`` returns (n_embd, n_layer, n_ff,
    n_head, n_head_kv, n_rot, freq_base, eps, n_vocab). The formulas are
    in the module docstring.
    """
    tokens = np.asarray(tokens, dtype=np.int64).reshape(-1)
    n_head, n_head_kv = config["n_head"], config["n_head_kv"]
    n_embd = config["n_embd"]
    hd = n_embd // n_head
    n_rot, base, eps = config["n_rot"], config["freq_base"], config["eps"]
    if n_head % n_head_kv:
        raise ValueError(f"n_head {n_head} is not a multiple of n_head_kv "
                         f"{n_head_kv}")

    def w(name):
        return np.asarray(weights[name], dtype=np.float64)

    n = len(tokens)
    positions = np.arange(n)
    x = w("token_embd.weight")[tokens]
    for layer in range(config["n_layer"]):
        p = f"blk.{layer}."
        h = rms_norm(x, w(p + "attn_norm.weight"), eps)
        q = (h @ w(p + "attn_q.weight").T).reshape(n, n_head, hd)
        k = (h @ w(p + "attn_k.weight").T).reshape(n, n_head_kv, hd)
        v = (h @ w(p + "attn_v.weight").T).reshape(n, n_head_kv, hd)
        q = rope_norm(q, positions, n_rot, base)
        k = rope_norm(k, positions, n_rot, base)
        x = x + attention(q, k, v) @ w(p + "attn_output.weight").T
        h = rms_norm(x, w(p + "ffn_norm.weight"), eps)
        gate = h @ w(p + "ffn_gate.weight").T
        up = h @ w(p + "ffn_up.weight").T
        x = x + (silu(gate) * up) @ w(p + "ffn_down.weight").T
    x = rms_norm(x, w("output_norm.weight"), eps)
    head = "output.weight" if "output.weight" in weights else \
        "token_embd.weight"
    return x @ w(head).T
