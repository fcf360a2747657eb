"""Semantic test of a transformation pass: compiles a module before and after
the pass with --quant-block-cpu-pipeline="raise=false propagate=false
fuse=false" (the pipeline would otherwise raise, propagate and fuse the
"before" module too), runs every public function that
takes and returns plain ranked tensors on the same random inputs, and checks
that the results are bit-for-bit equal (+0.0 and -0.0 differ), or, with
--ulp N, that float results are within N units in the last place, where the
pass's documentation allows a different rounding.

usage: pass_semantics.py QUANT_OPT MLIR_RUNNER LIB_DIR FILE.mlir
           --pass='PIPELINE' [--seed S] [--ulp N] [--ignore-zero-sign]
           [--expect-change] [--strict-order]

Every function whose name does not start with "_" and whose arguments and
results are static tensors of f32, f16, bf16, i8, i16, i32 or i64 is tested.
Each is called through a generated @main with random constant inputs (hex
literals, so inputs are exact) and prints its results as raw bits. Prints
"ok: @f (N values)" per function and "PASS" at the end; any difference is
a "FAIL" line and exit code 1. --expect-change also fails when the pass did
not change the module (so a test cannot pass because the pattern stopped
firing). --strict-order removes the fast-math flags the pass put on
quant_block.matmul ops (it must have put some) before the "after" module is
compiled: the flags only allow reordering the sum over k (docs/Numerics.md
bounds that, test/Differential/differential_fastmath.test checks it), so
what the pass computes apart from them must still be bit-exact.
"""

import argparse
import os
import re
import subprocess
import sys

import numpy as np

ELEMENT_BITS = {"f32": 32, "f16": 16, "bf16": 16, "i8": 8, "i16": 16,
                "i32": 32, "i64": 64}
FUNC_RE = re.compile(r"func\.func\s+@([\w.]+)\s*\(([^)]*)\)\s*(?:->\s*"
                     r"\(?([^{]*?)\)?)?\s*(?:attributes[^{]*)?\{")
TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)(\w+)>")


def parse_tensor(text):
    match = TENSOR_RE.fullmatch(text.strip())
    if not match or match.group(2) not in ELEMENT_BITS:
        return None
    shape = [int(d) for d in match.group(1).split("x") if d]
    return shape, match.group(2)


def find_entries(module_text):
    """Public functions with plain static tensor arguments and results."""
    entries = []
    for match in FUNC_RE.finditer(module_text):
        name, args, results = match.group(1), match.group(2), match.group(3)
        if name.startswith("_") or name == "main":
            continue
        arg_types = [a.split(":", 1)[1] for a in args.split("%")[1:]]
        arg_types = [re.sub(r"\{.*\}", "", a).strip().rstrip(",").strip()
                     for a in arg_types]
        result_types = [r.strip() for r in (results or "").split(",")
                        if r.strip()]
        parsed_args = [parse_tensor(a) for a in arg_types]
        parsed_results = [parse_tensor(r) for r in result_types]
        if not parsed_results or None in parsed_args or None in parsed_results:
            continue
        entries.append((name, parsed_args, parsed_results))
    return entries


