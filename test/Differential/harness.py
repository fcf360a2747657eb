"""Shared pieces of the differential tests (differential*.py): the IR text of
schemes, constants and printed bit patterns, and one run of a module through
the compiled CPU path (quant-opt --quant-block-cpu-pipeline, mlir-runner).

Every generator builds all its cases into one module, because compiling and
JIT-starting a module costs far more than a case; each case prints its
results as i32 tensors (bit patterns of floats, values of integers), which
`run` returns in order.
"""

import argparse
import os
import re
import subprocess
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
from quant_block import reference  # noqa: E402
from quant_block.reference import Scheme  # noqa: E402,F401

FLOAT_TYPES = ("f32", "f16", "bf16")
OCP_TYPES = tuple(reference.FLOAT_FORMATS)

# Every integer width the lowering packs differently: whole bytes (8, 16,
# 32), several elements per byte (2, 4) and elements that straddle bytes
# (3, 5, 6, 7).
INT_STORAGE = [f"{sign}{width}" for width in (2, 3, 4, 5, 6, 7, 8, 16, 32)
               for sign in ("i", "ui")]
FLOAT_STORAGE = list(reference.FLOAT_FORMATS)
# MX integers are signed; 16 bits is the widest the numerics library knows.
MX_INT_STORAGE = ["i2", "i3", "i4", "i5", "i6", "i7", "i8", "i16"]
ROUNDINGS = ["half_to_even", "half_away_from_zero", "toward_zero"]


def choice(rng, items):
    """One of `items`, drawn with `rng` (works for lists of any objects)."""
    return items[int(rng.integers(0, len(items)))]


