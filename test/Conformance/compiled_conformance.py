"""Runs the WebNN and ONNX quantize / dequantize conformance vectors through
the compiled path: each case becomes quant_block IR, the module is compiled
with --quant-block-cpu-pipeline, executed with mlir-runner, and the printed
bit patterns are compared with the expected values within the tolerance the
source states (WebNN: 1 ulp / +-1; ONNX: exact). Cases are read from the JSON
files directly, so a new case needs no new code.

Importer conventions (what a WebNN / ONNX importer emits):
* WebNN: scale and zero point right-aligned, block = input / scale
  (python/quant_block/webnn.py); scalars become one-element tensors.
* ONNX: per-tensor = whole-tensor block; per-axis = block 1 on `axis`, whole
  elsewhere; blocked = `block_size` on `axis`, 1 elsewhere (the scale has the
  input's shape except along `axis`); no zero point -> no zero point (quantize
  then stores uint8 unless output_dtype says otherwise).

usage: compiled_conformance.py QUANT_OPT MLIR_RUNNER LIB_DIR JSON...
"""

import json
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
from quant_block.webnn import MLIR_TYPES, implied_block  # noqa: E402

FLOAT_NP = {"float32": np.float32, "float16": np.float16}
INT_RANGES = {
    "int2": (-2, 1), "uint2": (0, 3), "int4": (-8, 7), "uint4": (0, 15),
    "int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767),
    "uint16": (0, 65535), "int32": (-2**31, 2**31 - 1),
}


