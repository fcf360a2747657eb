#!/usr/bin/python3
"""The table of the device-resident GEMV benchmark (resident_driver.c):

    resident_table.py RESULTS_DIR WARMUP ITERS [COPY_OUT]

reads RESULTS_DIR/cases.txt (`case scheme n k weight_bytes [rows]`), each case's
<case>.out (RESULT lines) and <case>.prof (QUANT_BLOCK_CUDA_PROFILE's kernel
times: WARMUP + ITERS hot calls, then as many cold ones), and COPY_OUT (the
device-to-device copy of gen.py's copy module, RESULT copy_s) for the
bandwidth every figure is compared with. Per case: kernel time per call
(median; hot, and cold = weights rotated over copies larger than 4x the L2),
GB/s and the ratio to the copy for the cold kernel time, the wall time of a
whole call (launches, x up, y down; cold), the same hot with the runtime's
memory pool off (<case>.nocache.out, QUANT_BLOCK_CUDA_CACHING=0),
and the bytes that crossed PCIe per call. A scheme with the suffix +i8
(int8 activations, resident.py --int8) is checked against the bound of
rounding x to 8 bits, one with +f16 or +bf16 (resident.py --half-prefill)
against one rounding of y to that type. Cases of more than one row
(resident.py --prefill, --half-prefill) go to a second table: kernel time
hot and cold, the operations per second (2 M N K / cold kernel time) and
their ratio to the chip's dense tensor-core peak for the product's kind
(int8: TENSOR_PEAK_TOPS, default 1979; f16 and bf16: TENSOR_PEAK_F16_TFLOPS,
default 989; an H100 or H200 SXM, without sparsity), beside the same
product's warp kernel (`<case>_warp`, tensor-cores=false) where the bundle
has it. Exits 1 if a case failed its check or has no timing.
"""

import os

import statistics
import sys

from table import fmt, gpu_times_per_call, print_table, profile, results


def main():
    out, warmup, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    copy_gbs = None
    if len(sys.argv) > 4:
        copy = results(sys.argv[4]).get("copy_s", [])
        params = dict(line.split() for line in
                      open(sys.argv[4].rsplit("/", 1)[0] + "/params.txt"))
        if copy:
            copy_gbs = 2 * int(params["copy_bytes"]) / min(copy) / 1e9
    header = ("case", "MB", "hot us", "cold us", "cold GB/s", "ratio",
              "wall us", "no-cache wall us", "PCIe B/call", "check")
    prefill_header = ("case", "M", "hot us", "cold us", "cold T(FL)OPS",
                      "of peak", "warp cold us", "speed-up", "check")
    peak_tops = float(os.environ.get("TENSOR_PEAK_TOPS", "1979"))
    peak_f16 = float(os.environ.get("TENSOR_PEAK_F16_TFLOPS", "989"))
    rows, prefill, failed = [], [], False
    cold_times = {}
    for line in open(f"{out}/cases.txt"):
        name, scheme, n, k, nbytes, *m = line.split()
        nbytes, m = int(nbytes), int(m[0]) if m else 1
        res = results(f"{out}/{name}.out")
        prof = profile(f"{out}/{name}.prof")
        hot = cold = None
        if prof:
            sums = gpu_times_per_call(prof, 2 * (warmup + iters))
            if sums:
                hot = statistics.median(sums[warmup:warmup + iters])
                cold = statistics.median(sums[2 * warmup + iters:])
        wall = res.get("wall_cold_s", [None])[0]
        # The same calls (hot) with QUANT_BLOCK_CUDA_CACHING=0.
        nocache = results(f"{out}/{name}.nocache.out").get("wall_hot_s",
                                                           [None])[0]
        pcie = None
        if "h2d_bytes_per_call_cold" in res:
            pcie = res["h2d_bytes_per_call_cold"][0] + res["d2h_bytes_per_call_cold"][0]
        error = res.get("max_rel_error", [None])[0]
        ok = error is not None and error <= 1e-5
        if scheme.endswith(("+i8", "+f16", "+bf16")):
            # x rounded to 8 bits in the module, or y rounded to f16 or
            # bf16: within that rounding's bound (resident_driver.c).
            error = res.get("max_error_over_bound", [None])[0]
            ok = error is not None and error <= 1
        failed |= not ok or cold is None
        cold_times[name] = cold
        verdict = "ok" if ok else f"WRONG (error {error})"
        if m > 1:
            tops = 2 * m * int(n) * int(k) / cold / 1e12 if cold else None
            peak = peak_tops if scheme.endswith("+i8") else peak_f16
            prefill.append((name, m, hot, cold, tops, peak, verdict))
            continue
        gbs = nbytes / cold / 1e9 if cold else None
        ratio = gbs / copy_gbs if gbs and copy_gbs else None
        rows.append((name, f"{nbytes / 1e6:.2f}", fmt(hot and hot * 1e6, ".1f"),
                     fmt(cold and cold * 1e6, ".1f"), fmt(gbs, ".0f"),
                     fmt(ratio, ".3f"), fmt(wall and wall * 1e6, ".1f"),
                     fmt(nocache and nocache * 1e6, ".1f"), fmt(pcie, ".0f"),
                     verdict))
    print(f"device-resident GEMV, M = 1, {warmup} warm-up + {iters} timed "
          f"calls hot and cold; copy {fmt(copy_gbs, '.0f')} GB/s")
    print_table(header, rows)
    if prefill:
        table = []
        for name, m, hot, cold, tops, peak, verdict in prefill:
            if name.endswith("_warp"):
                continue
            warp = cold_times.get(name + "_warp")
            table.append((name, str(m), fmt(hot and hot * 1e6, ".1f"),
                          fmt(cold and cold * 1e6, ".1f"), fmt(tops, ".1f"),
                          fmt(tops and tops / peak, ".3f"),
                          fmt(warp and warp * 1e6, ".1f"),
                          fmt(warp and cold and warp / cold, ".2f"), verdict))
            warp_verdict = [v for n, *_, v in prefill if n == name + "_warp"]
            if warp_verdict and warp_verdict[0] != "ok":
                table.append((name + "_warp", str(m), "", fmt(warp and warp * 1e6, ".1f"),
                              "", "", "", "", warp_verdict[0]))
        print(f"prefill products with device-resident weights (the "
              f"tensor-core kernels; _warp: tensor-cores=false), cold; peak "
              f"{peak_tops:.0f} TOPS int8 (TENSOR_PEAK_TOPS), "
              f"{peak_f16:.0f} TFLOPS f16 / bf16 (TENSOR_PEAK_F16_TFLOPS)")
        print_table(prefill_header, table)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
