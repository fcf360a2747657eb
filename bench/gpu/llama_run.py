#!/usr/bin/env python3
"""Runs a model of bench/gpu/llama_bundle.py on the GPU, with nothing of
MLIR installed: numpy and ctypes only. Each `forward_<N>.so` is called
through its C interface (_mlir_ciface_forward) with memref descriptors:
the token ids (host), the position, and the KV caches, RoPE tables and
weight parts, uploaded once through the GPU runtime's quantBlockGpu* entry
points (quant-block-c/GpuRuntime.h) and passed as device pointers.

    llama_run.py MODEL_DIR --runtime LIB [--copy COPY_OUT] [--only pp|tg]
    llama_run.py --summarize PROFILE [--title TEXT]

A `check` model: the prefill and decode steps of the manifest; the logits
against the CPU pipeline's (relative L2 error within the manifest's bound,
the same top-1 token at every position) and the runtime's copies during
the last decode step (the weights and the cache never cross: only the
token, the position and the logits), with its kernel launches and host
waits as the runtime counted them (printed, not checked). Prints `PASS llama <name> ...` or
`FAIL llama <name> ...`; exit status 1 on a failure.

A `bench` model: its parts filled with random values here (the time does
not depend on them); pp<N> (one prefill of N tokens from an empty cache,
the last token's logits, as llama-bench's prompt test; the median of 3
after one warm-up) and tg<N> (N decode steps from an empty cache, the
faster of 2 runs after a warm-up of 8 steps or N), in tokens/s, and for tg the
weights' read rate: the bytes a step reads (every weight but the token
embedding, of which one row) x tokens/s, in GB/s and as a fraction of
the device-to-device copy of COPY_OUT (bench/gpu/gen.py's copy module,
`RESULT copy_s`, in the same run). Prints `RESULT <name> <key> <value>`
lines and one table row. `--only pp|tg` runs that test once, warm-up
included (for a profile of its kernels, QUANT_BLOCK_CUDA_PROFILE=1);
`--summarize` prints the longest kernels of such a profile (its stderr).
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy as np

RTLD_GLOBAL = getattr(os, "RTLD_GLOBAL", 0x100)


class CopyStats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "h2d_copies", "h2d_bytes", "d2h_copies", "d2h_bytes", "d2d_copies",
        "d2d_bytes")]


class LaunchStats(ctypes.Structure):
    _fields_ = [("kernels", ctypes.c_uint64),
                ("synchronizations", ctypes.c_uint64)]


def descriptor_type(rank):
    """The memref descriptor of a rank (MLIR's C interface layout)."""
    class Descriptor(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p),
                    ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    return Descriptor


def descriptor(pointer, shape):
    d = descriptor_type(len(shape))()
    d.allocated = d.aligned = pointer
    d.offset = 0
    stride = 1
    for i in reversed(range(len(shape))):
        d.sizes[i] = shape[i]
        d.strides[i] = stride
        stride *= shape[i]
    return d


class Runtime:
    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path, mode=RTLD_GLOBAL)
        lib.quantBlockGpuAlloc.restype = ctypes.c_void_p
        lib.quantBlockGpuAlloc.argtypes = [ctypes.c_uint64]
        lib.quantBlockGpuUpload.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                            ctypes.c_uint64]
        lib.quantBlockGpuFree.argtypes = [ctypes.c_void_p]
        lib.quantBlockGpuGetCopyStats.argtypes = [ctypes.POINTER(CopyStats)]
        lib.quantBlockGpuGetLaunchStats.argtypes = [
            ctypes.POINTER(LaunchStats)]

    def upload(self, array):
        array = np.ascontiguousarray(array)
        pointer = self.lib.quantBlockGpuAlloc(max(array.nbytes, 1))
        if array.nbytes:
            self.lib.quantBlockGpuUpload(pointer, array.ctypes.data,
                                         array.nbytes)
        return pointer

    def copy_stats(self):
        stats = CopyStats()
        self.lib.quantBlockGpuGetCopyStats(ctypes.byref(stats))
        return stats

    def launch_stats(self):
        """Kernel launches and host waits so far."""
        stats = LaunchStats()
        self.lib.quantBlockGpuGetLaunchStats(ctypes.byref(stats))
        return stats


