"""llama.cpp as a reference and a baseline: a ctypes wrapper of the prebuilt
``libllama`` of the npm package ``@node-llama-cpp/linux-x64@3.22.1``.

The bundle ships no headers, so the structs passed by value are declared
here from the notes (``llama-cpp.md``, "Struct-layout pitfalls"): the
llama.h of llama.cpp's own repository at many commits is *not* this ABI
(``llama_model_params`` lost ``use_mmap / use_direct_io / use_mlock`` for
``load_mode`` and gained ``lazy_mode``; ``llama_context_params`` gained
``n_rs_seq``, ``n_outputs_max``, ``n_outputs_max_per_seq``, ``ctx_type``,
``samplers``, ``n_samplers``, ``ctx_other``), and a wrong declaration fails
silently (fields land in other fields). ``check_abi`` therefore proves the
declarations on the loaded library before anything else runs: the sizes
(80, 160, 56 bytes), how many bytes ``llama_*_default_params`` write
through their hidden struct-return pointer into a canary buffer (every
declared field's bytes, nothing past the struct), and all 47 default
values.

    lib_dir, reason = library_dir()
    with LlamaCpp(path, n_ctx=512) as llm:
        logits = llm.logits(tokens)          # [n_tokens, n_vocab] float32
        speed = llm.bench(pp=512, tg=128)    # {"pp": tok/s, "tg": tok/s}

The library is looked up as the ggml tests look up ``libggml-base.so``:
$QUANT_BLOCK_GGML_LIB_DIR, $QUANT_BLOCK_BINARY_DIR/npm/ggml/package/bins/
linux-x64, /tmp/quant-block-ggml/package/bins/linux-x64. libllama loads no
backend by itself: the CPU backends (``libggml-cpu-<variant>.so``, ggml
picks the best for the CPU) are loaded with
``ggml_backend_load_all_from_path`` before the first model.
"""

import ctypes
import os
import threading
import time

import numpy as np

LIB_NAME = "libllama.v0.5.0.so"
GGML_NAME = "libggml.v0.5.0.so"
NPM_PACKAGE = "@node-llama-cpp/linux-x64@3.22.1"

c_int32 = ctypes.c_int32
c_uint32 = ctypes.c_uint32
c_int8 = ctypes.c_int8
c_float = ctypes.c_float
c_bool = ctypes.c_bool
c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_size_t = ctypes.c_size_t


# --- the structs (llama.h of the bundle's ABI) -------------------------------

class LlamaModelParams(ctypes.Structure):
    """struct llama_model_params (80 bytes; main_gpu at offset 32)."""
    _fields_ = [
        ("devices", c_void_p),                  # ggml_backend_dev_t *
        ("tensor_buft_overrides", c_void_p),
        ("n_gpu_layers", c_int32),
        ("split_mode", c_int32),                # enum llama_split_mode
        ("load_mode", c_int32),                 # enum llama_load_mode
        ("lazy_mode", c_int32),                 # enum llama_lazy_mode
        ("main_gpu", c_int32),
        ("tensor_split", c_void_p),             # const float *
        ("progress_callback", c_void_p),
        ("progress_callback_user_data", c_void_p),
        ("kv_overrides", c_void_p),
        ("vocab_only", c_bool),
        ("check_tensors", c_bool),
        ("use_extra_bufts", c_bool),
        ("no_host", c_bool),
        ("no_alloc", c_bool),
        ("load_mtp", c_bool),
    ]


