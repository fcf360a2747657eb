"""Writes every case of test/Conformance/vectors/webnn_validation.json as
quant_block IR for `quant-opt --split-input-file --verify-diagnostics`.

Valid cases must verify; each must-reject case carries the diagnostic that
quant_block gives for it. The expected diagnostics are data (EXPECTED below),
keyed by the source's own test title, with where they are reported: on the
scheme (attribute verification) or on the op.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
from quant_block.webnn import Operand, lower  # noqa: E402

# title fragment -> (where, diagnostic fragment)
EXPECTED = {
    "[dequantizeLinear] Throw if the scale size is not a factor of input size.":
        ("op", "scales dimension 2 (size 2) does not match ceil(dimension 2 (size 5) / block 2) = 3"),
    "[dequantizeLinear] Throw if the shape of zero_point is not the same as the shape of input.":
        ("op", "zero_points dimension 2 (size 2) does not match ceil(dimension 2 (size 5) / block 1) = 5"),
    "[dequantizeLinear] Throw if the data type of zeroPoint is not the same as the data type of input.":
        ("op", "zero_points element type 'ui8' does not match the scheme's 'i8'"),
    "[dequantizeLinear] Throw if the data type of input is not one of {int4, uint4, int8, uint8}.":
        ("scheme", "storage type 'f16' is not supported"),
    "[dequantizeLinear] Throw if the data type of zero_point is not one of {int4, uint4, int8, uint8}.":
        ("op", "zero_points element type 'i32' does not match the scheme's 'i8'"),
    "[dequantizeLinear] Throw if the data type of scale is float32.":
        ("scheme", "expressed type 'i32' is not supported"),
    "[quantizeLinear] Throw if the scale size is not a factor of input size.":
        ("op", "scales dimension 0 (size 2) does not match ceil(dimension 0 (size 3) / block 1) = 3"),
    "[quantizeLinear] Throw if the shape of zero_point is not the same as the shape of input.":
        ("op", "zero_points dimension 1 (size 2) does not match ceil(dimension 1 (size 2) / block 2) = 1"),
    "[quantizeLinear] Throw if the data type of input is not the same as scale.":
        ("op", "scales element type 'f16' does not match the scheme's 'f32'"),
    "[quantizeLinear] Throw if the data type of input is not float32 or float16.":
        ("scheme", "expressed type 'i32' is not supported"),
    "[quantizeLinear] Throw if the data type of scale is not float32 or float16.":
        ("op", "scales element type 'i32' does not match the scheme's 'f32'"),
    "[quantizeLinear] Throw if the data type of zeroPoint is not int8 or uint8.":
        ("scheme", "storage type 'f16' is not supported"),
}


def operand(desc):
    return Operand(list(desc["shape"]), desc["dtype"]) if desc else None


def main(path):
    with open(path) as f:
        cases = json.load(f)["cases"]
    chunks = []
    for index, case in enumerate(cases):
        name = f"case{index}_{case['op']}"
        # No name locations: --verify-diagnostics matches a diagnostic to
        # its line only through a file location.
        lowered = lower(case["op"], name, operand(case["input"]),
                        operand(case["scale"]), operand(case["zero_point"]),
                        located=False)
        header = f"// {case['name']}\n"
        alias, function = lowered.scheme_alias, lowered.function
        if not case["valid"]:
            if case["name"] not in EXPECTED:
                sys.exit(f"no expected diagnostic for must-reject case "
                         f"{case['name']!r}")
            where, message = EXPECTED[case["name"]]
            marker = f"// expected-error @+1 {{{{{message}}}}}\n"
            if where == "scheme":
                alias = marker + alias
            else:
                function = re.sub(r"(\n)(  %q = )", r"\1  " +
                                  marker.replace("\\", "\\\\") + r"\2",
                                  function, count=1)
        chunks.append(header + alias + "\n" + function)
    sys.stdout.write("\n// -----\n\n".join(chunks))
    sys.stderr.write(f"{len(cases)} cases, "
                     f"{sum(not c['valid'] for c in cases)} must-reject\n")


if __name__ == "__main__":
    main(sys.argv[1])
