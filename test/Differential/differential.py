"""Differential test: random schemes, shapes (ragged last blocks included),
storage types and zero-point domains, quantized and dequantized by the
compiled CPU path and by the independent numpy reference
(python/quant_block/reference.py); codes and result bits must be equal.

usage: differential.py QUANT_OPT MLIR_RUNNER LIB_DIR [--cases N] [--seed S]
A fixed seed keeps the suite reproducible; --cases runs a larger sweep.
"""

import argparse
import os
import re
import subprocess
import sys

import numpy as np

here = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
from quant_block import reference  # noqa: E402

# Every width the lowering packs differently: whole bytes (8, 16), several
# elements per byte (2, 4) and elements that straddle bytes (3, 5, 6, 7).
INT_STORAGE = {f"{sign}{width}": ((0, (1 << width) - 1) if sign == "ui" else
                                  (-(1 << (width - 1)), (1 << (width - 1)) - 1))
               for width in (2, 3, 4, 5, 6, 7, 8) for sign in ("i", "ui")}
INT_STORAGE["i16"] = (-32768, 32767)
FLOAT_STORAGE = ["f8E4M3FN", "f8E5M2", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"]


def storage_width(storage):
    """Bits of a storage type name (i3 -> 3, ui7 -> 7, f6E2M3FN -> 6)."""
    return int(re.match(r"u?[if](\d+)", storage).group(1))


def hex_f32(values):
    bits = np.asarray(values, np.float32).view(np.uint32).ravel()
    return ", ".join(f"0x{int(b):08X}" for b in bits)


def hex_f16(values):
    bits = np.asarray(values, np.float16).view(np.uint16).ravel()
    return ", ".join(f"0x{int(b):04X}" for b in bits)


def tensor(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def widen(name, source, shape, element):
    """IR that widens integer-like elements (any storage type) to i32."""
    if element.startswith("f"):
        width = storage_width(element)
        cast, signless, ext = "arith.bitcast", f"i{width}", "extui"
    else:
        cast = "builtin.unrealized_conversion_cast"
        signless = "i" + element.lstrip("ui")
        ext = "extui" if element.startswith("ui") else "extsi"
    op = (f"%w = arith.{ext} %c : {signless} to i32" if signless != "i32"
          else "%w = arith.addi %c, %c0 : i32")
    return (f"  %{name}_init = tensor.empty() : {tensor(shape, 'i32')}\n"
            f"  %{name} = linalg.generic {{indexing_maps = ["
            f"affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> "
            f"(d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins({source} : {tensor(shape, element)}) outs(%{name}_init : "
            f"{tensor(shape, 'i32')}) {{\n"
            f"  ^bb0(%a: {element}, %o: i32):\n"
            f"    %c = {cast} %a : {element} to {signless}\n"
            f"    %c0 = arith.constant 0 : i32\n"
            f"    {op}\n"
            f"    linalg.yield %w : i32\n"
            f"  }} -> {tensor(shape, 'i32')}\n")


def make_case(rng, index):
    storage = rng.choice(list(INT_STORAGE) + FLOAT_STORAGE)
    rows = int(rng.integers(1, 5))
    cols = int(rng.choice([6, 8, 12, 16, 30, 32, 64]))
    block_cols = int(rng.choice([1, 2, 4, 8, 16, cols]))
    block_rows = int(rng.choice([1, 1, 2]))
    shape, block = [rows, cols], [block_rows, block_cols]
    scale_shape = [-(-d // b) for d, b in zip(shape, block)]
    scale_type = str(rng.choice(["f32", "f16"]))
    expressed = str(rng.choice(["f32", "f16"]))
    domain = "none"
    if storage in INT_STORAGE:
        domain = str(rng.choice(["none", "int", "float"]))
    scales = rng.uniform(0.05, 2.0, scale_shape).astype(np.float32)
    if scale_type == "f16":
        scales = scales.astype(np.float16).astype(np.float32)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    # Exact ties of the rounding (x / s = k + 0.5) and a NaN.
    s_full = reference.expand_blocks(scales, shape, block)
    ties = rng.random(shape) < 0.2
    x = np.where(ties, (np.round(x / s_full) + 0.5) * s_full, x)
    x = x.astype(np.float32)
    if expressed == "f16":
        x = x.astype(np.float16).astype(np.float32)
    if rng.random() < 0.5:
        x.flat[int(rng.integers(0, x.size))] = np.nan
    zp = None
    if domain == "int":
        lo, hi = INT_STORAGE[storage]
        zp = rng.integers(lo, hi + 1, scale_shape).astype(np.int64)
    elif domain == "float":
        zp = rng.uniform(-2, 2, scale_shape).astype(np.float32)
        if expressed == "f16":
            zp = zp.astype(np.float16).astype(np.float32)
    return dict(index=index, storage=storage, shape=shape, block=block,
                scale_shape=scale_shape, scale_type=scale_type,
                expressed=expressed, domain=domain, scales=scales, x=x, zp=zp)


def emit(case):
    i, storage, shape = case["index"], case["storage"], case["shape"]
    expressed, scale_type = case["expressed"], case["scale_type"]
    zp_type = {"int": storage, "float": expressed}.get(case["domain"])
    fields = [f"{storage} : {expressed}",
              f"block = [{case['block'][0]}, {case['block'][1]}]"]
    if scale_type != "f32":
        fields.append(f"scale = {scale_type}")
    if zp_type:
        fields.append(f"zero_point = {zp_type}")
    qtype = (f"!quant_block.tensor<{shape[0]}x{shape[1]}, "
             f"#quant_block.scheme<{', '.join(fields)}>>")
    hexes = {"f32": hex_f32, "f16": hex_f16}
    lines = [f"func.func @case{i}() {{",
             f"  %x = arith.constant dense<[{hexes[expressed](case['x'])}]> : "
             f"{tensor([shape[0] * shape[1]], expressed)}",
             f"  %s = arith.constant dense<[{hexes[scale_type](case['scales'])}]>"
             f" : {tensor([int(np.prod(case['scale_shape']))], scale_type)}"]
    sshape = case["scale_shape"]
    parts = [tensor(shape, storage), tensor(sshape, scale_type)]
    zp_clause = ""
    if zp_type:
        if case["domain"] == "int":
            values = ", ".join(str(int(v)) for v in case["zp"].ravel())
        else:
            values = hexes[expressed](case["zp"])
        lines.append(f"  %zf = arith.constant dense<[{values}]> : "
                     f"{tensor([case['zp'].size], zp_type)}")
        lines.append(f"  %z = tensor.expand_shape %zf [[0, 1]] output_shape "
                     f"[{sshape[0]}, {sshape[1]}] : "
                     f"{tensor([case['zp'].size], zp_type)} into "
                     f"{tensor(sshape, zp_type)}")
        zp_clause = f" zero_points(%z : {tensor(sshape, zp_type)})"
        parts.append(tensor(sshape, zp_type))
    lines += [
        f"  %xs = tensor.expand_shape %x [[0, 1]] output_shape [{shape[0]}, "
        f"{shape[1]}] : {tensor([shape[0] * shape[1]], expressed)} into "
        f"{tensor(shape, expressed)}",
        f"  %ss = tensor.expand_shape %s [[0, 1]] output_shape [{sshape[0]}, "
        f"{sshape[1]}] : {tensor([int(np.prod(sshape))], scale_type)} into "
        f"{tensor(sshape, scale_type)}",
        f"  %q = quant_block.quantize %xs scales(%ss : "
        f"{tensor(sshape, scale_type)}){zp_clause} : "
        f"{tensor(shape, expressed)} -> {qtype}",
        "  %d" + "".join(f", %p{k}" for k in range(1, len(parts))) +
        f" = quant_block.unpack %q : {qtype} -> {', '.join(parts)}",
        widen("codes", "%d", shape, storage).rstrip("\n"),
        "  %cu = tensor.cast %codes : " + tensor(shape, "i32") +
        " to tensor<*xi32>",
        "  func.call @printMemrefI32(%cu) : (tensor<*xi32>) -> ()",
        f"  %y = quant_block.dequantize %q : {qtype} -> "
        f"{tensor(shape, expressed)}",
    ]
    if expressed == "f32":
        lines.append(f"  %yb = arith.bitcast %y : {tensor(shape, 'f32')} to "
                     f"{tensor(shape, 'i32')}")
    else:
        lines.append(f"  %yh = arith.bitcast %y : {tensor(shape, 'f16')} to "
                     f"{tensor(shape, 'i16')}")
        lines.append(f"  %yb = arith.extui %yh : {tensor(shape, 'i16')} to "
                     f"{tensor(shape, 'i32')}")
    lines += ["  %yu = tensor.cast %yb : " + tensor(shape, "i32") +
              " to tensor<*xi32>",
              "  func.call @printMemrefI32(%yu) : (tensor<*xi32>) -> ()",
              "  return", "}"]
    return "\n".join(lines) + "\n"


def expected(case):
    storage, shape, block = case["storage"], case["shape"], case["block"]
    bits = 32 if storage == "i32" else (16 if storage == "i16" else 8)
    if storage in INT_STORAGE:
        lo, hi = INT_STORAGE[storage]
        codes = reference.quantize(
            case["x"], case["scales"], case["zp"], shape=shape, block=block,
            storage=storage, qmin=lo, qmax=hi,
            zero_point_domain=case["domain"], storage_bits=bits)
        values = reference.dequantize(
            codes, case["scales"], case["zp"], shape=shape, block=block,
            storage=storage, expressed=case["expressed"],
            zero_point_domain=case["domain"])
    else:
        codes = reference.quantize(case["x"], case["scales"], None,
                                   shape=shape, block=block, storage=storage)
        values = reference.dequantize(codes, case["scales"], None, shape=shape,
                                      block=block, storage=storage,
                                      expressed=case["expressed"])
    width = 32 if case["expressed"] == "f32" else 16
    value_bits = values.view(np.uint32 if width == 32 else np.uint16)
    return codes.ravel().tolist(), value_bits.ravel().astype(np.int64).tolist()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("quant_opt")
    parser.add_argument("runner")
    parser.add_argument("lib_dir")
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    cases = [make_case(rng, i) for i in range(args.cases)]
    module = "".join(emit(c) for c in cases)
    module += ("func.func @main() {\n" +
               "".join(f"  func.call @case{c['index']}() : () -> ()\n"
                       for c in cases) +
               "  return\n}\nfunc.func private @printMemrefI32(tensor<*xi32>)\n")
    compiled = subprocess.run([args.quant_opt, "--quant-block-cpu-pipeline"],
                              input=module, capture_output=True, text=True)
    if compiled.returncode:
        sys.stderr.write(compiled.stderr[:4000])
        return 1
    libs = ",".join(os.path.join(args.lib_dir, n) for n in
                    ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    ran = subprocess.run([args.runner, "-e", "main",
                          "--entry-point-result=void", f"--shared-libs={libs}"],
                         input=compiled.stdout, capture_output=True, text=True)
    if ran.returncode:
        sys.stderr.write(ran.stderr[:4000])
        return 1
    outputs = [[int(v) for v in re.findall(r"-?\d+", chunk.split("data =")[1])]
               for chunk in ran.stdout.split("Unranked Memref")[1:]]
    passed = failed = 0
    for case, got_codes, got_bits in zip(cases, outputs[0::2], outputs[1::2]):
        want_codes, want_bits = expected(case)
        mask = 0xFFFFFFFF if case["expressed"] == "f32" else 0xFFFF
        got_bits = [b & mask for b in got_bits]
        if case["storage"] in FLOAT_STORAGE:
            width = storage_width(case["storage"])
            got_codes = [c & ((1 << width) - 1) for c in got_codes]
        ok = got_codes == want_codes and got_bits == want_bits
        if ok:
            passed += 1
        else:
            failed += 1
            bad = next(k for k in range(len(want_codes))
                       if got_codes[k] != want_codes[k] or
                       got_bits[k] != want_bits[k])
            print(f"FAIL case {case['index']}: {case['storage']} "
                  f"{case['expressed']} block {case['block']} shape "
                  f"{case['shape']} zp {case['domain']} scale "
                  f"{case['scale_type']}: element {bad}: x = "
                  f"{case['x'].ravel()[bad]!r}, code {got_codes[bad]} vs "
                  f"{want_codes[bad]}, bits {got_bits[bad]:#x} vs "
                  f"{want_bits[bad]:#x}")
    if len(outputs) != 2 * len(cases):
        print(f"expected {2 * len(cases)} outputs, got {len(outputs)}")
        failed += 1
    print(f"differential: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
