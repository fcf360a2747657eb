"""Loading a LLaMA-7B-shaped GGUF file through quant_block.gguf: how long
opening (validation) and repacking every tensor into its quant_block parts
take, at what rate, and the peak memory, beside a plain read pass over the
same mapped bytes measured in the same run.

    PYTHONPATH=build/python python3 bench/gguf/import_bench.py \
        [--layers 2] [--type Q4_0|Q4_K_M|Q8_0] [--threads 1 2] [--file F]
        [--repeat 3]

The file (random blocks with finite scales: repacking does not look at the
values) is written once to --file (default /tmp/llama7b-<type>-<layers>L.gguf)
and reused. Each measurement runs in a fresh process so that its peak RSS
is its own. Shapes: dim 4096, ffn 11008, vocab 32000 (token_embd and
output), F32 norms; Q4_K_M gives attn_v, ffn_down and output Q6_K and the
rest Q4_K, as llama.cpp's preset does for most layers.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

DIM, FFN, VOCAB = 4096, 11008, 32000
TYPES = {"Q4_0": 2, "Q8_0": 8, "Q4_K": 12, "Q6_K": 14, "F32": 0}


def layout(kind, layers):
    """(name, ne, ggml type name) of every tensor of the model."""
    main = "Q4_K" if kind == "Q4_K_M" else kind
    wide = "Q6_K" if kind == "Q4_K_M" else kind
    tensors = [("token_embd.weight", [DIM, VOCAB], main)]
    for i in range(layers):
        p = f"blk.{i}."
        tensors += [
            (p + "attn_norm.weight", [DIM], "F32"),
            (p + "attn_q.weight", [DIM, DIM], main),
            (p + "attn_k.weight", [DIM, DIM], main),
            (p + "attn_v.weight", [DIM, DIM], wide),
            (p + "attn_output.weight", [DIM, DIM], main),
            (p + "ffn_norm.weight", [DIM], "F32"),
            (p + "ffn_gate.weight", [DIM, FFN], main),
            (p + "ffn_up.weight", [DIM, FFN], main),
            (p + "ffn_down.weight", [FFN, DIM], wide),
        ]
    tensors += [("output_norm.weight", [DIM], "F32"),
                ("output.weight", [DIM, VOCAB], wide)]
    return tensors


def write_model(path, kind, layers):
    from quant_block import gguf_writer as gw
    rng = np.random.default_rng(0)
    tensors = []
    for name, ne, type_name in layout(kind, layers):
        type_id = TYPES[type_name]
        elements, _ = gw.BLOCK[type_id]
        blocks = int(np.prod(ne)) // elements
        if type_id == 0:
            raw = rng.standard_normal(blocks).astype("<f4").tobytes()
        else:
            raw = gw.random_blocks(type_id, blocks, rng, "random")
        tensors.append((name, ne, type_id, raw))
    gw.write_gguf(path, [
        ("general.architecture", gw.STRING, "llama"),
        ("general.quantization_version", gw.UINT32, 2),
        ("llama.block_count", gw.UINT32, layers)], tensors)


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(path, threads, what):
    """Runs in the child: 'read' sums the mapped bytes once (a read pass),
    'load' opens the file and repacks every tensor into fresh parts,
    'load+release' drops each tensor's mapped pages after repacking it."""
    from quant_block import gguf
    start = time.perf_counter()
    f = gguf.open(path)
    opened = time.perf_counter() - start
    total_in = total_out = 0
    start = time.perf_counter()
    parts = {}
    for t in f.tensors:
        raw = f.raw(t.name)
        total_in += raw.nbytes
        if what == "read":
            # One pass over the bytes, 8 at a time (the work a loader that
            # reads each byte once cannot avoid).
            np.bitwise_xor.reduce(raw[: raw.nbytes // 8 * 8].view(np.uint64))
        else:
            parts[t.name] = f.parts(t.name, threads=threads,
                                    release=what == "load+release")
            total_out += sum(p.nbytes for p in parts[t.name])
    seconds = time.perf_counter() - start
    return {"open_s": opened, "seconds": seconds, "bytes_in": total_in,
            "bytes_out": total_out, "peak_rss_mib": peak_rss_mib(),
            "file_mib": os.path.getsize(path) / 2 ** 20}


def drop_page_cache_if_possible(path):
    # POSIX_FADV_DONTNEED: the file's pages leave the cache (when clean), so
    # each run reads from the disk as a first load does.
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--type", default="Q4_0",
                        choices=["Q4_0", "Q8_0", "Q4_K_M"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--file")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        path, threads, what = args.child
        print(json.dumps(measure(path, int(threads), what)))
        return 0
    path = args.file or f"/tmp/llama7b-{args.type}-{args.layers}L.gguf"
    if not os.path.exists(path):
        start = time.perf_counter()
        write_model(path, args.type, args.layers)
        print(f"wrote {path} ({os.path.getsize(path) / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s")

    def child(threads, what, cold):
        """The fastest of --repeat fresh processes (page faults on a VM
        vary a lot between runs; the peak RSS is that run's)."""
        runs = []
        for _ in range(args.repeat):
            if cold:
                drop_page_cache_if_possible(path)
            out = subprocess.run(
                [sys.executable, __file__, "--child", path, str(threads), what],
                capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout))
        return min(runs, key=lambda run: run["seconds"])

    print(f"{path}: {args.type}, {args.layers} layers")
    print("| run | threads | open (ms) | time (s) | GB/s of file bytes | "
          "x read pass | parts / file bytes | peak RSS (MiB) | file (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cache in ("warm", "cold"):
        cold = cache == "cold"
        child(1, "read", False)  # page the file in once
        read = child(1, "read", cold)
        rate = read["bytes_in"] / read["seconds"] / 1e9
        print(f"| read pass ({cache} page cache) | 1 | {read['open_s']*1e3:.1f} | "
              f"{read['seconds']:.3f} | {rate:.2f} | 1.00 | - | "
              f"{read['peak_rss_mib']:.0f} | {read['file_mib']:.0f} |")
        for threads, what in [(t, w) for w in ("load", "load+release")
                              for t in args.threads]:
            load = child(threads, what, cold)
            r = load["bytes_in"] / load["seconds"] / 1e9
            label = "repack" if what == "load" else "repack + release"
            print(f"| {label} ({cache}) | {threads} | "
                  f"{load['open_s']*1e3:.1f} | {load['seconds']:.3f} | {r:.2f} | "
                  f"{read['seconds'] / load['seconds']:.2f} | "
                  f"{load['bytes_out'] / load['bytes_in']:.3f} | "
                  f"{load['peak_rss_mib']:.0f} | {load['file_mib']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
