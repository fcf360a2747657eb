"""Prints the quant-run --benchmark-json reports given on the command line as
one table (bench/run.sh calls it).

usage: table.py REPORT.json...
"""

import json
import platform
import sys


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reports = [json.load(open(path)) for path in sys.argv[1:]]
    header = ("kernel", "min ms", "median ms", "MB moved", "GB/s",
              "mem GB/s", "ratio", "read GB/s", "read ratio")
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
        ))
    widths = [max(len(row[i]) for row in rows + [header])
              for i in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))

    print(f"quant-run benchmarks on {cpu_name()}: {reports[0]['calls']} "
          "timed calls each after a warm-up; GB/s = (input + output bytes) / "
          "min time;")
    print("mem GB/s = single-thread copy bandwidth measured in the same run; "
          "ratio = GB/s / mem GB/s;")
    print("(cold): calls rotate over copies of the weights (>= 8 x the "
          "last-level cache), GB/s = weight bytes (packed data + scales + "
          "zero points) / min time, read GB/s = read-only bandwidth over "
          "the copies, 1 thread")
    print(line(header))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))


if __name__ == "__main__":
    main()
