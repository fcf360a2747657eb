#!/usr/bin/python3
"""Compile time of --quant-block-cpu-pipeline on a LLaMA-7B-shaped model.

Writes a module of B transformer blocks, each with the 7 int4 linear layers
of LLaMA-7B (q, k, v, o: 4096 x 4096; gate, up: 11008 x 4096; down:
4096 x 11008), groups of 32 along K with f16 scales, every weight a
function argument, the layers chained through one token's activations
(M = 1, `fastmath<fast>`), and times, for each B:
  * `quant-opt --quant-block-cpu-pipeline` (to the LLVM dialect), and
  * the LLVM back end as an ahead-of-time user runs it: mlir-translate
    --mlir-to-llvmir, opt -O3, llc -O3 -mcpu=native -filetype=obj.
It prints both with the time per block, which should stay flat (linear
growth). Issue 10's target: the pipeline under 10 s for 32 blocks.

usage: compile_time.py [--blocks 1,8,32] [--quant-opt PATH] [--llvm-bin DIR]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

SHAPES = [(4096, 4096)] * 4 + [(11008, 4096)] * 2 + [(4096, 11008)]


def model(blocks):
    lines = []
    for n, k in sorted(set(SHAPES)):
        lines.append(f"!w{n}x{k} = !quant_block.tensor<{n}x{k}, "
                     "#quant_block.scheme<i4 : f32, block = [1, 32], "
                     "scale = f16>>")
    args, body = [], []
    current = "%x"
    for b in range(blocks):
        up = None
        for i, (n, k) in enumerate(SHAPES):
            args.append(f"%w{b}_{i}: !w{n}x{k}")
            source = up if k == 11008 else current
            body.append(f"  %y{b}_{i} = quant_block.matmul {source}, "
                        f"%w{b}_{i} transpose_rhs accumulate(f32) inhibit "
                        f"fastmath<fast> : tensor<1x{k}xf32>, !w{n}x{k} -> "
                        f"tensor<1x{n}xf32>")
            if n == 11008:
                up = f"%y{b}_{i}"
        current = f"%y{b}_{len(SHAPES) - 1}"
    lines.append(f"func.func @model(%x: tensor<1x4096xf32>, "
                 f"{', '.join(args)}) -> tensor<1x4096xf32> {{")
    lines += body
    lines.append(f"  return {current} : tensor<1x4096xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", default="1,8,32")
    parser.add_argument("--quant-opt", default=os.path.join(
        here, "..", "build", "bin", "quant-opt"))
    parser.add_argument("--llvm-bin", default="/usr/lib/llvm-22/bin")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for blocks in [int(b) for b in args.blocks.split(",")]:
            source = os.path.join(work, f"model{blocks}.mlir")
            with open(source, "w") as f:
                f.write(model(blocks))
            lowered = source + ".llvm.mlir"
            pipeline = timed([args.quant_opt, source,
                              "--quant-block-cpu-pipeline", "-o", lowered])
            ll, bc, obj = (source + ".ll", source + ".bc", source + ".o")
            backend = timed([os.path.join(args.llvm_bin, "mlir-translate"),
                             "--mlir-to-llvmir", lowered, "-o", ll])
            backend += timed([os.path.join(args.llvm_bin, "opt"), "-O3", ll,
                              "-o", bc])
            backend += timed([os.path.join(args.llvm_bin, "llc"), "-O3",
                              "-mcpu=native", "-filetype=obj", bc, "-o", obj])
            rows.append((blocks, 7 * blocks, pipeline, pipeline / blocks,
                         backend, backend / blocks))
    print("compile time of a LLaMA-7B-shaped model (7 int4 linear layers "
          "per block, weights as arguments)")
    header = ("blocks", "layers", "pipeline s", "per block s", "LLVM s",
              "per block s")
    print("  ".join(f"{h:>11}" for h in header))
    for row in rows:
        print("  ".join(f"{v:>11}" if isinstance(v, int) else f"{v:>11.3f}"
                        for v in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