def parse_args(description, default_cases, default_seed, extra=None):
    """The common command line: QUANT_OPT MLIR_RUNNER LIB_DIR [--cases N]
    [--seed S] [--dump-ir FILE] [--only I,J] [--include-former-failures]
    (plus `extra(parser)`)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("quant_opt")
    parser.add_argument("runner")
    parser.add_argument("lib_dir")
    parser.add_argument("--cases", type=int, default=default_cases)
    parser.add_argument("--seed", type=int, default=default_seed)
    parser.add_argument("--dump-ir", metavar="FILE",
                        help="write the generated module to FILE")
    parser.add_argument("--only", metavar="I,J",
                        help="keep only these case indices (to minimise a "
                             "failure)")
    parser.add_argument("--pipeline-options", default="",
                        help="options of --quant-block-cpu-pipeline, e.g. "
                             "'vectorize=false' to tell a vectorizer "
                             "problem from a lowering one")
    parser.add_argument("--include-former-failures", action="store_true",
                        help="also draw the configurations the generator's "
                             "former_failure names: compiler failures this "
                             "test found, fixed since (the .test files "
                             "pass it; leave it out to test a compiler from "
                             "before the fixes)")
    parser.add_argument("--fold-constants", action="store_true",
                        help="run --quant-block-fold-constants first, so "
                             "that the quantizations of the (constant) "
                             "inputs are computed at compile time by the "
                             "numerics library (lib/Numerics) and checked "
                             "against the reference too")
    if extra:
        extra(parser)
    return parser.parse_args()


def select(cases, only):
    if not only:
        return cases
    keep = {int(i) for i in only.split(",")}
    return [c for c in cases if c["index"] in keep]


def tensor(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def block_text(block):
    return "[" + ", ".join("*" if b == -1 else str(b) for b in block) + "]"


def scheme_text(s):
    """`#quant_block.scheme<...>` for a reference.Scheme."""
    fields = [f"{s.storage} : {s.expressed}"]
    if s.block:
        fields.append(f"block = {block_text(s.block)}")
    if s.scale != "f32":
        fields.append(f"scale = {s.scale}")
    if s.zero_point:
        fields.append(f"zero_point = {s.zero_point}")
    if s.range:
        fields.append(f"range = [{s.range[0]}, {s.range[1]}]")
    if s.rounding != "half_to_even":
        fields.append(f"rounding = {s.rounding}")
    if not s.saturate:
        fields.append("saturate = false")
    if s.scale_rounding != "floor":
        fields.append(f"scale_rounding = {s.scale_rounding}")
    if s.outer:
        outer = [s.outer]
        if s.outer_block:
            outer.append(f"block = {block_text(s.outer_block)}")
        if s.outer_min:
            outer.append(f"min = {s.outer_min}")
        fields.append(f"outer = <{', '.join(outer)}>")
    if s.row_tile:
        fields.append(f"row_tile = {s.row_tile}")
    return f"#quant_block.scheme<{', '.join(fields)}>"


def qtensor(shape, scheme):
    dims = "x".join(str(d) for d in shape)
    return f"!quant_block.tensor<{dims}, {scheme_text(scheme)}>"


def part_types(shape, scheme):
    """The part types of a quantized tensor, in unpack order."""
    sshape = scheme.scale_shape(shape)
    parts = [("data", shape, scheme.storage), ("scales", sshape, scheme.scale)]
    if scheme.zero_point:
        parts.append(("zero_points", sshape, scheme.zero_point))
    if scheme.outer:
        oshape = scheme.outer_shape(shape)
        parts.append(("outer_scales", oshape, scheme.outer))
        if scheme.outer_min:
            parts.append(("outer_mins", oshape, scheme.outer_min))
    return parts


def is_float(element):
    return element in FLOAT_TYPES or element in OCP_TYPES or \
        element == "f8E8M0FNU"


def type_width(element):
    """Bits of an element type name (f32 -> 32, bf16 -> 16, ui4 -> 4,
    f8E8M0FNU -> 8)."""
    if element == "bf16":
        return 16
    return reference.storage_bits(element)


def bits_of(values, element):
    """int64 bit patterns (floats) or values (integers) of `element`."""
    if is_float(element):
        return reference.float_bits(values, element)
    return np.asarray(values, np.int64)


def dense(values, element):
    """A dense literal of the shape of `values`: floats by bit pattern (so
    that NaN, -0.0 and subnormals survive), integers by value."""
    array = np.asarray(values)
    if is_float(element):
        digits = -(-type_width(element) // 4)
        flat = [f"0x{int(b):0{digits}X}" for b in
                bits_of(array, element).ravel()]
    else:
        flat = [str(int(v)) for v in array.ravel()]

    def nest(items, shape):
        if not shape:
            return items[0]
        step = len(items) // shape[0] if shape[0] else 0
        return "[" + ", ".join(nest(items[i * step:(i + 1) * step],
                                    shape[1:])
                               for i in range(shape[0])) + "]"
    return f"dense<{nest(flat, list(array.shape))}>"


class Function:
    """The body of one case function: fresh SSA names, constants and
    printing any tensor as i32."""

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.count = 0
        self.prints = 0

    def fresh(self, stem="v"):
        self.count += 1
        return f"%{stem}{self.count}"

    def add(self, line):
        self.lines.append("  " + line)

    def const(self, values, element, shape=None):
        values = np.asarray(values)
        shape = list(values.shape) if shape is None else shape
        name = self.fresh("c")
        self.add(f"{name} = arith.constant {dense(values, element)} : "
                 f"{tensor(shape, element)}")
        return name

    def print_bits(self, value, shape, element):
        """Prints `value` (a ranked tensor) as i32: the bit pattern of float
        elements (zero-extended), the value of integers (sign- or zero-
        extended as their type says)."""
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        ident = f"affine_map<({dims}) -> ({dims})>"
        iters = ", ".join(['"parallel"'] * rank)
        width = type_width(element)
        body, source = [], "%a"
        if is_float(element):
            body.append(f"%s = arith.bitcast %a : {element} to i{width}")
            source, ext = "%s", "extui"
        elif element.startswith("ui"):
            body.append(f"%s = builtin.unrealized_conversion_cast %a : "
                        f"{element} to i{width}")
            source, ext = "%s", "extui"
        else:
            ext = "extsi"
        if width < 32:
            body.append(f"%w = arith.{ext} {source} : i{width} to i32")
            source = "%w"
        body.append(f"linalg.yield {source} : i32")
        init, out = self.fresh("init"), self.fresh("bits")
        self.add(f"{init} = tensor.empty() : {tensor(shape, 'i32')}")
        self.add(f"{out} = linalg.generic {{indexing_maps = [{ident}, "
                 f"{ident}], iterator_types = [{iters}]}} ins({value} : "
                 f"{tensor(shape, element)}) outs({init} : "
                 f"{tensor(shape, 'i32')}) {{")
        self.add(f"^bb0(%a: {element}, %o: i32):")
        for line in body:
            self.add("  " + line)
        self.add(f"}} -> {tensor(shape, 'i32')}")
        unranked = self.fresh("u")
        self.add(f"{unranked} = tensor.cast {out} : {tensor(shape, 'i32')} "
                 f"to tensor<*xi32>")
        self.add(f"func.call @printMemrefI32({unranked}) : "
                 f"(tensor<*xi32>) -> ()")
        self.prints += 1

    def unpack(self, value, shape, scheme):
        """Unpacks a quantized value; returns [(name, shape, type)] of its
        parts."""
        parts = part_types(shape, scheme)
        names = [self.fresh("p") for _ in parts]
        self.add(", ".join(names) + f" = quant_block.unpack {value} : "
                 f"{qtensor(shape, scheme)} -> " +
                 ", ".join(tensor(s, t) for _, s, t in parts))
        return [(n, s, t) for n, (_, s, t) in zip(names, parts)]

    def print_quantized(self, value, shape, scheme):
        """Prints every part of a quantized value (unpack order)."""
        for name, s, t in self.unpack(value, shape, scheme):
            self.print_bits(name, s, t)

    def text(self):
        return (f"func.func @{self.name}() {{\n" + "\n".join(self.lines) +
                "\n  return\n}\n")


def module(functions):
    """A module of the case functions and a @main calling them in order."""
    return ("".join(f.text() for f in functions) +
            "func.func @main() {\n" +
            "".join(f"  func.call @{f.name}() : () -> ()\n"
                    for f in functions) +
            "  return\n}\n"
            "func.func private @printMemrefI32(tensor<*xi32>)\n")


def run(text, args):
    """Compiles and runs a module; returns (printed i32 arrays, error)."""
    if args.dump_ir:
        with open(args.dump_ir, "w") as f:
            f.write(text)
    pipeline = "--quant-block-cpu-pipeline"
    if args.pipeline_options:
        pipeline += f"={args.pipeline_options}"
    passes = [pipeline]
    if args.fold_constants:
        passes.insert(0, "--quant-block-fold-constants")
    compiled = subprocess.run([args.quant_opt] + passes, input=text,
                              capture_output=True, text=True)
    if compiled.returncode:
        return None, "quant-opt failed:\n" + compiled.stderr[:4000]
    libs = ",".join(os.path.join(args.lib_dir, n) for n in
                    ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    # The CPU pipeline's threads call the OpenMP runtime.
    if os.path.exists(os.path.join(args.lib_dir, "libomp.so")):
        libs += "," + os.path.join(args.lib_dir, "libomp.so")
    ran = subprocess.run([args.runner, "-e", "main",
                          "--entry-point-result=void",
                          f"--shared-libs={libs}"],
                         input=compiled.stdout, capture_output=True,
                         text=True)
    if ran.returncode:
        return None, "mlir-runner failed:\n" + ran.stderr[:4000]
    outputs = [[int(v) for v in
                re.findall(r"-?\d+", chunk.split("data =")[1])]
               for chunk in ran.stdout.split("Unranked Memref")[1:]]
    return outputs, None


def unsigned_bits(values, element):
    """Printed i32s of `element` reduced to the type's own bits (floats and
    unsigned 32-bit values come back as signed i32)."""
    values = np.asarray(values, np.int64)
    if is_float(element):
        return values & ((1 << type_width(element)) - 1)
    if element == "ui32":
        return values & 0xFFFFFFFF
    return values


def same_bits(got, want, element):
    """Compares printed values with the reference's: floats bit for bit
    except that any NaN equals any NaN (NaN payloads and signs are not part
    of the contract; the codes of quantized NaNs are compared as codes).
    Returns (equal, index of the first difference or None)."""
    got = unsigned_bits(got, element)
    want = unsigned_bits(np.asarray(want, np.int64).ravel(), element)
    if got.shape != want.shape:
        return False, None
    if is_float(element) and element not in OCP_TYPES:
        values_got = reference.from_bits(got, element).astype(np.float64)
        values_want = reference.from_bits(want, element).astype(np.float64)
        equal = (got == want) | (np.isnan(values_got) &
                                 np.isnan(values_want))
    elif element in OCP_TYPES:
        # NaN codes are compared as NaN codes (docs/Numerics.md).
        equal = (got == want) | (reference.is_nan_code(got, element) &
                                 reference.is_nan_code(want, element))
    else:
        equal = got == want
    if np.all(equal):
        return True, None
    return False, int(np.nonzero(~equal)[0][0])


def expected_bits(codes, params, values, scheme, shape):
    """(name, element type, expected bits) of every printed tensor: the
    parts in unpack order (data as codes), then the dequantized values."""
    parts = part_types(shape, scheme)
    wanted = {"data": codes, "scales": params.scales,
              "zero_points": params.zero_points,
              "outer_scales": params.outer_scales,
              "outer_mins": params.outer_mins}
    result = []
    for name, _, element in parts:
        value = wanted[name]
        bits = np.asarray(value, np.int64) if name == "data" else \
            bits_of(value, element)
        result.append((name, element, bits))
    result.append(("values", scheme.expressed,
                   bits_of(values, scheme.expressed)))
    return result


def compare(case, outputs, expected, what):
    """Checks printed outputs against expected_bits; prints the first
    difference."""
    if len(outputs) != len(expected):
        print(f"FAIL case {case['index']}: {what}: {len(outputs)} printed "
              f"tensors, {len(expected)} expected")
        return False
    for (name, element, want), got in zip(expected, outputs):
        ok, bad = same_bits(got, want, element)
        if not ok:
            got_bits = unsigned_bits(got, element)
            want_bits = unsigned_bits(np.ravel(want), element)
            detail = (f"got {got_bits[bad]:#x}, want {want_bits[bad]:#x}"
                      if bad is not None else
                      f"{got_bits.size} elements, {want_bits.size} expected")
            print(f"FAIL case {case['index']}: {what}: {name} element "
                  f"{bad}: {detail}")
            return False
    return True


def execute(cases, emit, check, name, args):
    """Emits every case into one module, runs it, checks each case's
    printed outputs (`check(case, outputs)` returns True when they agree)
    and prints the summary line the .test files check; returns the exit
    code."""
    functions = [emit(c) for c in cases]
    outputs, error = run(module(functions), args)
    if error:
        print(error)
        return 1
    results, position = [], 0
    for case, f in zip(cases, functions):
        results.append(check(case, outputs[position:position + f.prints]))
        position += f.prints
    if position != len(outputs):
        print(f"expected {position} outputs, got {len(outputs)}")
        results.append(False)
    passed = sum(1 for ok in results if ok)
    failed = len(results) - passed
    print(f"{name}: {passed} passed, {failed} failed")
    return 1 if failed else 0
