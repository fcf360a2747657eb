"""A LLaMA-architecture GGUF model compiled by quant-block and run on the
CPU: prefill and decode entry points over a KV cache that persists between
calls and is updated in place.

    model = quant_block.llama.Llama("model.gguf")
    logits = model.prefill([1, 15043, 3186])    # [3, n_vocab], float32
    logits = model.decode(29991)                # [n_vocab]
    tokens = model.generate([1, 15043], 16)     # greedy
    model.reset()                               # an empty cache again

    python3 -m quant_block.llama FILE --tokens 1,2,3 --logits OUT.npy
    python3 -m quant_block.llama FILE --bench pp512,tg128 --threads 2

The model is an importer's product like any other (docs/Llama.md): every
weight use is a quant_block op on the weight as the file stores it
(`quant_block.matmul ... transpose_rhs` on the imported blocks, the token
embedding a gather of quantized rows, then `quant_block.dequantize` of
those rows only), and the rest is upstream linalg / tensor / arith / math,
compiled by `--quant-block-cpu-pipeline`. Weights are never in the IR: the
functions take them as arguments, marked with the GGUF tensor they come
from, and get the parts repacked once from the mapped file. The KV cache is
a pair of memref arguments that the functions write in place (no copy
crosses the call); RoPE's cos / sin tables are computed once on the host.
One function is compiled per number of tokens a call takes (prefill of N
tokens, decode of 1), all sharing the cache.

What it computes is llama.cpp's `llama` graph (RoPE on adjacent pairs of
the q / k rows as GGUF stores them, contiguous GQA groups, RMSNorm, SwiGLU,
an output head that falls back to the token embedding), in f32 activations
and an f32 cache; quant_block.llama_reference is the float64 numpy model it
is tested against.
"""

import argparse
import math
import os
import sys
import time

import numpy as np

from . import gguf
from .builder import Builder, tensor_type
from .reference import tile_rows
from .scheme import Scheme


class LlamaError(Exception):
    """A file this builder cannot make a model of; the message names the
    metadata key or the tensor."""


class LlamaConfig:
    """The hyperparameters of a `llama` GGUF (llama.* metadata keys and the
    vocabulary size of token_embd)."""

    KEYS = {
        "n_embd": "llama.embedding_length",
        "n_layer": "llama.block_count",
        "n_ff": "llama.feed_forward_length",
        "n_head": "llama.attention.head_count",
        "n_ctx": "llama.context_length",
    }

    def __init__(self, **fields):
        self.__dict__.update(fields)

    @staticmethod
    def from_file(f):
        metadata = f.metadata
        arch = metadata.get("general.architecture")
        if arch is None:
            raise LlamaError(f"{f.path}: metadata key 'general.architecture' "
                             "is missing")
        if arch != "llama":
            raise LlamaError(f"{f.path}: general.architecture is '{arch}', "
                             "not 'llama'")

        def integer(key, default=None):
            if key not in metadata:
                if default is not None:
                    return default
                raise LlamaError(f"{f.path}: metadata key '{key}' is missing")
            value = metadata[key]
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                    or value <= 0:
                raise LlamaError(f"{f.path}: metadata key '{key}' must be a "
                                 f"positive integer, not {value!r}")
            return int(value)

        def real(key, default):
            value = metadata.get(key, default)
            if not isinstance(value, (float, int)) or isinstance(value, bool) \
                    or not value > 0:
                raise LlamaError(f"{f.path}: metadata key '{key}' must be a "
                                 f"positive number, not {value!r}")
            return float(value)

        fields = {name: integer(key) for name, key in LlamaConfig.KEYS.items()}
        fields["n_head_kv"] = integer("llama.attention.head_count_kv",
                                      fields["n_head"])
        head_dim = fields["n_embd"] // fields["n_head"]
        fields["n_rot"] = integer("llama.rope.dimension_count", head_dim)
        fields["freq_base"] = real("llama.rope.freq_base", 10000.0)
        fields["eps"] = real("llama.attention.layer_norm_rms_epsilon", 1e-5)
        if fields["n_embd"] % fields["n_head"]:
            raise LlamaError(f"{f.path}: llama.embedding_length "
                             f"{fields['n_embd']} is not a multiple of "
                             f"llama.attention.head_count {fields['n_head']}")
        if fields["n_head"] % fields["n_head_kv"]:
            raise LlamaError(f"{f.path}: llama.attention.head_count "
                             f"{fields['n_head']} is not a multiple of "
                             f"llama.attention.head_count_kv "
                             f"{fields['n_head_kv']}")
        if fields["n_rot"] > head_dim or fields["n_rot"] % 2:
            raise LlamaError(f"{f.path}: llama.rope.dimension_count "
                             f"{fields['n_rot']} must be even and at most the "
                             f"head dimension {head_dim}")
        try:
            embd = f.tensor("token_embd.weight")
        except gguf.GGUFError:
            raise LlamaError(f"{f.path}: tensor 'token_embd.weight' is "
                             "missing") from None
        if len(embd.shape) != 2 or embd.shape[1] != fields["n_embd"]:
            raise LlamaError(f"{f.path}: tensor 'token_embd.weight' has shape "
                             f"{list(embd.shape)}, expected [n_vocab, "
                             f"{fields['n_embd']}]")
        fields["n_vocab"] = embd.shape[0]
        fields["head_dim"] = head_dim
        return LlamaConfig(**fields)

    def tensor_shapes(self, has_output):
        """Every tensor the model uses, with its row-major shape, in the
        order the compiled functions take them."""
        e, f, v = self.n_embd, self.n_ff, self.n_vocab
        q, kv = self.n_head * self.head_dim, self.n_head_kv * self.head_dim
        shapes = [("token_embd.weight", (v, e))]
        for i in range(self.n_layer):
            p = f"blk.{i}."
            shapes += [(p + "attn_norm.weight", (e,)),
                       (p + "attn_q.weight", (q, e)),
                       (p + "attn_k.weight", (kv, e)),
                       (p + "attn_v.weight", (kv, e)),
                       (p + "attn_output.weight", (e, q)),
                       (p + "ffn_norm.weight", (e,)),
                       (p + "ffn_gate.weight", (f, e)),
                       (p + "ffn_up.weight", (f, e)),
                       (p + "ffn_down.weight", (e, f))]
        shapes.append(("output_norm.weight", (e,)))
        if has_output:
            shapes.append(("output.weight", (v, e)))
        return shapes


# Lowered part types: what the parts of a !quant_block.tensor are inside the
# IR (unsigned integers signless, sub-byte codes packed into i8 bytes).
def _signless(element):
    return "i" + element[2:] if element.startswith("ui") else element


def _part_types(tensor):
    """The MLIR types of the lowered parts of an imported quantized tensor
    (docs/Packing.md), in the order of its `parts`."""
    scheme = Scheme(tensor.scheme)
    elements = {"scales": _signless(scheme.scale),
                "zero_points": _signless(scheme.zero_point or ""),
                "outer_scales": (scheme.outer or {}).get("scale"),
                "outer_mins": (scheme.outer or {}).get("min")}
    storage = scheme.storage
    types = []
    for part in tensor.parts:
        if part.role == "data":
            element = storage if storage.startswith("f8") else "i8"
        else:
            element = elements[part.role]
        types.append(tensor_type(part.shape, element))
    return types


