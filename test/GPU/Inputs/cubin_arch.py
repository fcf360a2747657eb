#!/usr/bin/env python3
"""Checks that a file is a CUDA cubin for one chip.

  cubin_arch.py --chip sm_90 FILE

A cubin is an ELF file with e_machine EM_CUDA (190) whose e_flags hold the
SM version in bits 8-15 (0x5a for sm_90, 0x50 for sm_80). Prints
`cubin sm_XY` and fails when the file is PTX text, another ELF or another
chip: gpu.binary strings that merely look right do not pass.
"""

import argparse
import struct
import sys

EM_CUDA = 190


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chip", required=True, help="e.g. sm_90")
    parser.add_argument("file")
    args = parser.parse_args()
    data = open(args.file, "rb").read()
    if len(data) < 52 or data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"error: {args.file} is not a 64-bit ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    if machine != EM_CUDA:
        sys.exit(f"error: {args.file}: e_machine {machine}, not EM_CUDA")
    flags = struct.unpack_from("<I", data, 48)[0]
    chip = f"sm_{(flags >> 8) & 0xff}"
    print(f"cubin {chip}")
    if chip != args.chip:
        sys.exit(f"error: {args.file} is for {chip}, not {args.chip}")


if __name__ == "__main__":
    main()