class Model:
    """The libraries of a model directory, its arguments on the device."""

    def __init__(self, folder, runtime, fill=None):
        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = m = json.load(f)
        self.runtime = runtime
        self.libc = ctypes.CDLL(None)
        self.libc.free.argtypes = [ctypes.c_void_p]
        self.functions = {}
        for n, library in m["functions"].items():
            lib = ctypes.CDLL(os.path.join(folder, library))
            function = lib._mlir_ciface_forward
            function.restype = None
            self.functions[int(n)] = (lib, function)
        rng = np.random.default_rng(0)
        self.descriptors = []
        for entry in m["arguments"]:
            shape, dtype = entry["shape"], np.dtype(entry["dtype"])
            if "file" in entry:
                array = np.load(os.path.join(folder, entry["file"]))
                assert array.shape == tuple(shape), entry["name"]
            elif entry["name"] in ("kcache", "vcache") or fill is None:
                array = np.zeros(shape, dtype)
            else:
                array = fill(rng, shape, dtype)
            pointer = runtime.upload(array)
            self.descriptors.append(descriptor(pointer, shape))
            del array

    def forward(self, tokens, position):
        """The logits of `tokens` (those of the last one only where the
        library was built so), a float32 [rows, n_vocab] copy."""
        tokens = np.ascontiguousarray(tokens, np.int32)
        lib, function = self.functions[tokens.size]
        result = descriptor_type(2)()
        arguments = [ctypes.byref(result),
                     ctypes.byref(descriptor(tokens.ctypes.data,
                                             [tokens.size])),
                     ctypes.c_int64(position)]
        arguments += [ctypes.byref(d) for d in self.descriptors]
        function(*arguments)
        rows, columns = result.sizes[0], result.sizes[1]
        base = ctypes.cast(result.aligned, ctypes.POINTER(ctypes.c_float))
        logits = np.ctypeslib.as_array(base, (rows * columns,)).copy()
        self.libc.free(result.allocated)
        return logits.reshape(rows, columns)


def report(line):
    """Prints a line of results whole: what the C libraries (a mock
    driver's log, say) buffered in stdio goes out first."""
    ctypes.CDLL(None).fflush(None)
    print(line, flush=True)


def random_part(rng, shape, dtype):
    """Random values for a bench part: small floats (scales, norms, RoPE
    tables), any bits for the codes."""
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 0.02).astype(dtype)
    count = int(np.prod(shape)) * dtype.itemsize
    return rng.integers(0, 256, count, dtype=np.uint8).view(dtype).reshape(
        shape)


def relative_error(got, want):
    return float(np.linalg.norm(np.asarray(got, np.float64) - want)
                 / np.linalg.norm(want))


def check(name, folder, runtime):
    model = Model(folder, runtime)
    m = model.manifest
    tokens = np.asarray(m["tokens"], np.int32)
    got = []
    for index, (position, count) in enumerate(m["steps"]):
        if index == len(m["steps"]) - 1:
            before = runtime.copy_stats()
            launches_before = runtime.launch_stats()
        got.append(model.forward(tokens[position:position + count], position))
    after = runtime.copy_stats()
    launches_after = runtime.launch_stats()
    up = after.h2d_bytes - before.h2d_bytes
    down = after.d2h_bytes - before.d2h_bytes
    # What bounds a decode step of small kernels on a GPU: its launches and
    # host waits, as the runtime counted them.
    launches = launches_after.kernels - launches_before.kernels
    waits = (launches_after.synchronizations
             - launches_before.synchronizations)
    got = np.concatenate(got)
    want = np.load(os.path.join(folder, "expected.npy"))
    error = relative_error(got, want)
    agree = int(np.sum(got.argmax(1) == want.argmax(1)))
    problems = []
    if not np.all(np.isfinite(got)):
        problems.append("logits not finite")
    if not error < m["bound"]:
        problems.append(f"error over the bound {m['bound']:g}")
    if agree != len(want):
        problems.append("top-1 tokens differ")
    # A decode step moves the token and a few scalars up, the logits down.
    if up > 1024 or down != 4 * m["n_vocab"]:
        problems.append("a decode step copied more than the token and the "
                        "logits")
    verdict = "FAIL" if problems else "PASS"
    report(f"{verdict} llama {name}: {m['mix']}, {m['activations']} "
          f"activations, {len(want)} positions: relative L2 error "
          f"{error:.2e} (bound {m['bound']:g}), top-1 {agree}/{len(want)}; "
          f"a decode step copied {up} B up, {down} B down (weights "
          f"{m['weight_bytes']} B resident), launched {launches} kernels "
          f"and waited {waits} time{'' if waits == 1 else 's'}"
          + (f": {'; '.join(problems)}" if problems else ""))
    return not problems