class LlamaContextParams(ctypes.Structure):
    """struct llama_context_params (160 bytes)."""
    _fields_ = [
        ("n_ctx", c_uint32),
        ("n_batch", c_uint32),
        ("n_ubatch", c_uint32),
        ("n_seq_max", c_uint32),
        ("n_rs_seq", c_uint32),
        ("n_outputs_max", c_uint32),
        ("n_outputs_max_per_seq", c_uint32),
        ("n_threads", c_int32),
        ("n_threads_batch", c_int32),
        ("ctx_type", c_int32),                  # enum llama_context_type
        ("rope_scaling_type", c_int32),
        ("pooling_type", c_int32),
        ("attention_type", c_int32),
        ("flash_attn_type", c_int32),           # -1 auto, 0 off, 1 on
        ("rope_freq_base", c_float),
        ("rope_freq_scale", c_float),
        ("yarn_ext_factor", c_float),
        ("yarn_attn_factor", c_float),
        ("yarn_beta_fast", c_float),
        ("yarn_beta_slow", c_float),
        ("yarn_orig_ctx", c_uint32),
        ("defrag_thold", c_float),
        ("cb_eval", c_void_p),
        ("cb_eval_user_data", c_void_p),
        ("type_k", c_int32),                    # enum ggml_type
        ("type_v", c_int32),
        ("abort_callback", c_void_p),
        ("abort_callback_data", c_void_p),
        ("embeddings", c_bool),
        ("offload_kqv", c_bool),
        ("no_perf", c_bool),
        ("op_offload", c_bool),
        ("swa_full", c_bool),
        ("kv_unified", c_bool),
        ("samplers", c_void_p),                 # llama_sampler_seq_config *
        ("n_samplers", c_size_t),
        ("ctx_other", c_void_p),                # llama_context *
    ]


class LlamaBatch(ctypes.Structure):
    """struct llama_batch (56 bytes, unchanged for a long time)."""
    _fields_ = [
        ("n_tokens", c_int32),
        ("token", ctypes.POINTER(c_int32)),
        ("embd", ctypes.POINTER(c_float)),
        ("pos", ctypes.POINTER(c_int32)),
        ("n_seq_id", ctypes.POINTER(c_int32)),
        ("seq_id", ctypes.POINTER(ctypes.POINTER(c_int32))),
        ("logits", ctypes.POINTER(c_int8)),
    ]


SIZES = {LlamaModelParams: 80, LlamaContextParams: 160, LlamaBatch: 56}

# What llama_model_default_params / llama_context_default_params of the
# bundle return (read from the library through the canary buffer and
# matched against the later llama.h's llama_*_default_params bodies).
MODEL_DEFAULTS = {
    "devices": None, "tensor_buft_overrides": None, "n_gpu_layers": -1,
    "split_mode": 1, "load_mode": -1, "lazy_mode": 1, "main_gpu": 0,
    "tensor_split": None, "progress_callback": None,
    "progress_callback_user_data": None, "kv_overrides": None,
    "vocab_only": False, "check_tensors": False, "use_extra_bufts": True,
    "no_host": False, "no_alloc": False, "load_mtp": False,
}
CONTEXT_DEFAULTS = {
    "n_ctx": 512, "n_batch": 2048, "n_ubatch": 512, "n_seq_max": 1,
    "n_rs_seq": 0, "n_outputs_max": 0, "n_outputs_max_per_seq": 1,
    "n_threads": 4, "n_threads_batch": 4, "ctx_type": 0,
    "rope_scaling_type": -1, "pooling_type": -1, "attention_type": -1,
    "flash_attn_type": -1, "rope_freq_base": 0.0, "rope_freq_scale": 0.0,
    "yarn_ext_factor": -1.0, "yarn_attn_factor": -1.0,
    "yarn_beta_fast": -1.0, "yarn_beta_slow": -1.0, "yarn_orig_ctx": 0,
    "defrag_thold": -1.0, "cb_eval": None, "cb_eval_user_data": None,
    "type_k": 1, "type_v": 1, "abort_callback": None,
    "abort_callback_data": None, "embeddings": False, "offload_kqv": True,
    "no_perf": True, "op_offload": True, "swa_full": True,
    "kv_unified": False, "samplers": None, "n_samplers": 0,
    "ctx_other": None,
}

# void (*ggml_log_callback)(enum ggml_log_level, const char *, void *)
LogCallback = ctypes.CFUNCTYPE(None, ctypes.c_int, c_char_p, c_void_p)

