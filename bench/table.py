"""Prints the quant-run --benchmark-json reports given on the command line as
one table (bench/run.sh calls it). With --peer LOG (the output of
bench/ggml/run.sh) it also prints each cold linear_* kernel beside the ggml
case of the same shape: ggml's cold min time per thread count and the ratio
ggml time / ours (above 1: ours is faster).

usage: table.py [--peer LOG] REPORT.json...
"""

import json
import platform
import re
import sys

# kernel -> the ggml case timed at the same shape (type, N, K, M).
PEERS = {
    "linear_int4_g32_f16": ("q4_0", 4096, 4096, 1),
    "linear_int4_g32_f16_fast": ("q4_0", 4096, 4096, 1),
    "linear_int4_g32_f16_i8act": ("q4_0", 4096, 4096, 1),
    "linear_int4_g32_f16_i8act_fast": ("q4_0", 4096, 4096, 1),
    "linear_int4_g32_f16_i8act_tiled": ("q4_0", 4096, 4096, 1),
    "linear_int4_g32_f16_i8act_dynm": ("q4_0", 4096, 4096, 1),
    "linear_int4_g32_f16_fast_dynm": ("q4_0", 4096, 4096, 1),
    "linear_int4_g32_f16_fast_m8": ("q4_0", 4096, 4096, 8),
    "linear_int4_g32_f16_i8act_m8": ("q4_0", 4096, 4096, 8),
    "linear_int4_g32_f16_fast_m32": ("q4_0", 4096, 4096, 32),
    "linear_int4_g32_f16_i8act_m32": ("q4_0", 4096, 4096, 32),
    "linear_int4_g32_f16_i8act_m128": ("q4_0", 4096, 4096, 128),
    "linear_int4_g32_f16_i8act_tiled_m32": ("q4_0", 4096, 4096, 32),
    "linear_int4_g32_f16_i8act_tiled_m128": ("q4_0", 4096, 4096, 128),
    "linear_int4_g32_f16_i8act_tiled_n11008_m32": ("q4_0", 11008, 4096, 32),
    "linear_int4_g32_f16_fast_m128": ("q4_0", 4096, 4096, 128),
    "linear_int4_g32_f16_fast_m512": ("q4_0", 4096, 4096, 512),
    "linear_int4_g32_f16_i8act_m512": ("q4_0", 4096, 4096, 512),
    "linear_int4_g32_f16_i8act_n11008_m8": ("q4_0", 11008, 4096, 8),
    "linear_int4_g32_f16_i8act_n11008_m32": ("q4_0", 11008, 4096, 32),
    "linear_int4_g32_f16_i8act_n11008_m128": ("q4_0", 11008, 4096, 128),
    "linear_int4_g32_f16_i8act_n11008_m512": ("q4_0", 11008, 4096, 512),
    "linear_int4_g32_f16_fast_n11008": ("q4_0", 11008, 4096, 1),
    "linear_int4_g32_f16_i8act_n11008": ("q4_0", 11008, 4096, 1),
    "linear_int4_g32_f16_bf16act_m8": ("q4_0", 4096, 4096, 8),
    "linear_int4_g32_f16_bf16act_m32": ("q4_0", 4096, 4096, 32),
    "linear_int4_g32_f16_bf16act_m128": ("q4_0", 4096, 4096, 128),
    "linear_int4_g32_f16_bf16act_m512": ("q4_0", 4096, 4096, 512),
    "linear_int4_g32_f16_bf16act_n11008_m8": ("q4_0", 11008, 4096, 8),
    "linear_int4_g32_f16_bf16act_n11008_m32": ("q4_0", 11008, 4096, 32),
    "linear_int4_g32_f16_bf16act_n11008_m128": ("q4_0", 11008, 4096, 128),
    "linear_int4_g32_f16_bf16act_n11008_m512": ("q4_0", 11008, 4096, 512),
    "linear_mxfp4_fast": ("mxfp4", 4096, 4096, 1),
    "linear_mxfp4_i8act": ("mxfp4", 4096, 4096, 1),
    "linear_mxfp4_i8act_tiled": ("mxfp4", 4096, 4096, 1),
    "linear_mxfp4_fast_m8": ("mxfp4", 4096, 4096, 8),
    "linear_mxfp4_i8act_m8": ("mxfp4", 4096, 4096, 8),
    "linear_mxfp4_fast_m32": ("mxfp4", 4096, 4096, 32),
    "linear_mxfp4_i8act_m32": ("mxfp4", 4096, 4096, 32),
    "linear_mxfp4_fast_n11008": ("mxfp4", 11008, 4096, 1),
    "linear_mxfp4_i8act_n11008": ("mxfp4", 11008, 4096, 1),
}

