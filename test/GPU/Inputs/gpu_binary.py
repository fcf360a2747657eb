#!/usr/bin/env python3
"""Extracts the kernel objects of gpu.binary ops and validates each one.

Reads MLIR text (the output of --quant-block-spirv-pipeline or
--quant-block-nvvm-pipeline), writes the object string of every
#gpu.object of every gpu.binary as raw bytes (SPIR-V words, PTX text) to
<dir>/<binary name><suffix>, and runs each --run command on it, with {}
replaced by the file's path. Fails when there is no gpu.binary or a command
fails; prints one line per object. The tests so validate the very bytes the
runtime would load.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

# An MLIR string literal: printable characters, \\, \" and \XX hex escapes.
STRING = r'"((?:[^"\\]|\\.)*)"'


def unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in '\\"':
            out.append(ord(nxt))
            i += 2
        elif nxt == "n":
            out.append(10)
            i += 2
        elif nxt == "t":
            out.append(9)
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


def objects(text):
    """Yields (binary name, object bytes) for every gpu.binary."""
    for line in text.splitlines():
        match = re.match(r"\s*gpu\.binary @([\w$.]+)\s.*?\[(.*)\]\s*$", line)
        if not match:
            continue
        # The object is the string that ends each #gpu.object<...>: the
        # target attribute before it may hold strings too.
        for obj in re.finditer(STRING + r"\s*>(?=\s*,\s*#gpu\.object|\s*$)",
                               match.group(2)):
            yield match.group(1), unescape(obj.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input", help="MLIR file ('-' for stdin)")
    parser.add_argument("--dir", required=True, help="where to write objects")
    parser.add_argument("--suffix", default=".bin")
    parser.add_argument("--run", action="append", default=[],
                        help="command to run on each object ({} = its path)")
    args = parser.parse_args()
    text = (sys.stdin if args.input == "-" else open(args.input)).read()
    os.makedirs(args.dir, exist_ok=True)
    count = 0
    for name, data in objects(text):
        path = os.path.join(args.dir, f"{name}.{count}{args.suffix}")
        with open(path, "wb") as f:
            f.write(data)
        for command in args.run:
            argv = [path if word == "{}" else word
                    for word in shlex.split(command)]
            result = subprocess.run(argv, capture_output=True, text=True)
            if result.returncode != 0:
                sys.stderr.write(result.stdout + result.stderr)
                sys.exit(f"error: `{' '.join(argv)}` failed on {name}")
        print(f"{name}: {len(data)} bytes, valid")
        count += 1
    if count == 0:
        sys.exit("error: no gpu.binary with an object in the input")
    print(f"validated {count} kernel objects")


if __name__ == "__main__":
    main()