_PROTOTYPES = {
    "llama_backend_init": (None, []),
    "llama_log_set": (None, [LogCallback, c_void_p]),
    "llama_version": (c_char_p, []),
    "llama_print_system_info": (c_char_p, []),
    "llama_model_default_params": (LlamaModelParams, []),
    "llama_context_default_params": (LlamaContextParams, []),
    "llama_model_load_from_file": (c_void_p, [c_char_p, LlamaModelParams]),
    "llama_model_free": (None, [c_void_p]),
    "llama_model_get_vocab": (c_void_p, [c_void_p]),
    "llama_model_rope_type": (c_int32, [c_void_p]),
    "llama_model_n_params": (ctypes.c_uint64, [c_void_p]),
    "llama_model_size": (ctypes.c_uint64, [c_void_p]),
    "llama_vocab_n_tokens": (c_int32, [c_void_p]),
    "llama_vocab_bos": (c_int32, [c_void_p]),
    "llama_vocab_get_add_bos": (c_bool, [c_void_p]),
    "llama_init_from_model": (c_void_p, [c_void_p, LlamaContextParams]),
    "llama_free": (None, [c_void_p]),
    "llama_n_ctx": (c_uint32, [c_void_p]),
    "llama_n_batch": (c_uint32, [c_void_p]),
    "llama_n_ubatch": (c_uint32, [c_void_p]),
    "llama_get_memory": (c_void_p, [c_void_p]),
    "llama_memory_clear": (None, [c_void_p, c_bool]),
    "llama_decode": (c_int32, [c_void_p, LlamaBatch]),
    "llama_synchronize": (None, [c_void_p]),
    "llama_get_logits": (ctypes.POINTER(c_float), [c_void_p]),
    "llama_set_n_threads": (None, [c_void_p, c_int32, c_int32]),
}


# --- finding and loading the library -----------------------------------------

def lib_dirs():
    """Candidate folders of the bundle, in order of precedence; the ggml
    tests look for ``libggml-base.so`` in the same folders."""
    dirs = []
    if os.environ.get("QUANT_BLOCK_GGML_LIB_DIR"):
        dirs.append(os.environ["QUANT_BLOCK_GGML_LIB_DIR"])
    if os.environ.get("QUANT_BLOCK_BINARY_DIR"):
        dirs.append(os.path.join(os.environ["QUANT_BLOCK_BINARY_DIR"], "npm",
                                 "ggml", "package", "bins", "linux-x64"))
    dirs.append("/tmp/quant-block-ggml/package/bins/linux-x64")
    return dirs


def library_dir():
    """``(folder, reason)``: the folder holding libllama.v0.5.0.so and
    reason ``""``, or ``None`` and why it is missing (what to install),
    for a ``pytest.skip``."""
    dirs = lib_dirs()
    for d in dirs:
        if os.path.isfile(os.path.join(d, LIB_NAME)):
            return d, ""
    return None, (f"{LIB_NAME} not found in {dirs}: run `npm pack "
                  f"{NPM_PACKAGE}`, unpack it (tar xzf) into "
                  "/tmp/quant-block-ggml, or point QUANT_BLOCK_GGML_LIB_DIR "
                  "at its package/bins/linux-x64")


_lock = threading.Lock()
_loaded = {}          # folder -> (libllama, log buffer)


def _canary_bytes_written(lib, name, size):
    """Call the struct-returning ``name`` through its hidden return pointer
    (System V x86-64 returns a struct over 16 bytes in memory the caller
    passes in rdi) into a 4 * size canary buffer, twice (0xAA, 0x55):
    the set of byte offsets it wrote."""
    fn = ctypes.CFUNCTYPE(c_void_p, c_void_p)((name, lib))
    n = 4 * size
    written = set()
    for canary in (0xAA, 0x55):
        buf = (ctypes.c_uint8 * n)(*([canary] * n))
        if fn(ctypes.addressof(buf)) != ctypes.addressof(buf):
            raise AssertionError(f"{name} did not return its struct-return "
                                 "pointer: not a struct-returning function?")
        written |= {i for i in range(n) if buf[i] != canary}
    return written


def _field_bytes(struct):
    """Byte offsets covered by the declared fields of ``struct``."""
    covered = set()
    for name, _ in struct._fields_:
        field = getattr(struct, name)
        covered |= set(range(field.offset, field.offset + field.size))
    return covered