def cache_rows(capacity):
    """The rows of each layer of the KV cache: the capacity rounded up to
    whole blocks of key positions (_Emitter.KEY_BLOCK), so that a prefill's
    attention can read whole blocks past the last position."""
    block = _Emitter.KEY_BLOCK
    return -(-capacity // block) * block


class _Emitter:
    """The IR of one forward function: each helper emits the ops of one
    step of the graph and returns the SSA name of its result."""

    # A prefill's attention takes the key positions in blocks of this many
    # (4 AVX-512 vectors of f32): the static innermost dimension of its
    # scores, which register-tiles (--quant-block-cpu-vectorize).
    KEY_BLOCK = 64

    def __init__(self, config, n_tokens, capacity, weights, fast,
                 activations, whole_capacity=False,
                 threads_over_heads=False, device_resident=False):
        self.c = config
        self.whole_capacity = whole_capacity
        # GPU pipelines: the weights, the cache and the RoPE tables are
        # device buffers the caller uploaded once (quant_block.
        # device_resident on every argument that holds them, in the layer
        # functions too: their arguments are views of those buffers).
        self.resident = " {quant_block.device_resident}" \
            if device_resident else ""
        # A decode step's attention split over threads by kv head (an
        # scf.forall: the CPU pipeline's threads).
        self.threads_over_heads = threads_over_heads
        self.int8 = activations == "int8"
        self.n = n_tokens
        self.capacity = capacity
        self.weights = weights          # name -> gguf.Tensor
        self.b = Builder()
        self.fastmath = " fastmath<fast>" if fast else ""
        # int8 activations: each block's f32(exact sum) * scale added to the
        # row's sum as one FMA (`contract`; the blocks stay in order, as
        # llama.cpp's Q8 dot products do it). The epilogue of an AMX tile
        # is then 3 vector instructions per row and block instead of 4:
        # pp256 of the 19-layer Q4_0 model 5-12 % faster (bench/README.md).
        self.contract = " fastmath<contract>" if fast else ""
        # The sums of attention may be reassociated (tree reductions)
        # under the same option as the products.
        self.reassoc = " fastmath<reassoc,contract>" if fast else ""

    def op(self, text):
        self.b.emit(text)

    def fresh(self):
        return self.b.fresh()

    # Elementwise and reductions -------------------------------------------

    def generic(self, inputs, output_shape, maps, iterators, body,
                init=None, element="f32", dynamic=(), into=None):
        """A linalg.generic over `inputs` [(name, type)] into a new tensor of
        `output_shape` (filled with `init` when it reduces; `?` dimensions
        sized by the index values `dynamic`); `maps` the affine maps of
        inputs and output, `body` the lines of the region whose block
        arguments are %a0, %a1, ... and %acc.

        `into`: an elementwise step's operand that has no later use, as the
        destination instead of a new tensor (%acc is its element): the
        result is written over it in place (one-shot bufferization reuses
        its buffer), so a chain of such steps holds one buffer, not two."""
        out_type = tensor_type(output_shape, element)
        if into is not None:
            assert init is None
            empty = into
        else:
            empty = self.fresh()
            self.op(f"{empty} = tensor.empty({', '.join(dynamic)}) : "
                    f"{out_type}")
        if init is not None:
            constant = self.fresh()
            self.op(f"{constant} = arith.constant {init} : {element}")
            filled = self.fresh()
            self.op(f"{filled} = linalg.fill ins({constant} : {element}) "
                    f"outs({empty} : {out_type}) -> {out_type}")
            empty = filled
        result = self.fresh()
        ins = ", ".join(name for name, _ in inputs)
        in_types = ", ".join(t for _, t in inputs)
        args = "".join(f"%a{i}: {t.rsplit('x', 1)[-1].rstrip('>')}, "
                       for i, (_, t) in enumerate(inputs))
        head = (f"{result} = linalg.generic {{indexing_maps = [" +
                ", ".join(f"affine_map<{m}>" for m in maps) +
                "], iterator_types = [" +
                ", ".join(f'"{i}"' for i in iterators) + "]} " +
                (f"ins({ins} : {in_types}) " if inputs else "") +
                f"outs({empty} : {out_type}) {{")
        lines = [head, f"^bb0({args}%acc: {element}):"]
        lines += ["  " + line for line in body]
        lines.append(f"}} -> {out_type}")
        self.op("\n  ".join(lines))
        return result

    def rms_norm(self, x, weight):
        """(x / sqrt(mean(x^2) + eps)) * weight over the embedding."""
        n, e = self.n, self.c.n_embd
        xt = tensor_type((n, e), "f32")
        squares = self.generic(
            [(x, xt)], (n,), ["(t, i) -> (t, i)", "(t, i) -> (t)"],
            ["parallel", "reduction"],
            ["%s = arith.mulf %a0, %a0 : f32",
             "%r = arith.addf %acc, %s : f32", "linalg.yield %r : f32"],
            init="0.0")
        return self.generic(
            [(x, xt), (squares, tensor_type((n,), "f32")),
             (weight, tensor_type((e,), "f32"))],
            (n, e), ["(t, i) -> (t, i)", "(t, i) -> (t)", "(t, i) -> (i)",
                     "(t, i) -> (t, i)"], ["parallel", "parallel"],
            [f"%count = arith.constant {float(e)!r} : f32",
             f"%eps = arith.constant {self.c.eps!r} : f32",
             "%mean = arith.divf %a1, %count : f32",
             "%m = arith.addf %mean, %eps : f32",
             "%root = math.sqrt %m : f32",
             "%y = arith.divf %a0, %root : f32",
             "%w = arith.mulf %y, %a2 : f32", "linalg.yield %w : f32"])

    def linear(self, x, name, k, n_out):
        """x [N, K] times the weight `name` [n_out, K], transposed: a
        quant_block.matmul on the weight as imported (plain f32 weights: a
        linalg contraction)."""
        tensor = self.weights[name]
        xt = tensor_type((self.n, k), "f32")
        yt = tensor_type((self.n, n_out), "f32")
        wt = self.arg_names[name]
        scheme = Scheme(tensor.scheme) if tensor.scheme else None
        mins = scheme and scheme.zero_point and (
            scheme.zero_point in ("f32", "f16", "bf16") or
            (scheme.outer and scheme.outer["min"]))
        if (scheme and self.int8 and (not scheme.zero_point or mins)
                and (scheme.block[-1] % 32 == 0 or
                     (scheme.block[-1] == 16 and
                      scheme.storage in ("i8", "i6")))):
            # llama.cpp's way: the activations quantized per block of the
            # weight's block size (absmax, int8), exact i32 block sums;
            # a weight's mins (Q4_1, Q4_K, Q5_K) times the activations'
            # block sums, as its Q4_K x Q8_K does. Integer zero points
            # (2-bit TQ2_0, Q2_0) keep f32 activations, and so do blocks of
            # 16 other than 8-bit codes (Q2_K, Q3_K); Q6_K widened to i8
            # takes activations in blocks of 16 (llama.cpp: Q8_K's 256 with
            # sums per 16).
            block = scheme.block[-1]
            at = (f"!quant_block.tensor<{self.n}x{k}, #quant_block.scheme<"
                  f"i8 : f32, block = [1, {block}]>>")
            xq, y = self.fresh(), self.fresh()
            self.op(f"{xq} = quant_block.quantize_dynamic absmax {x} : {xt} "
                    f"-> {at}")
            self.op(f"{y} = quant_block.matmul {xq}, {wt} transpose_rhs "
                    f"accumulate(i32) inhibit{self.contract} : {at}, "
                    f"{tensor.mlir_type} -> {yt}")
            return y
        if tensor.scheme:
            y = self.fresh()
            self.op(f"{y} = quant_block.matmul {x}, {wt} transpose_rhs "
                    f"accumulate(f32) inhibit{self.fastmath} : {xt}, "
                    f"{tensor.mlir_type} -> {yt}")
            return y
        element = tensor.mlir_type.rsplit("x", 1)[-1].rstrip(">")
        widen = [] if element == "f32" else [
            f"%w = arith.extf %a1 : {element} to f32"]
        product = "%a1" if element == "f32" else "%w"
        return self.generic(
            [(x, xt), (wt, tensor.mlir_type)], (self.n, n_out),
            ["(t, o, i) -> (t, i)", "(t, o, i) -> (o, i)", "(t, o, i) -> (t, o)"],
            ["parallel", "parallel", "reduction"],
            widen + [f"%p = arith.mulf %a0, {product} : f32",
                     "%r = arith.addf %acc, %p : f32", "linalg.yield %r : f32"],
            init="0.0")

    def columns(self, x, width, widths):
        """The consecutive column ranges of `x` [N, width] of the given
        widths (the products of a fused weight), each a tensor of its own."""
        xt = tensor_type((self.n, width), "f32")
        parts, offset = [], 0
        for w in widths:
            part = self.fresh()
            self.op(f"{part} = tensor.extract_slice {x}[0, {offset}] "
                    f"[{self.n}, {w}] [1, 1] : {xt} to "
                    f"{tensor_type((self.n, w), 'f32')}")
            parts.append(part)
            offset += w
        return parts

    def add(self, x, y, shape):
        t = tensor_type(shape, "f32")
        # Over y (a product's result, no other use), x + y as before.
        return self.generic(
            [(x, t)], shape, ["(t, i) -> (t, i)"] * 2,
            ["parallel", "parallel"],
            ["%s = arith.addf %a0, %acc : f32", "linalg.yield %s : f32"],
            into=y)

    def rope(self, x, heads):
        """RoPE in ggml's NORM mode: pairs (x[2i], x[2i+1]) of each head
        rotate by the angle of the token's position and pair i (the host's
        tables, padded with cos 1 / sin 0 past n_rot / 2)."""
        n, d = self.n, self.c.head_dim
        flat = tensor_type((n, heads * d), "f32")
        pairs = tensor_type((n, heads, d // 2, 2), "f32")
        view = self.fresh()
        self.op(f"{view} = tensor.expand_shape {x} [[0], [1, 2, 3]] "
                f"output_shape [{n}, {heads}, {d // 2}, 2] : {flat} into {pairs}")
        half = tensor_type((n, heads, d // 2), "f32")
        x0, x1 = self.fresh(), self.fresh()
        for name, index in ((x0, 0), (x1, 1)):
            self.op(f"{name} = tensor.extract_slice {view}[0, 0, 0, {index}] "
                    f"[{n}, {heads}, {d // 2}, 1] [1, 1, 1, 1] : {pairs} to "
                    f"{half}")
        table = tensor_type((n, d // 2), "f32")
        rotated = self.generic(
            [(x0, half), (x1, half), (self.cos, table), (self.sin, table)],
            (n, heads, d // 2, 2),
            ["(t, h, i, j) -> (t, h, i)", "(t, h, i, j) -> (t, h, i)",
             "(t, h, i, j) -> (t, i)", "(t, h, i, j) -> (t, i)",
             "(t, h, i, j) -> (t, h, i, j)"], ["parallel"] * 4,
            ["%j = linalg.index 3 : index",
             "%c0 = arith.constant 0 : index",
             "%first = arith.cmpi eq, %j, %c0 : index",
             "%x0c = arith.mulf %a0, %a2 : f32", "%x1s = arith.mulf %a1, %a3 : f32",
             "%x0s = arith.mulf %a0, %a3 : f32", "%x1c = arith.mulf %a1, %a2 : f32",
             "%y0 = arith.subf %x0c, %x1s : f32",
             "%y1 = arith.addf %x0s, %x1c : f32",
             "%y = arith.select %first, %y0, %y1 : f32",
             "linalg.yield %y : f32"])
        out = self.fresh()
        self.op(f"{out} = tensor.collapse_shape {rotated} [[0], [1, 2, 3]] : "
                f"{pairs} into {flat}")
        return out

    def store(self, cache, value):
        """Writes the N new rows of k or v ([N, kv * head_dim]) at the
        current position of the block's layer of the cache, in place: an
        insert into the cache as a tensor that bufferizes into the cache's
        own buffer (no copy of the cache, and every kernel operand is the
        whole, identity-layout buffer, as the GPU pipelines need).

        The cache is head-major, [layer, kv head, position, head dim]: the
        attention reads each head's positions as one contiguous stream.
        (Position-major rows put a head's consecutive positions kv *
        head_dim floats apart, 16 KiB for a 7B model: each is another page,
        which no hardware prefetcher follows, and a decode step's attention
        over 400 positions took a third of the step.)"""
        c, n = self.c, self.n
        kv, d = c.n_head_kv, c.head_dim
        whole = tensor_type((c.n_layer, kv, self.rows, d), "f32")
        rows = tensor_type((n, kv * d), "f32")
        by_head = tensor_type((kv, n, d), "f32")
        grouped = self.fresh()
        self.op(f"{grouped} = tensor.expand_shape {value} [[0], [1, 2]] "
                f"output_shape [{n}, {kv}, {d}] : {rows} into "
                f"{tensor_type((n, kv, d), 'f32')}")
        # The insert becomes a copy into a strided view of the cache (the
        # heads' slices are rows * head_dim floats apart), which the CPU
        # pipeline makes loops (--quant-block-lower-strided-copies).
        heads = self.generic(
            [(grouped, tensor_type((n, kv, d), "f32"))], (kv, n, d),
            ["(k, t, i) -> (t, k, i)", "(k, t, i) -> (k, t, i)"],
            ["parallel"] * 3, ["linalg.yield %a0 : f32"])
        all_rows, updated = self.fresh(), self.fresh()
        self.op(f"{all_rows} = bufferization.to_tensor {cache} restrict "
                f"writable : {self.cache_type} to {whole}")
        self.op(f"{updated} = tensor.insert_slice {heads} into {all_rows}"
                f"[%layer, 0, %pos, 0] [1, {kv}, {n}, {d}] [1, 1, 1, 1] : "
                f"{by_head} into {whole}")
        self.op(f"bufferization.materialize_in_destination {updated} in "
                f"restrict writable {cache} : ({whole}, {self.cache_type}) "
                f"-> ()")

    def attention(self, q):
        """Causal grouped-query attention of the N new queries over the
        layer's cache (positions 0 .. pos + N - 1; later ones masked)."""
        if self.n > 1 and not self.whole_capacity:
            return self.prefill_attention(q)
        c = self.c
        n, cap, d = self.n, self.capacity, c.head_dim
        kv, g = c.n_head_kv, c.n_head // c.n_head_kv
        # Only the positions written so far (pos + N of them) take part:
        # the attention's cost follows the context, not the capacity. (The
        # SPIR-V pipeline cannot slice a buffer by a dynamic size inside a
        # kernel: there the whole capacity takes part, masked.)
        length = self.fresh()
        if self.whole_capacity:
            self.op(f"{length} = arith.constant {cap} : index")
        else:
            count = self.fresh()
            self.op(f"{count} = arith.constant {n} : index")
            self.op(f"{length} = arith.addi %pos, {count} : index")
        keys, values = [], []
        whole = tensor_type((c.n_layer, kv, self.rows, d), "f32")
        rows = cap if self.whole_capacity else "?"
        size = cap if self.whole_capacity else length
        for cache, out in (("%kcache", keys), ("%vcache", values)):
            t, used = self.fresh(), self.fresh()
            self.op(f"{t} = bufferization.to_tensor {cache} restrict : "
                    f"{self.cache_type} to {whole}")
            self.op(f"{used} = tensor.extract_slice {t}[%layer, 0, 0, 0] [1, "
                    f"{kv}, {size}, {d}] [1, 1, 1, 1] : {whole} to "
                    f"{tensor_type((kv, rows, d), 'f32')}")
            out.append(used)
        qt = tensor_type((n, kv, g, d), "f32")
        qg = self.fresh()
        self.op(f"{qg} = tensor.expand_shape {q} [[0], [1, 2, 3]] output_shape "
                f"[{n}, {kv}, {g}, {d}] : {tensor_type((n, c.n_head * d), 'f32')}"
                f" into {qt}")
        if not self.threads_over_heads:
            return self.merge_heads(self.heads_attention(
                qg, keys[0], values[0], kv, length))
        # One thread's share of the kv heads each (an scf.forall the CPU
        # pipeline runs on OpenMP threads): a decode step's attention has a
        # dynamic length, which the vectorizer never splits over threads,
        # and on one thread over 400 positions it was a third of the step. Each head's ops are those of the whole (one head of
        # them): the same sums in the same order.
        kt = tensor_type((kv, "?", d), "f32")
        ht = tensor_type((1, "?", d), "f32")
        qht = tensor_type((n, 1, g, d), "f32")
        outs, result, head = self.fresh(), self.fresh(), self.fresh()
        shared = self.fresh()
        self.op(f"{outs} = tensor.empty() : {qt}")
        self.b.open_region(f"{result} = scf.forall ({head}) in ({kv}) "
                           f"shared_outs({shared} = {outs}) -> ({qt}) {{")
        qh = self.fresh()
        self.op(f"{qh} = tensor.extract_slice {qg}[0, {head}, 0, 0] [{n}, 1, "
                f"{g}, {d}] [1, 1, 1, 1] : {qt} to {qht}")
        sliced = []
        for operand in (keys[0], values[0]):
            part = self.fresh()
            self.op(f"{part} = tensor.extract_slice {operand}[{head}, 0, 0] "
                    f"[1, {length}, {d}] [1, 1, 1] : {kt} to {ht}")
            sliced.append(part)
        out = self.heads_attention(qh, sliced[0], sliced[1], 1, length)
        self.b.open_region("scf.forall.in_parallel {")
        self.op(f"tensor.parallel_insert_slice {out} into {shared}[0, {head}, "
                f"0, 0] [{n}, 1, {g}, {d}] [1, 1, 1, 1] : {qht} into {qt}")
        self.b.close_region()
        self.b.close_region()
        return self.merge_heads(result)

    def heads_attention(self, qg, keys, values, kv, length):
        """The attention of `kv` kv heads: the queries `qg` [N, kv, g, d]
        over the positions 0 .. `length` - 1 of `keys` and `values`
        [kv, positions, d]; [N, kv, g, d]."""
        c = self.c
        n, cap, d = self.n, "?", c.head_dim
        g = c.n_head // c.n_head_kv
        kt = tensor_type((kv, "?", d), "f32")
        qt = tensor_type((n, kv, g, d), "f32")
        dyn = [length]
        if self.whole_capacity:
            # Static shapes throughout: the slices fold to the capacity.
            kt = tensor_type((kv, self.capacity, d), "f32")
            cap, dyn = self.capacity, []
        scores = self.generic(
            [(qg, qt), (keys, kt)], (n, kv, g, cap),
            ["(t, k, g, j, i) -> (t, k, g, i)", "(t, k, g, j, i) -> (k, j, i)",
             "(t, k, g, j, i) -> (t, k, g, j)"],
            ["parallel"] * 4 + ["reduction"],
            self.sum_of_products(),
            init="0.0", dynamic=dyn)
        weights = self.attention_weights(
            scores, (n, kv, g, cap), "(t, k, g, j)",
            ["%j = linalg.index 3 : index"], dyn)
        st = tensor_type((n, kv, g, cap), "f32")
        # The positions (j, a dynamic count) summed in an outer loop, the
        # head dimension (static, contiguous in the values) innermost: the
        # vectorizer keeps 16 outputs per vector instead of reading the
        # values with a stride per position (2.5x faster at 512 tokens);
        # each output still sums over j in increasing order.
        return self.generic(
            [(weights, st), (values, kt)], (n, kv, g, d),
            ["(t, k, g, j, i) -> (t, k, g, j)", "(t, k, g, j, i) -> (k, j, i)",
             "(t, k, g, j, i) -> (t, k, g, i)"],
            ["parallel"] * 3 + ["reduction", "parallel"],
            self.sum_of_products(),
            init="0.0")

    def sum_of_products(self):
        """The body of an attention product: acc + a0 * a1, reassociable
        with the products' fast-math option."""
        return [f"%p = arith.mulf %a0, %a1{self.reassoc} : f32",
                f"%r = arith.addf %acc, %p{self.reassoc} : f32",
                "linalg.yield %r : f32"]

    def attention_weights(self, scores, shape, dims, position, dynamic):
        """The softmax weights of `scores` ([N, kv, g, positions...], loops
        named `dims`, e.g. "(t, k, g, j)"): scaled by 1 / sqrt(head_dim),
        the positions after pos + t masked, normalized over the position
        dimensions. `position`: the body lines that compute %j, the
        position, from the loop indices; `dynamic`: the sizes of the `?`
        dimensions of `shape`."""
        n, kv, g = shape[:3]
        rank = len(shape)
        st = tensor_type(shape, "f32")
        rt = tensor_type((n, kv, g), "f32")
        row = [f"{dims} -> {dims}", f"{dims} -> (t, k, g)"]
        # Each elementwise step writes over its operand (`into`): the
        # scores of a 512-token prefill are 32 MiB, one buffer for all.
        masked = self.generic(
            [], shape, [row[0]], ["parallel"] * rank, into=scores,
            dynamic=dynamic, body=[
                f"%scale = arith.constant "
                f"{1.0 / math.sqrt(self.c.head_dim)!r} : f32",
                "%ninf = arith.constant 0xFF800000 : f32",
                "%t = linalg.index 0 : index", *position,
                "%last = arith.addi %pos, %t : index",
                "%visible = arith.cmpi ule, %j, %last : index",
                "%s = arith.mulf %acc, %scale : f32",
                "%m = arith.select %visible, %s, %ninf : f32",
                "linalg.yield %m : f32"])
        sums = ["parallel"] * 3 + ["reduction"] * (rank - 3)
        maximum = self.generic(
            [(masked, st)], (n, kv, g), row, sums,
            ["%m = arith.maximumf %acc, %a0 : f32", "linalg.yield %m : f32"],
            init="0xFF800000")
        exps = self.generic(
            [(maximum, rt)], shape, [row[1], row[0]], ["parallel"] * rank,
            ["%s = arith.subf %acc, %a0 : f32", "%e = math.exp %s : f32",
             "linalg.yield %e : f32"], dynamic=dynamic, into=masked)
        total = self.generic(
            [(exps, st)], (n, kv, g), row, sums,
            ["%s = arith.addf %acc, %a0 : f32", "linalg.yield %s : f32"],
            init="0.0")
        return self.generic(
            [(total, rt)], shape, [row[1], row[0]], ["parallel"] * rank,
            ["%p = arith.divf %acc, %a0 : f32", "linalg.yield %p : f32"],
            dynamic=dynamic, into=exps)

    def merge_heads(self, out):
        """[N, kv, g, head_dim] attention outputs as [N, n_head * head_dim]."""
        c, n = self.c, self.n
        grouped = (n, c.n_head_kv, c.n_head // c.n_head_kv, c.head_dim)
        flat = self.fresh()
        self.op(f"{flat} = tensor.collapse_shape {out} [[0], [1, 2, 3]] : "
                f"{tensor_type(grouped, 'f32')} into "
                f"{tensor_type((n, c.n_head * c.head_dim), 'f32')}")
        return flat

    def prefill_attention(self, q):
        """attention() for a prefill: both products as sums of outer
        products over packed operands, which --quant-block-cpu-vectorize
        register-tiles (a few rows of queries times four vectors of
        positions or of the head dimension, the accumulators in registers).

        The key positions are taken in whole blocks of KEY_BLOCK, up to the
        first block boundary after the last one (the cache has the rows:
        cache_rows); the positions past the last are zero in the packed
        operands and masked in the scores, so they add exact zeros. The
        keys are packed transposed, [kv head, block, head dim, position in
        block], and the values [kv head, position, head dim]: each register
        tile then streams one contiguous panel (in the cache, a head's rows
        are kv * head_dim floats apart, and a panel read with that stride
        maps to a few cache sets and thrashes). The sums keep their order:
        each output adds its terms in increasing head dim or position, as
        attention() does; the padding adds +0."""
        c = self.c
        n, d, block = self.n, c.head_dim, self.KEY_BLOCK
        kv, g = c.n_head_kv, c.n_head // c.n_head_kv
        length, blocks, padded = self.fresh(), self.fresh(), self.fresh()
        count, width = self.fresh(), self.fresh()
        self.op(f"{count} = arith.constant {n} : index")
        self.op(f"{length} = arith.addi %pos, {count} : index")
        self.op(f"{width} = arith.constant {block} : index")
        self.op(f"{blocks} = arith.ceildivui {length}, {width} : index")
        self.op(f"{padded} = arith.muli {blocks}, {width} : index")
        whole = tensor_type((c.n_layer, kv, self.rows, d), "f32")
        rows = tensor_type((kv, "?", block, d), "f32")
        packed = []
        for cache, layout in (("%kcache", "(k, b, i, l)"),
                              ("%vcache", "(k, b, l, i)")):
            t, used, grouped = self.fresh(), self.fresh(), self.fresh()
            self.op(f"{t} = bufferization.to_tensor {cache} restrict : "
                    f"{self.cache_type} to {whole}")
            self.op(f"{used} = tensor.extract_slice {t}[%layer, 0, 0, 0] [1, "
                    f"{kv}, {padded}, {d}] [1, 1, 1, 1] : {whole} to "
                    f"{tensor_type((kv, '?', d), 'f32')}")
            self.op(f"{grouped} = tensor.expand_shape {used} [[0], [1, 2], [3]]"
                    f" output_shape [{kv}, {blocks}, {block}, {d}] : "
                    f"{tensor_type((kv, '?', d), 'f32')} into {rows}")
            keys = layout == "(k, b, i, l)"
            shape = (kv, "?", d, block) if keys else (kv, "?", block, d)
            # Positions past the last: zero, whatever the cache holds there.
            packed.append(self.generic(
                [(grouped, rows)], shape,
                [f"{layout} -> (k, b, l, i)", f"{layout} -> {layout}"],
                ["parallel"] * 4, [
                    "%b = linalg.index 1 : index",
                    f"%l = linalg.index {3 if keys else 2} : index",
                    f"%w = arith.constant {block} : index",
                    "%bw = arith.muli %b, %w : index",
                    "%j = arith.addi %bw, %l : index",
                    f"%in = arith.cmpi ult, %j, {length} : index",
                    "%zero = arith.constant 0.0 : f32",
                    "%r = arith.select %in, %a0, %zero : f32",
                    "linalg.yield %r : f32"], dynamic=[blocks]))
        keys = packed[0]
        values = self.fresh()
        self.op(f"{values} = tensor.collapse_shape {packed[1]} [[0], [1, 2], "
                f"[3]] : {tensor_type((kv, '?', block, d), 'f32')} into "
                f"{tensor_type((kv, '?', d), 'f32')}")
        qt = tensor_type((n, kv, g, d), "f32")
        qg = self.fresh()
        self.op(f"{qg} = tensor.expand_shape {q} [[0], [1, 2, 3]] output_shape "
                f"[{n}, {kv}, {g}, {d}] : {tensor_type((n, c.n_head * d), 'f32')}"
                f" into {qt}")
        scores_shape = (n, kv, g, "?", block)
        scores = self.generic(
            [(qg, qt), (keys, tensor_type((kv, "?", d, block), "f32"))],
            scores_shape,
            ["(t, k, g, b, l, i) -> (t, k, g, i)",
             "(t, k, g, b, l, i) -> (k, b, i, l)",
             "(t, k, g, b, l, i) -> (t, k, g, b, l)"],
            ["parallel"] * 5 + ["reduction"],
            self.sum_of_products(),
            init="0.0", dynamic=[blocks])
        weights = self.attention_weights(
            scores, scores_shape, "(t, k, g, b, l)",
            [f"%w = arith.constant {block} : index",
             "%b = linalg.index 3 : index", "%l = linalg.index 4 : index",
             "%bw = arith.muli %b, %w : index",
             "%j = arith.addi %bw, %l : index"], [blocks])
        st = tensor_type(scores_shape, "f32")
        flat_weights = self.fresh()
        self.op(f"{flat_weights} = tensor.collapse_shape {weights} [[0], [1], "
                f"[2], [3, 4]] : {st} into "
                f"{tensor_type((n, kv, g, '?'), 'f32')}")
        out = self.generic(
            [(flat_weights, tensor_type((n, kv, g, "?"), "f32")),
             (values, tensor_type((kv, "?", d), "f32"))], (n, kv, g, d),
            ["(t, k, g, i, j) -> (t, k, g, j)", "(t, k, g, i, j) -> (k, j, i)",
             "(t, k, g, i, j) -> (t, k, g, i)"],
            ["parallel"] * 4 + ["reduction"],
            self.sum_of_products(),
            init="0.0")
        return self.merge_heads(out)

    def swiglu(self, gate, up):
        shape = (self.n, self.c.n_ff)
        t = tensor_type(shape, "f32")
        # Over the gate's buffer: three [N, n_ff] tensors live would be the
        # largest temporaries of a prefill layer.
        return self.generic(
            [(up, t)], shape, ["(t, i) -> (t, i)"] * 2,
            ["parallel", "parallel"],
            ["%one = arith.constant 1.0 : f32",
             "%neg = arith.negf %acc : f32", "%e = math.exp %neg : f32",
             "%d = arith.addf %one, %e : f32",
             "%silu = arith.divf %acc, %d : f32",
             "%y = arith.mulf %silu, %a0 : f32", "linalg.yield %y : f32"],
            into=gate)

    def embed(self):
        """The rows of token_embd for the N tokens: a gather of the
        quantized rows' parts, then quant_block.dequantize of those rows
        only (the table is never dequantized)."""
        tensor = self.weights["token_embd.weight"]
        n, e = self.n, self.c.n_embd
        ids = tensor_type((n,), "i32")
        w = self.arg_names["token_embd.weight"]
        if not tensor.scheme:
            parts, types = [w], [tensor.mlir_type]
        else:
            types = _part_types(tensor)
            parts = [self.fresh() for _ in types]
            self.op(f"{', '.join(parts)} = builtin.unrealized_conversion_cast "
                    f"{w} : {tensor.mlir_type} to {', '.join(types)}")
        gathered, gathered_types = [], []
        for part, part_type in zip(parts, types):
            dims = part_type[len("tensor<"):-1].split("x")
            width, element = int(dims[1]), dims[2]
            rows_type = tensor_type((n, width), element)
            gathered.append(self.generic(
                [("%tokens", ids)], (n, width),
                ["(t, i) -> (t)", "(t, i) -> (t, i)"], ["parallel", "parallel"],
                ["%row = arith.index_cast %a0 : i32 to index",
                 "%col = linalg.index 1 : index",
                 f"%v = tensor.extract {part}[%row, %col] : {part_type}",
                 f"linalg.yield %v : {element}"], element=element))
            gathered_types.append(rows_type)
        if not tensor.scheme:
            element = gathered_types[0].rsplit("x", 1)[-1].rstrip(">")
            if element == "f32":
                return gathered[0]
            return self.generic(
                [(gathered[0], gathered_types[0])], (n, e),
                ["(t, i) -> (t, i)"] * 2, ["parallel", "parallel"],
                [f"%y = arith.extf %a0 : {element} to f32",
                 "linalg.yield %y : f32"])
        rows_type = tensor.mlir_type.replace(
            f"<{tensor.shape[0]}x{e},", f"<{n}x{e},", 1)
        rows = self.fresh()
        self.op(f"{rows} = builtin.unrealized_conversion_cast "
                f"{', '.join(gathered)} : {', '.join(gathered_types)} to "
                f"{rows_type}")
        x = self.fresh()
        self.op(f"{x} = quant_block.dequantize {rows} : {rows_type} -> "
                f"{tensor_type((n, e), 'f32')}")
        return x

    # The whole graph -------------------------------------------------------

    # Layer names, in the order a layer function takes its weights.
    LAYER_TENSORS = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output",
                     "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")

    def layer_tensors(self, layer):
        """The weights block `layer` takes, in order: LAYER_TENSORS, with
        q, k, v as one `attn_qkv` (or q, k as one `attn_qk`) and gate, up
        as one `ffn_gate_up` where the model fused them (_fuse_products)."""
        p = f"blk.{layer}."
        names = []
        for t in self.LAYER_TENSORS:
            for fused, members in _FUSED_PRODUCTS.items():
                if t in members and p + fused + ".weight" in self.weights:
                    t = fused
            if t not in names:
                names.append(t)
        return names

    def _start(self, location):
        """A fresh function body."""
        self.b = Builder()
        self.b.location = location

    def layer_function(self, name, layer):
        """A function that runs one transformer block: it takes the
        activations, the position, the block's cache memrefs, the RoPE
        rows and the block's weights (typed as those of block `layer`), and
        returns the new activations. Every block whose weights have these
        types calls it, so its code is compiled once."""
        c, n = self.c, self.n
        e, kvw = c.n_embd, c.n_head_kv * c.head_dim
        qw = c.n_head * c.head_dim
        p = f"blk.{layer}."
        self._start(p + "attn")
        tensors = self.layer_tensors(layer)
        self.arg_names = {p + t + ".weight": f"%w{i}"
                          for i, t in enumerate(tensors)}
        xt = tensor_type((n, e), "f32")
        half = tensor_type((n, c.head_dim // 2), "f32")
        # The activations come in and go out through buffers the caller
        # owns (two, used in turn): a returned tensor would be a fresh
        # buffer per block, which ownership-based deallocation frees only
        # when the model's function returns (it decides their ownership at
        # run time), all of them live at once. On a GPU pipeline they are
        # device buffers too (the forward function's, used only by kernels
        # and these calls), so that nothing crosses PCIe between blocks.
        r = self.resident
        # The whole RoPE tables, sliced here at the position: a slice
        # passed in would be copied (function arguments are whole buffers),
        # on the host, which cannot read device-resident tables.
        table = tensor_type((self.capacity, c.head_dim // 2), "f32")
        # The buffers a block writes are distinct buffers of the caller
        # (llvm.noalias): on the GPU pipelines the K and V caches' stores
        # and the activations' copies may then share a kernel, which alias
        # analysis alone forbids between two arguments.
        w = (" {quant_block.device_resident, llvm.noalias}" if r
             else " {llvm.noalias}")
        arguments = [f"%xin: {self.activation_type}{w}",
                     f"%xout: {self.activation_type}{w}", "%pos: index",
                     "%layer: index",
                     f"%kcache: {self.cache_type}{w}",
                     f"%vcache: {self.cache_type}{w}",
                     f"%rope_cos: {table}{r}", f"%rope_sin: {table}{r}"]
        arguments += [f"{self.arg_names[p + t + '.weight']}: "
                      f"{self.weights[p + t + '.weight'].mlir_type}{r}"
                      for t in tensors]
        self.cos, self.sin = "%cos", "%sin"
        for out, source in (("%cos", "%rope_cos"), ("%sin", "%rope_sin")):
            self.op(f"{out} = tensor.extract_slice {source}[%pos, 0] [{n}, "
                    f"{c.head_dim // 2}] [1, 1] : {table} to {half}")
        self.op(f"%x = bufferization.to_tensor %xin restrict : "
                f"{self.activation_type} to {xt}")
        h = self.rms_norm("%x", self.arg_names[p + "attn_norm.weight"])
        qk_rows = None  # q's and k's rows side by side, where fused
        if p + "attn_qkv.weight" in self.weights:
            qkv = self.linear(h, p + "attn_qkv.weight", e, qw + 2 * kvw)
            qk_rows, v = self.columns(qkv, qw + 2 * kvw, [qw + kvw, kvw])
        elif p + "attn_qk.weight" in self.weights:
            qk_rows = self.linear(h, p + "attn_qk.weight", e, qw + kvw)
            v = self.linear(h, p + "attn_v.weight", e, kvw)
        if qk_rows is not None:
            # q's and k's heads rotate alike (the same tables, pair by
            # pair): one RoPE over both (on a GPU one kernel, not two).
            q, k = self.columns(self.rope(qk_rows, c.n_head + c.n_head_kv),
                                qw + kvw, [qw, kvw])
        else:
            q_rows = self.linear(h, p + "attn_q.weight", e, qw)
            k_rows = self.linear(h, p + "attn_k.weight", e, kvw)
            v = self.linear(h, p + "attn_v.weight", e, kvw)
            q = self.rope(q_rows, c.n_head)
            k = self.rope(k_rows, c.n_head_kv)
        self.store("%kcache", k)
        self.store("%vcache", v)
        o = self.attention(q)
        x = self.add("%x", self.linear(o, p + "attn_output.weight", qw, e),
                     (n, e))
        self.b.location = p + "ffn"
        h = self.rms_norm(x, self.arg_names[p + "ffn_norm.weight"])
        if p + "ffn_gate_up.weight" in self.weights:
            gate_up = self.linear(h, p + "ffn_gate_up.weight", e, 2 * c.n_ff)
            act = self.swiglu(*self.columns(gate_up, 2 * c.n_ff,
                                            [c.n_ff, c.n_ff]))
        else:
            act = self.swiglu(self.linear(h, p + "ffn_gate.weight", e, c.n_ff),
                              self.linear(h, p + "ffn_up.weight", e, c.n_ff))
        x = self.add(x, self.linear(act, p + "ffn_down.weight", c.n_ff, e),
                     (n, e))
        self.op(f"bufferization.materialize_in_destination {x} in restrict "
                f"writable %xout : ({xt}, {self.activation_type}) -> ()")
        self.op("return")
        # On a GPU pipeline a private layer function returns without
        # waiting for its kernels (--quant-block-gpu-data-movement's
        # ordered-queue): a decode step synchronizes once, for the logits.
        return self.b.function(name, arguments, [],
                               private=bool(self.resident))

    def build(self, name, order, last_logits=False):
        """The module: `@forward` (embedding, a call of a layer function per
        block, the head) and the layer functions it calls. `last_logits`:
        the head of the last position only (llama-bench's prompt test)."""
        c, n = self.c, self.n
        e, kvw = c.n_embd, c.n_head_kv * c.head_dim
        half = c.head_dim // 2
        self.rows = cache_rows(self.capacity)
        self.cache_type = (f"memref<{c.n_layer}x{c.n_head_kv}x{self.rows}x"
                           f"{c.head_dim}xf32>")
        self.activation_type = f"memref<{n}x{e}xf32>"
        # One layer function per distinct tuple of weight types.
        signatures, layer_functions, calls = {}, [], []
        for layer in range(c.n_layer):
            key = tuple((t, self.weights[f"blk.{layer}.{t}.weight"].mlir_type)
                        for t in self.layer_tensors(layer))
            if key not in signatures:
                signatures[key] = f"layer{len(signatures)}"
                layer_functions.append(
                    self.layer_function(signatures[key], layer))
            calls.append(signatures[key])

        self._start("rope")
        self.arg_names = {w: f"%w_{i}" for i, w in enumerate(order)}
        table = tensor_type((self.capacity, half), "f32")
        r = self.resident
        arguments = [f"%tokens: {tensor_type((n,), 'i32')}", "%pos: index",
                     f"%kcache: {self.cache_type}{r}",
                     f"%vcache: {self.cache_type}{r}",
                     f"%rope_cos: {table}{r}", f"%rope_sin: {table}{r}"]
        for w in order:
            # Weights the model widened are not the file's parts: no
            # quant_block.gguf_tensor, which promises those.
            attributes = [] if getattr(self.weights[w], "made_by_model",
                                       False) \
                else [f'quant_block.gguf_tensor = "{w}"']
            if r:
                attributes.append("quant_block.device_resident")
            marker = f" {{{', '.join(attributes)}}}" if attributes else ""
            arguments.append(f"{self.arg_names[w]}: "
                             f"{self.weights[w].mlir_type}{marker}")
        self.b.location = "token_embd"
        x = self.embed()
        xt = tensor_type((n, e), "f32")
        buffers = [self.fresh(), self.fresh()]
        for buffer in buffers:
            self.op(f"{buffer} = memref.alloc() : {self.activation_type}")
        self.op(f"bufferization.materialize_in_destination {x} in restrict "
                f"writable {buffers[0]} : ({xt}, {self.activation_type}) "
                f"-> ()")
        for layer, function in enumerate(calls):
            p = f"blk.{layer}."
            self.b.location = p.rstrip(".")
            index = self.fresh()
            self.op(f"{index} = arith.constant {layer} : index")
            weights = [self.arg_names[p + t + ".weight"]
                       for t in self.layer_tensors(layer)]
            weight_types = [self.weights[p + t + ".weight"].mlir_type
                            for t in self.layer_tensors(layer)]
            source, target = buffers[layer % 2], buffers[1 - layer % 2]
            self.op(f"func.call @{function}({source}, {target}, %pos, "
                    f"{index}, %kcache, %vcache, %rope_cos, %rope_sin, "
                    f"{', '.join(weights)}) : ({self.activation_type}, "
                    f"{self.activation_type}, index, index, "
                    f"{self.cache_type}, {self.cache_type}, {table}, "
                    f"{table}, {', '.join(weight_types)}) -> ()")
        x = self.fresh()
        self.op(f"{x} = bufferization.to_tensor {buffers[c.n_layer % 2]} "
                f"restrict : {self.activation_type} to {xt}")
        self.b.location = "output"
        if last_logits and n > 1:
            last = self.fresh()
            self.op(f"{last} = tensor.extract_slice {x}[{n - 1}, 0] [1, {e}] "
                    f"[1, 1] : {xt} to {tensor_type((1, e), 'f32')}")
            x, n = last, 1
            self.n = 1
        h = self.rms_norm(x, self.arg_names["output_norm.weight"])
        head = "output.weight" if "output.weight" in self.weights \
            else "token_embd.weight"
        logits = self.linear(h, head, e, c.n_vocab)
        self.op(f"return {logits} : {tensor_type((n, c.n_vocab), 'f32')}")
        forward = self.b.function(name, arguments,
                                  [tensor_type((n, c.n_vocab), "f32")])
        return "\n".join(layer_functions + [forward])


def rope_tables(config, capacity):
    """cos / sin of RoPE's angles, [capacity, head_dim / 2] each: angle
    `pos * freq_base^(-2i / n_rot)` for pair i < n_rot / 2 (computed in
    float64, rounded once to f32), cos 1 and sin 0 past it (the pairs that
    do not rotate)."""
    half = config.head_dim // 2
    i = np.arange(half, dtype=np.float64)
    inv = config.freq_base ** (-2.0 * i / config.n_rot)
    angle = np.arange(capacity, dtype=np.float64)[:, None] * inv[None, :]
    angle[:, config.n_rot // 2:] = 0.0
    return np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)


class _ModelTensor:
    """A weight whose parts the model made itself (not the file's: widened
    or row-tiled): its type and parts, in the interface of gguf.Tensor the
    emitter reads."""

    def __init__(self, tensor, scheme, parts, name=None, shape=None):
        self.name, self.type = name or tensor.name, tensor.type
        self.shape = tuple(shape or tensor.shape)
        self.scheme = scheme
        self.mlir_type = ("!quant_block.tensor<" + "x".join(
            str(d) for d in self.shape) + f", {scheme}>")
        self.parts = [gguf.Part(part.role, array.dtype, array.shape)
                      for part, array in zip(tensor.parts, parts)]
        self.made_by_model = True


def _widen_q6_k(tensor, parts):
    """A Q6_K weight with its 6-bit codes widened to bytes, its two levels
    of scales kept: `<i8 : f32, block = [16], scale = i8, outer = <f16,
    block = [16]>>`, each element `q * (f32(sc) * f32(d))` as the file's
    scheme (and ggml) computes it, bit for bit. The CPU kernels take 8-bit
    codes in blocks of 16 under a blocked outer scale; they have no form for
    6-bit codes (about 5x faster for the output head of a 7B model, for 1.3x
    the bytes: 8.56 bits per weight against 6.56)."""
    data, scales, outer = parts
    n, k = tensor.shape
    groups = data.view(np.uint8).reshape(n, k // 4, 3)
    codes = np.empty((n, k // 4, 4), np.uint8)
    # Rows in chunks, in bytes: the temporaries stay a few MiB (widening the
    # whole 32000 x 4096 head at once took 1.3 GB above the parts).
    for row in range(0, n, 256):
        b0, b1, b2 = (groups[row:row + 256, :, j] for j in range(3))
        out = codes[row:row + 256]
        out[..., 0] = b0 & 63
        out[..., 1] = (b0 >> 6) | ((b1 & 15) << 2)
        out[..., 2] = (b1 >> 4) | ((b2 & 3) << 4)
        out[..., 3] = b2 >> 2
        # Sign-extend the 6-bit two's complement codes in place.
        signed = out.view(np.int8)
        np.left_shift(out, 2, out=out)
        np.right_shift(signed, 2, out=signed)
    codes = codes.reshape(n, k).view(np.int8)
    scheme = ("#quant_block.scheme<i8 : f32, block = [16], scale = i8, "
              "outer = <f16, block = [16]>>")
    widened = [codes, scales, outer]
    return _ModelTensor(tensor, scheme, widened), widened


# Products of one activation that the CPU pipeline computes as one, their
# weights' rows concatenated at load (the same products and bits: each
# output row's sum does not depend on the others): one quantization of the
# activations and one pass of the threads instead of three (q, k, v) or two
# (gate, up), fewer waits at the threads' barriers. A group whose members
# an earlier group also has is that group's fallback, made only where the
# earlier one cannot be: q and k alone where v's type differs (Q4_K_M's
# `use_more_bits` layers store attn_v as Q6_K), 6 threaded loops a layer
# instead of 7.
_FUSED_PRODUCTS = {"attn_qkv": ("attn_q", "attn_k", "attn_v"),
                   "attn_qk": ("attn_q", "attn_k"),
                   "ffn_gate_up": ("ffn_gate", "ffn_up")}


def _fusion_trigger(fused):
    """The member after whose load _fuse_products tries group `fused`: its
    last one, or for a fallback the last one of the first group that shares
    a member with it (whether that one can be made is known only then)."""
    members = _FUSED_PRODUCTS[fused]
    for other in _FUSED_PRODUCTS.values():
        if set(other) & set(members):
            return other[-1]
    return members[-1]


def _fuse_rows(name, tensors, parts):
    """The weights `tensors` (with their `parts`) as one weight `name` of
    their rows in order, or None where they differ in type, scheme or K, or
    have a part without a row (or row tile) per weight row, such as a
    per-tensor scale."""
    first = tensors[0]
    schemes = {t.scheme for t in tensors}
    if (len({t.type for t in tensors}) != 1 or len(schemes) != 1
            or None in schemes
            or len({t.shape[1] for t in tensors}) != 1
            or len({len(p) for p in parts}) != 1):
        return None
    tiled = "row_tile" in first.scheme
    for tensor, arrays in zip(tensors, parts):
        rows = tensor.shape[0] // _ROW_TILE if tiled else tensor.shape[0]
        if any(a.ndim < 1 or a.shape[0] != rows for a in arrays):
            return None
    for j in range(len(parts[0])):
        if len({a.shape[1:] for a in (p[j] for p in parts)}) != 1:
            return None
    fused = [np.concatenate([p[j] for p in parts])
             for j in range(len(parts[0]))]
    shape = (sum(t.shape[0] for t in tensors), first.shape[1])
    return _ModelTensor(first, first.scheme, fused, name=name,
                        shape=shape), fused


# The types row_tiles stores row-tiled: those whose int8 kernel reads the
# tiles (blocks along K of whole 32-bit words; Q4_K's blocked outer scales
# and mins, and Q6_K's outer scales, are tiled as its scales).
_ROW_TILED_TYPES = ("Q4_0", "Q8_0", "Q4_1", "Q4_K", "Q6_K")
_ROW_TILE = 16
# The file's bytes the loader repacks at a time for a row-tiled or fused
# weight (Llama._load_rows): small against a layer, large enough that the
# calls cost nothing.
_LOAD_CHUNK_BYTES = 4 << 20


def _can_tile_rows(name, tensor):
    """Whether `tensor` may be stored row-tiled: a product's weight (not the
    embedding table, whose rows the model gathers) of a type the tiled
    layout has, with whole tiles of rows."""
    # (Q6_K's blocks of 16 are whole words as 6-bit codes, 3 of them, and
    # widened to 8-bit ones, 4.)
    return (tensor.type in _ROW_TILED_TYPES and name != "token_embd.weight"
            and len(tensor.shape) == 2 and tensor.shape[0] % _ROW_TILE == 0)


def _row_tiled_scheme(scheme):
    """`scheme` (a #quant_block.scheme's text) with `row_tile = 16`."""
    return scheme[:-1] + f", row_tile = {_ROW_TILE}>"


def _tile_rows(tensor, parts):
    """The weight in the row-tiled layout (`row_tile = 16`, docs/Packing.md):
    each tile of 16 rows one contiguous stream, the layout of the int8
    kernel's vectors (one row per lane). The same values and the same
    products' bits; a copy of each tensor at load. Every part with a row
    per weight row is tiled (data, scales, mins, blocked outer scales and
    outer mins); a per-tensor one stays."""
    n = tensor.shape[0]
    scheme = _row_tiled_scheme(tensor.scheme)
    tiled = [tile_rows(part, _ROW_TILE, data=index == 0)
             if index == 0 or (part.ndim == 2 and part.shape[0] == n)
             else part for index, part in enumerate(parts)]
    return _ModelTensor(tensor, scheme, tiled), tiled


class Llama:
    """A compiled LLaMA model over a GGUF file, with its KV cache."""

    def __init__(self, path, capacity=None, threads=None, fast=True,
                 activations="f32", widen_q6_k=None,
                 pipeline="quant-block-cpu-pipeline", row_tiles=None,
                 fuse_products=True):
        """`row_tiles`: store the Q4_0 / Q8_0 / Q4_1 / Q4_K / Q6_K weights of
        the products row-tiled (docs/Packing.md). By default, with int8
        activations on the CPU pipeline where the host has AVX512-VNNI:
        that int8 kernel reads a tile's 16 rows with one load (tg128 of a
        19-layer Q4_0 model 12 % faster, bench/README.md), where the other
        kernels would untile the weight on every call.

        `widen_q6_k`: Q6_K's 6-bit codes widened to bytes at load (exact;
        8.56 bits per weight instead of 6.56). By default unless those int8
        kernels read the 6-bit codes themselves (the same host and options
        as `row_tiles`): the float kernels and the GPU pipelines have no
        form for 6-bit codes. The logits are the same bits either way.

        `fuse_products`: the q, k, v weights of a block as one product (or
        q and k where v's type differs), and gate and up as one, where their
        types and schemes agree (their rows concatenated at load; the same
        bits). On by default: on the GPU
        pipelines too, where a fused product is one launch instead of two
        or three and the column slices of its result are views the later
        kernels read (a decode step of the tiny test model on Vulkan: 46
        -> 40 kernels with f32 activations, 53 -> 47 with int8, the same
        logits)."""
        if threads:
            # libomp reads it when the first parallel region starts.
            os.environ["OMP_NUM_THREADS"] = str(threads)
        self.file = gguf.open(path)
        self.config = c = LlamaConfig.from_file(self.file)
        self.capacity = int(capacity or min(c.n_ctx, 2048))
        self.fast = fast
        if activations not in ("f32", "int8"):
            raise ValueError(f"activations must be 'f32' or 'int8', not "
                             f"{activations!r}")
        self.activations = activations
        self.pipeline = pipeline
        # Whether the int8 kernels with one weight row per lane (which read
        # row tiles and 6-bit codes) take the products.
        from .runner import cpu_target
        row_lane_kernels = (activations == "int8" and
                            pipeline.startswith("quant-block-cpu-pipeline")
                            and cpu_target().avx512_vnni)
        if row_tiles is None:
            row_tiles = row_lane_kernels
        if widen_q6_k is None:
            widen_q6_k = not row_lane_kernels
        self.row_tiles = row_tiles
        has_output = any(t.name == "output.weight" for t in self.file.tensors)
        self.order = []
        self.tensors = {}
        for name, shape in c.tensor_shapes(has_output):
            try:
                tensor = self.file.tensor(name)
            except gguf.GGUFError:
                raise LlamaError(f"{path}: tensor '{name}' is missing") from None
            if tuple(tensor.shape) != shape:
                raise LlamaError(
                    f"{path}: tensor '{name}' has shape {list(tensor.shape)}, "
                    f"but the metadata says {list(shape)}")
            if not tensor.supported:
                raise LlamaError(tensor.unsupported_reason)
            if len(shape) == 1 and tensor.type != "F32":
                raise LlamaError(f"{path}: tensor '{name}' is {tensor.type}; "
                                 "norm weights must be F32")
            self.tensors[name] = tensor
            self.order.append(name)
        # Weights: repacked once from the mapped file; the file's pages of
        # each are released after it (the parts are the resident copy).
        # Row-tiled weights, and the groups fused into one product, are
        # written into their final arrays in chunks of rows, each chunk's
        # file pages released after it: the load never holds a large
        # tensor's file pages, its repacked parts and its tiled or fused
        # copy at once (that took the peak RSS of a 3-layer 7B-shaped
        # model to 1.38x the file + KV cache: the head, loaded last, three
        # times).
        threads_for_load = threads or 1
        parts_of = {}
        fused_groups = self._fusable_groups(widen_q6_k) \
            if fuse_products else {}
        for name in list(self.order):
            if name not in self.tensors:  # a member of a group loaded already
                continue
            if name in fused_groups:
                fused_name, members, tiled = fused_groups[name]
                tensor, parts = self._load_rows(fused_name, members, tiled,
                                                threads_for_load)
                self.order[self.order.index(members[0])] = fused_name
                for member in members:
                    del self.tensors[member]
                    if member in self.order:
                        self.order.remove(member)
                self.tensors[fused_name] = tensor
                parts_of[fused_name] = parts
                continue
            if widen_q6_k and self.tensors[name].type == "Q6_K":
                parts = self.file.parts(name, threads=threads_for_load,
                                        release=True)
                self.tensors[name], parts = _widen_q6_k(self.tensors[name],
                                                        parts)
                if self.row_tiles and _can_tile_rows(name,
                                                     self.tensors[name]):
                    self.tensors[name], parts = _tile_rows(
                        self.tensors[name], parts)
            elif self.row_tiles and _can_tile_rows(name, self.tensors[name]):
                self.tensors[name], parts = self._load_rows(
                    name, [name], True, threads_for_load)
            else:
                parts = self.file.parts(name, threads=threads_for_load,
                                        release=True)
            parts_of[name] = parts
            # A group not loaded as one (widened Q6_K): fused from its
            # members' copies once its last member is loaded.
            if fuse_products:
                self._fuse_products(name, parts_of)
        self.parts = [part for name in self.order for part in parts_of[name]]
        # Head-major: [layer, kv head, position, head dim] (_Emitter.store).
        self.kcache = np.zeros((c.n_layer, c.n_head_kv,
                                cache_rows(self.capacity), c.head_dim),
                               np.float32)
        # np.zeros, not zeros_like (which writes the zeros): the pages of
        # the positions not yet used stay unallocated.
        self.vcache = np.zeros(self.kcache.shape, np.float32)
        self.rope_cos, self.rope_sin = rope_tables(c, self.capacity)
        self.position = 0
        self._functions = {}
        # GPU pipelines: whether the weights, the cache and the RoPE tables
        # were uploaded (at the first compile).
        self.on_device = False

    def _fuse_products(self, name, parts_of):
        """If `name` is the member that triggers a block's fusable group
        (q, k, v; gate, up; _fusion_trigger), replaces the group by its fused weight where _fuse_rows
        can make it, in the tensors, the order and `parts_of`; where it
        cannot, the group's fallback (q, k) likewise."""
        for fused, members in _FUSED_PRODUCTS.items():
            suffix = "." + _fusion_trigger(fused) + ".weight"
            if not name.startswith("blk.") or not name.endswith(suffix):
                continue
            p = name[:-len(suffix)] + "."
            names = [p + m + ".weight" for m in members]
            # Members fused already (by the group this one falls back
            # from) or absent.
            if any(n not in parts_of for n in names):
                continue
            made = _fuse_rows(p + fused + ".weight",
                              [self.tensors[n] for n in names],
                              [parts_of[n] for n in names])
            if made is None:
                continue
            tensor, parts = made
            self.order[self.order.index(names[0])] = tensor.name
            for n in names:
                del self.tensors[n], parts_of[n]
                if n in self.order:
                    self.order.remove(n)
            self.tensors[tensor.name] = tensor
            parts_of[tensor.name] = parts

    def _fusable_groups(self, widen_q6_k):
        """{first member: (fused name, members, row-tiled)} of each block's
        group (q, k, v, else q, k; gate, up) whose weights can be one
        product: the same type, scheme and K, none widened at load, and all
        row-tiled or none."""
        groups = {}
        grouped = set()  # the members of the groups taken so far
        for fused, members in _FUSED_PRODUCTS.items():
            for block in range(self.config.n_layer):
                prefix = f"blk.{block}."
                names = [prefix + m + ".weight" for m in members]
                if any(n not in self.tensors or n in grouped
                       for n in names):
                    continue
                tensors = [self.tensors[n] for n in names]
                first = tensors[0]
                tiled = {self.row_tiles and _can_tile_rows(n, t)
                         for n, t in zip(names, tensors)}
                if (len({t.type for t in tensors}) != 1
                        or len({t.scheme for t in tensors}) != 1
                        or first.scheme is None or len(tiled) != 1
                        or len({t.shape[1] for t in tensors}) != 1
                        or any(len(t.shape) != 2 for t in tensors)
                        or (widen_q6_k and first.type == "Q6_K")):
                    continue
                groups[names[0]] = (prefix + fused + ".weight", names,
                                    tiled.pop())
                grouped.update(names)
        return groups

    def _load_rows(self, name, members, tiled, threads):
        """The weight made of the rows of `members` in order (one tensor, or
        a group fused into one product), in the row-tiled layout where
        `tiled`: its _ModelTensor and parts, each part written in place in
        chunks of rows, every chunk's file pages released after it. The
        same arrays as repacking each member whole, then _tile_rows and
        _fuse_rows."""
        tensors = [self.tensors[m] for m in members]
        first = tensors[0]
        rows = [t.shape[0] for t in tensors]
        total = sum(rows)
        parts = []
        for part in first.parts:
            width = part.shape[-1]
            if not tiled:
                shape = (total, width)
            elif part.role == "data":
                shape = (total // _ROW_TILE, width // 4, _ROW_TILE, 4)
            else:
                shape = (total // _ROW_TILE, width, _ROW_TILE)
            parts.append(np.empty(shape, part.dtype))
        offset = 0
        for member, tensor, n in zip(members, tensors, rows):
            # Chunks of about _LOAD_CHUNK_BYTES of the file, whole row tiles.
            row_bytes = max(tensor.nbytes // n, 1)
            step = max(_LOAD_CHUNK_BYTES // row_bytes // _ROW_TILE,
                       1) * _ROW_TILE
            for begin in range(0, n, step):
                end = min(n, begin + step)
                chunk = self.file.parts_of_rows(member, begin, end,
                                                threads=threads, release=True)
                lo, hi = offset + begin, offset + end
                for index, (array, rows_of) in enumerate(zip(parts, chunk)):
                    if tiled:
                        array[lo // _ROW_TILE:hi // _ROW_TILE] = tile_rows(
                            rows_of, _ROW_TILE, data=index == 0)
                    else:
                        array[lo:hi] = rows_of
            # The pages the chunks shared.
            self.file.release(member)
            offset += n
        scheme = _row_tiled_scheme(first.scheme) if tiled else first.scheme
        tensor = _ModelTensor(first, scheme, parts, name=name,
                              shape=(total, first.shape[1]))
        return tensor, parts

    def module_text(self, n_tokens, last_logits=False):
        """The module of the forward function for calls of `n_tokens`
        (`last_logits`: returning the logits of the last one only)."""
        emitter = _Emitter(self.config, n_tokens, self.capacity, self.tensors,
                           self.fast, self.activations,
                           whole_capacity="spirv" in self.pipeline,
                           threads_over_heads=self.pipeline.startswith(
                               "quant-block-cpu-pipeline"),
                           device_resident=self._gpu_runtime() is not None)
        return emitter.build("forward", self.order, last_logits)

    def _gpu_runtime(self):
        """The GPU runtime the pipeline's host code calls ("vulkan",
        "cuda"), or None for the CPU pipeline."""
        if self.pipeline.startswith("quant-block-spirv-pipeline"):
            return "vulkan"
        if self.pipeline.startswith("quant-block-nvvm-pipeline"):
            return "cuda"
        return None

    def _function(self, n_tokens, last_logits=False):
        key = (n_tokens, last_logits and n_tokens > 1)
        if key not in self._functions:
            from .runner import (compile, gpu_runtime_library,
                                 release_compiler_memory)
            # The GPU pipelines' host code calls their runtime.
            runtime = self._gpu_runtime()
            libraries = [gpu_runtime_library(runtime)] if runtime else []
            # A layer's temporaries are the same sizes in every layer: each
            # is reused within the call instead of mapped afresh (a prefill
            # of 512 tokens on two threads spent about 8 % of its time in
            # page faults; bench/README.md).
            executable = compile(self.module_text(*key), self.pipeline,
                                 libraries=libraries, reuse_buffers=True)
            forward = executable.forward
            if runtime and not self.on_device:
                # Uploaded once, through the first function compiled (the
                # runtime, and so the device buffers, are the process's):
                # a call then moves only the tokens and the logits (and
                # the activations between the layer functions). The host
                # copies are dropped.
                self.kcache, self.vcache, self.rope_cos, self.rope_sin = (
                    executable.upload(a) for a in (
                        self.kcache, self.vcache, self.rope_cos,
                        self.rope_sin))
                self.parts = [executable.upload(p) for p in self.parts]
                self.on_device = True
            # The cache, the RoPE tables and the weights are the same
            # arrays in every call: their descriptors are made once (a
            # decode step of a 19-layer model passes 316 arrays).
            self._functions[key] = forward.bind(
                2, self.kcache, self.vcache, self.rope_cos, self.rope_sin,
                *self.parts)
            # The model runs from here on without the compiler: its pages
            # and its freed heap (about 0.15 GiB for a 7B-shaped model,
            # 6 % of the 19-layer Q4_0 benchmark model's peak RSS) leave
            # the resident set (docs/Runner.md).
            release_compiler_memory()
        return self._functions[key]

    def prefill(self, tokens, last_logits=False):
        """Runs `tokens` from the current position; returns the logits of
        each, float32 [len(tokens), n_vocab] (`last_logits`: of the last
        one only, [1, n_vocab], as llama-bench's prompt test computes them:
        the head's product then has one row instead of len(tokens))."""
        tokens = np.asarray(tokens, dtype=np.int32).reshape(-1)
        if tokens.size == 0:
            raise ValueError("no tokens")
        if self.position + tokens.size > self.capacity:
            raise ValueError(f"{tokens.size} tokens at position "
                             f"{self.position} exceed the cache's capacity of "
                             f"{self.capacity}")
        if tokens.min() < 0 or tokens.max() >= self.config.n_vocab:
            raise ValueError(f"token ids must be in [0, {self.config.n_vocab})")
        logits = self._function(tokens.size, last_logits)(
            tokens, np.int64(self.position))
        self.position += tokens.size
        return logits

    def decode(self, token):
        """One token; returns its logits [n_vocab]."""
        return self.prefill([token])[0]

    def generate(self, prompt, count):
        """Greedy: the `count` tokens that follow `prompt`."""
        logits = self.prefill(prompt, last_logits=True)[-1]
        out = []
        for _ in range(count):
            out.append(int(np.argmax(logits)))
            if len(out) == count:
                break
            logits = self.decode(out[-1])
        return out

    def reset(self):
        """An empty cache: the next prefill starts at position 0."""
        self.position = 0


def _bench(model, tests, rng):
    """llama-bench's tests: ppN = one prefill of N tokens from an empty
    cache (the logits of the last one), tgN = N decode steps from an empty
    cache; tokens/s of the second
    of two runs (the first compiles)."""
    results = []
    for test in tests:
        kind, count = test[:2], int(test[2:])
        for _ in range(2):
            model.reset()
            tokens = rng.integers(0, model.config.n_vocab, count)
            start = time.perf_counter()
            if kind == "pp":
                # The last token's logits, as llama-bench's prompt test.
                model.prefill(tokens, last_logits=True)
            else:
                for token in tokens:
                    model.decode(int(token))
            seconds = time.perf_counter() - start
        results.append((test, count / seconds))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m quant_block.llama",
        description="Compile and run a LLaMA GGUF model with quant-block.")
    parser.add_argument("file")
    parser.add_argument("--tokens", help="comma-separated token ids")
    parser.add_argument("--logits", help="write the f32 logits of every "
                        "position, [n_tokens, n_vocab], to this .npy file")
    parser.add_argument("--bench", help="llama-bench tests, e.g. pp512,tg128")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--capacity", type=int,
                        help="KV cache capacity in tokens (default: the "
                        "context length, at most 2048)")
    parser.add_argument("--activations", choices=["f32", "int8"],
                        default="f32",
                        help="int8: the activations of every quantized "
                        "product quantized per block (absmax) and the block "
                        "sums exact in i32, as llama.cpp does")
    parser.add_argument("--strict", action="store_true",
                        help="products in the strict f32 order (default: "
                        "fastmath<fast>; with int8 activations "
                        "fastmath<contract>)")
    args = parser.parse_args(argv)
    if not args.tokens and not args.bench:
        parser.error("give --tokens or --bench")
    try:
        capacity = args.capacity
        if args.bench and not capacity:
            capacity = max(int(t[2:]) for t in args.bench.split(","))
        model = Llama(args.file, capacity=capacity, threads=args.threads,
                      fast=not args.strict, activations=args.activations)
        if args.tokens:
            tokens = [int(t) for t in args.tokens.split(",")]
            logits = model.prefill(tokens)
            if args.logits:
                np.save(args.logits, logits)
            print(f"{len(tokens)} tokens; next token {int(np.argmax(logits[-1]))}")
        if args.bench:
            model.reset()
            rng = np.random.default_rng(0)
            for test, rate in _bench(model, args.bench.split(","), rng):
                print(f"{test} {rate:.2f} tok/s")
    except (LlamaError, gguf.GGUFError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