def tensor_type(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def float_literal(value, dtype):
    """Hex literal of `value` rounded to dtype (exact in the IR)."""
    if isinstance(value, str) and value in ("nan", "inf", "-inf"):
        value = float(value)
    array = np.array([float(value)], dtype=FLOAT_NP[dtype])
    bits = array.view(np.uint32 if dtype == "float32" else np.uint16)[0]
    return f"0x{int(bits):0{8 if dtype == 'float32' else 4}X}"


def dense(values, shape, dtype):
    element = MLIR_TYPES[dtype]
    if dtype in FLOAT_NP:
        items = [float_literal(v, dtype) for v in values]
    elif is_float_storage(dtype):
        # Narrow float values are exact decimals of representable values.
        items = [repr(float(v)) for v in values]
    else:
        items = [str(int(v)) for v in values]
    return (f"arith.constant dense<[{', '.join(items)}]> : "
            f"{tensor_type([len(values)], element)}")


class Unsupported(Exception):
    pass


def is_float_storage(dtype):
    return dtype.startswith("float") and dtype not in FLOAT_NP


def zero_point_of(case):
    """The case's zero point; float8/float4 zero points must be zero and are
    dropped (quant_block float storage has no zero point)."""
    zp = case["zero_point"]
    storage = (case["input"] if case["op"] == "dequantize"
               else case["expected"])["dtype"]
    if zp is not None and is_float_storage(storage):
        if any(float(v) != 0.0 for v in zp["data"]):
            raise Unsupported("non-zero float8/float4 zero point")
        return None
    return zp


def scheme_and_shapes(source, case):
    """Returns (scheme text, data shape, param shape)."""
    x, scale, zp = case["input"], case["scale"], case["zero_point"]
    shape = list(x["shape"]) or [1]
    op = case["op"]
    if op == "dequantize":
        storage_dtype = x["dtype"]
        expressed_dtype = case["expected"]["dtype"]
    else:
        storage_dtype = case["expected"]["dtype"]
        expressed_dtype = x["dtype"]
    for dtype in (storage_dtype, scale["dtype"], expressed_dtype):
        if dtype not in MLIR_TYPES:
            raise Unsupported(f"{dtype} is not lowered yet")
    rank = len(shape)
    if source == "webnn":
        scale_shape = [1] * (rank - len(scale["shape"])) + list(scale["shape"])
        block = implied_block(shape, scale["shape"]) if scale["shape"] \
            else list(shape)
        block = [b if b else 1 for b in block]
    else:
        axis = case["attrs"].get("axis")
        axis = 1 if axis is None else axis
        axis %= rank
        block_size = case["attrs"].get("block_size") or 0
        if block_size > 0:
            block = [1] * rank
            block[axis] = block_size
        elif len(scale["shape"]) == 1 and scale["shape"][0] == shape[axis] \
                and case["granularity"] == "per-axis":
            block = list(shape)
            block[axis] = 1
        else:
            block = list(shape)
        scale_shape = [-(-d // b) for d, b in zip(shape, block)]
    fields = [f"{MLIR_TYPES[storage_dtype]} : {MLIR_TYPES[expressed_dtype]}",
              "block = [" + ", ".join(map(str, block)) + "]"]
    if scale["dtype"] != "float32":
        fields.append(f"scale = {MLIR_TYPES[scale['dtype']]}")
    if zp is not None and not is_float_storage(storage_dtype):
        fields.append(f"zero_point = {MLIR_TYPES[zp['dtype']]}")
    return ("#quant_block.scheme<" + ", ".join(fields) + ">", shape,
            scale_shape, storage_dtype, expressed_dtype)


def emit_case(source, index, case):
    scheme, shape, scale_shape, storage, expressed = \
        scheme_and_shapes(source, case)
    qtype = "!quant_block.tensor<" + "x".join(map(str, shape)) + \
        f", {scheme}>"
    flat = [len(case["input"]["data"])]
    lines = []

    def reshaped(name, values, dtype, target_shape):
        lines.append(f"  %{name}_flat = {dense(values, flat if name == 'x' else [len(values)], dtype)}")
        lines.append(f"  %{name} = tensor.reshape %{name}_flat(%{name}_shape) : "
                     f"({tensor_type([len(values)], MLIR_TYPES[dtype])}, "
                     f"tensor<{len(target_shape)}xindex>) -> "
                     f"{tensor_type(target_shape, MLIR_TYPES[dtype])}")
        dims = ", ".join(str(d) for d in target_shape)
        lines.insert(len(lines) - 1,
                     f"  %{name}_shape = arith.constant dense<[{dims}]> : "
                     f"tensor<{len(target_shape)}xindex>")

    zp = zero_point_of(case)
    reshaped("x", case["input"]["data"], case["input"]["dtype"], shape)
    reshaped("s", case["scale"]["data"], case["scale"]["dtype"], scale_shape)
    zp_clause = ""
    if zp is not None:
        reshaped("z", zp["data"], zp["dtype"], scale_shape)
        zp_clause = (f" zero_points(%z : "
                     f"{tensor_type(scale_shape, MLIR_TYPES[zp['dtype']])})")
    scale_clause = (f"scales(%s : "
                    f"{tensor_type(scale_shape, MLIR_TYPES[case['scale']['dtype']])})")
    x_type = tensor_type(shape, MLIR_TYPES[case["input"]["dtype"]])
    count = int(np.prod(shape))
    flat_type = lambda element: tensor_type([count], element)  # noqa: E731
    collapse = "[[" + ", ".join(str(d) for d in range(len(shape))) + "]]"
    if case["op"] == "dequantize":
        lines.append(f"  %q = quant_block.pack %x {scale_clause}{zp_clause} : "
                     f"{x_type} -> {qtype}")
        y_type = tensor_type(shape, MLIR_TYPES[expressed])
        lines.append(f"  %y = quant_block.dequantize %q : {qtype} -> {y_type}")
        lines.append(f"  %yf = tensor.collapse_shape %y {collapse} : {y_type} "
                     f"into {flat_type(MLIR_TYPES[expressed])}")
        if expressed == "float32":
            lines.append(f"  %bits = arith.bitcast %yf : {flat_type('f32')} to "
                         f"{flat_type('i32')}")
        else:
            lines.append(f"  %b16 = arith.bitcast %yf : {flat_type('f16')} to "
                         f"{flat_type('i16')}")
            lines.append(f"  %bits = arith.extui %b16 : {flat_type('i16')} to "
                         f"{flat_type('i32')}")
    else:
        lines.append(f"  %q = quant_block.quantize %x {scale_clause}{zp_clause}"
                     f" : {x_type} -> {qtype}")
        parts = [tensor_type(shape, MLIR_TYPES[storage]),
                 tensor_type(scale_shape, MLIR_TYPES[case["scale"]["dtype"]])]
        if is_float_storage(storage):
            zp = None
        if zp is not None:
            parts.append(tensor_type(scale_shape, MLIR_TYPES[zp["dtype"]]))
        names = "%d" + ("".join(f", %p{i}" for i in range(1, len(parts))))
        lines.append(f"  {names} = quant_block.unpack %q : {qtype} -> "
                     f"{', '.join(parts)}")
        storage_type = MLIR_TYPES[storage]
        if is_float_storage(storage):
            signless = f"i{8 if storage_type.startswith('f8') else 4}"
            to_signless = "arith.bitcast"
        else:
            signless = "i" + storage_type.lstrip("ui")
            to_signless = "builtin.unrealized_conversion_cast"
        lines.append(f"  %df = tensor.collapse_shape %d {collapse} : {parts[0]}"
                     f" into {flat_type(storage_type)}")
        # Storage codes widened to i32 (unsigned ones reinterpreted as
        # signless inside the body, where only the LLVM lowering sees them).
        ext = ("extui" if storage_type.startswith("ui") or
               is_float_storage(storage) else "extsi")
        if signless == "i32":
            widen = "%w = arith.addi %c, %zero : i32"
        else:
            widen = f"%w = arith.{ext} %c : {signless} to i32"
        lines.append(f"  %init = tensor.empty() : {flat_type('i32')}")
        lines.append(f"  %bits = linalg.generic {{indexing_maps = ["
                     f"affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], "
                     f"iterator_types = [\"parallel\"]}} ins(%df : "
                     f"{flat_type(storage_type)}) outs(%init : "
                     f"{flat_type('i32')}) {{\n"
                     f"  ^bb0(%a: {storage_type}, %o: i32):\n"
                     f"    %c = {to_signless} %a : "
                     f"{storage_type} to {signless}\n"
                     f"    %zero = arith.constant 0 : i32\n"
                     f"    {widen}\n"
                     f"    linalg.yield %w : i32\n  }} -> {flat_type('i32')}")
    lines.append(f"  %u = tensor.cast %bits : {flat_type('i32')} to "
                 f"tensor<*xi32>")
    lines.append("  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()")
    return (f"func.func @case{index}() {{\n" + "\n".join(lines) +
            "\n  return\n}\n")


def expected_bits(case):
    dtype = case["expected"]["dtype"]
    if is_float_storage(dtype):
        return None, [int(b, 16) for b in case["expected"]["bits"]]
    if dtype in FLOAT_NP:
        array = np.array([float(v) for v in case["expected"]["data"]],
                         dtype=FLOAT_NP[dtype])
        return array, [int(b) for b in array.view(
            np.uint32 if dtype == "float32" else np.uint16)]
    return None, [int(v) for v in case["expected"]["data"]]


def ulp_distance(a_bits, b_bits, dtype):
    """Distance in representable values between two same-sign floats."""
    width = 32 if dtype == "float32" else 16
    def ordered(bits):
        sign = bits >> (width - 1)
        magnitude = bits & ((1 << (width - 1)) - 1)
        return -magnitude if sign else magnitude
    return abs(ordered(a_bits) - ordered(b_bits))


def run_file(quant_opt, runner, lib_dir, path):
    source = "webnn" if os.path.basename(path).startswith("webnn") else "onnx"
    with open(path) as f:
        cases = json.load(f)["cases"]
    functions, emitted, unsupported = [], [], []
    for index, case in enumerate(cases):
        if not case.get("valid", True):
            continue
        try:
            functions.append(emit_case(source, index, case))
            emitted.append((index, case))
        except Unsupported as reason:
            unsupported.append(f"{case['name']} ({reason})")
    calls = "\n".join(f"  func.call @case{i}() : () -> ()" for i, _ in emitted)
    module = ("\n".join(functions) +
              f"func.func @main() {{\n{calls}\n  return\n}}\n"
              "func.func private @printMemrefI32(tensor<*xi32>)\n")
    compiled = subprocess.run([quant_opt, "--quant-block-cpu-pipeline"],
                              input=module, capture_output=True, text=True)
    if compiled.returncode != 0:
        sys.stderr.write(module + compiled.stderr)
        raise SystemExit(f"{path}: compilation failed")
    libs = ",".join(os.path.join(lib_dir, name) for name in
                    ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    # The CPU pipeline's threads call the OpenMP runtime.
    if os.path.exists(os.path.join(lib_dir, "libomp.so")):
        libs += "," + os.path.join(lib_dir, "libomp.so")
    ran = subprocess.run([runner, "-e", "main", "--entry-point-result=void",
                          f"--shared-libs={libs}"], input=compiled.stdout,
                         capture_output=True, text=True)
    if ran.returncode != 0:
        sys.stderr.write(ran.stderr)
        raise SystemExit(f"{path}: execution failed")
    outputs = [re.findall(r"-?\d+", chunk.split("data =", 1)[1])
               for chunk in ran.stdout.split("Unranked Memref")[1:]]
    if len(outputs) != len(emitted):
        raise SystemExit(f"{path}: {len(outputs)} outputs for "
                         f"{len(emitted)} cases")
    passed = exact = failed = 0
    for (index, case), output in zip(emitted, outputs):
        got = [int(v) for v in output]
        _, want = expected_bits(case)
        dtype = case["expected"]["dtype"]
        if dtype in FLOAT_NP:
            # printMemrefI32 prints signed values; the sign of zero is not
            # specified by the sources (expected data writes 0 for -0.0).
            width = 32 if dtype == "float32" else 16
            got = [g & ((1 << width) - 1) for g in got]
            sign_bit = 1 << (width - 1)
            got = [w if g | sign_bit == sign_bit and w | sign_bit == sign_bit
                   else g for g, w in zip(got, want)]
        tolerance = case["tolerance"]
        if is_float_storage(dtype):
            # Narrow float codes: the sources store -0.0 as +0 (compare zero
            # by value).
            width = 8 if dtype.startswith("float8") else 4
            magnitude = (1 << (width - 1)) - 1
            got = [w if g & magnitude == 0 and w & magnitude == 0 else g
                   for g, w in zip(got, want)]
        if len(got) != len(want):
            ok = False
        elif got == want:
            ok = True
            exact += 1
        elif "ulp" in tolerance and dtype in FLOAT_NP:
            if os.environ.get("QUANT_BLOCK_CONFORMANCE_VERBOSE"):
                print(f"within tolerance: {case['name']}: got {got}, "
                      f"expected {want}")
            ok = all(ulp_distance(g, w, dtype) <= tolerance["ulp"]
                     for g, w in zip(got, want))
        elif "ulp" in tolerance:
            ok = all(abs(g - w) <= tolerance["ulp"] for g, w in zip(got, want))
        else:
            ok = False
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {case['name']}: got {got}, expected {want}")
    name = os.path.basename(path)
    print(f"{name}: {passed} passed, {failed} failed ({exact} bit-exact), "
          f"{len(unsupported)} not lowered yet")
    for reason in unsupported:
        print(f"  not lowered yet: {reason}")
    return passed, failed


def main(argv):
    quant_opt, runner, lib_dir = argv[1:4]
    total_passed = total_failed = 0
    for path in argv[4:]:
        passed, failed = run_file(quant_opt, runner, lib_dir, path)
        total_passed += passed
        total_failed += failed
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
