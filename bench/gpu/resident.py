#!/usr/bin/python3
"""Writes the modules of the device-resident GEMV benchmark
(bench/gpu/resident_driver.c): for each scheme x shape, DIR/<case>.mlir with
`@gemv(x, w {quant_block.device_resident})` (M = 1, `fastmath<reassoc>`,
`llvm.emit_c_interface`), and DIR/cases.txt: `case scheme n k weight_bytes`.

    resident.py --out DIR [--shapes 4096x4096,...] [--schemes ...]

Unlike gen.py's forms, the weight is not built by the module: the driver
uploads it once per copy (quantBlockGpuUpload) and passes device pointers,
as a model runtime does, so that a call moves only x and y over PCIe; the
driver measures the wall time of whole calls and the runtime's copies.
"""

import argparse
import os

from gen import SCHEMES, weight_bytes

WEIGHT_TYPES = {
    "int4_g32_f16": "#quant_block.scheme<i4 : f32, block = [1, 32], scale = f16>",
    "mxfp4": "#quant_block.scheme<mxfp4>",
}


def module(scheme, n, k):
    w = f"!quant_block.tensor<{n}x{k}, {WEIGHT_TYPES[scheme]}>"
    return f"""// {scheme} GEMV, M = 1, N = {n}, K = {k}, with a device-resident weight
// (bench/gpu/resident.py).
!w = {w}

func.func @gemv(%x: tensor<1x{k}xf32>, %w: !w {{quant_block.device_resident}})
    -> tensor<1x{n}xf32> attributes {{llvm.emit_c_interface}} {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc>
         : tensor<1x{k}xf32>, !w -> tensor<1x{n}xf32>
  return %y : tensor<1x{n}xf32>
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--shapes", default="4096x4096,11008x4096,4096x11008")
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cases = []
    for scheme in args.schemes.split(","):
        for shape in args.shapes.split(","):
            n, k = (int(v) for v in shape.split("x"))
            name = f"resident_{scheme}_{n}x{k}"
            with open(os.path.join(args.out, name + ".mlir"), "w") as f:
                f.write(module(scheme, n, k))
            cases.append(f"{name} {scheme} {n} {k} {weight_bytes(scheme, n, k)}")
    with open(os.path.join(args.out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
