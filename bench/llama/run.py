"""pp512 and tg128 of a LLaMA-7B-shaped model through quant_block.llama,
beside llama.cpp (the prebuilt library of npm's @node-llama-cpp/linux-x64,
its defaults: AMX / repacked weight buffers, flash attention) in the same
run, with the read bandwidth measured in the same run.

    PYTHONPATH=build/python python3 bench/llama/run.py \
        [--mix Q4_0 Q4_K_M] [--threads 1 2] [--layers N] [--pp 512] [--tg 128]
        [--activations f32|int8] [--repetitions R] [--no-peer]

Shapes: dim 4096, ffn 11008, 32 heads, vocab 32000, random weights
(quant_block.gguf_writer.write_random_llama, llama.cpp's type mixes). The
default layer count makes the weights exceed 4 x the last-level cache, so
decode streams them from DRAM as a real 7B model does (17 layers of Q4_0
on a 480 MiB L3). Files go to $LLAMA_BENCH_DIR (default
/tmp/quant-block-llama) and are reused.

Each measurement runs in a fresh process (its own peak RSS, its own
threads). Ours: compiling each width, then, as llama-bench times them, an
untimed warm-up and `--repetitions` timed runs of each test (their mean
in the table, as llama-bench's `-r`; the peer the same): pp (a prefill
of `pp` tokens from an empty cache) and tg (`tg` decode steps from an
empty cache; its warm-up one step).
The read pass streams every weight part once, split over the same number
of threads (numpy, GIL released), right after the tg run; "read ratio" is
(weight bytes per token x tg tokens/s) / read pass GB/s.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "python", "tests"))

SHAPE = dict(n_vocab=32000, n_embd=4096, n_ff=11008, n_head=32, n_head_kv=32)


def llc_bytes():
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index3/size") as f:
            size = f.read().strip()
    except OSError:
        return 32 << 20
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1], 1)
    return int(size.rstrip("KMG")) * scale


def model_file(mix, layers):
    from quant_block import gguf_writer as gw
    folder = os.environ.get("LLAMA_BENCH_DIR", "/tmp/quant-block-llama")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"llama7b-{mix}-{layers}L.gguf")
    if not os.path.exists(path):
        start = time.perf_counter()
        gw.write_random_llama(path + ".part", n_layer=layers, mix=mix, seed=0,
                              n_ctx=4096, **SHAPE)
        os.rename(path + ".part", path)
        print(f"# wrote {path} ({os.path.getsize(path) / 2**30:.2f} GiB) in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    return path


def read_pass(arrays, threads):
    """GB/s of one read of every array, split over `threads` threads in
    equal shares of bytes (each array's words cut where a share ends:
    giving each thread whole arrays in turn left one with 1.6 times the
    other's bytes, and the pass measured 23 GB/s where the memory gives
    32)."""
    chunks = []
    for a in arrays:
        flat = a.reshape(-1).view(np.uint8)
        usable = flat.size // 8 * 8
        if usable:
            chunks.append(flat[:usable].view(np.uint64))
    words = sum(c.size for c in chunks)
    groups, group, left = [], [], -(-words // threads)
    for c in chunks:
        while c.size:
            take = min(left, c.size)
            group.append(c[:take])
            c, left = c[take:], left - take
            if left == 0:
                groups.append(group)
                group, left = [], -(-words // threads)
    if group:
        groups.append(group)

    def work(group):
        for c in group:
            np.bitwise_xor.reduce(c)

    total = sum(c.nbytes for c in chunks)
    start = time.perf_counter()
    workers = [threading.Thread(target=work, args=(g,)) for g in groups]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return total / (time.perf_counter() - start) / 1e9


def ours(path, threads, pp, tg, activations, repetitions=1):
    from quant_block import llama
    model = llama.Llama(path, capacity=max(pp, tg), threads=threads,
                        activations=activations)
    rng = np.random.default_rng(0)
    n_vocab = model.config.n_vocab
    compile_start = time.perf_counter()
    # The prompt test computes the logits of its last token only, as
    # llama-bench's (and the peer's) does.
    model._function(pp, last_logits=True)
    model._function(1)
    compile_s = time.perf_counter() - compile_start
    # A warm-up run of each test first, as llama-bench (and the peer's
    # bench()) does: the whole prompt, then one token.
    model.reset()
    model.prefill(rng.integers(0, n_vocab, pp), last_logits=True)
    pp_rates = []
    for _ in range(repetitions):
        model.reset()
        start = time.perf_counter()
        model.prefill(rng.integers(0, n_vocab, pp), last_logits=True)
        pp_rates.append(pp / (time.perf_counter() - start))
    model.reset()
    model.decode(int(rng.integers(0, n_vocab)))
    tg_rates = []
    for _ in range(repetitions):
        model.reset()
        tokens = rng.integers(0, n_vocab, tg)
        start = time.perf_counter()
        for token in tokens:
            model.decode(int(token))
        tg_rates.append(tg / (time.perf_counter() - start))
    # Means over the repetitions, as llama-bench reports.
    pp_rate, tg_rate = float(np.mean(pp_rates)), float(np.mean(tg_rates))
    read = max(read_pass(model.parts, threads) for _ in range(2))
    # Per decoded token every weight is read once, except the embedding
    # table, of which one row is.
    per_token = sum(p.nbytes for p in model.parts)
    embd = model.tensors["token_embd.weight"]
    if "output.weight" in model.tensors:
        per_token -= embd.nbytes
    return {"pp": pp_rate, "tg": tg_rate, "read_gbs": read,
            "bytes_per_token": per_token, "compile_s": compile_s,
            "kv_bytes": model.kcache.nbytes * 2,
            "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def peer(path, threads, pp, tg, repetitions=1):
    import llamacpp
    with llamacpp.LlamaCpp(path, n_ctx=max(pp, tg) + 16, n_threads=threads,
                           n_batch=pp) as llm:
        speed = llm.bench(pp=pp, tg=tg, repetitions=repetitions)
    speed["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return speed


def child(which, *args):
    out = subprocess.run([sys.executable, __file__, "--child", which]
                         + [str(a) for a in args],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{which} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mix", nargs="+", default=["Q4_0", "Q4_K_M"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--layers", type=int)
    parser.add_argument("--pp", type=int, default=512)
    parser.add_argument("--tg", type=int, default=128)
    parser.add_argument("--activations", default="f32",
                        choices=["f32", "int8"])
    parser.add_argument("--repetitions", type=int, default=1,
                        help="timed runs of each test, each side (the "
                        "table shows their mean, as llama-bench's -r)")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        which, path, threads, pp, tg = args.child[:5]
        repetitions = int(args.child[5])
        if which == "ours":
            result = ours(path, int(threads), int(pp), int(tg), args.child[6],
                          repetitions)
        else:
            result = peer(path, int(threads), int(pp), int(tg), repetitions)
        print(json.dumps(result))
        return 0

    llc = llc_bytes()
    # Bytes per layer of Q4_0 weights (the smallest mix): 18 bytes per 32.
    layer_bytes = (4 * 4096 * 4096 + 3 * 4096 * 11008) * 18 // 32
    layers = args.layers or -(-4 * llc // layer_bytes) + 1
    print(f"# last-level cache {llc / 2**20:.0f} MiB; {layers} layers; "
          f"pp{args.pp} / tg{args.tg}; our activations {args.activations}; "
          f"mean of {args.repetitions} timed run(s) per test")
    print("| mix | threads | ours pp (tok/s) | llama.cpp pp | ratio | ours tg "
          "(tok/s) | llama.cpp tg | ratio | tg read ratio | read GB/s | "
          "peak RSS / (file + KV) | llama.cpp's | compile (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mix in args.mix:
        path = model_file(mix, layers)
        size = os.path.getsize(path)
        for threads in args.threads:
            mine = child("ours", path, threads, args.pp, args.tg,
                         args.repetitions, args.activations)
            theirs = None if args.no_peer else child(
                "peer", path, threads, args.pp, args.tg, args.repetitions)
            read_ratio = mine["bytes_per_token"] * mine["tg"] / 1e9 / \
                mine["read_gbs"]
            rss = mine["peak_rss"] / (size + mine["kv_bytes"])

            def cell(key):
                if theirs is None:
                    return "-", "-"
                return f"{theirs[key]:.2f}", f"{mine[key] / theirs[key]:.2f}x"
            # The peer's peak RSS over the same file + our KV cache (its
            # cache is f16: smaller than ours).
            rss_peer = "-" if theirs is None else \
                f"{theirs['peak_rss'] / (size + mine['kv_bytes']):.2f}"
            pp_peer, pp_ratio = cell("pp")
            tg_peer, tg_ratio = cell("tg")
            print(f"| {mix} | {threads} | {mine['pp']:.2f} | {pp_peer} | "
                  f"{pp_ratio} | {mine['tg']:.2f} | {tg_peer} | {tg_ratio} | "
                  f"{read_ratio:.2f} | {mine['read_gbs']:.1f} | {rss:.2f} | "
                  f"{rss_peer} | "
                  f"{mine['compile_s']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
