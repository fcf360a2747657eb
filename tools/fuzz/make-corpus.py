#!/usr/bin/env python3
"""Generates the seed corpora of the fuzz targets (docs/Fuzzing.md).

mlir: every `// -----` chunk of the lit tests' .mlir files (test/**), RUN and
CHECK lines left in (they are comments), chunks over the fuzzer's 4 KiB limit
left out. npy: small .npy files of every dtype quant-run reads, of versions
1.0, 2.0 and 3.0, plus a few malformed ones. Files are named by the hash of
their contents, so regenerating is idempotent.
"""

import argparse
import hashlib
import os
import pathlib
import struct

MAX_BYTES = 4096
SEPARATOR = "// -----"


def write(directory, data):
    name = hashlib.sha1(data).hexdigest()
    (directory / name).write_bytes(data)


def mlir_seeds(tests, out):
    count = 0
    for path in sorted(tests.rglob("*.mlir")):
        if "Inputs" in path.parts:
            continue
        chunk = []
        for line in path.read_text(errors="replace").splitlines(True) + [SEPARATOR]:
            if line.strip() == SEPARATOR:
                data = "".join(chunk).encode()
                if data.strip() and len(data) <= MAX_BYTES:
                    write(out, data)
                    count += 1
                chunk = []
            else:
                chunk.append(line)
    return count


def npy_file(descr, shape, data, version=1, fortran=False):
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ")
    if len(shape) != 1:
        shape_text = shape_text.rstrip(",")
    shape_text += ")"
    header = (f"{{'descr': '{descr}', 'fortran_order': {fortran}, "
              f"'shape': {shape_text}, }}")
    preamble = 10 if version == 1 else 12
    padded = (preamble + len(header) + 1 + 63) // 64 * 64
    header = header.ljust(padded - preamble - 1) + "\n"
    length = (struct.pack("<H", len(header)) if version == 1
              else struct.pack("<I", len(header)))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() + data


def npy_seeds(out):
    seeds = []
    for descr, size in [("|b1", 1), ("|i1", 1), ("|u1", 1), ("<i2", 2),
                        ("<u2", 2), ("<i4", 4), ("<u4", 4), ("<i8", 8),
                        ("<u8", 8), ("<f2", 2), ("<f4", 4), ("<f8", 8)]:
        for shape in [(), (3,), (2, 3), (0, 4)]:
            count = 1
            for dim in shape:
                count *= dim
            seeds.append(npy_file(descr, shape, bytes(range(count * size))))
    seeds.append(npy_file("<f4", (2, 2), bytes(16), version=2))
    seeds.append(npy_file("<f4", (2, 2), bytes(16), version=3))
    seeds.append(npy_file("<f4", (2, 2), bytes(16), fortran=True))
    seeds.append(npy_file(">f4", (2,), bytes(8)))
    seeds.append(npy_file("<c8", (2,), bytes(16)))
    seeds.append(npy_file("<f4", (4,), bytes(8)))  # truncated data
    seeds.append(npy_file("<f4", (3,), bytes(12))[:20])  # truncated header
    seeds.append(npy_file("<f4", (2,), bytes(8)).replace(b"(2,)", b"(2L,)"))
    for seed in seeds:
        write(out, seed)
    return len(seeds)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tests", required=True, type=pathlib.Path,
                        help="the lit test directory (test/)")
    parser.add_argument("--mlir", required=True, type=pathlib.Path,
                        help="output directory of the MLIR seeds")
    parser.add_argument("--npy", required=True, type=pathlib.Path,
                        help="output directory of the .npy seeds")
    args = parser.parse_args()
    args.mlir.mkdir(parents=True, exist_ok=True)
    args.npy.mkdir(parents=True, exist_ok=True)
    mlir = mlir_seeds(args.tests, args.mlir)
    npy = npy_seeds(args.npy)
    print(f"seeds: {mlir} MLIR chunks in {args.mlir}, {npy} .npy files in "
          f"{args.npy}")


if __name__ == "__main__":
    main()
