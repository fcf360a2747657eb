#!/usr/bin/python3
"""Prints the table of a GPU benchmark run (bench/gpu/run.sh).

  table.py DIR TARGET FORM

DIR holds what gen.py wrote (cases.txt, params.txt) and what run.sh
captured: copy.out (the copy module's stdout), <case>.out (a run without
profiling: wall time of the timed calls, y / checksum) and, for the CUDA
target, <case>.prof (stderr of a run with QUANT_BLOCK_CUDA_PROFILE=1: the GPU
time of every kernel launch).

Columns:
  GPU us     per GEMV, from the launch events: the median over calls of
             the summed times of the kernels launched in each call (kernels
             launched fewer times than there are calls, e.g. the pipeline's
             input initialization, are left out)
  wall us    per GEMV, rtclock around the timed calls / their number (for the
             pipeline form this includes its host <-> device copies)
  GB/s       packed data + scales bytes / GPU time (wall time where there is
             no GPU time)
  copy GB/s  device memory bandwidth: 2 x bytes (read + write) / the fastest
             device-to-device copy of the same run
  ratio      GB/s / copy GB/s (the target for M = 1 is >= 0.75)
  check      y against the expected values (hand form: every y element equal
             to the value the constant fills give; pipeline form: the
             checksum of y[0, 0] + y[0, N-1] over all calls against numpy)
Exits 1 if a check fails or a result is missing.
"""

import re
import statistics
import sys


def results(path):
    values = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"RESULT (\w+) (\S+)", line)
                if m:
                    values.setdefault(m.group(1), []).append(float(m.group(2)))
    except OSError:
        pass
    return values


def profile(path):
    kernels = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"quant-block-cuda-profile: kernel=(\S+) "
                             r"launches=(\d+) times_ms=(\S+)", line)
                if m:
                    kernels[m.group(1)] = [float(t) for t in
                                           m.group(3).split(",")]
    except OSError:
        return None
    return kernels or None


def gpu_times_per_call(prof, calls):
    """Seconds of GPU time of each call: the summed launches of that call,
    or None if no kernel was launched once per call. The profile is per
    kernel name; the runtime names the kernels of different gpu.modules
    that share a name `name#2`, `name#3`, ... (before 2026-12-02 it
    reported them under one name: three launches of `gemv_kernel` per
    call, all different kernels): a name launched k times per call
    contributes launches
    [c * k, (c + 1) * k) to call c. Names launched fewer times than there
    are calls (input initialization) or not a whole number of times per
    call are left out."""
    sums = [0.0] * calls
    used = False
    for times in prof.values():
        if len(times) < calls or len(times) % calls:
            continue
        k = len(times) // calls
        for c in range(calls):
            sums[c] += sum(times[c * k:(c + 1) * k]) / 1e3
        used = True
    return sums if used else None


def gpu_time_per_call(prof, calls):
    """Seconds of GPU time per call: the median of gpu_times_per_call."""
    sums = gpu_times_per_call(prof, calls)
    return statistics.median(sums) if sums else None


def fmt(value, spec):
    """`value` formatted, or "-" for a missing one."""
    return "-" if value is None else format(value, spec)


def print_table(header, rows):
    """Columns as wide as their widest cell: the first left-aligned, the
    others right-aligned, a rule under the header."""
    widths = [max(len(r[i]) for r in rows + [header])
              for i in range(len(header))]
    for r in [header, tuple("-" * w for w in widths)] + rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))


def e2m1(codes):
    import numpy as np

    sign = np.where(codes & 8, -1.0, 1.0)
    e, m = (codes >> 1) & 3, codes & 1
    magnitude = np.where(e == 0, m * 0.5, (1 + m * 0.5) * 2.0 ** (e - 1))
    return sign * magnitude


def pipeline_reference_rows(scheme, n, k, rows):
    """y[0, rows] of the pipeline form's generated inputs (gen.py)."""
    import numpy as np  # Only this form needs it.

    j = np.arange(k)
    x = ((j % 8) - 3) / 8.0
    out = []
    for i in rows:
        jb = j // 32
        if scheme == "int4_g32_f16":
            w = (((i + 3 * j) % 16) - 8) * (0.5 / 2.0 ** ((i + jb) % 4))
        else:
            w = e2m1((i + 3 * j) % 11) * 2.0 ** (((i + jb) % 4) + 124 - 127)
        out.append(float(np.dot(x, w)))
    return out


def main():
    out_dir, target, form = sys.argv[1:4]
    params = dict(line.split() for line in open(f"{out_dir}/params.txt"))
    warmup, iters = int(params["warmup"]), int(params["iters"])
    calls = warmup + iters
    copy = results(f"{out_dir}/copy.out").get("copy_s", [])
    copy_gbs = (2 * int(params["copy_bytes"]) / min(copy) / 1e9) if copy else None
    failed = False
    header = ("case", "N", "K", "MB", "GPU us", "wall us", "GB/s",
              "copy GB/s", "ratio", "check")
    rows = []
    for line in open(f"{out_dir}/cases.txt"):
        name, scheme, n, k, nbytes, expected = line.split()
        n, k, nbytes = int(n), int(k), int(nbytes)
        res = results(f"{out_dir}/{name}.out")
        prof = profile(f"{out_dir}/{name}.prof")
        wall = res["batch_s"][0] / iters if "batch_s" in res else None
        gpu = None
        if prof:
            gpu = gpu_time_per_call(prof, calls)
        time = gpu if gpu is not None else wall
        gbs = nbytes / time / 1e9 if time else None
        ratio = gbs / copy_gbs if gbs and copy_gbs else None
        if form == "hand":
            got = res.get("y_first", []) + res.get("y_last", [])
            want = float(expected)
            ok = len(got) == 2 and all(abs(g - want) <= 1e-5 * abs(want)
                                       for g in got)
            check = "ok" if ok else f"WRONG ({got} != {want})"
        else:
            y0, yl = pipeline_reference_rows(scheme, n, k, [0, n - 1])
            # f32 sums in some order: a loose relative bound.
            want = calls * (y0 + yl)
            got = res.get("checksum", [None])[0]
            ok = got is not None and abs(got - want) <= 1e-3 * max(abs(want), 1.0)
            check = "ok" if ok else f"WRONG ({got} != {want:.6g})"
        failed |= not ok or time is None
        rows.append((name, str(n), str(k), f"{nbytes / 1e6:.2f}",
                     fmt(gpu and gpu * 1e6, ".1f"), fmt(wall and wall * 1e6, ".1f"),
                     fmt(gbs, ".0f"), fmt(copy_gbs, ".0f"), fmt(ratio, ".3f"),
                     check))
    print(f"target {target}, form {form}, M = 1, {warmup} warm-up + {iters} "
          f"timed calls")
    print_table(header, rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