def _check_values(value, expected, what):
    for name, want in expected.items():
        got = getattr(value, name)
        if isinstance(want, float):
            ok = abs(got - want) == 0
        else:
            ok = got == want
        if not ok:
            raise AssertionError(f"{what}.{name} = {got!r}, expected "
                                 f"{want!r}: the declared layout does not "
                                 "match this libllama")


def check_written(lib, fn, struct):
    """The struct-returning ``fn`` of ``lib`` writes every byte of the
    declared fields of ``struct`` and nothing past ``sizeof(struct)``
    (raises AssertionError): a declaration too short, too long or with
    fields in the padding fails."""
    size = ctypes.sizeof(struct)
    written = _canary_bytes_written(lib, fn, size)
    past = sorted(i for i in written if i >= size)
    if past:
        raise AssertionError(f"{fn} wrote bytes {past[:8]}... past the "
                             f"declared {size}-byte {struct.__name__}")
    unwritten = sorted(_field_bytes(struct) - written)
    if unwritten:
        raise AssertionError(f"{fn} left bytes {unwritten[:8]}... of "
                             f"declared fields of {struct.__name__} "
                             "unwritten")


def check_abi(lib):
    """Prove the declared structs against the loaded libllama (raises
    AssertionError): sizes, the bytes the default-params functions write
    (``check_written``), and all 47 default values."""
    for struct, size in SIZES.items():
        if ctypes.sizeof(struct) != size:
            raise AssertionError(f"sizeof({struct.__name__}) = "
                                 f"{ctypes.sizeof(struct)}, expected {size}")
    if LlamaModelParams.main_gpu.offset != 32:
        raise AssertionError("llama_model_params.main_gpu not at offset 32")
    check_written(lib, "llama_model_default_params", LlamaModelParams)
    check_written(lib, "llama_context_default_params", LlamaContextParams)
    _check_values(lib.llama_model_default_params(), MODEL_DEFAULTS,
                  "llama_model_params")
    _check_values(lib.llama_context_default_params(), CONTEXT_DEFAULTS,
                  "llama_context_params")


def load_library(folder=None):
    """libllama from ``folder`` (default: ``library_dir()``), prototypes
    declared, ABI checked, backends loaded, logging captured: returns
    ``(lib, log)`` where ``log`` is the list the library's log lines go to
    (the last 2000). Once per folder and process."""
    if folder is None:
        folder, reason = library_dir()
        if folder is None:
            raise FileNotFoundError(reason)
    with _lock:
        if folder in _loaded:
            return _loaded[folder]
        lib = ctypes.CDLL(os.path.join(folder, LIB_NAME))
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        check_abi(lib)
        log = []

        def on_log(level, text, _user):
            log.append((level, text.decode("utf-8", "replace")
                        if text else ""))
            if len(log) > 4000:
                del log[:2000]

        callback = LogCallback(on_log)
        lib._quant_block_log_callback = callback  # keep it alive
        lib.llama_log_set(callback, None)
        ggml = ctypes.CDLL(os.path.join(folder, GGML_NAME))
        ggml.ggml_backend_load_all_from_path.argtypes = [c_char_p]
        ggml.ggml_backend_load_all_from_path.restype = None
        ggml.ggml_backend_load_all_from_path(folder.encode())
        lib.llama_backend_init()
        _loaded[folder] = (lib, log)
        return lib, log


def _log_tail(log, n=15):
    return "".join(text for _, text in log[-n:])


# --- the model ---------------------------------------------------------------