PEER_LINE = re.compile(r"ggml (\S+) mul_mat (\d+)x(\d+), M = (\d+), (\d+) "
                       r"thread\(s\),(?: (\S+) buffer,)?.*min ([\d.]+) ms")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def read_peer(path):
    """{(type, N, K, M): {threads: (min ms, buffer)}} from bench/ggml/run.sh's
    output: ggml's best over the buffer types it was run with (plain, its
    repacked 8-row tiles, its AMX layout)."""
    peer = {}
    with open(path) as f:
        for line in f:
            m = PEER_LINE.search(line)
            if m:
                key = (m.group(1), int(m.group(2)), int(m.group(3)),
                       int(m.group(4)))
                threads, buffer = int(m.group(5)), m.group(6) or "plain"
                ms = float(m.group(7))
                best = peer.setdefault(key, {}).get(threads)
                if best is None or ms < best[0]:
                    peer[key][threads] = (ms, buffer)
    return peer


def print_table(header, rows):
    widths = [max(len(row[i]) for row in rows + [header])
              for i in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))

    print(line(header))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))


def print_peer(reports, peer):
    threads = sorted({t for times in peer.values() for t in times})
    header = ["kernel (cold)", "threads", "min ms", "ggml case"]
    for t in threads:
        header += [f"ggml {t}T ms (buffer)", f"ggml {t}T / ours"]
    rows = []
    for r in reports:
        key = PEERS.get(r["entry"])
        if not r.get("cold") or key not in peer:
            continue
        ours = r["min_seconds"] * 1e3
        row = [r["entry"], str(r["cold"].get("threads", 1)),
               f"{ours:.3f}",
               f"{key[0]} {key[1]}x{key[2]} M={key[3]}"]
        for t in threads:
            theirs = peer[key].get(t)
            row += ([f"{theirs[0]:.3f} ({theirs[1]})",
                     f"{theirs[0] / ours:.2f}"] if theirs else ["-", "-"])
        rows.append(row)
    print()
    print("beside ggml (bench/ggml/, cold, min ms, its best buffer type): "
          "ggml / ours above 1 means ours is faster")
    print_table(header, rows)


def main():
    args = sys.argv[1:]
    peer = None
    if args[:1] == ["--peer"] and len(args) >= 2:
        peer = read_peer(args[1])
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    reports = [json.load(open(path)) for path in args]
    header = ("kernel", "min ms", "median ms", "MB moved", "GB/s",
              "mem GB/s", "ratio", "read GB/s", "read ratio", "paired")
    rows = []
    for r in reports:
        bandwidth = r.get("bandwidth", {}).get("copy_gbps")
        cold = r.get("cold")
        rows.append((
            r["entry"] + (" (cold)" if cold else ""),
            f"{r['min_seconds'] * 1e3:.3f}",
            f"{r['median_seconds'] * 1e3:.3f}",
            f"{r['bytes'] / 1e6:.2f}",
            f"{r['gbps']:.2f}",
            f"{bandwidth:.2f}" if bandwidth else "-",
            f"{r['ratio']:.3f}" if "ratio" in r else "-",
            f"{cold['read_gbps']:.2f}" if cold else "-",
            f"{r['read_ratio']:.3f}" if cold else "-",
            f"{cold['paired_read_ratio']:.3f}"
            if cold and "paired_read_ratio" in cold else "-",
        ))

    print(f"quant-run benchmarks on {cpu_name()}: {reports[0]['calls']} "
          "timed calls each after a warm-up; GB/s = (input + output bytes) / "
          "min time;")
    print("mem GB/s = single-thread copy bandwidth measured in the same run; "
          "ratio = GB/s / mem GB/s;")
    print("(cold): calls rotate over copies of the weights (>= 8 x the "
          "last-level cache), GB/s = weight bytes (packed data + scales + "
          "zero points) / min time, read GB/s = fastest read-only pass over "
          "a cold copy after each call, on the kernel's threads "
          "(OMP_NUM_THREADS for code with OpenMP loops); paired = median "
          "over the calls of each call's read ratio to the pass after it")
    print_table(header, list(rows))
    if peer is not None:
        print_peer(reports, peer)


if __name__ == "__main__":
    main()