def copy_gbs(path):
    """Device-to-device copy GB/s of gen.py's copy module output."""
    if not path or not os.path.exists(path):
        return None
    times, copy_bytes = [], None
    params = os.path.join(os.path.dirname(path), "params.txt")
    if os.path.exists(params):
        for line in open(params):
            key, _, value = line.partition(" ")
            if key == "copy_bytes":
                copy_bytes = int(value)
    for line in open(path):
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "RESULT" and parts[1] == "copy_s":
            times.append(float(parts[2]))
    if not times or not copy_bytes:
        return None
    return 2 * copy_bytes / min(times) / 1e9


def bench(name, folder, runtime, copy_out, only):
    model = Model(folder, runtime, fill=random_part)
    m = model.manifest
    rng = np.random.default_rng(1)
    results = {}

    def prefill():
        tokens = rng.integers(0, m["n_vocab"], m["pp"])
        start = time.perf_counter()
        model.forward(tokens, 0)
        return m["pp"] / (time.perf_counter() - start)

    def generate(count):
        tokens = rng.integers(0, m["n_vocab"], count)
        start = time.perf_counter()
        for position, token in enumerate(tokens):
            model.forward(np.array([token]), position)
        return count / (time.perf_counter() - start)

    if only in (None, "pp"):
        prefill()
        if only is None:
            results["pp"] = statistics.median(prefill() for _ in range(3))
    if only in (None, "tg"):
        generate(min(8, m["tg"]))
        if only is None:
            results["tg"] = max(generate(m["tg"]) for _ in range(2))
    if only:
        return True
    read_gbs = results["tg"] * m["read_bytes_per_token"] / 1e9
    copy = copy_gbs(copy_out)
    ratio = read_gbs / copy if copy else None
    for key, value in (("pp_tokens_per_s", results["pp"]),
                       ("tg_tokens_per_s", results["tg"]),
                       ("tg_read_gbs", read_gbs), ("copy_gbs", copy),
                       ("tg_read_ratio", ratio)):
        if value is not None:
            report(f"RESULT {name} {key} {value:.4g}")
    report(f"{name:28} {m['mix']:8} {m['layers']:2}L  "
          f"pp{m['pp']} {results['pp']:9.1f} tok/s  "
          f"tg{m['tg']} {results['tg']:8.1f} tok/s  "
          f"read {read_gbs:7.1f} GB/s"
          + (f" = {ratio:.2f} of copy ({copy:.0f} GB/s)" if ratio else "")
          + f"  ({m['read_bytes_per_token'] / 2**20:.0f} MiB/token)")
    return True


def summarize(path, title, top=5):
    """The kernels of a QUANT_BLOCK_CUDA_PROFILE report (stderr of a run)
    that took the most GPU time, with their share of the kernels' total."""
    kernels = []
    for line in open(path):
        if not line.startswith("quant-block-cuda-profile: kernel="):
            continue
        fields = dict(field.split("=", 1) for field in line.split()[1:])
        times = [float(t) for t in fields["times_ms"].split(",") if t]
        kernels.append((sum(times), len(times), fields["kernel"]))
    total = sum(k[0] for k in kernels)
    if not kernels:
        print(f"{title}: no kernel times in {path}")
        return False
    print(f"{title}: {total:.2f} ms in {sum(k[1] for k in kernels)} "
          f"launches of {len(kernels)} kernels; the longest:")
    for ms, launches, name in sorted(kernels, reverse=True)[:top]:
        print(f"  {ms:9.3f} ms {100 * ms / total:5.1f} % {launches:6} x "
              f"{name}")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", nargs="?")
    parser.add_argument("--runtime",
                        help="the GPU runtime library the models link")
    parser.add_argument("--copy", help="gen.py's copy output (copy.out)")
    parser.add_argument("--only", choices=["pp", "tg"])
    parser.add_argument("--summarize", metavar="PROFILE",
                        help="print the longest kernels of a profile "
                             "report instead")
    parser.add_argument("--title", default="kernels")
    args = parser.parse_args()
    if args.summarize:
        sys.exit(0 if summarize(args.summarize, args.title) else 1)
    if not args.model or not args.runtime:
        parser.error("MODEL and --runtime are required")
    runtime = Runtime(args.runtime)
    name = os.path.basename(os.path.normpath(args.model))
    with open(os.path.join(args.model, "manifest.json")) as f:
        kind = json.load(f)["kind"]
    if kind == "check":
        ok = check(name, args.model, runtime)
    else:
        ok = bench(name, args.model, runtime, args.copy, args.only)
    # The runtime's buffers are the process's: its exit frees them (and
    # QUANT_BLOCK_CUDA_PROFILE's report runs then).
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