class LlamaCpp:
    """One GGUF model and one context of the prebuilt llama.cpp (CPU).

    n_ctx: context size (tokens of one sequence; llama.cpp pads it up to a
    multiple of 256: ``.n_ctx`` is what it made). n_threads: threads for
    both single-token and batch decoding. n_batch: tokens per llama_decode
    call (longer prompts are fed in chunks; llama.cpp clamps it to the
    requested n_ctx: ``.n_batch``); n_ubatch = min(n_batch, 512),
    llama.cpp's default (``.n_ubatch``). flash_attn: None = llama.cpp's
    default (auto, which the CPU resolves to on), True / False = on / off.
    use_extra_bufts: llama.cpp's default True puts quantized weights in the
    AMX / CPU_REPACK buffer types (repacked at load); False keeps them in
    the mapped file's plain CPU buffer. lib_dir: the bundle's folder
    (default ``library_dir()``).
    """

    def __init__(self, path, n_ctx=512, n_threads=1, n_batch=512,
                 flash_attn=None, use_extra_bufts=True, lib_dir=None):
        self._lib, self._log = load_library(lib_dir)
        lib = self._lib
        self.path = os.fspath(path)
        self.model = self.ctx = None
        mparams = lib.llama_model_default_params()
        mparams.use_extra_bufts = bool(use_extra_bufts)
        mark = len(self._log)
        self.model = lib.llama_model_load_from_file(self.path.encode(),
                                                    mparams)
        if not self.model:
            raise RuntimeError(f"llama.cpp could not load {self.path}:\n"
                               + "".join(t for _, t in self._log[mark:]))
        self.vocab = lib.llama_model_get_vocab(self.model)
        self.n_vocab = lib.llama_vocab_n_tokens(self.vocab)
        self.rope_type = lib.llama_model_rope_type(self.model)
        cparams = lib.llama_context_default_params()
        cparams.n_ctx = n_ctx
        cparams.n_batch = n_batch
        cparams.n_ubatch = min(n_batch, 512)
        cparams.n_seq_max = 1
        cparams.n_threads = n_threads
        cparams.n_threads_batch = n_threads
        if flash_attn is not None:
            cparams.flash_attn_type = 1 if flash_attn else 0
        self.ctx = lib.llama_init_from_model(self.model, cparams)
        if not self.ctx:
            self.close()
            raise RuntimeError("llama_init_from_model failed:\n"
                               + _log_tail(self._log))
        # What the context made of the request: llama.cpp pads n_ctx up to
        # a multiple of 256 and clamps n_batch to the requested n_ctx (and
        # n_ubatch to n_batch); a llama_decode of more than n_batch tokens
        # aborts the process (GGML_ASSERT), so chunks use the real value.
        self.n_ctx = lib.llama_n_ctx(self.ctx)
        self.n_batch = lib.llama_n_batch(self.ctx)
        self.n_ubatch = lib.llama_n_ubatch(self.ctx)
        self.n_threads = n_threads
        self.memory = lib.llama_get_memory(self.ctx)
        # Load-time messages: which CPU variant, buffer types, flash attn.
        self.load_log = "".join(t for _, t in self._log[mark:])

    # -- helpers

    def _decode(self, tokens, start_pos, all_logits):
        """One llama_decode of ``tokens`` (int32 array) at positions
        start_pos.., sequence 0; outputs for every token or the last."""
        n = len(tokens)
        tok = np.ascontiguousarray(tokens, dtype=np.int32)
        pos = np.arange(start_pos, start_pos + n, dtype=np.int32)
        n_seq = np.ones(n, dtype=np.int32)
        seq0 = np.zeros(n, dtype=np.int32)
        seq_ptrs = (ctypes.POINTER(c_int32) * n)(
            *([seq0.ctypes.data_as(ctypes.POINTER(c_int32))] * n))
        out = np.zeros(n, dtype=np.int8)
        if all_logits:
            out[:] = 1
        else:
            out[-1] = 1
        batch = LlamaBatch(
            n, tok.ctypes.data_as(ctypes.POINTER(c_int32)), None,
            pos.ctypes.data_as(ctypes.POINTER(c_int32)),
            n_seq.ctypes.data_as(ctypes.POINTER(c_int32)),
            ctypes.cast(seq_ptrs, ctypes.POINTER(ctypes.POINTER(c_int32))),
            out.ctypes.data_as(ctypes.POINTER(c_int8)))
        rc = self._lib.llama_decode(self.ctx, batch)
        if rc != 0:
            raise RuntimeError(f"llama_decode returned {rc} (1: no KV slot, "
                               "2: aborted, -1: bad batch):\n"
                               + _log_tail(self._log))

    def _check_open(self):
        if not self.ctx:
            raise RuntimeError("LlamaCpp is closed")

    def clear(self):
        """Empty the KV cache (llama_memory_clear, data too)."""
        self._check_open()
        self._lib.llama_memory_clear(self.memory, True)

    # -- API

    def logits(self, tokens):
        """Logits of every position of ``tokens`` (a fresh sequence from
        position 0: the memory is cleared first) as float32 ``[n_tokens,
        n_vocab]``; prompts longer than n_batch go in n_batch chunks."""
        self._check_open()
        tokens = np.asarray(tokens, dtype=np.int32).reshape(-1)
        n = len(tokens)
        if n == 0 or n > self.n_ctx:
            raise ValueError(f"{n} tokens for a context of {self.n_ctx}")
        if tokens.min() < 0 or tokens.max() >= self.n_vocab:
            raise ValueError(f"token ids must be in [0, {self.n_vocab})")
        self.clear()
        out = np.empty((n, self.n_vocab), dtype=np.float32)
        for start in range(0, n, self.n_batch):
            chunk = tokens[start:start + self.n_batch]
            self._decode(chunk, start, all_logits=True)
            ptr = self._lib.llama_get_logits(self.ctx)
            out[start:start + len(chunk)] = np.ctypeslib.as_array(
                ptr, shape=(len(chunk), self.n_vocab))
        return out

    def _prompt(self, n_prompt, rng):
        """llama-bench's test_prompt: n_prompt random tokens (BOS first if
        the vocab adds one) in n_batch chunks, last logits only."""
        done = 0
        while done < n_prompt:
            n = min(n_prompt - done, self.n_batch)
            tokens = rng.integers(0, self.n_vocab, n, dtype=np.int32)
            if done == 0 and self._lib.llama_vocab_get_add_bos(self.vocab):
                tokens[0] = self._lib.llama_vocab_bos(self.vocab)
            self._decode(tokens, done, all_logits=False)
            done += n
        self._lib.llama_synchronize(self.ctx)

    def _gen(self, n_gen, rng):
        """llama-bench's test_gen: n_gen single-token llama_decode calls,
        each synchronized, from position 0."""
        token = (self._lib.llama_vocab_bos(self.vocab)
                 if self._lib.llama_vocab_get_add_bos(self.vocab)
                 else int(rng.integers(0, self.n_vocab)))
        one = np.empty(1, dtype=np.int32)
        for i in range(n_gen):
            one[0] = token
            self._decode(one, i, all_logits=False)
            self._lib.llama_synchronize(self.ctx)
            token = int(rng.integers(0, self.n_vocab))

    def bench(self, pp=512, tg=128, repetitions=1, seed=0):
        """Tokens per second as llama-bench measures them: a warm-up run
        of each test first (pp: the whole prompt; tg: one token), then per
        repetition the memory is emptied and the wall time of ``pp``
        prompt tokens (llama-bench's pp<N>: n_batch-token llama_decode
        calls) or of ``tg`` single-token llama_decode calls (tg<N>) is
        taken. Returns ``{"pp": tok/s, "tg": tok/s}`` (means over the
        repetitions, as llama-bench reports); a test of 0 tokens is left
        out."""
        self._check_open()
        if max(pp, tg) > self.n_ctx:
            raise ValueError(f"pp {pp} / tg {tg} need n_ctx >= "
                             f"{max(pp, tg)}, have {self.n_ctx}")
        rng = np.random.default_rng(seed)
        result = {}
        for key, n, run, warm in (("pp", pp, self._prompt, pp),
                                  ("tg", tg, self._gen, 1)):
            if n <= 0:
                continue
            self._lib.llama_memory_clear(self.memory, False)
            run(warm, rng)
            speeds = []
            for _ in range(repetitions):
                self._lib.llama_memory_clear(self.memory, False)
                t0 = time.perf_counter()
                run(n, rng)
                speeds.append(n / (time.perf_counter() - t0))
            result[key] = float(np.mean(speeds))
        return result

    def close(self):
        """Free the context and the model (idempotent)."""
        if getattr(self, "ctx", None):
            self._lib.llama_free(self.ctx)
            self.ctx = None
        if getattr(self, "model", None):
            self._lib.llama_model_free(self.model)
            self.model = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
