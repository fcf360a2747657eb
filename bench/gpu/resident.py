#!/usr/bin/python3
"""Writes the modules of the device-resident GEMV benchmark
(bench/gpu/resident_driver.c): for each scheme x shape, DIR/<case>.mlir with
`@gemv(x, w {quant_block.device_resident})` (M = 1, `fastmath<reassoc>`,
or with --fma also `fastmath<reassoc,contract>`, `llvm.emit_c_interface`;
with --int8 also `<case>_i8`: x quantized in the module to int8 in blocks
of 32, `quantize_dynamic absmax`, and the product `accumulate(i32)`, the
integer kernel: dp4a for int4 codes; with --prefill M,... also
`<case>_i8_m<M>`: M rows of x, the int4 cases' tensor-core kernel from
sm_80 on; with --half-prefill M,... also `<case>_f16_m<M>` and
`<case>_bf16_m<M>`: M rows of f16 / bf16 x against the int4 weight
dequantized to f16 / bf16, `fastmath<reassoc>`, f16 / bf16 results, the
f16 / bf16 tensor-core kernel), and DIR/cases.txt: `case scheme n k
weight_bytes [rows]` (scheme `<scheme>+i8`, `+f16` or `+bf16` for those
cases; rows 1 when absent).

    resident.py --out DIR [--shapes 4096x4096,...] [--schemes ...] [--fma]
                [--int8] [--prefill 16,64,256] [--half-prefill 256]

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


def module(scheme, n, k, flags="reassoc"):
    w = f"!quant_block.tensor<{n}x{k}, {WEIGHT_TYPES[scheme]}>"
    return f"""// {scheme} GEMV, M = 1, N = {n}, K = {k}, with a device-resident weight
// (bench/gpu/resident.py), fastmath<{flags}>.
!w = {w}

func.func @gemv(%x: tensor<1x{k}xf32>, %w: !w {{quant_block.device_resident}})
    -> tensor<1x{n}xf32> attributes {{llvm.emit_c_interface}} {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<{flags}>
         : tensor<1x{k}xf32>, !w -> tensor<1x{n}xf32>
  return %y : tensor<1x{n}xf32>
}}
"""


def int8_module(scheme, n, k, m=1):
    w = f"!quant_block.tensor<{n}x{k}, {WEIGHT_TYPES[scheme]}>"
    a = (f"!quant_block.tensor<{m}x{k}, #quant_block.scheme<i8 : f32, "
         f"block = [1, 32]>>")
    return f"""// {scheme} product, M = {m}, N = {n}, K = {k}, with a device-resident
// weight (bench/gpu/resident.py --int8 / --prefill): x quantized to int8 per
// block of 32, exact integer block sums (accumulate(i32)).
!w = {w}
!a = {a}

func.func @gemv(%x: tensor<{m}x{k}xf32>, %w: !w {{quant_block.device_resident}})
    -> tensor<{m}x{n}xf32> attributes {{llvm.emit_c_interface}} {{
  %xq = quant_block.quantize_dynamic absmax %x : tensor<{m}x{k}xf32> -> !a
  %y = quant_block.matmul %xq, %w transpose_rhs accumulate(i32) inhibit
         : !a, !w -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}
"""


def half_module(n, k, m, half):
    w = (f"!quant_block.tensor<{n}x{k}, #quant_block.scheme<i4 : {half}, "
         f"block = [1, 32], scale = f16>>")
    return f"""// int4_g32_f16 product, M = {m}, N = {n}, K = {k}, {half} activations and
// results, with a device-resident weight (bench/gpu/resident.py
// --half-prefill): each weight dequantized and rounded to {half}, f32 sums.
!w = {w}

func.func @gemv(%x: tensor<{m}x{k}x{half}>, %w: !w {{quant_block.device_resident}})
    -> tensor<{m}x{n}x{half}> attributes {{llvm.emit_c_interface}} {{
  %y = quant_block.matmul %x, %w transpose_rhs accumulate(f32) inhibit fastmath<reassoc>
         : tensor<{m}x{k}x{half}>, !w -> tensor<{m}x{n}x{half}>
  return %y : tensor<{m}x{n}x{half}>
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--shapes", default="4096x4096,11008x4096,4096x11008")
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    parser.add_argument("--fma", action="store_true",
                        help="also each case with fastmath<reassoc,contract> "
                             "(the kernels' products and sums fused, FMA), "
                             "named <case>_fma")
    parser.add_argument("--int8", action="store_true",
                        help="also each case with int8 activations "
                             "(accumulate(i32)), named <case>_i8")
    parser.add_argument("--prefill", default="",
                        help="comma-separated row counts M: also the int4 "
                             "cases with M rows of int8 activations, named "
                             "<case>_i8_m<M> (the tensor-core kernel)")
    parser.add_argument("--half-prefill", default="",
                        help="comma-separated row counts M: also the int4 "
                             "cases with M rows of f16 and of bf16 "
                             "activations, named <case>_f16_m<M> and "
                             "<case>_bf16_m<M> (the f16 / bf16 tensor-core "
                             "kernel)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cases = []
    for scheme in args.schemes.split(","):
        for shape in args.shapes.split(","):
            n, k = (int(v) for v in shape.split("x"))
            variants = [("", "reassoc")]
            if args.fma:
                variants.append(("_fma", "reassoc,contract"))
            for suffix, flags in variants:
                name = f"resident_{scheme}_{n}x{k}{suffix}"
                with open(os.path.join(args.out, name + ".mlir"), "w") as f:
                    f.write(module(scheme, n, k, flags))
                cases.append(f"{name} {scheme} {n} {k} "
                             f"{weight_bytes(scheme, n, k)}")
            if args.int8:
                name = f"resident_{scheme}_{n}x{k}_i8"
                with open(os.path.join(args.out, name + ".mlir"), "w") as f:
                    f.write(int8_module(scheme, n, k))
                cases.append(f"{name} {scheme}+i8 {n} {k} "
                             f"{weight_bytes(scheme, n, k)}")
            if scheme != "int4_g32_f16":
                continue
            for m in (int(v) for v in args.prefill.split(",") if v):
                name = f"resident_{scheme}_{n}x{k}_i8_m{m}"
                with open(os.path.join(args.out, name + ".mlir"), "w") as f:
                    f.write(int8_module(scheme, n, k, m))
                cases.append(f"{name} {scheme}+i8 {n} {k} "
                             f"{weight_bytes(scheme, n, k)} {m}")
            for m in (int(v) for v in args.half_prefill.split(",") if v):
                for half in ("f16", "bf16"):
                    name = f"resident_{scheme}_{n}x{k}_{half}_m{m}"
                    with open(os.path.join(args.out, name + ".mlir"),
                              "w") as f:
                        f.write(half_module(n, k, m, half))
                    cases.append(f"{name} {scheme}+{half} {n} {k} "
                                 f"{weight_bytes(scheme, n, k)} {m}")
    with open(os.path.join(args.out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