def tensor_type(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def random_bits(rng, shape, element):
    """Random inputs as raw little-endian bytes: floats in [-8, 8) with some
    exact integers and halves (rounding ties), integers over their range."""
    count = int(np.prod(shape)) if shape else 1
    if element.startswith("f") or element == "bf16":
        values = rng.uniform(-8.0, 8.0, count).astype(np.float32)
        ties = rng.random(count) < 0.25
        values[ties] = np.round(values[ties] * 2) / 2
        if element == "f32":
            return values.tobytes()
        if element == "f16":
            return values.astype(np.float16).tobytes()
        # bf16: the upper half of the f32 bits (values chosen exact).
        return (values.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    bits = ELEMENT_BITS[element]
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return rng.integers(low, high, count, endpoint=True,
                        dtype=np.int64).astype(f"<i{bits // 8}").tobytes()


def to_i32_bits(name, value, shape, element):
    """IR that turns a result into tensor<...xi32> of its raw bits."""
    if element in ("f32", "i32"):
        if element == "i32":
            return value, ""
        target = tensor_type(shape, "i32")
        return f"%{name}", f"    %{name} = arith.bitcast {value} : " \
            f"{tensor_type(shape, element)} to {target}\n"
    if element == "i64":
        target = tensor_type(shape, "i32")
        # Two halves would be needed for exactness; results this wide are
        # compared on their low 32 bits and their high 32 bits.
        return None, None
    bits = ELEMENT_BITS[element]
    signless = tensor_type(shape, f"i{bits}")
    lines = ""
    source = value
    if element.startswith("f") or element == "bf16":
        lines += f"    %{name}_b = arith.bitcast {value} : " \
            f"{tensor_type(shape, element)} to {signless}\n"
        source = f"%{name}_b"
    lines += f"    %{name} = arith.extui {source} : {signless} to " \
        f"{tensor_type(shape, 'i32')}\n"
    return f"%{name}", lines


def build_main(module_text, entries, rng):
    """The module plus a @main that calls each entry on random inputs."""
    body = ""
    for index, (name, args, results) in enumerate(entries):
        operands = []
        for a, (shape, element) in enumerate(args):
            data = random_bits(rng, shape, element).hex().upper()
            body += f"    %in{index}_{a} = arith.constant dense<\"0x{data}\">" \
                f" : {tensor_type(shape, element)}\n"
            operands.append(f"%in{index}_{a}")
        result_names = [f"%out{index}_{r}" for r in range(len(results))]
        result_types = ", ".join(tensor_type(*r) for r in results)
        arg_types = ", ".join(tensor_type(*a) for a in args)
        lhs = ", ".join(result_names)
        if len(results) > 1:
            lhs = f"%out{index}:{len(results)}"
            result_names = [f"%out{index}#{r}" for r in range(len(results))]
        body += f"    {lhs} = func.call @{name}({', '.join(operands)}) : " \
            f"({arg_types}) -> ({result_types})\n"
        for r, (shape, element) in enumerate(results):
            bits, lines = to_i32_bits(f"bits{index}_{r}", result_names[r],
                                      shape, element)
            if bits is None:
                sys.exit(f"pass_semantics: i64 results are not supported "
                         f"(@{name} result #{r})")
            body += lines
            body += f"    %u{index}_{r} = tensor.cast {bits} : " \
                f"{tensor_type(shape, 'i32')} to tensor<*xi32>\n"
            body += f"    func.call @printMemrefI32(%u{index}_{r}) : " \
                f"(tensor<*xi32>) -> ()\n"
    main = ("  func.func @main() {\n" + body + "    return\n  }\n"
            "  func.func private @printMemrefI32(tensor<*xi32>)\n")
    # quant-opt prints one module (after the attribute aliases): @main goes
    # before its closing brace.
    # A {-# dialect_resources #-} trailer follows the module.
    module_part, marker, resources = module_text.partition("{-#")
    stripped = module_part.rstrip()
    assert stripped.endswith("}"), "expected quant-opt's printed module"
    return stripped[:-1] + main + "}\n" + marker + resources


def run(quant_opt, runner, lib_dir, module_text):
    lowered = subprocess.run([quant_opt, "-",
                              "--quant-block-cpu-pipeline=raise=false "
                              "propagate=false fuse=false"],
                             input=module_text, capture_output=True,
                             text=True)
    if lowered.returncode != 0:
        sys.exit("pass_semantics: compilation failed:\n" + lowered.stderr)
    libs = f"{lib_dir}/libmlir_runner_utils.so," \
        f"{lib_dir}/libmlir_c_runner_utils.so"
    # The CPU pipeline's threads call the OpenMP runtime.
    if os.path.exists(f"{lib_dir}/libomp.so"):
        libs += f",{lib_dir}/libomp.so"
    executed = subprocess.run([runner, "-e", "main",
                               "--entry-point-result=void",
                               f"--shared-libs={libs}"],
                              input=lowered.stdout, capture_output=True,
                              text=True)
    if executed.returncode != 0:
        sys.exit("pass_semantics: execution failed:\n" + executed.stderr)
    arrays = re.findall(r"data =\s*(.*?)(?=Unranked Memref|\Z)",
                        executed.stdout, re.S)
    return [np.array([int(v) for v in re.findall(r"-?\d+", a)], np.int64)
            for a in arrays]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("quant_opt")
    parser.add_argument("runner")
    parser.add_argument("lib_dir")
    parser.add_argument("file")
    parser.add_argument("--pass", dest="pipeline", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ulp", type=int, default=0)
    parser.add_argument("--expect-change", action="store_true")
    parser.add_argument("--strict-order", action="store_true",
                        help="drop the fast-math flags of quant_block.matmul "
                             "ops after the pass")
    parser.add_argument("--ignore-zero-sign", action="store_true",
                        help="treat +0.0 and -0.0 results as equal")
    options = parser.parse_args()

    original = subprocess.run([options.quant_opt, options.file],
                              capture_output=True, text=True)
    if original.returncode != 0:
        sys.exit("pass_semantics: cannot parse input:\n" + original.stderr)
    transformed = subprocess.run([options.quant_opt, options.file,
                                  f"--pass-pipeline=builtin.module("
                                  f"{options.pipeline})"],
                                 capture_output=True, text=True)
    if transformed.returncode != 0:
        sys.exit("pass_semantics: the pass failed:\n" + transformed.stderr)
    if options.expect_change and transformed.stdout == original.stdout:
        print("FAIL: the pass did not change the module")
        sys.exit(1)
    if options.strict_order:
        flags = re.compile(r"(quant_block\.matmul [^\n]*?) fastmath<[^>]*>")
        stripped, count = flags.subn(r"\1", transformed.stdout)
        if count == 0:
            print("FAIL: --strict-order, but no quant_block.matmul has "
                  "fast-math flags")
            sys.exit(1)
        transformed.stdout = stripped

    entries = find_entries(original.stdout)
    if not entries:
        sys.exit("pass_semantics: no function with plain static tensor "
                 "arguments and results")
    before = run(options.quant_opt, options.runner, options.lib_dir,
                 build_main(original.stdout, entries,
                            np.random.default_rng(options.seed)))
    after = run(options.quant_opt, options.runner, options.lib_dir,
                build_main(transformed.stdout, entries,
                           np.random.default_rng(options.seed)))
    failed = False
    position = 0
    for name, _, results in entries:
        count = 0
        function_failed = False
        for shape, element in results:
            b, a = before[position], after[position]
            position += 1
            count += b.size
            if element in ("f32", "f16", "bf16") and options.ignore_zero_sign:
                bits = ELEMENT_BITS[element]
                magnitude = (1 << (bits - 1)) - 1
                zero = lambda x: (x & magnitude) == 0
                a = np.where(zero(a), 0, a)
                b = np.where(zero(b), 0, b)
            if element in ("f32", "f16", "bf16") and options.ulp > 0:
                bits = ELEMENT_BITS[element]
                # Order-preserving integer view of the float bits.
                def ordered(x):
                    x = x & ((1 << bits) - 1)
                    sign = x >> (bits - 1)
                    return np.where(sign == 1, (1 << (bits - 1)) - x, x)
                diff = np.abs(ordered(a) - ordered(b))
            else:
                diff = np.abs(a - b)
            if b.shape != a.shape or diff.max(initial=0) > options.ulp:
                worst = int(np.argmax(diff)) if diff.size else 0
                print(f"FAIL: @{name}: results differ (first worst at "
                      f"{worst}: {b[worst]} before, {a[worst]} after)")
                function_failed = True
        failed = failed or function_failed
        if not function_failed:
            print(f"ok: @{name} ({count} values)")
    print("FAIL" if failed else "PASS")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
